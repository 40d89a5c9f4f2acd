package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// maxVerdictsKept bounds the verdicts the record keeps: a halt needs only
// one more than the gate allows, and the annotation must stay small.
const maxVerdictsKept = 200

// HealthRecord is what the health gate persisted about the rollout in
// progress (docs/rollout.md#health-gates), inside the Record.
type HealthRecord struct {
	// Unhealthy are the verdicts: each node judged unhealthy and the
	// signal that made it so. A verdict stays for the whole rollout, even
	// once the node recovers: what was unhealthy stays unhealthy.
	Unhealthy map[string]string `json:"unhealthy,omitempty"`
	// Tolerated is how many of Unhealthy a resume after a halt accepted:
	// another halt needs more than the gate allows beyond those.
	Tolerated int `json:"tolerated,omitempty"`
	// HaltedAt is when the gate halted the rollout (zero: not halted),
	// HaltedKey a fingerprint of the strategy then: a change of the strategy
	// while not paused resumes. Revert says onUnhealthy was revert.
	HaltedAt  time.Time `json:"haltedAt,omitzero"`
	HaltedKey string    `json:"haltedKey,omitempty"`
	Revert    bool      `json:"revert,omitempty"`
	// Judged is how many reached nodes the gate judged when it halted, and
	// Allowed how many unhealthy ones it allowed of them (a record written
	// before these were kept has Judged zero: a halt judged at least one).
	Judged  int `json:"judged,omitempty"`
	Allowed int `json:"allowed,omitempty"`
	// Metrics has, by check name, the metric checks not passing or failed
	// (metric_gate.go); at most the CRD's 10 checks.
	Metrics map[string]MetricRecord `json:"metrics,omitempty"`
	// Before has the nodes seen unhealthy before this rollout wrote them,
	// each with every bad watched condition it showed (health_before.go):
	// reported, never counted, and not used as canaries.
	Before map[string]string `json:"before,omitempty"`
}

// Halted reports whether the gate halted the rollout.
func (h *HealthRecord) Halted() bool { return h != nil && !h.HaltedAt.IsZero() }

// resumed reports whether the strategy or the operator resumes the halt.
func (h *HealthRecord) resumed(policy *Policy, keyFingerprint string, resume time.Time) bool {
	return h.Halted() && policy != nil && !policy.Paused &&
		(keyFingerprint != h.HaltedKey || !resume.IsZero() && SameSecond(resume, h.HaltedAt))
}

// SameSecond reports whether a and b fall in the same second: the API's
// times keep seconds only, so a halt is named to the second.
func SameSecond(a, b time.Time) bool { return a.Truncate(time.Second).Equal(b.Truncate(time.Second)) }

// UnhealthyCount is how many nodes were judged unhealthy.
func (h *HealthRecord) UnhealthyCount() int {
	if h == nil {
		return 0
	}
	return len(h.Unhealthy)
}

// UnhealthyNames lists the nodes judged unhealthy, sorted.
func (h *HealthRecord) UnhealthyNames() []string {
	if h == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(h.Unhealthy))
}

// Summary names up to five unhealthy nodes with their signals, and how
// many more there are, for an Event or a status line.
func (h *HealthRecord) Summary() string { return summarize(h.UnhealthyNames(), h.Unhealthy) }

// summarize names up to five of names with their signals in m, and how
// many more there are.
func summarize(names []string, m map[string]string) string {
	parts := make([]string, 0, 6)
	for _, n := range names[:min(len(names), 5)] {
		parts = append(parts, n+" ("+m[n]+")")
	}
	if len(names) > 5 {
		parts = append(parts, fmt.Sprintf("and %d more", len(names)-5))
	}
	return strings.Join(parts, ", ")
}

// NodeHealth is what the gate sees of one node: when its NodeSLO was last
// written (zero: no readable spec-written-at annotation), its watched conditions
// and the evictions of the gate's Pods on it. Started is when the rollout
// judging it started (in seconds): a node whose write time is unknown was
// not written by the rollout before then. SeenBefore is what the rollout
// recorded the node showing bad before it wrote it (HealthRecord.Before).
type NodeHealth struct {
	WrittenAt  time.Time
	Conditions []corev1.NodeCondition
	Evictions  []Eviction
	Started    time.Time
	SeenBefore string
}

