package rollout

import (
	"slices"
	"time"
)

// recheck is how soon to decide again when progress waits on the
// controller's own writes (a step still incomplete, or the last step
// taken and completion not yet seen) rather than on the clock.
const recheck = time.Second

// Node is what the decision needs to know of one node.
type Node struct {
	Name string
	// Stored is whether the node has a NodeSLO. A node without one was
	// created during the rollout: it has nothing to protect and gets the
	// target at once.
	Stored bool
	// Differs is whether the stored spec differs from what the target
	// resolves for the node (sloconfig.SpecEqual). A node that does not
	// differ is done, unless Held.
	Differs bool
	// Reached is whether the node, which differs, was done or reached by
	// this rollout before (Memory.reached): its labels changed or its
	// NodeSLO was edited since, and a decision saw it before the NodeSLO
	// reconciler put it right. It gets the target at once, as that
	// reconciler gives it when no decision comes first; it is not pending.
	Reached bool
	// Held is whether the node, which does not differ, is pending all the
	// same: the rollout held it, and its labels changed since so that the
	// target gives what it stores (Memory.stillHeld, heldSince). That does
	// not reach it: it stays pending, on the configuration in force for
	// it, until its step, so that its next labels get that configuration
	// again (docs/rollout.md#behaviour).
	Held bool
	// Canary is whether the node matches the canary selector.
	Canary bool
	// WrittenAt is when this controller last wrote the node's spec (its
	// storedslo.SpecWrittenAnnotation; zero: unknown): a node written since a halted
	// rollout started carries the configuration the operator rejected.
	WrittenAt time.Time
}

// Input is everything a decision depends on.
type Input struct {
	// Rollout is the strategy as loaded (LoadStrategy). Absent: every
	// change reaches every node at once. Invalid: every rollout is paused.
	Rollout Key
	// Target is the fingerprint of the configuration in force.
	Target string
	// Record is the persisted record (zero when there is none).
	Record Record
	Nodes  []Node
	Now    time.Time
	// RolloutKey is a fingerprint of the strategy: a health
	// gate's halt is resumed by a change of it (docs/rollout.md#health-gates).
	RolloutKey string
	// Health is what the health gate judged of the nodes this rollout reached.
	Health HealthInput
	// RevertOf is set when Target is the previous revision's configuration
	// the health gate put in force in place of the halted configuration
	// RevertOf (Standing.Revert).
	RevertOf string
	// Retry is the operator's retry, parsed: a halt it names rolls out
	// again, as a new rollout.
	Retry Retry
	// Resume is the halt the operator resumes (zero: none).
	Resume time.Time
	// Revision is the number of Target's revision (0: not known yet).
	Revision int64
}

// Decision is what the controller does now.
type Decision struct {
	// Record is the record to persist (status.rolloutRecord) before writing
	// any node, when it differs from Input.Record.
	Record Record
	// Write lists the nodes whose NodeSLO the controller writes now: the
	// pending nodes reached and new nodes.
	Write []string
	// Held lists the pending nodes that keep their stored NodeSLO for now,
	// canaries first; HeldCanaries counts the canaries among them.
	Held         []string
	HeldCanaries int
	// Reached counts the nodes pending at the start that are reached (done,
	// or in Write).
	Reached int
	// Step is the number of steps taken, of Steps; StepSize is the batch
	// size. Steps and StepSize are zero while the strategy is invalid.
	Step, Steps, StepSize int
	// Incomplete reports that the step taken last is not complete (some of
	// its nodes do not store the target yet): the next step waits for it.
	Incomplete bool
	// NextStep is when to decide again; zero when no time-driven progress
	// is waiting (no rollout, paused, done): a ConfigMap change wakes the
	// controller then.
	NextStep time.Time
	// RecheckAt is when to look, before NextStep, whether the step taken
	// now is complete (zero: no step taken). Its writes are yet to be
	// made, and may be slowed (a throttled apiserver): the wait for the
	// next step counts from the last decision that saw the step
	// incomplete, so that it is never cut short by slow writes
	// (docs/rollout.md#behaviour).
	RecheckAt time.Time
	// Started, Stepped and Completed report what happened in this decision
	// (for the RolloutStarted, RolloutStep and RolloutCompleted events);
	// Paused reports that a rollout with pending nodes is paused, or held
	// by an invalid strategy (RolloutPaused).
	Started, Stepped, Completed, Paused bool
	// Halted reports that the health gate holds the rollout (Paused is set
	// too), HaltedNow that it halted in this decision (RolloutHalted).
	Halted, HaltedNow bool
	// Inconclusive reports that a metric check Prometheus cannot answer
	// holds the rollout (Paused is set too), not halted: it goes on once
	// Prometheus answers (RolloutInconclusive).
	Inconclusive bool
	// MaxUnhealthy is how many unhealthy nodes the gate allowed at the halt.
	MaxUnhealthy int
	// SeenBefore lists the nodes this decision recorded unhealthy before
	// their write (HealthRecord.Before), for RolloutUnhealthyBeforeWrite.
	SeenBefore []string
}

