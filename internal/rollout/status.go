package rollout

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Phase is where a rollout stands, in one word.
type Phase string

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

// Bounds of a Status, so that the NodeSLORollout's status stays small
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

// Status is where the rollout of the configuration in force stands. The
// counts are those of the decision that produced it; nothing in it is
// estimated by its reader.
type Status struct {
	// Fingerprint is the configuration rolled out (sloconfig.Config.Fingerprint).
	Fingerprint string `json:"fingerprint"`
	// RolloutKey is a fingerprint (KeyFingerprint) of the strategy the
	// decision was taken under; empty without a strategy.
	RolloutKey string `json:"rolloutKey,omitempty"`
	Phase      Phase  `json:"phase"`
	// Started is when the rollout started, Completed when no node was
	// pending any more (zero: not yet).
	Started   time.Time `json:"started,omitzero"`
	Completed time.Time `json:"completed,omitzero"`
	// Step is the number of steps taken (the canary step included), of
	// Steps, each reaching StepSize nodes (the canary step: every canary).
	// Steps and StepSize are zero while spec.strategy is invalid.
	Step     int `json:"step"`
	Steps    int `json:"steps"`
	StepSize int `json:"stepSize"`
	// Reached counts the nodes reached of PendingAtStart, the nodes pending
	// when the rollout started.
	Reached        int `json:"reached"`
	PendingAtStart int `json:"pendingAtStart"`
	// Pending counts the nodes held on their stored NodeSLO now,
	// CanariesPending the canaries among them.
	Pending         int `json:"pending"`
	CanariesPending int `json:"canariesPending"`
	// Paused: spec.paused is true. StrategyInvalid: the strategy is invalid,
	// which holds every rollout too.
	Paused          bool `json:"paused"`
	StrategyInvalid bool `json:"strategyInvalid,omitempty"`
	// NextStep is when the next step is due (zero: none is scheduled:
	// paused, halted, complete, the last step taken, or AwaitingWrites).
	NextStep time.Time `json:"nextStep,omitzero"`
	// AwaitingWrites: some nodes of the step taken last do not store the
	// configuration yet; the next step waits an interval after they all do.
	AwaitingWrites bool `json:"awaitingWrites,omitempty"`
	// Health is the health gate's part (nil: no gate and no verdicts).
	Health *StatusHealth `json:"health,omitempty"`
	// Withheld is set when the ConfigMap's data is not in force: the
	// health gate halted it and it was not retried; Fingerprint is then
	// what is in force instead (docs/rollout.md#gitops-argo-cd-flux).
	Withheld *Withheld `json:"withheld,omitempty"`
	// Updated is when the controller decided this status. The status is
	// written only when something else in it changes, so this is when it
	// last changed.
	Updated time.Time `json:"updated"`
}

// StatusHealth is what the strategy's health gate judged of the rollout
// (docs/rollout.md#health-gates).
type StatusHealth struct {
	// Gate is the gate's settings, on one line with the strategy's field names
	// ("": the strategy has no gate any more, but verdicts of one remain).
	Gate string `json:"gate,omitempty"`
	// MaxUnhealthyNodes is the gate's setting as written: a count or a percent.
	MaxUnhealthyNodes string `json:"maxUnhealthyNodes,omitempty"`
	// Allowed is how many unhealthy nodes the gate allows of AllowedOf
	// reached nodes: at a halt, as the gate decided over the nodes it
	// judged then; otherwise over the nodes reached now. -1 when not known
	// (the strategy has no gate any more, or the halt was recorded by a version
	// of the controller that did not keep it).
	Allowed   int `json:"allowed"`
	AllowedOf int `json:"allowedOf"`
	// Unhealthy counts the reached nodes judged unhealthy (the rollout
	// record keeps at most 200 verdicts), Tolerated those of them a resume
	// accepted. Nodes lists the first of them by name, at most 50, and
	// Omitted counts those left out.
	Unhealthy int             `json:"unhealthy"`
	Tolerated int             `json:"tolerated,omitempty"`
	Nodes     []UnhealthyNode `json:"nodes,omitempty"`
	Omitted   int             `json:"omitted,omitempty"`
	// HaltedAt is when the gate halted the rollout (zero: not halted),
	// HaltedKey a fingerprint of the strategy then (a change of the strategy
	// while not paused resumes); Revert: onUnhealthy is revert.
	HaltedAt  time.Time `json:"haltedAt,omitzero"`
	HaltedKey string    `json:"haltedKey,omitempty"`
	Revert    bool      `json:"revert,omitempty"`
	// Metrics are the metric checks whose last measurement did not pass,
	// or that failed, by name (at most 10; status_metrics.go).
	Metrics []StatusMetric `json:"metrics,omitempty"`
	// Before counts the nodes seen unhealthy before the rollout wrote them
	// (the record keeps at most 100): not counted by the gate, and not
	// used as canaries. BeforeNodes lists the first of them by name, at
	// most 10, each with what it showed.
	Before      int             `json:"before,omitempty"`
	BeforeNodes []UnhealthyNode `json:"beforeNodes,omitempty"`
}

