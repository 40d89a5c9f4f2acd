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

// observeNodes lists every Node and its NodeSLO from the manager's caches,
// where NodeSLOs are metadata only: each stands for its spec by the digest
// its SpecDigestAnnotation vouches for. When a decision needs stored specs
// themselves (a key of cfg is Frozen, the CRD drops fields, or some NodeSLO's
// spec is not vouched for, e.g. edited by hand), NodeSLOs are listed whole
// from the apiserver.
func (r *ConfigCacheReconciler) observeNodes(ctx context.Context, cfg *sloconfig.Config) ([]rollout.Observed, error) {
	nodeList := sloconfig.NodeMetadataList()
	if err := r.client.List(ctx, nodeList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes for the rollout: %w", err)
	}
	sloList := sloconfig.NodeSLOMetadataList()
	if err := r.client.List(ctx, sloList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodeSLOs for the rollout: %w", err)
	}
	stored := make(map[string]*metav1.PartialObjectMetadata, len(sloList.Items))
	whole := cfg.ReadsStoredSpec() || len(r.skew.Dropped()) > 0
	for i := range sloList.Items {
		stored[sloList.Items[i].Name] = &sloList.Items[i]
		whole = whole || sloconfig.StoredSpecDigest(&sloList.Items[i]) == ""
	}
	var specs map[string]*slov1alpha1.NodeSLOSpec
	if whole {
		var err error
		if specs, err = r.storedSpecs(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]rollout.Observed, len(nodeList.Items))
	for i := range nodeList.Items {
		o := rollout.Observed{Node: sloconfig.NodeOf(&nodeList.Items[i])}
		if slo := stored[o.Node.Name]; slo != nil {
			o.Generation = slo.Generation
			o.WrittenAt = rollout.ParseWrittenAt(slo.Annotations)
			if whole {
				o.Stored = specs[o.Node.Name]
			} else {
				o.StoredDigest = sloconfig.StoredSpecDigest(slo)
			}
		}
		out[i] = o
	}
	return out, nil
}

// storedSpecs lists every NodeSLO whole from the apiserver: their specs by name.
func (r *ConfigCacheReconciler) storedSpecs(ctx context.Context) (map[string]*slov1alpha1.NodeSLOSpec, error) {
	list := &slov1alpha1.NodeSLOList{}
	if err := r.apiReader.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing NodeSLOs for the rollout: %w", err)
	}
	specs := make(map[string]*slov1alpha1.NodeSLOSpec, len(list.Items))
	for i := range list.Items {
		specs[list.Items[i].Name] = &list.Items[i].Spec
	}
	return specs, nil
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
