package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// rolloutDriver drives the staged rollout the ConfigMap asks for
// (docs/rollout.md): each reconcile of the config-cache controller has it
// plan the next decision (internal/rollout decides, without a client),
// keep the rollout's record on the ConfigMap, the revision history and the
// status on the revision in force (rollout_history.go), and say what is in
// force while the health gate withholds the ConfigMap's data, a revert
// included (rollout_revert.go). The config-cache controller's
// one worker is its only caller, so its fields need no lock: they are what
// the last decision left for the next (memory), and what was last written,
// so that nothing is written twice.
type rolloutDriver struct {
	// client lists Nodes and NodeSLOs from the cache and writes the record
	// and the history; apiReader reads past the cache.
	client    client.Client
	apiReader client.Reader
	// stored reads what is stored for every node (the NodeSLO reconciler's Store).
	stored   *storedslo.Store
	key      types.NamespacedName
	recorder events.EventRecorder
	clock    clock.Clock
	// releasedNodes carries the nodes a decision released to the NodeSLO controller.
	releasedNodes chan<- event.GenericEvent
	// health watches the nodes while a rollout key's health gate judges a
	// rollout (docs/rollout.md#health-gates).
	health *healthWatch
	// metrics runs the health gate's metric queries beside the decision.
	metrics *metricMeasurer

	// memory is what the last decision left for the next.
	memory rollout.Memory
	// history is the revision in force as last written; a configuration
	// not yet recorded (a failed write) is never skipped.
	history revisionInForce
	// orphan keeps the rollout while the ConfigMap does not exist
	// (docs/rollout.md#the-configmap-deleted): the rollout key it had, and
	// the record that has no ConfigMap to live on.
	orphan orphanRollout
	// revertRefused is the configuration whose revert was refused (and said so) last.
	revertRefused string
}

// recordFieldManager owns the record annotation in the ConfigMap's
// managedFields: a name of its own, so that the revision history never
// takes the controller's record writes for a change of the data.
const recordFieldManager = "nodeslo-controller"

// plan plans the staged rollout (internal/rollout) over every node,
// from the manager's caches, when the ConfigMap asks for one; the one place
// where a rollout decision is taken (docs/rollout-design.md#where-the-decision-runs).
func (d *rolloutDriver) plan(
	ctx context.Context, read configMapRead, with loaded, dropped []string, now time.Time,
) (rollout.Plan, error) {
	cfg := with.cfg
	record, hasRecord := d.recordOf(read)
	in := rollout.PlanInput{
		Rollout: read.rollout, Record: record, HasRecord: hasRecord, Config: cfg, Now: now.Round(0),
		Dropped: dropped, RolloutKey: rollout.KeyFingerprint(read.rolloutKey),
		Data: with.data, RevertOf: with.revertOf, Retry: read.cm.Annotations[rollout.RetryAnnotation],
	}
	if d.history.fingerprint == cfg.Fingerprint() {
		in.Revision = d.history.number
	}
	if rollout.NeedsNodes(in.Rollout) {
		nodes, err := d.observeNodes(ctx, cfg)
		if err != nil {
			return rollout.Plan{}, err
		}
		in.Nodes = nodes
	}
	var queries []rollout.MetricQuery
	if rollout.GateWatches(in.Rollout, record, cfg.Fingerprint(), in.RevertOf, in.Now) {
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

// recordOf is the rollout record's annotation value, and whether there
// is one: the ConfigMap's, or the one kept in memory for a ConfigMap
// deleted, or deleted and created again (rollout_orphan.go).
func (d *rolloutDriver) recordOf(read configMapRead) (string, bool) {
	record, hasRecord := read.cm.Annotations[rollout.RecordAnnotation]
	if !hasRecord && d.orphan.record != "" {
		return d.orphan.record, true
	}
	return record, hasRecord
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
		}
		out[i] = o
	}
	return out, nil
}

// persistRecord writes the plan's record change on the ConfigMap, with an
// optimistic lock so that a record is never written over a ConfigMap the
// plan did not see. It returns the plan to publish: the plan itself, or,
// when the write failed, its Unpersisted form.
func (d *rolloutDriver) persistRecord(
	ctx context.Context, cm *corev1.ConfigMap, plan rollout.Plan,
) (rollout.Plan, error) {
	change := plan.RecordChange
	if change == nil {
		return plan, nil
	}
	if cm.UID == "" {
		// No ConfigMap to keep the record on: it is kept in memory.
		d.orphan.record = change.Value
		return plan, nil
	}
	d.orphan.record = ""
	before := cm.DeepCopy()
	if change.Remove {
		delete(cm.Annotations, rollout.RecordAnnotation)
	} else {
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[rollout.RecordAnnotation] = change.Value
	}
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	if err := d.client.Patch(ctx, cm, patch, client.FieldOwner(recordFieldManager)); err != nil {
		return plan.Unpersisted(), fmt.Errorf("writing the rollout record on ConfigMap %s: %w", d.key, err)
	}
	plan.RecordWritten(cm.ResourceVersion)
	return plan, nil
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
