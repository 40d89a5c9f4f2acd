package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// rolloutDriver drives the staged rollout the ConfigMap asks for
// (docs/rollout.md): each reconcile of the config-cache controller has it
// plan the next decision (internal/rollout decides, without a client),
// write the decision's record and status on the NodeSLORollout
// (rollout_object.go), keep the revision history (rollout_history.go), and
// say what is in force while the health gate withholds the ConfigMap's
// data, a revert included (rollout_revert.go). The config-cache
// controller's one worker is its only caller, so its fields need no lock:
// they are what the last decision left for the next (memory), and what was
// last written, so that nothing is written twice.
type rolloutDriver struct {
	// client reads Nodes, NodeSLOs and the NodeSLORollout from the cache
	// and writes the NodeSLORollout and the history; apiReader reads the
	// history and the ConfigMap's managedFields past the cache.
	client    client.Client
	apiReader client.Reader
	// stored reads what is stored for every node (the NodeSLO reconciler's Store).
	stored   *storedslo.Store
	key      types.NamespacedName
	recorder events.EventRecorder
	clock    clock.Clock
	// releasedNodes carries the nodes a decision released to the NodeSLO controller.
	releasedNodes chan<- event.GenericEvent
	// health watches the nodes while a strategy's health gate judges a
	// rollout (docs/rollout.md#health-gates).
	health *healthWatch
	// metrics runs the health gate's metric queries beside the decision.
	metrics *metricMeasurer

	// memory is what the last decision left for the next.
	memory rollout.Memory
	// history is the revision in force as last written; a configuration
	// not yet recorded (a failed write) is never skipped.
	history revisionInForce
	// historyConfigs are the configurations of the revision history as
	// last listed, newest first: a held node stays on the one in force for
	// it (rollout.PlanInput.Before).
	historyConfigs []*sloconfig.Config
	// historyNumbers has, by fingerprint, the number of each one's newest
	// revision (rollout.PlanInput.Numbers; nil: not listed yet).
	historyNumbers map[string]int64
	// written is the NodeSLORollout as our last status write returned it,
	// until the cache shows it (rollout_object.go).
	written *nodeslov1alpha1.NodeSLORollout
	// revertRefused is the configuration whose revert was refused (and said so) last.
	revertRefused string
}

// recordFieldManager is the field manager of the rollout record's
// annotation on the ConfigMap in versions before the NodeSLORollout: the
// revision history still never takes it for who changed the data.
const recordFieldManager = "nodeslo-controller"

// plan plans the staged rollout (internal/rollout) over every node,
// from the manager's caches, when the ConfigMap asks for one; the one place
// where a rollout decision is taken (docs/rollout-design.md#where-the-decision-runs).
func (d *rolloutDriver) plan(
	ctx context.Context, read configMapRead, with loaded, current *sloconfig.Config, dropped []string, now time.Time,
) (rollout.Plan, error) {
	cfg, object := with.cfg, read.object
	in := rollout.PlanInput{
		Rollout: read.rollout, Record: object.Record, HasRecord: object.HasRecord, Config: cfg, Now: now.Round(0),
		Dropped: dropped, RolloutKey: rollout.KeyFingerprint(read.rolloutKey),
		Data: with.data, RevertOf: with.revertOf, Retry: object.Retry, Resume: object.Resume,
		Revision: d.revisionOf(cfg),
	}
	if rollout.NeedsNodes(in.Rollout) {
		nodes, err := d.observeNodes(ctx, cfg)
		if err != nil {
			return rollout.Plan{}, err
		}
		in.Nodes = nodes
		if d.historyNumbers == nil {
			// Not listed since the manager started: without it, no held
			// node's configuration in force would be known until the next
			// decision.
			revisions, err := d.listRevisions(ctx)
			if err != nil {
				return rollout.Plan{}, err
			}
			d.keepHistoryConfigs(revisions)
		}
		in.Before, in.Numbers = rollout.ConfigsBefore(cfg, current, d.historyConfigs), d.historyNumbers
	}
	var queries []rollout.MetricQuery
	if rollout.GateWatches(in.Rollout, in.Record, cfg.Fingerprint(), in.RevertOf, in.Now) {
		health, err := d.health.observe(ctx, in.Rollout.Policy.HealthGate)
		if err != nil {
			return rollout.Plan{}, err
		}
		in.Health = health
		// The samples of the queries ended since the last plan are judged
		// now; the queries due now start after the decision (metric_measurer.go).
		in.MetricSamples = d.metrics.take(metricScope(&in))
		if queries, err = d.memory.MetricQueries(in); err != nil {
			return rollout.Plan{}, err
		}
	} else {
		d.health.stop()
		d.metrics.stop()
	}
	plan := d.memory.Plan(in)
	if plan.Figures != nil && plan.Figures.Halted {
		d.metrics.stop()
	} else {
		d.metrics.start(metricScope(&in), queries)
	}
	if plan.RecordProblem != nil {
		logf.FromContext(ctx).Info("Cannot read the rollout record; starting the rollout again",
			"error", plan.RecordProblem.Error())
	}
	return plan, nil
}

// revisionOf is the number of cfg's revision (0: not recorded yet).
func (d *rolloutDriver) revisionOf(cfg *sloconfig.Config) int64 {
	if d.history.fingerprint == cfg.Fingerprint() {
		return d.history.number
	}
	return 0
}

// observeNodes lists every Node from the manager's cache and what is
// stored for each (storedslo.Store.List: NodeSLOs stand for their specs by
// the digest their annotation vouches for, read whole where it does not,
// or all of them when a key of cfg is Frozen).
func (d *rolloutDriver) observeNodes(ctx context.Context, cfg *sloconfig.Config) ([]rollout.Observed, error) {
	nodeList := sloconfig.NodeMetadataList()
	if err := d.client.List(ctx, nodeList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes for the rollout: %w", err)
	}
	stored, err := d.stored.List(ctx, d.client, cfg.ReadsStoredSpec())
	if err != nil {
		return nil, fmt.Errorf("reading NodeSLOs for the rollout: %w", err)
	}
	out := make([]rollout.Observed, len(nodeList.Items))
	for i := range nodeList.Items {
		o := rollout.Observed{Node: sloconfig.NodeOf(&nodeList.Items[i])}
		if slo := stored[o.Node.Name]; slo != nil {
			o.Stored, o.StoredDigest, o.Generation, o.WrittenAt = slo.Spec(), slo.Digest(), slo.Generation(), slo.WrittenAt()
			o.From, o.Under = slo.From()
		}
		out[i] = o
	}
	return out, nil
}

// enqueueReleased asks the NodeSLO controller to write the nodes a plan
// released; the gate published before no longer holds them.
func (d *rolloutDriver) enqueueReleased(ctx context.Context, names []string) {
	for _, name := range names {
		select {
		case d.releasedNodes <- nodeEvent(name):
		case <-ctx.Done():
			return
		}
	}
}
