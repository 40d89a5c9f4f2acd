package rollout

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The invariants the simulator checks after every event, each citing the
// sentence of docs/rollout.md it enforces. A violation names its
// invariant, so that shrinking keeps a history that fails the same way.

// simViolation is one broken promise.
type simViolation struct {
	invariant, detail string
}

func (v simViolation) String() string { return v.invariant + ": " + v.detail }

// simOracle is what the model knows independently of the code under test:
// which configurations each node was released, and what happened when.
type simOracle struct {
	// allowed has, by node, the configurations a decision released to it
	// (or that it got as a new node, or without a strategy); inForce,
	// the last of them.
	allowed map[string]map[string]bool
	inForce map[string]string
	// carrying has the releases of decisions not yet carried out by the
	// NodeSLO controller: a manager that stops before carrying one out
	// leaves the node on what it stores, which is what a new manager
	// reads as in force for it (docs/rollout.md#behaviour).
	carrying map[string]simRelease
	// sick has the nodes that were ever unhealthy.
	sick map[string]bool
	// createdAt is when each node was added.
	createdAt map[string]time.Time
	// halt is the halt being watched: its reached nodes.
	haltID      string
	haltReached map[string]bool
	// stepWrites are the nodes the current rollout's steps released, and when.
	rolloutID  string
	stepWrites []simStepWrite
	counted    map[string]bool
	// lastWrite is, by node, the last write of its NodeSLO.
	lastWrite map[string]simWrite
	// lastPersisted: the last decision's record was persisted.
	lastPersisted bool
	violations    []simViolation
}

// simWrite is a NodeSLO write: the short fingerprint of the configuration
// it came from, and when it was made (the true time, not its stamp).
type simWrite struct {
	from string
	at   time.Time
}

// simRelease is what the oracle knew of a node before a release it has
// not seen carried out: the configuration in force, and those allowed.
type simRelease struct {
	inForce string
	allowed map[string]bool
}

// simStepWrite is a pending node a step released, when, under which interval.
type simStepWrite struct {
	at       time.Time
	node     string
	interval time.Duration
	// size is the step size in force when it was released.
	size int
}

func newSimOracle() simOracle {
	return simOracle{allowed: map[string]map[string]bool{}, inForce: map[string]string{}, sick: map[string]bool{},
		carrying: map[string]simRelease{}, createdAt: map[string]time.Time{}, lastWrite: map[string]simWrite{}}
}

func (o *simOracle) fail(invariant, format string, args ...any) {
	o.violations = append(o.violations, simViolation{invariant, fmt.Sprintf(format, args...)})
}

// allow notes that fingerprint is in force for name: a fact, which ends
// any release of it not yet carried out.
func (o *simOracle) allow(name, fingerprint string) {
	delete(o.carrying, name)
	o.setInForce(name, fingerprint)
}

func (o *simOracle) setInForce(name, fingerprint string) {
	if o.allowed[name] == nil {
		o.allowed[name] = map[string]bool{}
	}
	o.allowed[name][fingerprint] = true
	o.inForce[name] = fingerprint
}

// release notes a decision's release of a node, until it is carried out
// (carried) or the manager stops first (forgetUncarried).
func (o *simOracle) release(name, fingerprint string) {
	if _, ok := o.carrying[name]; !ok {
		o.carrying[name] = simRelease{inForce: o.inForce[name], allowed: maps.Clone(o.allowed[name])}
	}
	o.setInForce(name, fingerprint)
}

// carried notes that the NodeSLO controller carried out the release of
// name: it wrote the node, or found it storing what it must.
func (o *simOracle) carried(name string) { delete(o.carrying, name) }

// forgetUncarried takes back the releases a stopped manager never carried
// out: those nodes keep what they store, and a new manager decides again.
func (o *simOracle) forgetUncarried() {
	for name, before := range o.carrying {
		o.inForce[name], o.allowed[name] = before.inForce, before.allowed
	}
	clear(o.carrying)
}

// created notes a NodeSLO created for a node that had none: a new node
// gets the configuration in force at once.
func (o *simOracle) created(name, fingerprint string) { o.allow(name, fingerprint) }

