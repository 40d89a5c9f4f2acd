package rollout

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// The simulator's model cluster (docs/testing.md#the-rollout-simulator):
// what the apiserver would hold (Nodes, NodeSLOs, the ConfigMap, the
// NodeSLORollout, the revision history) and one manager over it, whose two
// controllers are driven here in virtual time through the real decision
// code: Memory.Plan (Decide, the gate, the schedule, the health judgement),
// StandingOf and RevertTo for what is in force, KeepHistory, the status as
// Plan.APIStatus renders it, persisted as JSON and read back, and
// ChooseNode, the NodeSLO reconciler's choice. What is glue here (the
// order of the calls) mirrors internal/controller's Reconcile; the I/O
// itself is what envtest covers.

// simRevertManager is the field manager a revert's revision names, as
// internal/controller's revertFieldManager.
const simRevertManager = "nodeslo-health-gate"

// simNode is a Node: its labels and what the health gate watches of it.
type simNode struct {
	labels map[string]string
	// relabels counts the changes of its labels (simResolveKey).
	relabels int
	// ready and readySince are its Ready condition and its last transition.
	ready      bool
	readySince time.Time
	evictions  []Eviction
}

// simSLO is a NodeSLO: its spec, generation and spec-written-at stamp,
// and the digest its annotation vouches for ("": none, after a hand edit).
type simSLO struct {
	spec       *slov1alpha1.NodeSLOSpec
	generation int64
	writtenAt  time.Time
	vouched    string
	// from and under are the configuration annotation: the short
	// fingerprint of the configuration it was last written from, and the
	// number of the revision in force then.
	from  string
	under int64
	// digest is the spec's digest, for the invariants.
	digest string
}

// digestOf is the digest of the spec stored.
func (s *simSLO) digestOf() string {
	if s.digest == "" {
		s.digest = sloconfig.SpecDigest(s.spec)
	}
	return s.digest
}

// simSnapshot is what the rollout controller published.
type simSnapshot struct {
	cfg     *sloconfig.Config
	gate    *Gate
	decided time.Time
	// revision is the number of the revision in force (0: not known).
	revision int64
}

// simManager is what one manager process keeps in memory; a restart loses it.
type simManager struct {
	memory        Memory
	loadedVersion int
	loadedData    *sloconfig.Config
	snap          *simSnapshot
	// historyFingerprint and historyNumber are the revision in force as last recorded.
	historyFingerprint string
	// historyKeptFor are the held configurations whose revisions were
	// kept beyond the limit (HistoryChange.KeptFor).
	historyKeptFor []string
	historyNumber  int64
	revertRefused  string
	// written is the status of our last write, which the decision reads
	// instead of a cache that has not seen it yet (rollout_object.go).
	written *nodeslov1alpha1.NodeSLORolloutStatus
	nextAt  time.Time
	wake    bool
	queue   []string
	// decideFirst: a decision runs before the queued reconciles (a timer
	// or a signal fired between a Node's change and its reconcile), and
	// sees the node's new labels beside the NodeSLO not yet rewritten.
	decideFirst bool
}

// simFault is what goes wrong in the next decision.
type simFault int

const (
	faultNone simFault = iota
	// faultCrashAfterRecord: the manager stops once the status (the record) is written, before publishing.
	faultCrashAfterRecord
	// faultCrashHalfway: the manager stops halfway through the writes the decision released.
	faultCrashHalfway
	// faultStatusConflict: the status write fails (a conflict, as on a stale cache).
	faultStatusConflict
)

// simWorld is the cluster and its manager.
type simWorld struct {
	now     time.Time
	nodes   map[string]*simNode
	slos    map[string]*simSLO
	data    map[string]string
	version int
	// status and spec are the NodeSLORollout's; generation its metadata.generation.
	status     nodeslov1alpha1.NodeSLORolloutStatus
	spec       nodeslov1alpha1.NodeSLORolloutSpec
	generation int64
	revisions  []Revision
	mgr        *simManager
	fault      simFault
	nextNode   int

	// configs are the configurations seen, by fingerprint.
	configs map[string]*sloconfig.Config
	// oracle is what the invariants compare the cluster with.
	oracle simOracle
	// decisions counts the rollout controller's reconciles that planned.
	decisions int
	// trace, when set, is told every step (for a failing seed's report).
	trace func(string)
	// keys are the strategies parsed (LoadKey), by value.
	keys map[string]Key
	// record is the last record parsed (recordOf).
	record struct {
		parsed bool
		api    *nodeslov1alpha1.RolloutRecord
		rec    Record
		err    error
	}
	// resolved memoizes resolvesTo, by configuration, inputs and digest.
	resolved map[simResolveKey]bool
}

