package webhook

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// SetupWithManager registers the validators of the ConfigMap and of the
// NodeSLORollout's strategy on mgr's webhook server. It also registers the Node metadata informer in mgr's
// cache, so that it starts with the cache on every replica (the NodeSLO
// controller, which otherwise starts it, runs on the leader only) and is
// synced by the first request. limits reads what the manager allows a
// strategy's metric checks, checked as the controller checks them.
func SetupWithManager(mgr ctrl.Manager, key types.NamespacedName, limits func() rollout.Limits) error {
	node := sloconfig.NodeMetadata()
	// Before the manager starts, this registers the informer without waiting.
	if _, err := mgr.GetCache().GetInformer(context.Background(), node); err != nil {
		return fmt.Errorf("registering the Node metadata informer: %w", err)
	}
	validator := &ConfigMapValidator{Key: key, Nodes: mgr.GetCache(), Writer: mgr.GetClient()}
	if err := ctrl.NewWebhookManagedBy(mgr, &corev1.ConfigMap{}).WithValidator(validator).
		WithContextFunc(withAnswerDeadline).Complete(); err != nil {
		return fmt.Errorf("setting up the ConfigMap webhook: %w", err)
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &nodeslov1alpha1.NodeSLORollout{}).
		WithValidator(&RolloutValidator{Limits: limits}).WithContextFunc(withAnswerDeadline).Complete(); err != nil {
		return fmt.Errorf("setting up the NodeSLORollout webhook: %w", err)
	}
	return nil
}