// wrote checks one NodeSLO write (invariantExactlyOnce, and
// invariantHeldMeansHeld at the write, before a decision sees it).
func (o *simOracle) wrote(w *simWorld, name string, old, written *simSLO, restamp bool, at time.Time) {
	o.lastWrite[name] = simWrite{from: written.from, at: at}
	invariantExactlyOnce(o, name, old, written, restamp)
	if !o.released(w, name, written) {
		o.fail("held means held", "node %s (labels %v) written with a configuration never released to it (released: %v)",
			name, w.nodes[name].labels, shortKeys(o.allowed[name]))
	}
}

// released reports whether slo stores what a configuration released to
// the node resolves for its labels now.
func (o *simOracle) released(w *simWorld, name string, slo *simSLO) bool {
	for fp := range o.allowed[name] {
		if w.resolvesTo(w.configs[fp], name, slo) {
			return true
		}
	}
	return false
}

// decided checks one decision as it was carried out, and notes what it
// released (invariantSteps, invariantStatusTellsTheTruth).
func (o *simOracle) decided(w *simWorld, in PlanInput, plan Plan, persisted bool) {
	o.lastPersisted = persisted
	invariantHistoryBounded(o, w, in.Rollout, plan)
	cfg := in.Config
	// differing are the pending nodes: those that differ, and those the
	// gate still holds that no longer do.
	var differing []string
	// reached are the nodes that differ but had the target in force
	// already (done or reached, then relabelled or edited): not pending.
	reached := map[string]bool{}
	for _, name := range w.names() {
		slo := w.slos[name]
		if slo == nil {
			continue
		}
		if o.inForce[name] == cfg.Fingerprint() {
			reached[name] = true
		}
		switch {
		case w.resolvesTo(cfg, name, slo) && plan.Gate.restamps(name):
			// Reached without a write: only the write of its stamps tells a
			// new manager, so a stop before it takes the release back.
			o.release(name, cfg.Fingerprint())
		case w.resolvesTo(cfg, name, slo) && !plan.Gate.Has(name):
			o.allow(name, cfg.Fingerprint()) // done: the configuration changes nothing for it
		default:
			// It differs, or it is pending, relabelled so that the
			// configuration changes nothing for it: it stays on the one
			// in force for it until its step.
			differing = append(differing, name)
		}
	}
	if !in.Rollout.Present {
		for _, name := range w.names() {
			o.allow(name, cfg.Fingerprint())
		}
		return
	}
	if !persisted {
		return
	}
	for _, name := range plan.Release {
		o.release(name, cfg.Fingerprint())
	}
	rec, err := w.recordOf()
	if err != nil {
		o.fail("status tells the truth", "the record persisted does not parse: %v", err)
		return
	}
	invariantSteps(o, w, in, rec, plan.Release, slices.DeleteFunc(slices.Clone(differing),
		func(name string) bool { return reached[name] }))
	invariantStatusTellsTheTruth(o, w, rec, plan, differing)
	invariantJudged(o, w, in, rec)
	invariantJudgedReached(o, in, rec)
	invariantMetricVerdicts(o, in, rec)
}

// invariantMetricVerdicts: "a dry run is measured and shown, never
// judged", and "a check Prometheus cannot answer beyond its failureLimit
// is inconclusive: the rollout waits, no step is taken, and it is not
// halted" (docs/rollout.md#metric-gates). A halt with no unhealthy node
// counted is a gating check's failure.
func invariantMetricVerdicts(o *simOracle, in PlanInput, rec Record) {
	previous, _ := ParseRecord(in.Record)
	h := rec.Health
	for name, r := range h.metrics() {
		if r.DryRun && (r.Failed || r.Inconclusive) {
			o.fail("dry run", "metric check %s, a dry run, is judged: %+v", name, r)
		}
		if r.Inconclusive && r.Failed {
			o.fail("inconclusive", "metric check %s is both failed and inconclusive: %+v", name, r)
		}
	}
	sameRollout := previous.Target == rec.Target && previous.Started.Equal(rec.Started)
	var gate *HealthGate
	if in.Rollout.Policy != nil {
		gate = in.Rollout.Policy.HealthGate
	}
	if sameRollout && h.inconclusiveUnder(gate) && !h.Halted() && rec.Steps != previous.Steps {
		o.fail("inconclusive", "step %d taken while a metric check is inconclusive (step %d before)",
			rec.Steps, previous.Steps)
	}
	haltedNow := h.Halted() && (!sameRollout || !previous.Health.Halted())
	if haltedNow &&
		len(h.Unhealthy)-h.Tolerated <= h.Allowed && !h.MetricFailed() {
		o.fail("dry run", "halted with no unhealthy node beyond those allowed and no gating check failed: %+v", h)
	}
}