// simResolveKey is what resolvesTo's answer depends on.
type simResolveKey struct {
	fingerprint, digest, node string
	relabels                  int
}

// simLoads memoizes sloconfig.Load across histories (loadOf): a history
// loads the same few data many times (re-applies, restarts, undo), and
// the profile of make sim found Load an eighth of its time.
var simLoads = map[string]*sloconfig.Config{}

// loadOf is sloconfig.Load(data, previous), which depends on nothing else.
func loadOf(data map[string]string, previous *sloconfig.Config) *sloconfig.Config {
	var b strings.Builder
	if previous != nil {
		b.WriteString(previous.Fingerprint())
	}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		b.WriteString("\x00" + k + "\x00" + data[k])
	}
	key := b.String()
	if cfg, ok := simLoads[key]; ok {
		return cfg
	}
	if len(simLoads) > 100000 {
		clear(simLoads)
	}
	cfg := sloconfig.Load(data, previous)
	simLoads[key] = cfg
	return cfg
}

// recordOf is RecordOf the record persisted, read once a status (a
// status written is a new value, never changed in place).
func (w *simWorld) recordOf() (Record, error) {
	if api := w.status.RolloutRecord; !w.record.parsed || api != w.record.api {
		w.record.parsed, w.record.api = true, api
		w.record.rec, w.record.err = RecordOf(api)
	}
	return w.record.rec, w.record.err
}

// resolvesTo is resolvesTo for node name, memoized.
func (w *simWorld) resolvesTo(cfg *sloconfig.Config, name string, slo *simSLO) bool {
	key := simResolveKey{fingerprint: cfg.Fingerprint(), digest: slo.digestOf(), node: name,
		relabels: w.nodes[name].relabels}
	if ok, known := w.resolved[key]; known {
		return ok
	}
	ok := resolvesTo(cfg, w.inputs(name), slo)
	w.resolved[key] = ok
	return ok
}

// newSimWorld is a cluster of nodes, each with a NodeSLO of data's
// configuration, written under its revision (the first), and a manager
// that has just decided on it.
func newSimWorld(data map[string]string, nodes map[string]map[string]string, start time.Time) *simWorld {
	w := &simWorld{
		now: start, nodes: map[string]*simNode{}, slos: map[string]*simSLO{}, data: data, version: 1,
		generation: 1, mgr: &simManager{}, configs: map[string]*sloconfig.Config{}, oracle: newSimOracle(),
		keys: map[string]Key{}, resolved: map[simResolveKey]bool{},
	}
	cfg := w.config(loadOf(data, nil))
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		w.nodes[name] = &simNode{labels: nodes[name], ready: true, readySince: start.Add(-time.Hour)}
		res := cfg.Resolve(sloconfig.Node{Name: name, Labels: nodes[name]}, nil)
		w.slos[name] = &simSLO{spec: res.Spec.DeepCopy(), generation: 1, writtenAt: start.Add(-time.Hour),
			vouched: cfg.StoredFormOf(&res, nil).Digest, from: ShortTarget(cfg.Fingerprint()), under: 1}
		w.oracle.allow(name, cfg.Fingerprint())
		w.nextNode++
	}
	w.mgr.wake = true
	w.settle()
	return w
}

// config keeps cfg by fingerprint, so that the invariants can resolve it.
func (w *simWorld) config(cfg *sloconfig.Config) *sloconfig.Config {
	if known, ok := w.configs[cfg.Fingerprint()]; ok {
		return known
	}
	w.configs[cfg.Fingerprint()] = cfg
	return cfg
}

func (w *simWorld) log(format string, args ...any) {
	if w.trace != nil {
		w.trace(fmt.Sprintf("%s ", w.now.Sub(simStart).Round(time.Millisecond)) + fmt.Sprintf(format, args...))
	}
}

// inputs is what node name contributes to its NodeSLO.
func (w *simWorld) inputs(name string) sloconfig.Node {
	return sloconfig.Node{Name: name, Labels: w.nodes[name].labels}
}

// names are the nodes, sorted.
func (w *simWorld) names() []string { return slices.Sorted(maps.Keys(w.nodes)) }

// controls are the NodeSLORollout's record and the operator's controls, as
// the controller reads them (ControlsOf), from our last status write when
// the cache may lag behind it.
func (w *simWorld) controls() Controls {
	obj := &nodeslov1alpha1.NodeSLORollout{Spec: w.spec, Status: w.status}
	if w.mgr.written != nil {
		obj.Status = *w.mgr.written
	}
	obj.Generation = w.generation
	return ControlsOf(obj)
}

