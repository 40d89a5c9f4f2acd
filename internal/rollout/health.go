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
)

// SpecWrittenAnnotation is set on a NodeSLO, with the time (RFC 3339, in
// seconds), each time this controller writes its spec. It tells the health
// gate when a node was reached, so that only what went wrong after that
// counts against the change, and it survives a restart of the manager.
const SpecWrittenAnnotation = "nodeslo.koordinator.sh/spec-written-at"

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
	// HaltedKey a fingerprint of the rollout key then: a change of the key
	// that leaves it unpaused resumes. Revert says onUnhealthy was revert.
	HaltedAt  time.Time `json:"haltedAt,omitzero"`
	HaltedKey string    `json:"haltedKey,omitempty"`
	Revert    bool      `json:"revert,omitempty"`
	// Judged is how many reached nodes the gate judged when it halted, and
	// Allowed how many unhealthy ones it allowed of them (a record written
	// before these were kept has Judged zero: a halt judged at least one).
	Judged  int `json:"judged,omitempty"`
	Allowed int `json:"allowed,omitempty"`
	// Metrics has, by check name, the metric checks not passing or failed
	// (metric_gate.go); at most maxMetricChecks.
	Metrics map[string]MetricRecord `json:"metrics,omitempty"`
}

// Halted reports whether the gate halted the rollout.
func (h *HealthRecord) Halted() bool { return h != nil && !h.HaltedAt.IsZero() }

// ResumedBy reports whether the rollout key, under policy (nil: invalid)
// with a value of fingerprint keyFingerprint (KeyFingerprint), resumes
// the halt: a change of the key's value since the halt that leaves it
// unpaused (docs/rollout.md#health-gates).
func (h *HealthRecord) ResumedBy(policy *Policy, keyFingerprint string) bool {
	return h.Halted() && policy != nil && !policy.Paused && keyFingerprint != h.HaltedKey
}

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
func (h *HealthRecord) Summary() string {
	names := h.UnhealthyNames()
	parts := make([]string, 0, 6)
	for _, n := range names[:min(len(names), 5)] {
		parts = append(parts, n+" ("+h.Unhealthy[n]+")")
	}
	if len(names) > 5 {
		parts = append(parts, fmt.Sprintf("and %d more", len(names)-5))
	}
	return strings.Join(parts, ", ")
}

// NodeHealth is what the gate sees of one node: when its NodeSLO was last
// written, its watched conditions and the eviction Events reported from it.
type NodeHealth struct {
	WrittenAt  time.Time
	Conditions []corev1.NodeCondition
	Evictions  []Eviction
}

// Eviction is one Event with an eviction reason whose source host is the
// node: Count occurrences, the last At.
type Eviction struct {
	Reason string
	At     time.Time
	Count  int
}

// Judge returns the signal that makes a reached node unhealthy under gate
// ("" when healthy): a watched condition that turned bad after the node
// was reached, or more eviction Events since then than the gate allows.
// A condition already bad when the node was reached does not count: the
// change did not cause it. Times have seconds only; what happened in the
// second of the write counts as before it, so that a node written again
// (a revert) is not judged on what it showed when written.
func Judge(gate *HealthGate, h NodeHealth) string {
	for _, c := range h.Conditions {
		if gate.Watches(c.Type) && ConditionBad(c.Type, c.Status) && c.LastTransitionTime.After(h.WrittenAt) {
			return fmt.Sprintf("%s=%s since %s", c.Type, c.Status, c.LastTransitionTime.UTC().Format(time.TimeOnly))
		}
	}
	counts := map[string]int{}
	for _, e := range h.Evictions {
		if slices.Contains(gate.EvictionReasons, e.Reason) && e.At.After(h.WrittenAt) {
			counts[e.Reason] += max(e.Count, 1)
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total > gate.MaxEvictionsPerNode {
		reasons := slices.Sorted(maps.Keys(counts))
		return fmt.Sprintf("%d %s Events, at most %d allowed", total, strings.Join(reasons, "/"), gate.MaxEvictionsPerNode)
	}
	return ""
}

// HealthInput is what the gate observed in one decision: how many nodes
// this rollout reached that it judged, and the verdicts among them.
type HealthInput struct {
	Judged    int
	Unhealthy map[string]string
	// Metrics are the metric checks measured, by name.
	Metrics map[string]MetricSample
}

// gateWatches reports whether the gate of policy judges the rollout of rec
// now: while it has pending nodes, and for canary.soakSeconds after it
// completed.
func gateWatches(policy *Policy, rec Record, now time.Time) bool {
	if policy == nil || policy.HealthGate == nil || rec.Target == "" {
		return false
	}
	return !rec.Done || now.Before(rec.DoneAt.Add(policy.CanarySoak))
}

// GateWatches reports whether a health gate must watch the nodes for the
// rollout whose record value is given: the controller starts and stops its
// watches by it.
func GateWatches(load Key, record string, target string, now time.Time) bool {
	rec, err := ParseRecord(record)
	if err != nil || rec.Target != target {
		// A rollout about to start: it is watched from its first step.
		return load.Policy != nil && load.Policy.HealthGate != nil
	}
	return gateWatches(load.Policy, rec, now)
}

// judgeHealth merges the verdicts into the record and halts the rollout
// when more reached nodes are unhealthy than the gate allows; it resumes a
// halted rollout whose key changed and is not paused. It returns whether
// the rollout is halted, whether it halted in this decision, and how many
// unhealthy nodes the gate allowed.
func judgeHealth(rec *Record, in Input) (halted, haltedNow bool, allowed int) {
	policy := in.Rollout.Policy
	h := rec.Health
	if h.ResumedBy(policy, in.RolloutKey) {
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
		next := HealthRecord{}
		if h != nil {
			next = *h
		}
		next.Unhealthy = maps.Clone(next.Unhealthy)
		if next.Unhealthy == nil {
			next.Unhealthy = map[string]string{}
		}
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

// judgeReached judges the nodes this rollout reached: those whose stored
// NodeSLO is the target and was written since the rollout started. Before
// the rollout's first decision, or outside the gate's watch, it judges none.
func judgeReached(in PlanInput, rec Record, target string, nodes []Node) HealthInput {
	var out HealthInput
	if rec.Target != target || !gateWatches(in.Rollout.Policy, rec, in.Now) {
		return out
	}
	gate := in.Rollout.Policy.HealthGate
	since := rec.Started.Truncate(time.Second) // the annotation has seconds
	for i, o := range in.Nodes {
		if !nodes[i].Stored || nodes[i].Differs || o.WrittenAt.Before(since) {
			continue
		}
		out.Judged++
		h := in.Health[o.Node.Name]
		h.WrittenAt = o.WrittenAt
		if signal := Judge(gate, h); signal != "" {
			if out.Unhealthy == nil {
				out.Unhealthy = map[string]string{}
			}
			out.Unhealthy[o.Node.Name] = signal
		}
	}
	return out
}

// KeyFingerprint identifies a rollout key's value, to tell a change of it.
func KeyFingerprint(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:8])
}

// ParseWrittenAt reads a NodeSLO's SpecWrittenAnnotation (zero: none or unreadable).
func ParseWrittenAt(annotations map[string]string) time.Time {
	t, err := time.Parse(time.RFC3339, annotations[SpecWrittenAnnotation])
	if err != nil {
		return time.Time{}
	}
	return t
}

// FormatWrittenAt is the value of SpecWrittenAnnotation for a write at t.
func FormatWrittenAt(t time.Time) string { return t.UTC().Format(time.RFC3339) }
