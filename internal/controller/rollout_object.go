package controller

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// The NodeSLORollout of the ConfigMap's name (docs/rollout.md#the-nodeslorollout)
// holds what the rollout needs across restarts, its record, and what
// people and tools read of it, its status; its spec holds the operator's
// controls. The controller creates it, reads it from the cache and
// patches its status once a reconcile; it never writes the spec, and
// never writes the ConfigMap.

// rolloutObject is the NodeSLORollout as a reconcile sees it.
type rolloutObject struct {
	// obj is the object (nil: there is none yet).
	obj *nodeslov1alpha1.NodeSLORollout
	rollout.Controls
}

// readRolloutObject reads the NodeSLORollout from the cache, or, when the
// cache has not yet seen the status this controller wrote last, that
// status: a record older than our own write must never be decided on.
// After a status write refused with a conflict it reads the apiserver
// instead, until a write succeeds: the cache's watch may be down long
// after an outage (client-go backs its reconnection off, up to 30 s), and
// every write at the resourceVersion it shows would be refused meanwhile,
// holding the rollout's next step (docs/behaviour.md#faults).
func (r *NodeSLORolloutReconciler) readRolloutObject(ctx context.Context) (rolloutObject, error) {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	var err error
	if r.conflicted {
		obj, err = r.readLiveRolloutObject(ctx)
	} else if err = r.client.Get(ctx, r.key, obj); apierrors.IsNotFound(err) {
		obj, err = nil, nil
	}
	if err != nil {
		return rolloutObject{}, fmt.Errorf("reading NodeSLORollout %s: %w", r.key, err)
	}
	if w := r.written; w != nil && obj != nil && w.UID == obj.UID && w.Generation == obj.Generation {
		obj = w.DeepCopy() // the cache may not have our last status yet; the spec is the same
	}
	return rolloutObject{obj: obj, Controls: rollout.ControlsOf(obj)}, nil
}

// readLiveRolloutObject reads the NodeSLORollout from the apiserver (nil:
// there is none), listed by name: the manager may list and watch that one
// object, not get it.
func (r *NodeSLORolloutReconciler) readLiveRolloutObject(ctx context.Context) (*nodeslov1alpha1.NodeSLORollout, error) {
	list := &nodeslov1alpha1.NodeSLORolloutList{}
	if err := r.apiReader.List(ctx, list, client.InNamespace(r.key.Namespace),
		client.MatchingFields{"metadata.name": r.key.Name}); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	return &list.Items[0], nil
}

// observed reports whether the NodeSLORollout's status was decided on its
// spec as it is and on the ConfigMap's version (""; none).
func (o rolloutObject) observed(version string) bool {
	return o.obj != nil && o.obj.Status.ObservedGeneration == o.obj.Generation &&
		o.obj.Status.ObservedConfigMapVersion == version
}

// writeStatus makes the NodeSLORollout's status say what the plan decided
// (nothing without a NodeSLORollout: its operator creates it): the record, the status
// and its conditions, the revision in force and what was observed, in one
// patch at the resourceVersion read, written only when something but the
// time changed. It returns the plan to publish: the plan itself, or, when
// the record could not be written, its Unpersisted form.
func (r *NodeSLORolloutReconciler) writeStatus(
	ctx context.Context, read rolloutRead, plan rollout.Plan, revision int64, now time.Time,
) (rollout.Plan, error) {
	obj := read.object.obj
	if obj == nil {
		return plan, nil
	}
	want := plan.APIStatus(obj.Status, read.object.Controls,
		rollout.ObservedBy{Generation: obj.Generation, ConfigMapVersion: read.version, Revision: revision}, now)
	if err := r.patchStatus(ctx, obj, want); err != nil {
		return plan.Unpersisted(), fmt.Errorf("writing the status of NodeSLORollout %s: %w", r.key, err)
	}
	return plan, nil
}

// patchStatus writes want as obj's status, when it differs in more than
// the time, in one patch at the resourceVersion read, and keeps what was
// written for the next read (written); on an error it is read again, from
// the apiserver after a conflict (readRolloutObject).
func (r *NodeSLORolloutReconciler) patchStatus(
	ctx context.Context, obj *nodeslov1alpha1.NodeSLORollout, want nodeslov1alpha1.NodeSLORolloutStatus,
) error {
	if !rollout.StatusChanged(obj.Status, want) {
		return nil
	}
	before := obj.DeepCopy()
	obj.Status = want
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	if err := r.client.Status().Patch(ctx, obj, patch); err != nil {
		r.written = nil // read it again
		r.conflicted = r.conflicted || apierrors.IsConflict(err)
		return err
	}
	r.written, r.conflicted = obj, false
	return nil
}

// reportPlanFailure makes the NodeSLORollout's conditions say that the plan
// of configuration failed with err (rollout.SetPlanFailedConditions), the
// rest of its status as decided last, so that kubectl wait, kstatus and
// Argo CD see the failure, not the last decision as if it stood. Nothing
// is written without a NodeSLORollout, or when the conditions already say so.
func (r *NodeSLORolloutReconciler) reportPlanFailure(
	ctx context.Context, read rolloutRead, configuration string, planErr error, now time.Time,
) error {
	obj := read.object.obj
	if obj == nil {
		return nil
	}
	want := obj.Status.DeepCopy()
	rollout.SetPlanFailedConditions(&want.Conditions, configuration, planErr, obj.Generation, now)
	if err := r.patchStatus(ctx, obj, *want); err != nil {
		return fmt.Errorf("writing the failed plan into the status of NodeSLORollout %s: %w", r.key, err)
	}
	return nil
}
