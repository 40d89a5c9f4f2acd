package controller

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// plan plans the staged rollout (internal/rollout) over every node,
// from the manager's caches, when the ConfigMap asks for one; the one place
// where a rollout decision is taken (docs/rollout-design.md#where-the-decision-runs).
func (r *NodeSLORolloutReconciler) plan(
	ctx context.Context, read rolloutRead, with loaded, current *sloconfig.Config, dropped []string, now time.Time,
) (rollout.Plan, error) {
	cfg, object := with.cfg, read.object
	in := rollout.PlanInput{
		Rollout: read.rollout, Record: object.Record, HasRecord: object.HasRecord, Config: cfg, Now: now.Round(0),
		Dropped: dropped, RolloutKey: rollout.KeyFingerprint(read.rollout.Raw),
		Data: with.data, RevertOf: with.revertOf, Retry: object.Retry, Resume: object.Resume,
		Revision: r.revisionOf(cfg),
	}
	if rollout.NeedsNodes(in.Rollout) {
		nodes, err := r.observeNodes(ctx, cfg)
		if err != nil {
			return rollout.Plan{}, err
		}
		in.Nodes = nodes
		if r.historyNumbers == nil {
			// Not listed since the manager started: without it, no held
			// node's configuration in force would be known until the next
			// decision.
			revisions, err := r.listRevisions(ctx)
			if err != nil {
				return rollout.Plan{}, err
			}
			r.keepHistoryConfigs(revisions)
		}
		in.Before, in.Numbers = rollout.ConfigsBefore(cfg, current, r.historyConfigs), r.historyNumbers
	}
	var queries []rollout.MetricQuery
	if rollout.GateWatches(in.Rollout, in.Record, cfg.Fingerprint(), in.RevertOf, in.Now) {
		health, err := r.health.observe(ctx, in.Rollout.Policy.HealthGate)
		if err != nil {
			return rollout.Plan{}, err
		}
		in.Health = health
		// The samples of the queries ended since the last plan are judged
		// now; the queries due now start after the decision (metric_measurer.go).
		in.MetricSamples = r.metrics.take(metricScope(&in))
		if queries, err = r.memory.MetricQueries(in); err != nil {
			return rollout.Plan{}, err
		}
	} else {
		r.health.stop()
		r.metrics.stop()
	}
	plan := r.memory.Plan(in)
	if plan.Figures != nil && plan.Figures.Halted {
		r.metrics.stop()
	} else {
		r.metrics.start(metricScope(&in), queries)
	}
	if plan.RecordProblem != nil {
		logf.FromContext(ctx).Info("Cannot read the rollout record; starting the rollout again",
			"error", plan.RecordProblem.Error())
	}
	return plan, nil
}

// revisionOf is the number of cfg's revision (0: not recorded yet).
func (r *NodeSLORolloutReconciler) revisionOf(cfg *sloconfig.Config) int64 {
	if r.history.fingerprint == cfg.Fingerprint() {
		return r.history.number
	}
	return 0
}

// observeNodes lists every Node from the manager's cache and what is
// stored for each (storedslo.Store.List: NodeSLOs stand for their specs by
// the digest their annotation vouches for, read whole where it does not,
// or all of them when a key of cfg is Frozen).
func (r *NodeSLORolloutReconciler) observeNodes(
	ctx context.Context, cfg *sloconfig.Config,
) ([]rollout.Observed, error) {
	nodeList := sloconfig.NodeMetadataList()
	if err := r.client.List(ctx, nodeList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes for the rollout: %w", err)
	}
	stored, err := r.stored.List(ctx, r.client, cfg.ReadsStoredSpec())
	if err != nil {
		return nil, fmt.Errorf("reading NodeSLOs for the rollout: %w", err)
	}
	out := make([]rollout.Observed, len(nodeList.Items))
	for i := range nodeList.Items {
		o := rollout.Observed{Node: sloconfig.NodeOf(&nodeList.Items[i])}
		if slo := stored[o.Node.Name]; slo != nil {
			o.Stored, o.StoredDigest, o.WrittenAt = slo.Spec(), slo.Digest(), slo.WrittenAt()
			o.From, o.Under = slo.From()
		}
		out[i] = o
	}
	return out, nil
}

// enqueueReleased asks the NodeSLO controller to write the nodes a plan
// released; the gate published before no longer holds them.
func (r *NodeSLORolloutReconciler) enqueueReleased(ctx context.Context, names []string) {
	for _, name := range names {
		select {
		case r.signals.releasedNodes <- nodeEvent(name):
		case <-ctx.Done():
			return
		}
	}
}
