package rollout

import (
	"time"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Observed is one node as the controller's caches show it.
type Observed struct {
	Node sloconfig.Node
	// Stored is the spec of the node's NodeSLO (nil: it has none, or only
	// its digest was read).
	Stored *slov1alpha1.NodeSLOSpec
	// StoredDigest is the digest (sloconfig.SpecDigest) the NodeSLO's
	// storedslo.SpecDigestAnnotation vouches for ("": none); when set it decides
	// whether the node differs, whether or not Stored was read
	// (sloconfig.StoredForm.HeldBy).
	StoredDigest string
	// WrittenAt is the NodeSLO's storedslo.SpecWrittenAnnotation (zero: none).
	WrittenAt time.Time
	// From is the NodeSLO's storedslo.ConfigurationAnnotation: the short
	// fingerprint (ShortTarget) of the configuration it was last written
	// from ("": none, written by an earlier version), and Under the number
	// of the revision in force when it was (0: not known).
	From  string
	Under int64
}

// PlanInput is everything a plan depends on: the NodeSLORollout's strategy
// and record, the configuration in force and every node.
type PlanInput struct {
	// Rollout is the NodeSLORollout's spec.strategy with its spec.paused,
	// compiled once per reconcile (LoadStrategy).
	Rollout Key
	// Record is the NodeSLORollout's status.rolloutRecord; HasRecord says whether
	// it is set at all.
	Record    string
	HasRecord bool
	Config    *sloconfig.Config
	// Nodes are needed only when there is a strategy (NeedsNodes).
	Nodes []Observed
	Now   time.Time
	// Dropped are the spec fields the installed NodeSLO CRD drops: a node
	// whose NodeSLO lacks only those has the configuration in force
	// (docs/behaviour.md#crd-version-skew).
	Dropped []string
	// RolloutKey is a fingerprint of the strategy (KeyFingerprint of
	// StrategyJSON).
	RolloutKey string
	// Health has, by node name, the watched conditions and the Pod evictions
	// of the nodes, when the strategy has a health gate (HealthWatched).
	Health map[string]NodeHealth
	// Data is the fingerprint of the configuration of the ConfigMap's data
	// ("": Config's). It differs from Config's while the health gate
	// withholds the data (Standing): the status and an Event say so.
	Data string
	// RevertOf is the halted configuration Config replaces under a health
	// gate's revert (Standing.Revert; "": none).
	RevertOf string
	// Retry is the operator's retry (the NodeSLORollout's spec.retry;
	// zero: none).
	Retry Retry
	// Resume is the halt the operator resumes (the NodeSLORollout's
	// spec.resume.haltedAt; zero: none).
	Resume time.Time
	// Revision is the number of the revision of Config (0: not known yet).
	Revision int64
	// MetricSamples are the answers to Memory.MetricQueries, by check name.
	MetricSamples map[string]MetricSample
	// Before are the configurations in force before Config, newest first
	// (ConfigsBefore): a held node stays on the one in force for it,
	// whatever its inputs do (Gate, baseOf).
	Before []*sloconfig.Config
	// Numbers has, by fingerprint, the number of the newest revision of
	// each configuration of Before (absent: not known), to tell those put
	// in force after a node was written (baseOf).
	Numbers map[string]int64
}

// NeedsNodes reports whether a plan under this strategy looks at the nodes:
// without a strategy there is nothing to decide for each of them.
func NeedsNodes(load Key) bool { return load.Present }

// RecordChange is a change of the NodeSLORollout's status.rolloutRecord, persisted
// before anything of the plan is published.
type RecordChange struct {
	// Value is the record's JSON; empty drops the record.
	Value string
}

// Plan is what the rollout controller does about the rollout in one
// reconcile: persist RecordChange (when not nil), then publish Gate with the
// configuration, enqueue Release, report Figures (when not nil) and Events,
// set Status (when not nil) as the NodeSLORollout's status, and decide again
// at NextAt (zero: only on a change of the ConfigMap or the NodeSLORollout's
// spec). When the record cannot be
// persisted, Unpersisted is what to do instead.
type Plan struct {
	RecordChange *RecordChange
	Gate         *Gate
	// Release are the nodes to enqueue once Gate is published: those a step
	// reached, or those a gate now gone held.
	Release []string
	NextAt  time.Time
	Figures *Figures
	Events  []Event
	// Status is where the rollout stands, the NodeSLORollout's status
	// without what the controller sets itself (what it observed, the
	// revision, the conditions and the record); nil when this plan decided
	// nothing.
	Status *nodeslov1alpha1.NodeSLORolloutStatus
	// RecordProblem is why the record could not be read; the rollout then
	// starts again, which is safe: it holds every pending node.
	RecordProblem error

	// memory is what to remember once the plan is carried out; unpersisted
	// is the plan when RecordChange could not be written (nil: this one).
	memory      Memory
	unpersisted *Plan
}

// Memory is what to remember once the plan is carried out.
func (p Plan) Memory() Memory { return p.memory }

// Unpersisted is the plan to carry out instead when RecordChange could not
// be written: nothing pending may move without its record persisted.
func (p Plan) Unpersisted() Plan {
	if p.unpersisted == nil {
		return p
	}
	return *p.unpersisted
}

// Plan decides the rollout over every node (docs/rollout.md). m is what the
// previous plans left.
func (m Memory) Plan(in PlanInput) Plan {
	switch {
	case !in.Rollout.Present && !in.HasRecord:
		// No rollout: a gate left from one that ended goes, its nodes released.
		if m.gate == nil {
			return Plan{memory: m, Status: allAtOnceStatus(in.Config, in.Now)}
		}
		return Plan{Release: m.gate.names(), Figures: &Figures{}, Status: allAtOnceStatus(in.Config, in.Now)}
	case !in.Rollout.Present:
		// The strategy is gone: every change reaches every node at once, and the
		// record of a rollout that no longer exists is removed.
		return Plan{RecordChange: &RecordChange{}, Release: m.gate.names(), Figures: &Figures{},
			Status: allAtOnceStatus(in.Config, in.Now)}
	}
	stored, recordProblem := ParseRecord(in.Record)
	target := in.Config.Fingerprint()
	rec := m.stepSeen.onto(stored, target)
	nodes, held := describe(in, m, rec)
	health := judgeNodes(in, rec, target, nodes)
	health.Metrics = in.MetricSamples
	d := Decide(Input{
		Rollout: in.Rollout, Target: target, Record: rec, Nodes: nodes, Now: in.Now,
		RolloutKey: in.RolloutKey, Health: health,
		RevertOf: in.RevertOf, Retry: in.Retry, Resume: in.Resume, Revision: in.Revision,
	})
	withheld := withheldOf(d.Record, in.Data)

	gate := &Gate{held: make(map[string]heldWith, len(d.Held))}
	for _, name := range d.Held {
		gate.held[name] = held[name]
	}
	reachedStale := reachedWithStaleStamps(in, d.Record, nodes)
	gate.restamp = gate.notHolding(reachedStale)
	mem := m
	mem.gate, mem.gateTarget, mem.nextAt = gate, in.Config, Earliest(d.NextStep, d.RecheckAt)
	mem.released = make(map[string]bool, len(d.Write))
	for _, name := range d.Write {
		mem.released[name] = true
	}
	events, pausedReported := decisionEvents(in.Rollout, d, m.pausedReported)
	said, withheldReported := withheldEvent(withheld, target, d.Started && d.Record.RevertOf != "", m.withheldReported)
	events = append(events, said...)
	mem.pausedReported, mem.withheldReported = pausedReported, withheldReported
	seen := m
	if d.Incomplete && !d.Paused {
		seen.stepSeen = seenIncomplete{target: target, steps: d.Record.Steps, at: d.Record.StepAt}
	}
	mem.stepSeen = seen.stepSeen
	if d.NextStep.IsZero() && d.Record.Done && gateWatches(in.Rollout.Policy, d.Record, in.Now) {
		// The gate watches the soak after completion; decide again at its end.
		mem.nextAt = d.Record.DoneAt.Add(in.Rollout.Policy.CanarySoak)
	}
	mem.nextAt = Earliest(mem.nextAt, mem.measured(in, d))
	p := Plan{
		Gate:    gate,
		Release: d.Write,
		NextAt:  mem.nextAt,
		Figures: &Figures{
			Pending: len(d.Held), Reached: d.Reached, Step: d.Record.Steps,
			InProgress: !d.Record.Done, Paused: d.Paused && len(d.Held) > 0,
			Halted: d.Halted, Unhealthy: d.Record.Health.UnhealthyCount(), Withheld: withheld != nil,
		},
		Events:        events,
		Status:        statusOf(in.Rollout, d, in.RolloutKey, in.Now),
		RecordProblem: recordProblem,
		memory:        mem,
		unpersisted:   &Plan{Gate: holdAll(nodes, held), memory: seen},
	}
	p.unpersisted.Gate.restamp = p.unpersisted.Gate.notHolding(reachedStale)
	p.Status.Withheld = withheld
	// A record to persist is written unless the status holds it already.
	value := d.Record.Encode()
	holds := in.HasRecord && in.Record == value
	if (value != rec.Encode() || recordProblem != nil || !rec.Equal(stored)) && !holds {
		p.RecordChange = &RecordChange{Value: value}
	}
	return p
}

// describe tells the decision, for every node, whether its stored NodeSLO
// differs from what the configuration resolves for it, whether it was
// done or reached before (Memory.reached), whether the rollout still
// holds it although it differs no longer, and whether it is a canary.
// held has what each pending node would be held with: the configuration
// in force for it (heldWithOf, m.gate the gate last published), or, for
// a node that no longer differs, what the last plan of this rollout held
// it with (Memory.stillHeld) or, without that plan remembered, what its
// stamp names (heldSince).
func describe(in PlanInput, m Memory, rec Record) (nodes []Node, held map[string]heldWith) {
	target := in.Config.Fingerprint()
	nodes = nodesOf(in.Config, in.Rollout.Policy, in.Nodes, in.Dropped)
	held = make(map[string]heldWith, len(in.Nodes))
	for i, o := range in.Nodes {
		switch {
		case !nodes[i].Stored:
		case !nodes[i].Differs:
			if with, ok := m.stillHeld(target, o.Node.Name); ok {
				nodes[i].Held, held[o.Node.Name] = true, with
			} else if !m.knowsPlanOf(target) && heldSince(o, rec, target, in.Before, in.Numbers) {
				nodes[i].Held = true
				held[o.Node.Name] = heldWith{base: baseOf(o, in.Before, in.Numbers, in.Dropped)}
			}
		case m.reached(target, o):
			nodes[i].Reached = true
		default:
			held[o.Node.Name] = heldWithOf(o, in.Before, in.Numbers, in.Dropped, m)
		}
	}
	return nodes, held
}

// heldSince reports whether the rollout of rec (in progress for target)
// held the node o when this controller last wrote it: written since the
// rollout started, from a configuration of before other than target,
// under a revision newer than that configuration's (numbers). Only a gate
// holding a node writes it from an older configuration than the one in
// force; a node not held is written from target, and one that target
// changes nothing for and that no decision held is not written at all.
// This is how a plan after a restart knows the nodes Memory.stillHeld
// would have kept. Not knowing the configuration or its number, it is not
// held; written under a revision older than target's, it carried out a
// decision of the rollout before (in the instant this one started), and
// is not held either.
func heldSince(o Observed, rec Record, target string, before []*sloconfig.Config, numbers map[string]int64) bool {
	if rec.Target != target || o.From == "" || o.From == ShortTarget(target) || o.Under == 0 ||
		o.WrittenAt.IsZero() || o.WrittenAt.Before(rec.Started) {
		return false
	}
	if n, ok := numbers[target]; ok && o.Under < n {
		// Written while an older revision was in force: carrying out a
		// decision of the rollout before, in the instant this one started.
		return false
	}
	for _, cfg := range before {
		if ShortTarget(cfg.Fingerprint()) == o.From {
			n, ok := numbers[cfg.Fingerprint()]
			return ok && o.Under > n
		}
	}
	return false
}

// reachedWithStaleStamps are the nodes whose NodeSLO holds what the
// target resolves for them, yet names the configuration the gate of this
// rollout held them with (heldSince): those a gate no longer holds were
// reached by a step without a write, and nothing in the cluster says so
// until their stamps name the target (Gate.restamp).
func reachedWithStaleStamps(in PlanInput, rec Record, nodes []Node) []string {
	target := in.Config.Fingerprint()
	var out []string
	for i, o := range in.Nodes {
		if nodes[i].Stored && !nodes[i].Differs && heldSince(o, rec, target, in.Before, in.Numbers) {
			out = append(out, o.Node.Name)
		}
	}
	return out
}

// ConfigsBefore are the configurations in force before target, newest
// first, for PlanInput.Before: current (the one in force until now; nil:
// none), then those of the revision history (newest first), none twice
// and none of target's fingerprint.
func ConfigsBefore(target, current *sloconfig.Config, history []*sloconfig.Config) []*sloconfig.Config {
	out := make([]*sloconfig.Config, 0, len(history)+1)
	seen := map[string]bool{target.Fingerprint(): true}
	for _, cfg := range append([]*sloconfig.Config{current}, history...) {
		if cfg != nil && !seen[cfg.Fingerprint()] {
			seen[cfg.Fingerprint()] = true
			out = append(out, cfg)
		}
	}
	return out
}

// nodesOf describes observed nodes as Decide sees them:
// whether each has a NodeSLO, whether it differs from what cfg resolves
// for the node (a stored spec lacking only the dropped fields does not),
// and whether policy (nil: none) takes it for a canary.
func nodesOf(cfg *sloconfig.Config, policy *Policy, observed []Observed, dropped []string) []Node {
	nodes := make([]Node, len(observed))
	for i, o := range observed {
		n := Node{Name: o.Node.Name, Canary: policy != nil && policy.IsCanary(o.Node.Labels), WrittenAt: o.WrittenAt}
		if o.hasNodeSLO() {
			n.Stored = true
			n.Differs = o.differs(cfg, dropped)
		}
		nodes[i] = n
	}
	return nodes
}

// hasNodeSLO reports whether the node has a NodeSLO.
func (o Observed) hasNodeSLO() bool { return o.Stored != nil || o.StoredDigest != "" }

// differs reports whether the node's NodeSLO differs from what cfg
// resolves for the node, as the NodeSLO reconciler tells it
// (sloconfig.StoredForm): a stored spec lacking only the dropped fields
// does not.
func (o Observed) differs(cfg *sloconfig.Config, dropped []string) bool {
	res := cfg.Resolve(o.Node, o.Stored)
	return !cfg.StoredFormOf(&res, dropped).HeldBy(o.StoredDigest, o.Stored)
}

// holdAll is the gate used when the record could not be written: every
// pending node keeps its stored NodeSLO.
func holdAll(nodes []Node, held map[string]heldWith) *Gate {
	g := &Gate{held: map[string]heldWith{}}
	for _, n := range nodes {
		if n.Stored && (n.Differs || n.Held) {
			g.held[n.Name] = held[n.Name]
		}
	}
	return g
}