// Decide decides which pending nodes are reached now (docs/rollout.md).
func Decide(in Input) Decision {
	if !in.Rollout.Present {
		// Without a strategy there is no rollout: the record is removed.
		return allAtOnce(in.Nodes)
	}
	d := Decision{Record: in.Record}
	rec := &d.Record
	// kubectl nodeslo rollout retry of the halt in progress: a new rollout
	// of the same configuration, with no verdicts, canaries first.
	retried := rec.retriedBy(in.Retry, in.Target)
	if rec.Target != in.Target || retried {
		// A new change, a revert included: pending are the nodes that
		// differ from this target; those already equal to it are done.
		// The new rollout remembers when the one it replaces last took
		// a step, so that without canaries to reach first its first
		// batch still waits an interval (see Schedule.Due).
		previous := time.Time{}
		if !rec.Done {
			previous = rec.StepAt
		}
		*rec = Record{Target: in.Target, Started: in.Now, StepAt: previous, RevertOf: in.RevertOf,
			Halts: rec.haltsAfter(in.Target), RejectedSince: rejectedSince(*rec, retried)}
		d.Started = true
	}
	policy := in.Rollout.Policy // nil when the strategy is invalid
	d.Halted, d.HaltedNow, d.MaxUnhealthy = judgeHealth(rec, in)
	if d.HaltedNow {
		rec.Revision = in.Revision
	}
	d.SeenBefore = noteBefore(rec, in, in.Health.Before)
	if rec.Steps == 0 {
		// No step of this rollout taken: no node of it is written yet.
		d.SeenBefore = append(d.SeenBefore, noteBefore(rec, in, in.Health.Sick)...)
	}
	pending, canaries, rejected := d.classify(in.Nodes, rec.Canaries > 0 || rec.Steps == 0, rec.RejectedSince,
		rec.Health.before())
	pending, canaries, rejected = d.regroup(*rec, pending, canaries, rejected)
	if rec.Steps == 0 {
		// Nothing reached yet: the counts follow the cluster (and the
		// canary selector of a strategy that was invalid until now).
		rec.Pending, rec.Canaries = len(pending)+len(canaries), len(canaries)
	}
	if len(pending)+len(canaries)+len(rejected) == 0 {
		d.Completed = !rec.Done && !d.Started
		d.Started = false // nothing to roll out
		if !rec.Done {
			rec.Done, rec.DoneAt = true, in.Now
		}
		d.Step = rec.Steps
		switch {
		case rec.RevertOf != "":
			d.Steps, d.StepSize = revertSteps, rec.Pending
		case policy != nil:
			s := NewSchedule(policy, *rec)
			d.Steps, d.StepSize = s.Steps(), s.StepSize
		}
		d.Reached = rec.Pending
		return d
	}
	if rec.RevertOf != "" {
		d.revert(in, canaries, pending)
		return d
	}
	d.hold(in.Rollout, rec.Health)
	rejected = order(rejected, in.Target)
	if policy == nil {
		d.Step = rec.Steps
		d.Held = append(order(canaries, in.Target), order(pending, in.Target)...)
		d.HeldCanaries = len(canaries)
		d.Reached = max(rec.Pending-len(d.Held), 0)
		d.reachRejected(rejected, in.Now)
		return d
	}
	s := NewSchedule(policy, *rec)
	d.Steps, d.StepSize = s.Steps(), s.StepSize
	reachedBatch := max(s.Pending-s.Canaries-len(pending), 0)
	complete := reachedBatch >= s.BatchQuota(rec.Steps) && (rec.Steps == 0 || len(canaries) == 0)
	d.Incomplete = !complete
	switch {
	case d.Paused:
	case !complete:
		// Cut short by a restart or failed writes: the interval in
		// progress starts again once the step's nodes are written.
		if rec.StepAt.Before(in.Now) {
			rec.StepAt = in.Now
		}
	case rec.Steps < s.Steps() && !in.Now.Before(s.Due(*rec)):
		rec.Steps++
		rec.StepAt, rec.Batched = in.Now, s.BatchQuota(rec.Steps)
		d.Stepped = true
	}
	d.Step = rec.Steps
	d.reach(s, canaries, pending, reachedBatch, in.Target, alikeOf(in.Nodes))
	d.SeenBefore = append(d.SeenBefore, noteBefore(rec, in, heldOnly(in.Health.Sick, d.Held))...)
	d.Reached = max(s.Pending-len(d.Held), 0)
	if !d.Paused {
		d.NextStep = d.next(s, complete)
		if d.Stepped {
			d.RecheckAt = rec.StepAt.Add(recheck)
		}
		if d.NextStep.IsZero() && len(d.Write) > 0 {
			// Past the last step, nodes the plan did not count are being
			// written: completion is seen once they are.
			d.NextStep = in.Now.Add(recheck)
		}
	}
	d.reachRejected(rejected, in.Now)
	return d
}