// Eviction is one eviction of a Pod on the node the gate selects, as the
// Pod's status shows it: a container that terminated with a non-zero exit
// code at At (how koordlet's default eviction, a kill through the
// container runtime, shows), or with Disruption, the Pod's DisruptionTarget
// condition set True at At (an eviction through the Eviction API).
type Eviction struct {
	At         time.Time
	Disruption bool
}

// Verdict is the gate's judgement of one reached node. Unhealthy is the
// signal that counts against the change ("": none); Before is what the node
// showed bad since before its write ("": nothing), reported and not counted.
type Verdict struct {
	Unhealthy, Before string
}

// NodeClockSkew is how far a node's clock (the kubelet's, which stamps its
// conditions and its Pods' terminations) may be behind the apiserver's,
// which stamps the rollout's writes (the manager reads the apiserver's
// time, internal/manager/server_clock.go), and the gate still tell that
// a node turned bad after its write: a transition stamped less than this
// before the write may have come after it, so it counts.
const NodeClockSkew = 2 * time.Second

// Judge judges a reached node under gate (docs/rollout.md#health-gates). A
// bad watched condition counts against the change unless it is known to
// have turned bad before the node's write, which is so only when
//   - its transition is more than NodeClockSkew before the write's second
//     (both have seconds only), or
//   - it is the very transition (type, status, time) the rollout recorded
//     while the node was not yet written (h.SeenBefore).
//
// Everything else counts, as the reading that halts is the safe one when
// the order cannot be told: a transition in the second of the write or
// within NodeClockSkew before it, one with no time, one on a node whose
// write time is unknown (unless it is that much older than the rollout,
// which wrote nothing before it started).
//
// The second rule is why the same second can count: a revert (or any
// change) writes back nodes made unhealthy by the configuration it undoes,
// often within the second they turned bad. They are pending when the new
// rollout starts, so it records what they show then, and after its write
// the same transition is known to be older than the write, whatever the
// seconds say. A node that turns bad again afterwards has a new transition,
// and is judged.
//
// Evictions count by the rule of the conditions: from NodeClockSkew
// before the second of the write on (or, when the write time is unknown,
// before the rollout's start); more than the gate allows is unhealthy.
func Judge(gate *HealthGate, h NodeHealth) Verdict {
	var before []string
	for _, c := range h.Conditions {
		if !gate.Watches(c.Type) || !ConditionBad(c.Type, c.Status) {
			continue
		}
		// Both times have seconds only, as the apiserver keeps them.
		at, written := c.LastTransitionTime.Truncate(time.Second), h.WrittenAt.Truncate(time.Second)
		status := ConditionStatusText(c.Status)
		since := fmt.Sprintf("%s=%s since %s", c.Type, status, at.UTC().Format(time.TimeOnly))
		switch {
		case at.IsZero():
			return Verdict{Unhealthy: fmt.Sprintf("%s=%s with no transition time", c.Type, status)}
		case seenBefore(h.SeenBefore, conditionSignal(c)):
			before = append(before, conditionSignal(c))
		case written.IsZero() && at.Before(h.Started.Add(-NodeClockSkew)):
			// Bad before the rollout started: not its doing, and the
			// node is not known to be reached.
		case written.IsZero():
			return Verdict{Unhealthy: since + " (no readable spec-written-at)"}
		case at.After(written):
			return Verdict{Unhealthy: since}
		case at.Equal(written):
			return Verdict{Unhealthy: since + " (the second of its write)"}
		case !at.Before(written.Add(-NodeClockSkew)):
			return Verdict{Unhealthy: fmt.Sprintf("%s (within %s before its write, as far as a node's clock may be behind)",
				since, NodeClockSkew)}
		default:
			before = append(before, conditionSignal(c))
		}
	}
	if signal := judgeEvictions(gate, h); signal != "" {
		return Verdict{Unhealthy: signal}
	}
	return Verdict{Before: boundedSignal(strings.Join(before, signalSeparator))}
}