// invariantMetricScope: a metric check's {{.NodesRegex}} matches "exactly
// the names of the nodes reached: those this rollout wrote its
// configuration to since it started" (docs/rollout.md#metric-gates). A
// node written in the second the rollout started is reached only if that
// write carried the rollout's configuration: a node an earlier rollout
// wrote in that second, or one a gate held on an older configuration, is
// not, and what Prometheus shows of it would halt the change unjustly.
func invariantMetricScope(o *simOracle, w *simWorld, in PlanInput, q MetricQuery) {
	rec, _ := ParseRecord(in.Record)
	short := ShortTarget(in.Config.Fingerprint())
	_, after, _ := strings.Cut(q.Query, `node=~"`)
	pattern, _, _ := strings.Cut(after, `"`)
	asked, err := regexp.Compile(pattern)
	if err != nil {
		o.fail("metric scope", "check %s's query %q has no nodes regex: %v", q.Check.Name, q.Query, err)
		return
	}
	for _, name := range w.names() {
		written, slo := o.lastWrite[name], w.slos[name]
		reached := slo != nil && written.from == short
		switch {
		case asked.MatchString(name) && (!reached || written.at.Before(rec.Started.Truncate(time.Second))):
			o.fail("metric scope", "check %s asks about node %s, last written from %s at %v, which this rollout "+
				"(of %s, started at %v) did not reach", q.Check.Name, name, written.from,
				written.at.Sub(simStart), short, rec.Started.Sub(simStart))
		case !asked.MatchString(name) && reached && !written.at.Before(rec.Started):
			o.fail("metric scope", "check %s does not ask about node %s, which this rollout (of %s, started at %v) "+
				"wrote at %v", q.Check.Name, name, short, rec.Started.Sub(simStart), written.at.Sub(simStart))
		}
	}
}

// invariantJudgedReached: "A node is reached by the rollout in progress
// when its stored NodeSLO is the configuration in force and was written
// since the rollout started ... a node that already had the configuration
// when the rollout started is never judged for it"
// (docs/rollout.md#which-nodes-are-judged-and-when): every node a decision
// newly records unhealthy was last written this rollout's configuration,
// since the second it started.
func invariantJudgedReached(o *simOracle, in PlanInput, rec Record) {
	previous, _ := ParseRecord(in.Record)
	var known map[string]string
	if previous.Target == rec.Target && previous.Started.Equal(rec.Started) && previous.Health != nil {
		known = previous.Health.Unhealthy
	}
	if rec.Health == nil {
		return
	}
	for name := range rec.Health.Unhealthy {
		written := o.lastWrite[name]
		if _, ok := known[name]; ok || (written.from == ShortTarget(rec.Target) &&
			!written.at.Before(rec.Started.Truncate(time.Second))) {
			continue
		}
		o.fail("judged reached", "node %s is recorded unhealthy, last written from %s at %v, which this rollout "+
			"(of %s, started at %v) did not reach", name, written.from, written.at.Sub(simStart),
			ShortTarget(rec.Target), rec.Started.Sub(simStart))
	}
}

// invariantJudged: "A bad watched condition counts against the change
// unless it is known to have turned bad before the node's write"
// (docs/rollout.md#health-gates): no node that turned NotReady after this
// rollout wrote it the target, in that second or later, is recorded as
// unhealthy before its write, which would never hold it against the
// change.
func invariantJudged(o *simOracle, w *simWorld, in PlanInput, rec Record) {
	previous, _ := ParseRecord(in.Record)
	var known map[string]string
	if previous.Target == rec.Target && previous.Started.Equal(rec.Started) {
		known = previous.Health.before()
	}
	for name := range rec.Health.before() {
		n, written := w.nodes[name], o.lastWrite[name]
		if _, ok := known[name]; ok || n == nil || n.ready || written.from != ShortTarget(rec.Target) ||
			written.at.Before(rec.Started) || n.readySince.Before(written.at) {
			continue
		}
		o.fail("judged", "node %s turned NotReady at %v, after this rollout wrote it at %v, "+
			"yet is recorded unhealthy before its write", name, n.readySince.Sub(simStart), written.at.Sub(simStart))
	}
}

