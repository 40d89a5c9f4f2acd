package rollout

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// The NodeSLORollout's status is a Status in the API's types: ToAPI writes
// it, StatusFromAPI reads it back for the plugin's printers, so that what
// is printed is what was decided (docs/rollout.md#the-nodeslorollout).

// ToAPI is s in the NodeSLORollout's status types, without the fields the
// controller sets itself (observedGeneration, the ConfigMap's version,
// the revision, the conditions and the record).
func (s Status) ToAPI() nodeslov1alpha1.NodeSLORolloutStatus {
	return nodeslov1alpha1.NodeSLORolloutStatus{
		Configuration: s.Fingerprint, RolloutKey: s.RolloutKey, Phase: nodeslov1alpha1.RolloutPhase(s.Phase),
		Started: apiTime(s.Started), Completed: apiTime(s.Completed),
		Step: int32(s.Step), Steps: int32(s.Steps), StepSize: int32(s.StepSize),
		Reached: int32(s.Reached), PendingAtStart: int32(s.PendingAtStart),
		Pending: int32(s.Pending), CanariesPending: int32(s.CanariesPending),
		Paused: s.Paused, StrategyInvalid: s.StrategyInvalid, NextStep: apiTime(s.NextStep), AwaitingWrites: s.AwaitingWrites,
		Health: s.Health.toAPI(), Withheld: s.Withheld.toAPI(), Updated: apiTime(s.Updated),
	}
}

// StatusFromAPI is the Status a NodeSLORollout's status holds.
func StatusFromAPI(a *nodeslov1alpha1.NodeSLORolloutStatus) Status {
	return Status{
		Fingerprint: a.Configuration, RolloutKey: a.RolloutKey, Phase: Phase(a.Phase),
		Started: goTime(a.Started), Completed: goTime(a.Completed),
		Step: int(a.Step), Steps: int(a.Steps), StepSize: int(a.StepSize),
		Reached: int(a.Reached), PendingAtStart: int(a.PendingAtStart),
		Pending: int(a.Pending), CanariesPending: int(a.CanariesPending),
		Paused: a.Paused, StrategyInvalid: a.StrategyInvalid, NextStep: goTime(a.NextStep), AwaitingWrites: a.AwaitingWrites,
		Health: healthFromAPI(a.Health), Withheld: withheldFromAPI(a.Withheld), Updated: goTime(a.Updated),
	}
}

func (h *StatusHealth) toAPI() *nodeslov1alpha1.RolloutHealth {
	if h == nil {
		return nil
	}
	out := &nodeslov1alpha1.RolloutHealth{
		Gate: h.Gate, MaxUnhealthyNodes: h.MaxUnhealthyNodes, Allowed: int32(h.Allowed), AllowedOf: int32(h.AllowedOf),
		Unhealthy: int32(h.Unhealthy), Tolerated: int32(h.Tolerated), Nodes: verdictsToAPI(h.Nodes),
		Omitted: int32(h.Omitted), HaltedAt: apiTime(h.HaltedAt), HaltedKey: h.HaltedKey, Revert: h.Revert,
		Before: int32(h.Before), BeforeNodes: verdictsToAPI(h.BeforeNodes),
	}
	for _, m := range h.Metrics {
		out.Metrics = append(out.Metrics, nodeslov1alpha1.MetricVerdict{Name: m.Name, Failures: int32(m.Failures),
			NoData: int32(m.NoData), Seen: m.Seen, At: apiTime(m.At), Failed: m.Failed, Errors: int32(m.Errors),
			Inconclusive: m.Inconclusive, DryRun: m.DryRun})
	}
	return out
}

func healthFromAPI(a *nodeslov1alpha1.RolloutHealth) *StatusHealth {
	if a == nil {
		return nil
	}
	out := &StatusHealth{
		Gate: a.Gate, MaxUnhealthyNodes: a.MaxUnhealthyNodes, Allowed: int(a.Allowed), AllowedOf: int(a.AllowedOf),
		Unhealthy: int(a.Unhealthy), Tolerated: int(a.Tolerated), Nodes: verdictsFromAPI(a.Nodes),
		Omitted: int(a.Omitted), HaltedAt: goTime(a.HaltedAt), HaltedKey: a.HaltedKey, Revert: a.Revert,
		Before: int(a.Before), BeforeNodes: verdictsFromAPI(a.BeforeNodes),
	}
	for _, m := range a.Metrics {
		out.Metrics = append(out.Metrics, StatusMetric{Name: m.Name, Failures: int(m.Failures), NoData: int(m.NoData),
			Seen: m.Seen, At: goTime(m.At), Failed: m.Failed, Errors: int(m.Errors), Inconclusive: m.Inconclusive,
			DryRun: m.DryRun})
	}
	return out
}

func verdictsToAPI(in []UnhealthyNode) []nodeslov1alpha1.NodeVerdict {
	if len(in) == 0 {
		return nil
	}
	out := make([]nodeslov1alpha1.NodeVerdict, len(in))
	for i, n := range in {
		out[i] = nodeslov1alpha1.NodeVerdict{Name: n.Name, Signal: n.Signal}
	}
	return out
}

func verdictsFromAPI(in []nodeslov1alpha1.NodeVerdict) []UnhealthyNode {
	if len(in) == 0 {
		return nil
	}
	out := make([]UnhealthyNode, len(in))
	for i, n := range in {
		out[i] = UnhealthyNode{Name: n.Name, Signal: n.Signal}
	}
	return out
}

func (w *Withheld) toAPI() *nodeslov1alpha1.WithheldConfiguration {
	if w == nil {
		return nil
	}
	return &nodeslov1alpha1.WithheldConfiguration{Configuration: w.Fingerprint, Revision: w.Revision,
		HaltedAt: apiTime(w.HaltedAt), Summary: w.Summary, Reverted: w.Reverted}
}

func withheldFromAPI(a *nodeslov1alpha1.WithheldConfiguration) *Withheld {
	if a == nil {
		return nil
	}
	return &Withheld{Fingerprint: a.Configuration, Revision: a.Revision, HaltedAt: goTime(a.HaltedAt),
		Summary: a.Summary, Reverted: a.Reverted}
}

// apiTime is t for the API, nil when zero; the API keeps seconds only.
func apiTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t.UTC().Truncate(time.Second)}
}

// goTime is a, zero when nil.
func goTime(a *metav1.Time) time.Time {
	if a == nil {
		return time.Time{}
	}
	return a.UTC()
}
