package controller

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// revertFieldManager names the health gate as who changed the
// configuration in force, in the revision its revert makes.
const revertFieldManager = "nodeslo-health-gate"

// inForce is the configuration a reconcile puts in force for the
// ConfigMap's data (fromData, the configuration its data loads into):
// that one, unless the health gate withholds it (rollout.StandingOf,
// docs/rollout.md#gitops-argo-cd-flux). A configuration the gate halted
// and applied again keeps the configuration in force where it is; a halt
// under onUnhealthy revert puts the previous revision's configuration in
// force. Neither writes the ConfigMap: a GitOps tool that owns its data
// sees no drift, so it has nothing to put back. current is the
// configuration in force before (nil: none yet).
func (r *NodeSLORolloutReconciler) inForce(
	ctx context.Context, read rolloutRead, fromData loaded, current *sloconfig.Config,
) (loaded, error) {
	out := fromData
	out.data = fromData.cfg.Fingerprint()
	if read.rollout.Present {
		s := rollout.StandingOf(read.object.Record, out.data, read.object.Retry)
		var err error
		switch {
		case s.Revert:
			out, err = r.revert(ctx, read, out, s.Halt)
		case s.Hold != "":
			out.cfg, err = r.configOf(ctx, s.Hold, current)
		}
		if err != nil {
			return loaded{}, fmt.Errorf("ConfigMap %s: its data, configuration %s, was halted by the health gate: %w",
				r.key, rollout.ShortTarget(out.data), err)
		}
	}
	out.changed = current == nil || current.Fingerprint() != out.cfg.Fingerprint()
	return out, nil
}

// revert is the health gate's revert of the halted configuration of the
// ConfigMap's data (halt): the revision before the halted one goes in
// force in its place, and goes back to every reached node at once, as a
// new revision made by revertFieldManager. Without an earlier revision,
// or when the halted configuration is itself a revert, it stays halted
// and an Event says why, once for as long as it is in force.
func (r *NodeSLORolloutReconciler) revert(
	ctx context.Context, read rolloutRead, data loaded, halt rollout.Halt,
) (loaded, error) {
	if r.revertRefused == halt.Target {
		return data, nil
	}
	revisions, err := r.listRevisions(ctx)
	if err != nil {
		return loaded{}, err
	}
	halted := rollout.ShortTarget(halt.Target)
	previous, why := rollout.RevertTo(revisions, halt.Target, revertFieldManager)
	if why != "" {
		r.revertRefused = halt.Target
		r.recorder.Eventf(read.cm, nil, corev1.EventTypeWarning, rollout.ReasonReverted, "Revert "+halted,
			"configuration %s is not reverted: %s; the rollout stays halted (resume or retry it, or change the ConfigMap)",
			halted, why)
		return data, nil
	}
	cfg := sloconfig.Load(previous.Data, nil)
	reverts.Inc()
	logf.FromContext(ctx).Info("Health gate reverted the configuration; the ConfigMap's data is not in force",
		"halted", halted, "toRevision", previous.Number)
	r.recorder.Eventf(read.cm, nil, corev1.EventTypeWarning, rollout.ReasonReverted, "Revert "+halted,
		"configuration %s, the ConfigMap's data, halted by its health gate (%s): revision %d's configuration %s "+
			"is in force in its place and goes back to every reached node at once; the ConfigMap is not written, "+
			"its data is not in force until it changes or kubectl nodeslo rollout retry",
		halted, halt.Summary, previous.Number, rollout.ShortTarget(cfg.Fingerprint()))
	return loaded{cfg: cfg, data: data.data, revertOf: halt.Target, changeCause: fmt.Sprintf(
		"health gate of %s: configuration %s halted (%s); revision %d in force in its place, "+
			"the ConfigMap's data is not", read.cm.Name, halted, halt.Summary, previous.Number)}, nil
}

// configOf is the configuration of fingerprint, to keep it in force:
// current when it is that one (the common case: nothing is read), else
// the newest revision that has it (after a restart).
func (r *NodeSLORolloutReconciler) configOf(
	ctx context.Context, fingerprint string, current *sloconfig.Config,
) (*sloconfig.Config, error) {
	if current != nil && current.Fingerprint() == fingerprint {
		return current, nil
	}
	revisions, err := r.listRevisions(ctx)
	if err != nil {
		return nil, err
	}
	for _, rev := range slices.Backward(revisions) {
		if rev.Fingerprint == fingerprint {
			if cfg := sloconfig.Load(rev.Data, nil); cfg.Fingerprint() == fingerprint {
				return cfg, nil
			}
		}
	}
	return nil, fmt.Errorf("the configuration to keep in force in its place, %s, is in no revision "+
		"(kubectl nodeslo rollout history); nothing is published until the ConfigMap changes or "+
		"kubectl nodeslo rollout retry", rollout.ShortTarget(fingerprint))
}

// revertAt is when to decide again for a revert the plan's record asks
// for and that is not carried out yet (zero: none): now, since the
// revert comes with the next decision.
func (r *NodeSLORolloutReconciler) revertAt(read rolloutRead, plan rollout.Plan, cfg loaded, now time.Time) time.Time {
	if !read.rollout.Present {
		return time.Time{}
	}
	record := read.object.Record
	if plan.RecordChange != nil {
		record = plan.RecordChange.Value
	}
	s := rollout.StandingOf(record, cfg.data, read.object.Retry)
	if !s.Revert || r.revertRefused == s.Halt.Target {
		return time.Time{}
	}
	return now
}