// resolvesTo reports whether slo stores what cfg resolves for node.
func resolvesTo(cfg *sloconfig.Config, node sloconfig.Node, slo *simSLO) bool {
	res := cfg.Resolve(node, slo.spec)
	return cfg.StoredFormOf(&res, nil).Digest == slo.digestOf()
}

// checkAfterEvent checks the invariants that hold of the cluster at rest.
func (o *simOracle) checkAfterEvent(w *simWorld) {
	invariantHeldMeansHeld(o, w)
	invariantHeldOnItsConfiguration(o, w)
	invariantHalt(o, w)
	invariantRevert(o, w)
}

// invariantHeldMeansHeld: "A pending node ... keeps its stored NodeSLO (no
// write) until its step" and "a held node whose labels change ... is
// resolved against the configuration in force for it"
// (docs/rollout.md#behaviour): every NodeSLO stores what a configuration
// released to its node resolves for the node's labels now.
func invariantHeldMeansHeld(o *simOracle, w *simWorld) {
	for _, name := range w.names() {
		slo := w.slos[name]
		if slo == nil || w.mgr.snap == nil {
			continue
		}
		if !o.released(w, name, slo) {
			o.fail("held means held", "node %s (labels %v) stores a configuration never released to it (released: %v)",
				name, w.nodes[name].labels, shortKeys(o.allowed[name]))
		}
	}
}

// invariantHeldOnItsConfiguration: "a pending node whose labels ... change
// ... stays pending, on the configuration in force for it ..., resolved
// with its new labels" (docs/rollout.md#behaviour): every node the gate
// holds stores what the configuration last released to it resolves for
// its labels now, not another one released to it before. A release the
// manager stopped before carrying out is not one: the node's NodeSLO
// still names what is in force for it.
func invariantHeldOnItsConfiguration(o *simOracle, w *simWorld) {
	if w.mgr.snap == nil {
		return
	}
	for _, name := range w.mgr.snap.gate.names() {
		slo, cfg := w.slos[name], w.configs[o.inForce[name]]
		if slo == nil || w.nodes[name] == nil || cfg == nil {
			continue
		}
		if !w.resolvesTo(cfg, name, slo) {
			o.fail("held on its configuration", "node %s (labels %v) is held on a configuration other than %s, "+
				"the last released to it (released: %v)",
				name, w.nodes[name].labels, ShortTarget(cfg.Fingerprint()), shortKeys(o.allowed[name]))
		}
	}
}

// invariantHistoryBounded: "The oldest revisions beyond
// revisionHistoryLimit ... are deleted, but for the newest revision of a
// configuration still in force for nodes a rollout holds"
// (docs/rollout.md#revision-history-and-undo): once a decision holds no
// node, the history is within its limit.
func invariantHistoryBounded(o *simOracle, w *simWorld, key Key, plan Plan) {
	if plan.Gate.Len() == 0 && len(w.revisions) > key.RevisionHistoryLimit() {
		o.fail("history bounded", "%d revisions kept with no node held, beyond the limit of %d",
			len(w.revisions), key.RevisionHistoryLimit())
	}
}

// invariantHalt: "When more reached nodes are unhealthy than
// maxUnhealthyNodes allows, the rollout halts: no further node is reached"
// (docs/rollout.md#health-gates): while the record keeps a halt, no node
// but those reached at the halt (and nodes created since, which get the
// configuration in force) stores the halted configuration.
func invariantHalt(o *simOracle, w *simWorld) {
	rec, err := w.recordOf()
	if err != nil || !rec.Health.Halted() {
		o.haltID, o.haltReached = "", nil
		return
	}
	id := rec.Target + rec.Health.HaltedAt.String()
	cfg := w.configs[rec.Target]
	carries := func(name string) bool {
		slo := w.slos[name]
		if slo == nil || cfg == nil || !resolvesTo(cfg, w.inputs(name), slo) {
			return false
		}
		for fp := range o.allowed[name] {
			if fp != rec.Target && resolvesTo(w.configs[fp], w.inputs(name), slo) {
				return false // the halted configuration changes nothing for it
			}
		}
		return true
	}
	if id != o.haltID {
		// Reached at the halt: the nodes storing what the halted
		// configuration resolves for them, a node it changed nothing for
		// (done, docs/rollout.md#behaviour) included.
		o.haltID, o.haltReached = id, map[string]bool{}
		for _, name := range w.names() {
			if slo := w.slos[name]; slo != nil && cfg != nil && resolvesTo(cfg, w.inputs(name), slo) {
				o.haltReached[name] = true
			}
		}
		return
	}
	for _, name := range w.names() {
		if !o.haltReached[name] && o.createdAt[name].Before(rec.Health.HaltedAt) && carries(name) {
			o.fail("halt", "node %s stores the halted configuration %s, which had not reached it at the halt",
				name, ShortTarget(rec.Target))
		}
	}
}

