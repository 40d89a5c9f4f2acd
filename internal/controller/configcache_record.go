package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
func (r *ConfigCacheReconciler) requeueAt(t time.Time) ctrl.Result {
	if t.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(t.Sub(r.clock.Now()), minRequeue)}
}

// maxSpecGets is how many NodeSLOs not vouched for by their digest a
// rollout decision reads one by one; past it, one LIST of every NodeSLO
// whole costs the apiserver less.
const maxSpecGets = 100

// observeNodes lists every Node and its NodeSLO from the manager's caches,
// where NodeSLOs are metadata only: each stands for its spec by the digest
// its SpecDigestAnnotation vouches for, as for the NodeSLO reconciler
// (storedslo). A decision that needs stored specs themselves (a key of cfg
// is Frozen) lists NodeSLOs whole from the apiserver; NodeSLOs whose spec
// is not vouched for (edited by hand, or written by another controller)
// are read whole one by one while they are few, listed whole when they are
// many.
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
	var unvouched []string
	for i := range sloList.Items {
		stored[sloList.Items[i].Name] = &sloList.Items[i]
		if sloconfig.StoredSpecDigest(&sloList.Items[i]) == "" {
			unvouched = append(unvouched, sloList.Items[i].Name)
		}
	}
	// specs holds the stored specs read whole: every one (all), or the
	// unvouched ones only.
	var specs map[string]*slov1alpha1.NodeSLOSpec
	var err error
	all := cfg.ReadsStoredSpec() || len(unvouched) > maxSpecGets
	if all {
		specs, err = r.storedSpecs(ctx)
	} else if len(unvouched) > 0 {
		specs, err = r.storedSpecsOf(ctx, unvouched)
	}
	if err != nil {
		return nil, err
	}
	out := make([]rollout.Observed, len(nodeList.Items))
	for i := range nodeList.Items {
		o := rollout.Observed{Node: sloconfig.NodeOf(&nodeList.Items[i])}
		if slo := stored[o.Node.Name]; slo != nil {
			o.Generation = slo.Generation
			o.WrittenAt = rollout.ParseWrittenAt(slo.Annotations)
			// A NodeSLO deleted since it was listed has neither: the node has none.
			if o.Stored = specs[o.Node.Name]; o.Stored != nil || !all {
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

// storedSpecsOf reads the NodeSLOs of names whole from the apiserver: their
// specs by name, leaving out those deleted since they were listed.
func (r *ConfigCacheReconciler) storedSpecsOf(
	ctx context.Context, names []string,
) (map[string]*slov1alpha1.NodeSLOSpec, error) {
	specs := make(map[string]*slov1alpha1.NodeSLOSpec, len(names))
	for _, name := range names {
		slo := &slov1alpha1.NodeSLO{}
		if err := r.apiReader.Get(ctx, client.ObjectKey{Name: name}, slo); client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("reading NodeSLO %s for the rollout: %w", name, err)
		} else if err == nil {
			specs[name] = &slo.Spec
		}
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
		case r.signals.releasedNodes <- nodeEvent(name):
		case <-ctx.Done():
			return
		}
	}
}