// rolloutKey is the strategy, which the simulation keeps as JSON in the
// data under the retired rollout key (LoadKey reads it there), paused when
// the spec says so.
func (w *simWorld) rolloutKey() Key {
	value, present := w.data[string(sloconfig.KeyRollout)]
	id := fmt.Sprint(present, value)
	key, ok := w.keys[id]
	if !ok {
		key = LoadKey(w.data)
		w.keys[id] = key
	}
	if w.spec.Paused && key.Policy != nil {
		paused := *key.Policy
		paused.Paused = true
		key.Policy = &paused
	}
	return key
}

// inForce is the configuration a decision puts in force for the
// ConfigMap's data, as internal/controller's rolloutDriver.inForce: the
// data's, unless the health gate withholds it (StandingOf). ok is false
// when the configuration to keep is in no revision: nothing is published.
func (w *simWorld) inForce(
	key Key, c Controls, fromData *sloconfig.Config,
) (cfg *sloconfig.Config, revertOf string, ok bool) {
	if !key.Present {
		return fromData, "", true
	}
	s := StandingOf(c.Record, fromData.Fingerprint(), c.Retry)
	switch {
	case s.Revert:
		if w.mgr.revertRefused == s.Halt.Target {
			return fromData, "", true
		}
		previous, why := RevertTo(w.revisions, s.Halt.Target, simRevertManager)
		if why != "" {
			w.mgr.revertRefused = s.Halt.Target
			return fromData, "", true
		}
		return w.config(loadOf(previous.Data, nil)), s.Halt.Target, true
	case s.Hold != "":
		if snap := w.mgr.snap; snap != nil && snap.cfg.Fingerprint() == s.Hold {
			return snap.cfg, "", true
		}
		for _, r := range slices.Backward(w.revisions) {
			if r.Fingerprint == s.Hold {
				if cfg := loadOf(r.Data, nil); cfg.Fingerprint() == s.Hold {
					return w.config(cfg), "", true
				}
			}
		}
		return nil, "", false
	}
	return fromData, "", true
}

// observed is every node as the manager's caches show it.
func (w *simWorld) observed() []Observed {
	out := make([]Observed, 0, len(w.nodes))
	for _, name := range w.names() {
		o := Observed{Node: w.inputs(name)}
		if slo := w.slos[name]; slo != nil {
			o.Stored, o.StoredDigest, o.WrittenAt = slo.spec, slo.vouched, slo.writtenAt
			o.From, o.Under = slo.from, slo.under
		}
		out = append(out, o)
	}
	return out
}

// health is what the gate's watches show of every node.
func (w *simWorld) health() map[string]NodeHealth {
	out := make(map[string]NodeHealth, len(w.nodes))
	for name, n := range w.nodes {
		status := corev1.ConditionTrue
		if !n.ready {
			status = corev1.ConditionFalse
		}
		out[name] = NodeHealth{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status,
				LastTransitionTime: metav1.NewTime(n.readySince.Truncate(time.Second))}},
			Evictions: slices.Clone(n.evictions),
		}
	}
	return out
}

