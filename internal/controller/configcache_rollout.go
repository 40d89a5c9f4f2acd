package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Event reasons of a staged rollout, on the ConfigMap (docs/rollout.md).
const (
	ReasonRolloutStarted   = "RolloutStarted"
	ReasonRolloutStep      = "RolloutStep"
	ReasonRolloutPaused    = "RolloutPaused"
	ReasonRolloutCompleted = "RolloutCompleted"
)

// minRequeue keeps a next step already due from spinning the queue.
const minRequeue = 100 * time.Millisecond

// rolloutMemory is what the config-cache controller remembers between two
// rollout decisions. All of it may be lost (a restart, a new leader): the
// state of a rollout is the stored NodeSLOs and the record annotation.
type rolloutMemory struct {
	// gate is the gate last published, to tell which held nodes changed since.
	gate *Gate
	// recordVersion is the ConfigMap's resourceVersion after our last record
	// write, and nextAt when that decision wanted to decide again: the watch
	// event of our own write then needs no new decision.
	recordVersion string
	nextAt        time.Time
	// pausedReported identifies the RolloutPaused Event last recorded.
	pausedReported string
}

// echo reports whether a reconcile of ConfigMap version is only the watch
// event of our own record write, with no step due yet.
func (m *rolloutMemory) echo(version string, now time.Time) bool {
	return version != "" && version == m.recordVersion && (m.nextAt.IsZero() || now.Before(m.nextAt))
}

// rolloutRelevant reports whether the ConfigMap asks for a staged rollout,
// or carries a record that must go now that it does not.
func rolloutRelevant(cm *corev1.ConfigMap) bool {
	_, key := cm.Data[string(sloconfig.KeyRollout)]
	_, record := cm.Annotations[rollout.RecordAnnotation]
	return key || record
}

// decideRollout is the one place where a rollout decision is taken
// (docs/rollout.md#where-the-decision-runs): over every node, from the
// manager's caches, with cm read from the apiserver. It persists the record
// first, then returns the gate to publish with cfg and the nodes to enqueue
// once it is published (those the decision reaches, or those a gate now
// gone held); next is when to decide again (zero: only on a ConfigMap
// change).
func (r *ConfigCacheReconciler) decideRollout(
	ctx context.Context, cm *corev1.ConfigMap, cfg *sloconfig.Config,
) (gate *Gate, next time.Time, release []string, err error) {
	log := logf.FromContext(ctx)
	load := sloconfig.LoadRollout(cm.Data)
	if !load.Present {
		// The key is gone: every change reaches every node at once, and the
		// record of a rollout that no longer exists is removed.
		release = r.rollout.gate.names()
		recordRollout(rolloutFigures{})
		r.rollout = rolloutMemory{}
		return nil, time.Time{}, release, r.writeRecord(ctx, cm, nil)
	}
	rec, perr := rollout.ParseRecord(cm.Annotations[rollout.RecordAnnotation])
	if perr != nil {
		// Starting a new rollout is safe: it holds every pending node.
		log.Info("Cannot read the rollout record; starting the rollout again", "error", perr.Error())
	}
	nodes, inputs, err := r.rolloutNodes(ctx, cfg, load.Policy)
	if err != nil {
		return nil, time.Time{}, nil, err
	}
	d := rollout.Decide(rollout.Input{
		Rollout: load, Target: cfg.Fingerprint(), Record: rec, Nodes: nodes, Now: time.Now().Round(0),
	})
	if d.RecordChanged || perr != nil {
		record := d.Record
		if err := r.writeRecord(ctx, cm, &record); err != nil {
			// Nothing pending may move without its record persisted.
			return holdAll(nodes, inputs), time.Time{}, nil, err
		}
	}
	r.rollout.nextAt = d.NextStep
	gate = &Gate{held: make(map[string]uint64, len(d.Held))}
	for _, name := range d.Held {
		gate.held[name] = inputs[name]
	}
	r.rollout.gate = gate
	recordRollout(rolloutFigures{
		pending: len(d.Held), reached: d.Reached, step: d.Record.Steps,
		inProgress: !d.Record.Done, paused: d.Paused && len(d.Held) > 0,
	})
	r.rolloutEvents(cm, load, d)
	return gate, d.NextStep, d.Write, nil
}

// rolloutNodes describes every node for the decision: whether its stored
// NodeSLO differs from what cfg resolves for it, whether it is a canary,
// and whether a node held until now changed its inputs (Immediate).
// inputs holds each node's current inputs for the gate.
func (r *ConfigCacheReconciler) rolloutNodes(
	ctx context.Context, cfg *sloconfig.Config, policy *sloconfig.RolloutPolicy,
) ([]rollout.Node, map[string]uint64, error) {
	nodeList := &metav1.PartialObjectMetadataList{}
	nodeList.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	if err := r.client.List(ctx, nodeList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing Nodes for the rollout: %w", err)
	}
	sloList := &slov1alpha1.NodeSLOList{}
	if err := r.client.List(ctx, sloList, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing NodeSLOs for the rollout: %w", err)
	}
	stored := make(map[string]*slov1alpha1.NodeSLO, len(sloList.Items))
	for i := range sloList.Items {
		stored[sloList.Items[i].Name] = &sloList.Items[i]
	}
	nodes := make([]rollout.Node, 0, len(nodeList.Items))
	inputs := make(map[string]uint64, len(nodeList.Items))
	for i := range nodeList.Items {
		meta := &nodeList.Items[i]
		n := rollout.Node{Name: meta.Name, Canary: policy != nil && policy.IsCanary(meta.Labels)}
		if slo := stored[meta.Name]; slo != nil {
			n.Stored = true
			res := cfg.Resolve(sloconfig.Node{Name: meta.Name, Labels: meta.Labels, Annotations: meta.Annotations}, &slo.Spec)
			n.Differs = !sloconfig.SpecEqual(&slo.Spec, &res.Spec)
			key := nodeInputs(meta.Labels, meta.Annotations, slo.Generation)
			inputs[meta.Name] = key
			n.Immediate = r.rollout.gate.changed(meta.Name, key)
		}
		nodes = append(nodes, n)
	}
	return nodes, inputs, nil
}

