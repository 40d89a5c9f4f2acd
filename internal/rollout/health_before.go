package rollout

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Nodes unhealthy before the rollout wrote them (docs/rollout.md#health-gates).
// Such a node tells nothing about the change: it is not judged on what it
// showed then, and it is not a canary (a canary must be able to turn
// unhealthy). It is never skipped silently either: the record keeps it
// with its signal, for the status, and an Event names it once.

// maxBeforeKept bounds the nodes HealthRecord.Before keeps, so that the
// record stays small when many nodes are down; canaries are kept first.
const maxBeforeKept = 100

// signalSeparator joins the signals of one node's bad conditions.
const signalSeparator = "; "

// conditionSignal names a bad condition with its full transition time,
// which identifies the transition: the same signal later is the same one.
func conditionSignal(c corev1.NodeCondition) string {
	return fmt.Sprintf("%s=%s since %s",
		c.Type, ConditionStatusText(c.Status), c.LastTransitionTime.UTC().Format(time.RFC3339))
}

// badSignals lists the watched conditions that are bad now ("": none).
func badSignals(gate *HealthGate, conditions []corev1.NodeCondition) string {
	var out []string
	for _, c := range conditions {
		if gate.Watches(c.Type) && ConditionBad(c.Type, c.Status) {
			out = append(out, conditionSignal(c))
		}
	}
	return boundedSignal(strings.Join(out, signalSeparator))
}

// seenBefore reports whether signal is one of those recorded.
func seenBefore(recorded, signal string) bool {
	return recorded != "" && slices.Contains(strings.Split(recorded, signalSeparator), signal)
}

// before returns the nodes recorded unhealthy before their write.
func (h *HealthRecord) before() map[string]string {
	if h == nil {
		return nil
	}
	return h.Before
}

// BeforeNames lists the nodes recorded unhealthy before their write, sorted.
func (h *HealthRecord) BeforeNames() []string { return slices.Sorted(maps.Keys(h.before())) }

// noteBefore records in rec the nodes of signals that showed a bad
// condition before this rollout wrote them, when the gate judges the
// rollout, and returns those not recorded until now. Canaries are kept
// first when the record is full.
func noteBefore(rec *Record, in Input, signals map[string]string) []string {
	if len(signals) == 0 || !gateWatches(in.Rollout.Policy, *rec, in.Now) {
		return nil
	}
	canary := map[string]bool{}
	for _, n := range in.Nodes {
		if n.Canary {
			canary[n.Name] = true
		}
	}
	names := slices.SortedFunc(maps.Keys(signals), func(a, b string) int {
		return cmp.Or(trueFirst(canary[a], canary[b]), cmp.Compare(a, b))
	})
	var added []string
	next := rec.Health.before()
	for _, name := range names {
		if _, known := next[name]; known || len(next) >= maxBeforeKept {
			continue
		}
		if len(added) == 0 {
			// The record's maps are shared with the input: copy on write.
			h := ptr.Deref(rec.Health, HealthRecord{})
			next = maps.Collect(maps.All(next))
			h.Before, rec.Health = next, &h
		}
		next[name] = signals[name]
		added = append(added, name)
	}
	return added
}

// heldOnly keeps of signals the nodes in held: a decision knows those
// unwritten, while a node a step released may be written already, with
// the caches not showing it yet.
func heldOnly(signals map[string]string, held []string) map[string]string {
	var out map[string]string
	for _, name := range held {
		if signal, ok := signals[name]; ok {
			out = setSignal(out, name, signal)
		}
	}
	return out
}