// invariantRevert: "A revert reaches every node that differs from the
// configuration it puts back, in one step ... It is never judged by the
// health gate" (docs/rollout.md#the-revert): a revert's rollout is never
// halted, and once its decision is persisted and carried out no node
// stores the configuration it replaces.
func invariantRevert(o *simOracle, w *simWorld) {
	rec, err := w.recordOf()
	if err != nil || rec.RevertOf == "" {
		return
	}
	if rec.Health.Halted() {
		o.fail("revert", "the revert to %s was halted", ShortTarget(rec.Target))
	}
	halted, back := w.configs[rec.RevertOf], w.configs[rec.Target]
	if !o.lastPersisted || halted == nil || back == nil || w.mgr.snap == nil ||
		w.mgr.snap.cfg.Fingerprint() != rec.Target {
		return
	}
	for _, name := range w.names() {
		slo := w.slos[name]
		if slo != nil && resolvesTo(halted, w.inputs(name), slo) && !resolvesTo(back, w.inputs(name), slo) {
			o.fail("revert", "node %s still stores the reverted configuration %s", name, ShortTarget(rec.RevertOf))
		}
	}
}

// invariantWithheld: "A halted configuration stays halted when it is
// applied again ... no NodeSLO is written" (docs/rollout.md#gitops-argo-cd-flux):
// a re-apply of withheld data makes no node store it. before has, for
// each node, whether it stored the data's configuration before the re-apply.
func invariantWithheld(o *simOracle, w *simWorld, data *sloconfig.Config, before map[string]bool) {
	for _, name := range w.names() {
		slo := w.slos[name]
		if slo != nil && !before[name] && resolvesTo(data, w.inputs(name), slo) &&
			o.createdAt[name].IsZero() {
			o.fail("withheld", "node %s stores the withheld configuration %s after a re-apply of the same data",
				name, ShortTarget(data.Fingerprint()))
		}
	}
}

// invariantSteps: "the pending canaries are reached first, all in one
// step; after soakSeconds, batches of maxNodesPerStep every
// stepIntervalSeconds" (docs/rollout.md#behaviour): within one interval a
// rollout releases no more pending nodes than one batch besides its
// canaries, and no other node before its canaries.
func invariantSteps(o *simOracle, w *simWorld, in PlanInput, rec Record, release, differing []string) {
	policy := in.Rollout.Policy
	id := rec.Target + rec.Started.String()
	if id != o.rolloutID {
		o.rolloutID, o.stepWrites, o.counted = id, nil, map[string]bool{}
	}
	if policy == nil || rec.RevertOf != "" {
		return
	}
	s := NewSchedule(policy, rec)
	pending := map[string]bool{}
	for _, name := range differing {
		pending[name] = true
	}
	before := rec.Health.before()
	released := false
	for _, name := range release {
		slo := w.slos[name]
		if !pending[name] || o.counted[name] || (Node{WrittenAt: slo.writtenAt}).carriesRejected(rec.RejectedSince) {
			continue
		}
		o.counted[name] = true
		_, unhealthyBefore := before[name]
		if policy.IsCanary(w.nodes[name].labels) && !unhealthyBefore {
			// A canary goes at once, one the selector newly matches too
			// (docs/rollout-design.md#decisions-where-the-specification-was-silent, a canary selector edited).
			continue
		}
		o.stepWrites = append(o.stepWrites, simStepWrite{at: w.now, node: name, interval: policy.StepInterval,
			size: s.StepSize})
		released = true
		if rec.Canaries > 0 && rec.Steps <= 1 && s.Steps() > 1 &&
			(!policy.IsCanary(w.nodes[name].labels) || unhealthyBefore) {
			o.fail("steps", "node %s, not a canary, is released by the canary step", name)
		}
	}
	// A window is one interval: the shorter of the strategy's then and now
	// (a strategy changed mid-rollout changes the pace from its change on), and
	// one step the larger of the sizes in force for the writes in it (a
	// size changed mid-rollout sizes the steps to come, never a catch-up:
	// docs/rollout-design.md#decisions-where-the-specification-was-silent, no catch-up).
	n, bound := 0, 0
	for _, sw := range o.stepWrites {
		if w.now.Sub(sw.at) < min(sw.interval, policy.StepInterval) {
			n, bound = n+1, max(bound, sw.size)
		}
	}
	if released && policy.StepInterval > 0 && n > bound {
		o.fail("steps", "%d pending nodes released within %v (one step: at most %d)", n, policy.StepInterval, bound)
	}
}