// judgeEvictions is the signal of more evictions since the write than the
// gate allows ("": none).
func judgeEvictions(gate *HealthGate, h NodeHealth) string {
	var killed, disrupted int
	for _, e := range h.Evictions {
		// The rule of the conditions (Judge): an eviction in the second of
		// the write, or within NodeClockSkew before it, counts, as the
		// order cannot be told.
		later := !e.At.Truncate(time.Second).Before(h.WrittenAt.Truncate(time.Second).Add(-NodeClockSkew))
		if h.WrittenAt.IsZero() {
			later = !e.At.Before(h.Started.Add(-NodeClockSkew))
		}
		switch {
		case !later:
		case e.Disruption:
			disrupted++
		default:
			killed++
		}
	}
	if total := killed + disrupted; total > gate.MaxEvictionsPerNode {
		var how []string
		if killed > 0 {
			how = append(how, fmt.Sprintf("%d containers terminated non-zero", killed))
		}
		if disrupted > 0 {
			how = append(how, fmt.Sprintf("%d DisruptionTarget", disrupted))
		}
		return fmt.Sprintf("%d Pod evictions (%s), at most %d allowed",
			total, strings.Join(how, ", "), gate.MaxEvictionsPerNode)
	}
	return ""
}

// HealthInput is what the gate observed in one decision: how many nodes
// this rollout reached that it judged, the verdicts among them, and what
// nodes showed bad before their write: Before, reached nodes whose
// condition is older than their write; Sick, nodes not written yet (they
// differ from the target) with a bad watched condition now, of which the
// decision records those it knows unwritten (HealthRecord.Before).
type HealthInput struct {
	Judged    int
	Unhealthy map[string]string
	// Metrics are the metric checks measured, by name.
	Metrics map[string]MetricSample
	Before  map[string]string
	Sick    map[string]string
}

// gateWatches reports whether the gate of policy judges the rollout of rec
// now: while it has pending nodes, and for canary.soakSeconds after it
// completed.
//
// A revert is never judged (docs/rollout.md#the-revert): what its nodes
// show, until well after its write, is what the configuration it undoes
// did to them, and a revert held back would keep them on that one.
func gateWatches(policy *Policy, rec Record, now time.Time) bool {
	if policy == nil || policy.HealthGate == nil || rec.Target == "" || rec.RevertOf != "" {
		return false
	}
	return !rec.Done || now.Before(rec.DoneAt.Add(policy.CanarySoak))
}

// GateWatches reports whether a health gate must watch the nodes for the
// rollout whose record value is given, towards target (a revert of the
// halted configuration revertOf when that is set): the controller starts
// and stops its watches, and its metric checks, by it.
func GateWatches(load Key, record, target, revertOf string, now time.Time) bool {
	rec, err := ParseRecord(record)
	if err != nil || rec.Target != target {
		// A rollout about to start: it is watched from its first step,
		// unless it is a revert, which is never judged.
		return load.Policy != nil && load.Policy.HealthGate != nil && revertOf == ""
	}
	return gateWatches(load.Policy, rec, now)
}

// judgeHealth merges the verdicts into the record and halts the rollout
// when more reached nodes are unhealthy than the gate allows; it resumes a
// halted rollout whose strategy changed and is not paused. It returns whether
// the rollout is halted, whether it halted in this decision, and how many
// unhealthy nodes the gate allowed.
func judgeHealth(rec *Record, in Input) (halted, haltedNow bool, allowed int) {
	policy := in.Rollout.Policy
	h := rec.Health
	if h.resumed(policy, in.RolloutKey, in.Resume) {
		// Resumed: the verdicts known stay, and are tolerated.
		next := *h
		next.HaltedAt, next.HaltedKey, next.Revert, next.Tolerated = time.Time{}, "", false, len(h.Unhealthy)
		next.Judged, next.Allowed, next.Metrics = 0, 0, nil
		h = &next
	}
	var gate *HealthGate
	if policy != nil {
		gate = policy.HealthGate
	}
	metrics, metricsChanged := judgeMetrics(h.metrics(), gate, in.Health.Metrics, in.Now)
	if gateWatches(policy, *rec, in.Now) && (len(in.Health.Unhealthy) > 0 || metricsChanged) {
		next := ptr.Deref(h, HealthRecord{})
		next.Unhealthy = maps.Collect(maps.All(next.Unhealthy))
		for _, name := range slices.Sorted(maps.Keys(in.Health.Unhealthy)) {
			if _, known := next.Unhealthy[name]; !known && len(next.Unhealthy) < maxVerdictsKept {
				next.Unhealthy[name] = in.Health.Unhealthy[name]
			}
		}
		next.Metrics = metrics
		h = &next
		allowed = gate.MaxUnhealthy(in.Health.Judged)
		if !h.Halted() && (len(h.Unhealthy)-h.Tolerated > allowed || h.MetricFailed()) {
			h.HaltedAt, h.HaltedKey, h.Revert = in.Now, in.RolloutKey, gate.Revert
			h.Judged, h.Allowed = in.Health.Judged, allowed
			haltedNow = true
		}
	}
	rec.Health = h
	return h.Halted(), haltedNow, allowed
}

