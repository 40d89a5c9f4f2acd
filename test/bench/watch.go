package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
)

// watch runs an informer of obj's kind (a PartialObjectMetadata for
// metadata only), without managedFields, until ctx ends, with handler (nil
// for none), and returns once it synced. who names the watcher in errors.
func watch(ctx context.Context, cfg *rest.Config, who string, obj client.Object,
	handler toolscache.ResourceEventHandler) error {
	c, err := cache.New(cfg, cache.Options{
		Scheme:           scheme.New(),
		DefaultTransform: cache.TransformStripManagedFields(),
	})
	if err != nil {
		return fmt.Errorf("creating the %s's cache: %w", who, err)
	}
	informer, err := c.GetInformer(ctx, obj)
	if err != nil {
		return fmt.Errorf("creating the %s's informer: %w", who, err)
	}
	if handler != nil {
		if _, err := informer.AddEventHandler(handler); err != nil {
			return fmt.Errorf("the %s's event handler: %w", who, err)
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("the %s's cache did not sync", who)
	}
	return nil
}