// hold sets what holds the pending nodes where they are: a pause, an
// invalid strategy, a halt, or one of the strategy's gating metric checks
// inconclusive (Prometheus cannot answer it, so nothing says whether the
// change hurts).
func (d *Decision) hold(load Key, h *HealthRecord) {
	if load.Policy != nil && !d.Halted {
		d.Inconclusive = h.inconclusiveUnder(load.Policy.HealthGate)
	}
	d.Paused = Paused(load) || d.Halted || d.Inconclusive
}

// allAtOnce is the behaviour without a strategy: write every node that
// differs or has no NodeSLO.
func allAtOnce(nodes []Node) Decision {
	var d Decision
	for _, n := range nodes {
		if !n.Stored || n.Differs {
			d.Write = append(d.Write, n.Name)
		}
	}
	return d
}

// classify puts new nodes in d.Write and returns the pending
// ones, canaries apart when withCanaries (a rollout that started without
// canaries has none, whatever the selector says now), and apart again the
// others that carry a halted configuration (written since rejectedSince,
// Record.RejectedSince): a canary among those stays a canary, which the
// first step reaches at once too. A canary seen unhealthy before its write
// (sickBefore, HealthRecord.Before) is not used as one
// (docs/rollout.md#health-gates): it waits for the steps.
func (d *Decision) classify(
	nodes []Node, withCanaries bool, rejectedSince time.Time, sickBefore map[string]string,
) (pending, canaries, rejected []string) {
	for _, n := range nodes {
		_, wasSick := sickBefore[n.Name]
		switch {
		case !n.Stored || n.Differs && n.Reached:
			d.Write = append(d.Write, n.Name)
		case !n.Differs && !n.Held:
		case n.Canary && withCanaries && !wasSick:
			canaries = append(canaries, n.Name)
		case n.carriesRejected(rejectedSince):
			rejected = append(rejected, n.Name)
		default:
			pending = append(pending, n.Name)
		}
	}
	return pending, canaries, rejected
}

// regroup applies what the record says to the nodes classify found: a
// revert reaches every node at once, none set apart; a rollout that is
// done has none pending: a node that differs again (edited by hand or
// relabelled after the rollout, seen before the NodeSLO reconciler put it
// right) gets the target at once, as the reconciler gives it when no
// decision comes first.
func (d *Decision) regroup(rec Record, pending, canaries, rejected []string) (p, c, r []string) {
	if rec.RevertOf != "" {
		pending, rejected = append(rejected, pending...), nil
	}
	if rec.Done && !d.Started {
		d.Write = slices.Concat(d.Write, canaries, pending, rejected)
		return nil, nil, nil
	}
	return pending, canaries, rejected
}

