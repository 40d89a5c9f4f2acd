package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiwait "k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// The staged rollout's policy is the spec.strategy of the NodeSLORollout
// of the ConfigMap's name (docs/rollout.md#the-strategy), which the
// manager never creates: the phases that stage a rollout create it, and
// each side of a regime starts without it.

// rolloutObjectKey names the NodeSLORollout.
var rolloutObjectKey = client.ObjectKey{Namespace: configNamespace, Name: configName}

// setRollout makes the NodeSLORollout's spec hold strategy (the JSON of
// spec.strategy, read strictly; "": none) and paused, in one write,
// creating it when missing; resume and retry are left as they are.
func (b *bench) setRollout(ctx context.Context, strategy string, paused bool) error {
	var s *nodeslov1alpha1.RolloutStrategy
	if strategy != "" {
		s = &nodeslov1alpha1.RolloutStrategy{}
		decoder := json.NewDecoder(bytes.NewReader([]byte(strategy)))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(s); err != nil {
			return fmt.Errorf("the bench's strategy %s: %w", strategy, err)
		}
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		obj := &nodeslov1alpha1.NodeSLORollout{}
		err := b.client.Get(ctx, rolloutObjectKey, obj)
		switch {
		case apierrors.IsNotFound(err):
			obj.Namespace, obj.Name = rolloutObjectKey.Namespace, rolloutObjectKey.Name
			obj.Spec.Strategy, obj.Spec.Paused = s, paused
			return b.client.Create(ctx, obj)
		case err != nil:
			return err
		}
		obj.Spec.Strategy, obj.Spec.Paused = s, paused
		return b.client.Update(ctx, obj)
	})
	if err != nil {
		return fmt.Errorf("writing NodeSLORollout %s: %w", rolloutObjectKey, err)
	}
	return nil
}

// waitRolloutTakenUp waits until the manager decided on the
// NodeSLORollout's spec as it is (status.observedGeneration) and on the
// ConfigMap as it is (status.observedConfigMapVersion): a write of the
// other object after it is then seen after it. The ConfigMap and the
// NodeSLORollout are two objects, which the manager's cache may otherwise
// see in either order.
func (b *bench) waitRolloutTakenUp(ctx context.Context, timeout time.Duration) error {
	cm := &corev1.ConfigMap{}
	if err := b.client.Get(ctx, rolloutObjectKey, cm); err != nil {
		return fmt.Errorf("reading the ConfigMap: %w", err)
	}
	var last nodeslov1alpha1.NodeSLORolloutStatus
	var generation int64
	err := apiwait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		obj := &nodeslov1alpha1.NodeSLORollout{}
		if err := b.client.Get(ctx, rolloutObjectKey, obj); err != nil {
			return false, fmt.Errorf("reading NodeSLORollout %s: %w", rolloutObjectKey, err)
		}
		last, generation = obj.Status, obj.Generation
		return obj.Status.ObservedGeneration == obj.Generation &&
			obj.Status.ObservedConfigMapVersion == cm.ResourceVersion, nil
	})
	if err != nil {
		return fmt.Errorf("the manager did not take up NodeSLORollout %s (generation %d, ConfigMap version %s) "+
			"within %s: its status observed generation %d, ConfigMap version %q: %w", rolloutObjectKey, generation,
			cm.ResourceVersion, timeout, last.ObservedGeneration, last.ObservedConfigMapVersion, err)
	}
	return nil
}

// deleteRollout deletes the NodeSLORollout, its strategy and its record of
// the rollouts with it, and waits until it is gone.
func (b *bench) deleteRollout(ctx context.Context) error {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	obj.Namespace, obj.Name = rolloutObjectKey.Namespace, rolloutObjectKey.Name
	if err := client.IgnoreNotFound(b.client.Delete(ctx, obj)); err != nil {
		return fmt.Errorf("deleting NodeSLORollout %s: %w", rolloutObjectKey, err)
	}
	return apiwait.PollUntilContextTimeout(ctx, pollInterval, time.Minute, true, func(ctx context.Context) (bool, error) {
		err := b.client.Get(ctx, rolloutObjectKey, &nodeslov1alpha1.NodeSLORollout{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
