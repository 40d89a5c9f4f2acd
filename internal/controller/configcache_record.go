package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The config-cache controller's reads and writes for a staged rollout:
// internal/rollout decides without a client, these carry its plan out.

// recordFieldManager owns the record annotation in the ConfigMap's
// managedFields: a name of its own, so that the revision history never
// takes the controller's record writes for a change of the data.
const recordFieldManager = "nodeslo-controller"

// minRequeue keeps a next step already due from spinning the queue.
const minRequeue = 100 * time.Millisecond

// requeueAt asks to reconcile again at t (zero: no timed reconcile).
func requeueAt(t time.Time) ctrl.Result {
	if t.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(time.Until(t), minRequeue)}
}

// observeNodes lists every Node and its NodeSLO from the manager's caches.
func (r *ConfigCacheReconciler) observeNodes(ctx context.Context) ([]rollout.Observed, error) {
	nodeList := sloconfig.NodeMetadataList()
	if err := r.client.List(ctx, nodeList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes for the rollout: %w", err)
	}
	sloList := &slov1alpha1.NodeSLOList{}
	if err := r.client.List(ctx, sloList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodeSLOs for the rollout: %w", err)
	}
	stored := make(map[string]*slov1alpha1.NodeSLO, len(sloList.Items))
	for i := range sloList.Items {
		stored[sloList.Items[i].Name] = &sloList.Items[i]
	}
	out := make([]rollout.Observed, len(nodeList.Items))
	for i := range nodeList.Items {
		o := rollout.Observed{Node: sloconfig.NodeOf(&nodeList.Items[i])}
		if slo := stored[o.Node.Name]; slo != nil {
			o.Stored, o.Generation = &slo.Spec, slo.Generation
			o.WrittenAt = rollout.ParseWrittenAt(slo.Annotations)
		}
		out[i] = o
	}
	return out, nil
}

// persistRecord writes the plan's record change on the ConfigMap, with an
// optimistic lock so that a record is never written over a ConfigMap the
// plan did not see. It returns the plan to publish: the plan itself, or,
// when the write failed, its Unpersisted form.
func (r *ConfigCacheReconciler) persistRecord(
	ctx context.Context, cm *corev1.ConfigMap, plan rollout.Plan,
) (rollout.Plan, error) {
	change := plan.RecordChange
	if change == nil {
		return plan, nil
	}
	if cm.UID == "" {
		// No ConfigMap to keep the record on: it is kept in memory.
		r.orphan.record = change.Value
		return plan, nil
	}
	r.orphan.record = ""
	before := cm.DeepCopy()
	if change.Remove {
		delete(cm.Annotations, rollout.RecordAnnotation)
	} else {
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[rollout.RecordAnnotation] = change.Value
	}
	previous := cm.ResourceVersion
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	if err := r.client.Patch(ctx, cm, patch, client.FieldOwner(recordFieldManager)); err != nil {
		return plan.Unpersisted(), fmt.Errorf("writing the rollout record on ConfigMap %s: %w", r.key, err)
	}
	plan.RecordWritten(cm.ResourceVersion)
	if r.loadedVersion == previous {
		// Only the annotation changed: the configuration loaded still stands.
		r.loadedVersion = cm.ResourceVersion
	}
	return plan, nil
}

// enqueueReleased asks the NodeSLO controller to write the nodes a plan
// released; the gate published before no longer holds them.
func (r *ConfigCacheReconciler) enqueueReleased(ctx context.Context, names []string) {
	for _, name := range names {
		select {
		case r.reached <- event.GenericEvent{Object: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}}}:
		case <-ctx.Done():
			return
		}
	}
}