// decide is one reconcile of the rollout controller, in its phases:
// read, load (the config-cache controller's part), decide what is in
// force, plan, keep the history, write the
// status once, publish (rollout_controller.go's Reconcile).
func (w *simWorld) decide() {
	m := w.mgr
	key, c := w.rolloutKey(), w.controls()
	if m.loadedData == nil || m.loadedVersion != w.version {
		m.loadedData, m.loadedVersion = w.config(loadOf(w.data, m.loadedData)), w.version
	}
	cfg, revertOf, ok := w.inForce(key, c, m.loadedData)
	if !ok {
		w.log("decide: the configuration to keep is in no revision; nothing published")
		return
	}
	in := PlanInput{
		Rollout: key, Record: c.Record, HasRecord: c.HasRecord, Config: cfg, Now: w.now,
		RolloutKey: KeyFingerprint(w.data[string(sloconfig.KeyRollout)]), Data: m.loadedData.Fingerprint(),
		RevertOf: revertOf, Retry: c.Retry, Resume: c.Resume,
	}
	if m.historyFingerprint == cfg.Fingerprint() {
		in.Revision = m.historyNumber
	}
	if NeedsNodes(key) {
		in.Nodes = w.observed()
		var current *sloconfig.Config
		if m.snap != nil {
			current = m.snap.cfg
		}
		in.Before, in.Numbers = ConfigsBefore(cfg, current, w.historyConfigs()), w.numbers()
	}
	if GateWatches(key, in.Record, cfg.Fingerprint(), revertOf, w.now) {
		in.Health = w.health()
	}
	// The metric checks due are answered at once; the controller's
	// answers come with a later decision (metric_measurer.go), which the
	// pure core treats the same.
	if queries, err := m.memory.MetricQueries(in); err == nil && len(queries) > 0 {
		in.MetricSamples = make(map[string]MetricSample, len(queries))
		for _, q := range queries {
			invariantMetricScope(&w.oracle, w, in, q)
			in.MetricSamples[q.Check.Name] = simMetricSample(q.Check.Name, w.now)
		}
	}
	w.decisions++
	plan := m.memory.Plan(in)
	w.keepHistory(key, cfg, revertOf, plan.Gate.Bases())
	fault := w.fault
	w.fault = faultNone
	plan, persisted := w.writeStatus(plan, c, fault)
	w.oracle.decided(w, in, plan, persisted)
	w.log("decide: target %s record %s release %v gate %d next %v", ShortTarget(cfg.Fingerprint()),
		recordText(w.status.RolloutRecord), plan.Release, plan.Gate.Len(), plan.NextAt.Sub(simStart))
	if fault == faultCrashAfterRecord {
		w.restart("after persisting its record, before any node write")
		return
	}
	m.memory = plan.Memory()
	before := m.snap
	m.snap = &simSnapshot{cfg: cfg, gate: plan.Gate, decided: w.now, revision: m.historyNumber}
	m.nextAt = plan.NextAt
	if !persisted {
		m.nextAt = Earliest(m.nextAt, w.now.Add(time.Second)) // the reconcile is retried
	}
	if key.Present {
		record := c.Record
		if plan.RecordChange != nil {
			record = plan.RecordChange.Value
		}
		if s := StandingOf(record, m.loadedData.Fingerprint(), c.Retry); s.Revert && m.revertRefused != s.Halt.Target {
			m.wake = true // the revert comes with the next decision (rollout_revert.go's revertAt)
		}
	}
	release := slices.Concat(plan.Release, plan.Gate.Restamped())
	if before == nil || before.cfg.Fingerprint() != cfg.Fingerprint() {
		release = w.names()
		for name := range w.slos {
			if w.nodes[name] == nil {
				release = append(release, name)
			}
		}
	}
	if fault == faultCrashHalfway {
		for _, name := range release[:len(release)/2] {
			w.reconcileNode(name)
		}
		w.restart("halfway through the writes of its decision")
		return
	}
	m.queue = append(m.queue, release...)
}

// historyConfigs are the configurations of the revision history, newest
// first, as the controller's driver keeps them (rollout_history.go).
func (w *simWorld) historyConfigs() []*sloconfig.Config {
	out := make([]*sloconfig.Config, 0, len(w.revisions))
	for _, r := range slices.Backward(w.revisions) {
		cfg, ok := w.configs[r.Fingerprint]
		if !ok {
			cfg = w.config(loadOf(r.Data, nil))
		}
		out = append(out, cfg)
	}
	return out
}

// numbers are the numbers of each configuration's newest revision.
func (w *simWorld) numbers() map[string]int64 {
	out := make(map[string]int64, len(w.revisions))
	for _, r := range w.revisions {
		out[r.Fingerprint] = r.Number
	}
	return out
}

// keepHistory records cfg as a new revision when it differs from the
// newest (rollout_history.go's keepHistory, outcomes aside).
func (w *simWorld) keepHistory(key Key, cfg *sloconfig.Config, revertOf string, held []string) {
	m := w.mgr
	if m.historyFingerprint == cfg.Fingerprint() && !HeldReleased(m.historyKeptFor, held) {
		return
	}
	data, representable := cfg.DataInForce()
	change := KeepHistory(w.revisions, InForce{Fingerprint: cfg.Fingerprint(), Data: data,
		Representable: representable, RolloutKey: w.data[string(sloconfig.KeyRollout)], Held: held},
		key.RevisionHistoryLimit())
	if r := change.Create; r != nil {
		r.Name, r.ChangedBy = RevisionName("slo-controller-config", r.Number), "gitops"
		if revertOf != "" {
			r.ChangedBy = simRevertManager
		}
		w.revisions = append(w.revisions, *r)
	}
	w.revisions = slices.DeleteFunc(w.revisions, func(r Revision) bool { return slices.Contains(change.Delete, r.Name) })
	m.historyFingerprint, m.historyNumber, m.historyKeptFor = cfg.Fingerprint(), 0, change.KeptFor
	if n := len(w.revisions); n > 0 && representable && w.revisions[n-1].Fingerprint == cfg.Fingerprint() {
		m.historyNumber = w.revisions[n-1].Number
	}
}