// judgeNodes judges the nodes this rollout reached: those whose stored
// NodeSLO is the target and was written since the rollout started (or
// whose write time is unknown: Judge tells whether they count), and
// those it wrote the target that differ from it since (wroteTarget). It
// notes the nodes not yet written that show a bad watched condition. Outside the
// gate's watch it judges none; at the rollout's first decision, none is
// reached yet.
func judgeNodes(in PlanInput, rec Record, target string, nodes []Node) HealthInput {
	var out HealthInput
	policy := in.Rollout.Policy
	fresh := rec.Target != target || rec.retriedBy(in.Retry, target) // this decision starts the rollout
	if policy == nil || policy.HealthGate == nil || (!fresh && !gateWatches(policy, rec, in.Now)) {
		return out
	}
	gate := policy.HealthGate
	var since time.Time // when the rollout started, in seconds as the annotation has them
	var seen map[string]string
	if !fresh {
		since, seen = rec.Started.Truncate(time.Second), rec.Health.before()
	}
	for i, o := range in.Nodes {
		name, n := o.Node.Name, nodes[i]
		h := in.Health[name]
		switch {
		case !n.Stored:
		case n.Held || n.Differs && !wroteTarget(o, target, since, fresh):
			if signal := badSignals(gate, h.Conditions); signal != "" {
				out.Sick = setSignal(out.Sick, name, signal)
			}
		case fresh || (!o.WrittenAt.IsZero() && o.WrittenAt.Before(since)) ||
			(o.From != "" && o.From != ShortTarget(target)):
			// Not reached by this rollout: written before it started, or
			// from another configuration (one the change leaves as it is,
			// written by the rollout before in the second this one started).
		default:
			h.WrittenAt, h.Started, h.SeenBefore = o.WrittenAt, since, seen[name]
			v := Judge(gate, h)
			if !o.WrittenAt.IsZero() || v.Unhealthy != "" {
				// A node of unknown write time is known reached only by what counts.
				out.Judged++
			}
			if v.Unhealthy != "" {
				out.Unhealthy = setSignal(out.Unhealthy, name, v.Unhealthy)
			} else if v.Before != "" && seen[name] == "" {
				out.Before = setSignal(out.Before, name, v.Before)
			}
		}
	}
	return out
}

// wroteTarget reports whether this rollout wrote o the target, since,
// before its labels changed or its NodeSLO was edited (it differs now, and
// the NodeSLO reconciler has not yet put it right): a new node, or one
// reached. It is reached, and judged as such: what it shows did not come
// before the rollout's write.
func wroteTarget(o Observed, target string, since time.Time, fresh bool) bool {
	return !fresh && o.From == ShortTarget(target) && !o.WrittenAt.IsZero() && !o.WrittenAt.Before(since)
}

// setSignal sets m[name] to signal, making m when nil.
func setSignal(m map[string]string, name, signal string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[name] = boundedSignal(signal)
	return m
}

// KeyFingerprint identifies a strategy by its JSON (StrategyJSON), to tell
// a change of it.
func KeyFingerprint(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:8])
}