// holdAll is the gate used when the record could not be written: every
// pending node keeps its stored NodeSLO.
func holdAll(nodes []rollout.Node, inputs map[string]uint64) *Gate {
	g := &Gate{held: map[string]uint64{}}
	for _, n := range nodes {
		if n.Stored && n.Differs && !n.Immediate {
			g.held[n.Name] = inputs[n.Name]
		}
	}
	return g
}

// writeRecord persists rec on the ConfigMap's annotation (nil: removes it),
// with an optimistic lock so that a record is never written over a
// ConfigMap this decision did not see.
func (r *ConfigCacheReconciler) writeRecord(ctx context.Context, cm *corev1.ConfigMap, rec *rollout.Record) error {
	value, has := cm.Annotations[rollout.RecordAnnotation]
	if (rec == nil && !has) || (rec != nil && has && value == rec.Encode()) {
		return nil
	}
	before := cm.DeepCopy()
	if rec == nil {
		delete(cm.Annotations, rollout.RecordAnnotation)
	} else {
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[rollout.RecordAnnotation] = rec.Encode()
	}
	previous := cm.ResourceVersion
	patch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	if err := r.client.Patch(ctx, cm, patch); err != nil {
		return fmt.Errorf("writing the rollout record on ConfigMap %s: %w", r.key, err)
	}
	r.rollout.recordVersion = cm.ResourceVersion
	if r.loadedVersion == previous {
		// Only the annotation changed: the configuration loaded still stands.
		r.loadedVersion = cm.ResourceVersion
	}
	return nil
}

// enqueueReached asks the NodeSLO controller to write the nodes a decision
// reached; the gate published before no longer holds them.
func (r *ConfigCacheReconciler) enqueueReached(ctx context.Context, names []string) {
	for _, name := range names {
		select {
		case r.reached <- event.GenericEvent{Object: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}}}:
		case <-ctx.Done():
			return
		}
	}
}

// rolloutEvents records what the decision did as Events on the ConfigMap.
// Each Event of a rollout has its own action (target and step): the
// recorder folds Events that share object, reason and action into one
// series that keeps only the first note.
func (r *ConfigCacheReconciler) rolloutEvents(cm *corev1.ConfigMap, load sloconfig.RolloutLoad, d rollout.Decision) {
	target := shortFingerprint(d.Record.Target)
	if d.Started {
		steps := fmt.Sprintf("step size %d, %d steps", d.StepSize, d.Steps)
		if load.Policy == nil {
			steps = "steps counted once the rollout key is valid"
		}
		r.recorder.Eventf(cm, nil, corev1.EventTypeNormal, ReasonRolloutStarted, "Roll out "+target,
			"rollout of configuration %s started: %d nodes pending (%d canaries), %s",
			target, d.Record.Pending, d.Record.Canaries, steps)
	}
	if d.Stepped {
		r.recorder.Eventf(cm, nil, corev1.EventTypeNormal, ReasonRolloutStep,
			fmt.Sprintf("Step %d of %s", d.Step, target),
			"step %d of %d: %d of %d nodes reached, %d pending", d.Step, d.Steps, d.Reached, d.Record.Pending, len(d.Held))
	}
	if d.Completed {
		r.recorder.Eventf(cm, nil, corev1.EventTypeNormal, ReasonRolloutCompleted, "Complete "+target,
			"rollout of configuration %s completed: %d nodes reached in %d steps", target, d.Record.Pending, d.Record.Steps)
	}
	if !d.Paused {
		r.rollout.pausedReported = ""
		return
	}
	eventType, why := corev1.EventTypeNormal, "\"paused\": true"
	if load.Policy == nil {
		eventType = corev1.EventTypeWarning
		why = "the key " + string(sloconfig.KeyRollout) + " is invalid: " + joinNote(load.Messages(), "")
	}
	id := target + "\x00" + eventType + "\x00" + why
	if id == r.rollout.pausedReported {
		return
	}
	r.rollout.pausedReported = id
	r.recorder.Eventf(cm, nil, eventType, ReasonRolloutPaused, "Pause "+target,
		"%s", truncate(fmt.Sprintf("rollout of configuration %s paused: %d nodes pending keep their NodeSLO (%s)",
			target, len(d.Held), why), maxNoteLength))
}

// shortFingerprint abbreviates a fingerprint for Events, like a short commit hash.
func shortFingerprint(f string) string {
	if len(f) > 12 {
		return f[:12]
	}
	return f
}