// writeStatus writes the status the plan decided, as JSON and read back
// (rollout_object.go's writeStatus); a failed write publishes the plan's
// Unpersisted form. It returns the plan to publish and whether the record
// it decided is persisted.
func (w *simWorld) writeStatus(plan Plan, c Controls, fault simFault) (Plan, bool) {
	old := w.status
	if w.mgr.written != nil {
		old = *w.mgr.written
	}
	want := plan.APIStatus(old, c, ObservedBy{Generation: w.generation,
		ConfigMapVersion: fmt.Sprint(w.version), Revision: w.mgr.historyNumber}, w.now)
	if !StatusChanged(old, want) {
		return plan, true
	}
	if fault == faultStatusConflict {
		w.mgr.written = nil
		w.log("decide: the status write conflicts")
		return plan.Unpersisted(), false
	}
	raw, err := json.Marshal(want)
	if err != nil {
		panic(err)
	}
	var back nodeslov1alpha1.NodeSLORolloutStatus
	if err := json.Unmarshal(raw, &back); err != nil {
		panic(err)
	}
	w.status = back
	w.mgr.written = back.DeepCopy()
	return plan, true
}

// restart stops the manager and starts a new one, which knows nothing but
// what the cluster holds, and decides at once.
func (w *simWorld) restart(why string) {
	w.log("restart: the manager stopped %s", why)
	w.oracle.forgetUncarried()
	w.mgr = &simManager{wake: true}
}

// reconcileNode is one reconcile of the NodeSLO controller for name
// (nodeslo_controller.go's sync): ChooseNode decides, the write stamps
// spec-written-at no earlier than the decision it carries out.
func (w *simWorld) reconcileNode(name string) {
	snap := w.mgr.snap
	if snap == nil {
		return
	}
	node, slo := w.nodes[name], w.slos[name]
	if node == nil {
		if slo != nil {
			delete(w.slos, name)
			w.log("node %s: NodeSLO deleted", name)
		}
		return
	}
	stored := StoredNode{}
	if slo != nil {
		stored = StoredNode{Exists: true, Spec: slo.spec, Digest: slo.vouched, From: slo.from}
	}
	choice := ChooseNode(snap.cfg, nil, snap.gate, w.inputs(name), stored)
	if !snap.gate.Has(name) {
		w.oracle.carried(name)
	}
	if choice.Action != NodeWrite {
		return
	}
	if slo == nil {
		slo = &simSLO{}
		w.slos[name] = slo
		w.oracle.created(name, snap.cfg.Fingerprint())
	}
	old := *slo
	slo.spec, slo.generation = choice.Resolution.Spec.DeepCopy(), slo.generation+1
	slo.vouched, slo.digest = choice.Want.Digest, choice.Want.Digest
	slo.from, slo.under = ShortTarget(choice.From.Fingerprint()), snap.revision
	w.oracle.wrote(w, name, &old, slo, snap.gate.restamps(name), w.now)
	// Stamped as the controller stamps it, read back from the annotation.
	slo.writtenAt = storedslo.ParseWrittenAt(map[string]string{
		storedslo.SpecWrittenAnnotation: storedslo.FormatWrittenAt(storedslo.WrittenAt(w.now, snap.decided)),
	})
	w.log("node %s: written", name)
	if snap.gate.Has(name) {
		w.mgr.wake = true // heldNodeWritten
	}
}

// settle runs what the controllers have queued, until nothing is.
func (w *simWorld) settle() {
	for range 100 {
		m := w.mgr
		switch {
		case m.decideFirst && len(m.queue) > 0:
			m.decideFirst = false
			w.decide()
		case len(m.queue) > 0:
			queue := m.queue
			m.queue = nil
			seen := map[string]bool{}
			for _, name := range queue {
				if !seen[name] {
					seen[name] = true
					w.reconcileNode(name)
				}
			}
		case m.wake:
			m.wake = false
			w.decide()
		default:
			return
		}
	}
}

// advance lets virtual time pass until to, deciding whenever a decision
// asked to be woken.
func (w *simWorld) advance(to time.Time, check func() bool) bool {
	for {
		next := w.mgr.nextAt
		if next.IsZero() || next.After(to) {
			break
		}
		if next.After(w.now) {
			w.now = next
		}
		w.mgr.nextAt, w.mgr.wake = time.Time{}, true
		w.settle()
		if !check() {
			return false
		}
	}
	if to.After(w.now) {
		w.now = to
	}
	return true
}