// UnhealthyNode is a reached node the gate judged unhealthy, and why.
type UnhealthyNode struct {
	Name   string `json:"name"`
	Signal string `json:"signal"`
}

// Halted reports whether the health gate holds the rollout.
func (s Status) Halted() bool { return s.Phase == PhaseHalted }

// Done reports whether nothing is left to wait for: the rollout completed
// (and is not halted), or there is no rollout, and the ConfigMap's data is
// in force.
func (s Status) Done() bool {
	return (s.Phase == PhaseCompleted || s.Phase == PhaseAllAtOnce) && s.Withheld == nil
}

// About reports whether s is about the configuration of fingerprint: the
// one rolled out, or the ConfigMap's data it withholds.
func (s Status) About(fingerprint string) bool {
	return s.Fingerprint == fingerprint || (s.Withheld != nil && s.Withheld.Fingerprint == fingerprint)
}

// Encode renders s as JSON, as the plugin's -o json and the tests print it.
func (s Status) Encode() string {
	// Strings, ints, bools, times and slices of them always marshal.
	b, _ := json.Marshal(s)
	return string(b)
}

// statusOf is the status a decision under load leaves; rolloutKey is the
// strategy's fingerprint, now the time of the decision. It takes every figure
// from the decision and its record, and computes none again.
func statusOf(load Key, d Decision, rolloutKey string, now time.Time) *Status {
	rec := d.Record
	s := &Status{
		Fingerprint: rec.Target, RolloutKey: rolloutKey, Phase: PhaseProgressing,
		Started: rec.Started.UTC(), Completed: rec.DoneAt.UTC(),
		Step: d.Step, Steps: d.Steps, StepSize: d.StepSize,
		Reached: d.Reached, PendingAtStart: rec.Pending, Pending: len(d.Held), CanariesPending: d.HeldCanaries,
		Paused: load.Policy != nil && load.Policy.Paused, StrategyInvalid: load.Policy == nil,
		Health:  healthStatus(load.Policy, rec.Health, d.Reached),
		Updated: now.UTC(),
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
		s.NextStep = d.NextStep.UTC()
	}
	return s
}

// allAtOnceStatus is the status of a configuration put in force without a
// strategy (nil without a configuration).
func allAtOnceStatus(cfg *sloconfig.Config, now time.Time) *Status {
	if cfg == nil {
		return nil
	}
	return &Status{Fingerprint: cfg.Fingerprint(), Phase: PhaseAllAtOnce, Updated: now.UTC()}
}

// healthStatus is the health gate's part of a status: the gate of policy
// (nil: none, or the strategy invalid) and its record h of the rollout, which
// has reached nodes reached.
func healthStatus(policy *Policy, h *HealthRecord, reached int) *StatusHealth {
	var gate *HealthGate
	if policy != nil {
		gate = policy.HealthGate
	}
	if gate == nil && h == nil {
		return nil
	}
	out := &StatusHealth{Allowed: -1}
	if gate != nil {
		out.Gate = sloconfig.Shorten(gateSettings(gate), maxStatusGate)
		out.MaxUnhealthyNodes = gate.MaxUnhealthyNodes.String()
		out.Allowed, out.AllowedOf = gate.MaxUnhealthy(reached), reached
	}
	if h == nil {
		return out
	}
	if h.Halted() {
		out.HaltedAt, out.HaltedKey, out.Revert = h.HaltedAt.UTC(), h.HaltedKey, h.Revert
		out.Allowed, out.AllowedOf = -1, 0
		if h.Judged > 0 {
			out.Allowed, out.AllowedOf = h.Allowed, h.Judged
		}
	}
	out.Unhealthy, out.Tolerated = len(h.Unhealthy), h.Tolerated
	names := h.UnhealthyNames()
	out.Nodes = listed(names, h.Unhealthy, maxStatusNodes)
	out.Omitted = len(names) - len(out.Nodes)
	out.Metrics = metricStatus(h)
	out.Before, out.BeforeNodes = len(h.Before), listed(h.BeforeNames(), h.Before, maxStatusBefore)
	return out
}

// listed is the first max of names, sorted, with their signals in m.
func listed(names []string, m map[string]string, limit int) []UnhealthyNode {
	if len(names) == 0 {
		return nil
	}
	out := make([]UnhealthyNode, 0, min(len(names), limit))
	for _, name := range names[:min(len(names), limit)] {
		out = append(out, UnhealthyNode{Name: name, Signal: sloconfig.Shorten(m[name], maxStatusSignal)})
	}
	return out
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
