package webhook

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// SetupWithManager registers the validator for the ConfigMap key on mgr's
// webhook server. It also registers the Node metadata informer in mgr's
// cache, so that it starts with the cache on every replica (the NodeSLO
// controller, which otherwise starts it, runs on the leader only) and is
// synced by the first request. limits reads what the manager allows the
// rollout key's metric checks, checked as the controller checks them.
func SetupWithManager(mgr ctrl.Manager, key types.NamespacedName, limits func() rollout.Limits) error {
	node := sloconfig.NodeMetadata()
	// Before the manager starts, this registers the informer without waiting.
	if _, err := mgr.GetCache().GetInformer(context.Background(), node); err != nil {
		return fmt.Errorf("registering the Node metadata informer: %w", err)
	}
	validator := &ConfigMapValidator{Key: key, Nodes: mgr.GetCache(), Writer: mgr.GetClient(), Limits: limits}
	if err := ctrl.NewWebhookManagedBy(mgr, &corev1.ConfigMap{}).WithValidator(validator).
		WithContextFunc(withAnswerDeadline).Complete(); err != nil {
		return fmt.Errorf("setting up the ConfigMap webhook: %w", err)
	}
	return nil
}