// invariantStatusTellsTheTruth: "nodes held on their stored NodeSLO now"
// and the phase's meaning (docs/rollout.md#status): the status persisted,
// read back, counts the pending nodes the model counts, is Halted exactly
// when the record keeps a halt, and names unhealthy only nodes that were.
func invariantStatusTellsTheTruth(o *simOracle, w *simWorld, rec Record, plan Plan, differing []string) {
	if plan.Status == nil {
		return
	}
	s := &w.status
	released := map[string]bool{}
	for _, name := range plan.Release {
		released[name] = true
	}
	pending := 0
	for _, name := range differing {
		if !released[name] {
			pending++
		}
	}
	if int(s.Pending) != pending {
		o.fail("status tells the truth", "status.pending %d, but %d nodes differ and were not released", s.Pending, pending)
	}
	if halted := rec.Health.Halted(); (s.Phase == PhaseHalted) != halted {
		o.fail("status tells the truth", "phase %s, record halted %t", s.Phase, halted)
	}
	if s.Phase == PhaseCompleted && pending > 0 {
		o.fail("status tells the truth", "phase Completed with %d nodes pending", pending)
	}
	if s.Health != nil {
		for _, n := range s.Health.Nodes {
			if !o.sick[n.Name] {
				o.fail("status tells the truth", "node %s named unhealthy, never was", n.Name)
			}
		}
	}
}

// invariantExactlyOnce: "every pending node is written exactly once"
// (docs/rollout-design.md, TestNoBurst) and "no write that changed
// nothing" (docs/testing.md#fault-tests): a write always changes the spec.
// The one exception is a node a step reached without a write, whose
// stamps alone are written once (Gate.restamp).
func invariantExactlyOnce(o *simOracle, name string, old, written *simSLO, restamp bool) {
	if old.spec == nil || !sloconfig.SpecEqual(old.spec, written.spec) {
		return
	}
	if !restamp || old.from == written.from {
		o.fail("exactly once", "node %s written with the spec and the stamp it stores (restamp %t)", name, restamp)
	}
}

// invariantLiveness: "after soakSeconds, batches of maxNodesPerStep every
// stepIntervalSeconds ... until none is pending" (docs/rollout.md#behaviour):
// with every node healthy and nothing paused, every node stores the
// configuration in force within the rollout's steps × interval + soak +
// one interval.
func invariantLiveness(o *simOracle, w *simWorld, deadline time.Time) {
	snap := w.mgr.snap
	if snap == nil {
		o.fail("liveness", "nothing published by %v", deadline.Sub(simStart))
		return
	}
	if snap.gate.Len() > 0 {
		o.fail("liveness", "%d nodes still held by %v", snap.gate.Len(), deadline.Sub(simStart))
		return
	}
	for _, name := range w.names() {
		slo := w.slos[name]
		if slo == nil || !resolvesTo(snap.cfg, w.inputs(name), slo) {
			o.fail("liveness", "node %s does not store configuration %s by %v", name,
				ShortTarget(snap.cfg.Fingerprint()), deadline.Sub(simStart))
			return
		}
	}
}

// shortKeys names a set of fingerprints, short and sorted.
func shortKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, ShortTarget(k))
	}
	return out
}
