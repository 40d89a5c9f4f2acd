package rollout

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Phase is where a rollout stands, in one word: the NodeSLORollout's
// status.phase.
type Phase = nodeslov1alpha1.RolloutPhase

const (
	// PhaseProgressing: pending nodes are reached step by step.
	PhaseProgressing Phase = "Progressing"
	// PhasePaused: the pending nodes wait, for spec.paused or for an
	// invalid strategy (StrategyInvalid).
	PhasePaused Phase = "Paused"
	// PhaseHalted: the health gate halted the rollout; it waits for a
	// resume or an undo, or is being reverted.
	PhaseHalted Phase = "Halted"
	// PhaseCompleted: no node is pending any more.
	PhaseCompleted Phase = "Completed"
	// PhaseAllAtOnce: no strategy; every node got the configuration at once.
	PhaseAllAtOnce Phase = "AllAtOnce"
)

// Bounds of a status, so that the NodeSLORollout's status stays small
// whatever the size of the fleet or of the strategy: at most maxStatusNodes unhealthy
// nodes are listed (the rest counted), each signal and the gate's settings
// are cut to a length. With node names of 253 bytes the value stays under
// 32 KiB.
const (
	maxStatusNodes  = 50
	maxStatusSignal = 200
	maxStatusGate   = 512
	// maxStatusBefore nodes unhealthy before their write are listed.
	maxStatusBefore = 10
)

// StatusDone reports whether s leaves nothing to wait for: the rollout
// completed (and is not halted), or there is no rollout, and the
// ConfigMap's data is in force.
func StatusDone(s *nodeslov1alpha1.NodeSLORolloutStatus) bool {
	return (s.Phase == PhaseCompleted || s.Phase == PhaseAllAtOnce) && s.Withheld == nil
}

// statusOf is the status a decision under load leaves; rolloutKey is the
// strategy's fingerprint, now the time of the decision. It takes every figure
// from the decision and its record, and computes none again.
func statusOf(load Key, d Decision, rolloutKey string, now time.Time) *nodeslov1alpha1.NodeSLORolloutStatus {
	rec := d.Record
	s := &nodeslov1alpha1.NodeSLORolloutStatus{
		Configuration: rec.Target, RolloutKey: rolloutKey, Phase: PhaseProgressing,
		Started: apiTime(rec.Started), Completed: apiTime(rec.DoneAt),
		Step: int32(d.Step), Steps: int32(d.Steps), StepSize: int32(d.StepSize),
		Reached: int32(d.Reached), PendingAtStart: int32(rec.Pending),
		Pending: int32(len(d.Held)), CanariesPending: int32(d.HeldCanaries),
		Paused: load.Policy != nil && load.Policy.Paused, StrategyInvalid: load.Policy == nil,
		Health:  healthStatus(load.Policy, rec.Health, d.Reached),
		Updated: apiTime(now),
	}
	switch {
	case d.Halted:
		s.Phase = PhaseHalted
	case rec.Done:
		s.Phase = PhaseCompleted
	case d.Paused:
		s.Phase = PhasePaused
	case d.Incomplete:
		s.AwaitingWrites = true
	case d.Step < d.Steps:
		s.NextStep = apiTime(d.NextStep)
	}
	return s
}

// allAtOnceStatus is the status of a configuration put in force without a
// strategy (nil without a configuration).
func allAtOnceStatus(cfg *sloconfig.Config, now time.Time) *nodeslov1alpha1.NodeSLORolloutStatus {
	if cfg == nil {
		return nil
	}
	return &nodeslov1alpha1.NodeSLORolloutStatus{Configuration: cfg.Fingerprint(), Phase: PhaseAllAtOnce,
		Updated: apiTime(now)}
}

// healthStatus is the health gate's part of a status: the gate of policy
// (nil: none, or the strategy invalid) and its record h of the rollout, which
// has reached nodes reached.
func healthStatus(policy *Policy, h *HealthRecord, reached int) *nodeslov1alpha1.RolloutHealth {
	var gate *HealthGate
	if policy != nil {
		gate = policy.HealthGate
	}
	if gate == nil && h == nil {
		return nil
	}
	out := &nodeslov1alpha1.RolloutHealth{Allowed: -1}
	if gate != nil {
		out.Gate = sloconfig.Shorten(gateSettings(gate), maxStatusGate)
		out.MaxUnhealthyNodes = gate.MaxUnhealthyNodes.String()
		out.Allowed, out.AllowedOf = int32(gate.MaxUnhealthy(reached)), int32(reached)
	}
	if h == nil {
		return out
	}
	if h.Halted() {
		out.HaltedAt, out.HaltedKey, out.Revert = apiTime(h.HaltedAt), h.HaltedKey, h.Revert
		out.Allowed, out.AllowedOf = -1, 0
		if h.Judged > 0 {
			out.Allowed, out.AllowedOf = int32(h.Allowed), int32(h.Judged)
		}
	}
	out.Unhealthy, out.Tolerated = int32(len(h.Unhealthy)), int32(h.Tolerated)
	names := h.UnhealthyNames()
	out.Nodes = listed(names, h.Unhealthy, maxStatusNodes)
	out.Omitted = int32(len(names) - len(out.Nodes))
	out.Metrics = metricStatus(h)
	out.Before, out.BeforeNodes = int32(len(h.Before)), listed(h.BeforeNames(), h.Before, maxStatusBefore)
	return out
}

// listed is the first max of names, sorted, with their signals in m.
func listed(names []string, m map[string]string, limit int) []nodeslov1alpha1.NodeVerdict {
	if len(names) == 0 {
		return nil
	}
	out := make([]nodeslov1alpha1.NodeVerdict, 0, min(len(names), limit))
	for _, name := range names[:min(len(names), limit)] {
		out = append(out, nodeslov1alpha1.NodeVerdict{Name: name, Signal: sloconfig.Shorten(m[name], maxStatusSignal)})
	}
	return out
}

// apiTime is t as the API keeps it, to the second; nil when zero.
func apiTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t.UTC().Truncate(time.Second)}
}

// podSelectorText renders a Pod selector as kubectl's -l takes it; the
// selector of every Pod reads "(all)".
func podSelectorText(s labels.Selector) string {
	if s.Empty() {
		return "(all)"
	}
	return s.String()
}

// gateSettings renders a health gate's settings on one line, with the
// strategy's field names.
func gateSettings(g *HealthGate) string {
	return fmt.Sprintf("maxUnhealthyNodes %s; nodeConditions %s; %s; onUnhealthy %s",
		g.MaxUnhealthyNodes.String(), strings.Join(g.ConditionNames(), ", "),
		evictionSettings(g), g.OnUnhealthy()) + metricSettings(g)
}

// evictionSettings renders which Pods' evictions a gate counts.
func evictionSettings(g *HealthGate) string {
	if len(g.PodNamespaces) == 0 {
		return "no Pod evictions counted (the manager lists no namespace)"
	}
	return fmt.Sprintf("evictions of Pods %s in namespaces %s, maxPerNode %d",
		podSelectorText(g.PodSelector), strings.Join(g.PodNamespaces, ", "), g.MaxEvictionsPerNode)
}