// reach moves the pending nodes the steps taken allow into d.Write, in the
// stable order, those the target already gives what they store (alike,
// Node.Held) first, and the rest into d.Held. A paused rollout reaches
// none. Reaching one of alike writes nothing; and after a restart, a node
// of alike its step had reached is pending again (nothing was written
// to tell it), so that the step found short reaches it again first, not
// a node of the next step.
func (d *Decision) reach(
	s Schedule, canaries, pending []string, reachedBatch int, target string, alike map[string]bool,
) {
	canaries, pending = order(canaries, target), order(pending, target)
	slices.SortStableFunc(pending, func(a, b string) int { return trueFirst(alike[a], alike[b]) })
	if d.Paused || d.Step == 0 {
		d.Held = append(canaries, pending...)
		d.HeldCanaries = len(canaries)
		return
	}
	d.Write = append(d.Write, canaries...)
	quota := s.BatchQuota(d.Step)
	if d.Step >= s.Steps() {
		// The last step reaches every node still pending, including one
		// the plan did not count: its NodeSLO appeared, from an older
		// configuration, after the rollout counted its nodes. Without
		// this, a plan of canaries only (no batch) would hold it forever.
		quota = reachedBatch + len(pending)
	}
	n := min(max(quota-reachedBatch, 0), len(pending))
	d.Write = append(d.Write, pending[:n]...)
	d.Held = pending[n:]
}

// alikeOf is the set of nodes pending although they do not differ
// (Node.Held).
func alikeOf(nodes []Node) map[string]bool {
	out := map[string]bool{}
	for _, n := range nodes {
		if n.Held {
			out[n.Name] = true
		}
	}
	return out
}

// next is when to decide again on a rollout that is not paused.
func (d *Decision) next(s Schedule, complete bool) time.Time {
	if !complete || d.Stepped && d.Step == s.Steps() {
		// Waiting for writes: the step's own, or the last step's before
		// completion can be seen. StepAt is now in both cases.
		return d.Record.StepAt.Add(recheck)
	}
	if d.Step >= s.Steps() {
		return time.Time{}
	}
	return s.Due(d.Record)
}

// revertSteps is the steps of a revert: one, which reaches every node.
const revertSteps = 1

// revert reaches every pending node of a health gate's revert at once,
// the nodes unhealthy before the revert's write first
// (docs/rollout.md#the-revert): each of them carries the configuration the
// gate halted, and a step that held one back would keep it on what the
// gate rejected. Neither a pause nor the gate holds a revert: what its
// nodes show was caused by the configuration it undoes (gateWatches).
// It decides again a second later, to see the writes done and complete.
func (d *Decision) revert(in Input, canaries, pending []string) {
	rec := &d.Record
	all := append(order(canaries, in.Target), order(pending, in.Target)...)
	slices.SortStableFunc(all, func(a, b string) int {
		_, sickA := in.Health.Sick[a]
		_, sickB := in.Health.Sick[b]
		return trueFirst(sickA, sickB)
	})
	d.Write = append(d.Write, all...)
	if rec.Steps == 0 {
		rec.Steps, rec.StepAt, d.Stepped = revertSteps, in.Now, true
	}
	d.Step, d.Steps, d.StepSize = rec.Steps, revertSteps, rec.Pending
	d.Reached = rec.Pending
	d.NextStep = in.Now.Add(recheck)
}

// reachRejected writes the nodes that carry a halted configuration
// (classify) at once, in no step and whatever the step size, unless the
// rollout is paused (docs/rollout.md#after-a-halt): steps would keep them
// on what the operator or the gate rejected. Like new nodes they are
// not counted in the steps.
func (d *Decision) reachRejected(rejected []string, now time.Time) {
	if d.Paused {
		d.Held = append(d.Held, rejected...)
		return
	}
	d.Write = append(d.Write, rejected...)
	if len(rejected) > 0 && d.NextStep.IsZero() {
		d.NextStep = now.Add(recheck) // completion is seen once they are written
	}
}

// rejectedSince is, for a rollout replacing the one of rec, when the nodes
// carrying a configuration the operator rejected began to be written:
// the start of rec's rollout when the health gate halted it (and the new
// rollout is not its retry), else zero.
func rejectedSince(rec Record, retried bool) time.Time {
	if !rec.Health.Halted() || retried {
		return time.Time{}
	}
	return rec.Started
}

// carriesRejected reports whether the node's spec was written since
// rejectedSince: by the halted rollout, so it carries the configuration
// the gate halted. No write is stamped before the decision it carries out,
// nor later than itself (storedslo.WrittenAt); a node stamped in seconds by an earlier version
// within the second the halted rollout started is not known to carry it,
// nor is a node of unknown write time: such a node goes in the steps.
func (n Node) carriesRejected(rejectedSince time.Time) bool {
	return !rejectedSince.IsZero() && !n.WrittenAt.IsZero() && !n.WrittenAt.Before(rejectedSince)
}
