package controller

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// Rollout metric names (docs/rollout.md#what-the-operator-sees), exported
// so that tests and dashboards share one spelling.
const (
	MetricRolloutPending   = "nodeslo_rollout_pending_nodes"
	MetricRolloutReached   = "nodeslo_rollout_reached_nodes"
	MetricRolloutStep      = "nodeslo_rollout_step"
	MetricRolloutPhase     = "nodeslo_rollout_phase"
	MetricRolloutUnhealthy = "nodeslo_rollout_unhealthy_nodes"
)

// Phases of nodeslo_rollout_phase (label "phase"). One is 1, the others 0:
// a halt is a reason to act, a pause a decision someone took, and each has
// an alert of its own that must not fire for the other.
const (
	// RolloutPhaseIdle: no staged rollout holds a node (none in progress,
	// it completed, or there is no strategy).
	RolloutPhaseIdle = "idle"
	// RolloutPhaseProgressing: nodes are pending and steps are taken.
	RolloutPhaseProgressing = "progressing"
	// RolloutPhasePaused: nodes are pending and held by the
	// NodeSLORollout's spec.paused or an invalid spec.strategy.
	RolloutPhasePaused = "paused"
	// RolloutPhaseHalted: the health gate holds the rollout halted, or the
	// ConfigMap's data is a configuration it halted (resume, retry or undo).
	RolloutPhaseHalted = "halted"
)

// RolloutPhases lists every phase, in the order a rollout goes through them.
var RolloutPhases = []string{RolloutPhaseIdle, RolloutPhaseProgressing, RolloutPhasePaused, RolloutPhaseHalted}

var (
	rolloutPending = newGauge(MetricRolloutPending,
		"Nodes a staged rollout still holds on their stored NodeSLO (0 without a rollout).")
	rolloutReached = newGauge(MetricRolloutReached,
		"Nodes pending when the rollout in progress started that it has reached.")
	rolloutStep = newGauge(MetricRolloutStep,
		"Steps the rollout in progress has taken, the canary step included.")
	rolloutPhase     = newPhaseGauge()
	rolloutUnhealthy = newGauge(MetricRolloutUnhealthy,
		"Nodes reached by the rollout in progress that its health gate judged unhealthy.")
)

// newGauge is a gauge without labels.
func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

func init() {
	metrics.Registry.MustRegister(rolloutPending, rolloutReached, rolloutStep, rolloutPhase, rolloutUnhealthy)
}

// exportRollout sets the rollout gauges to what a rollout decision found.
func exportRollout(f rollout.Figures) {
	rolloutPending.Set(float64(f.Pending))
	rolloutReached.Set(float64(f.Reached))
	rolloutStep.Set(float64(f.Step))
	rolloutPhase.set(rolloutPhaseOf(f))
	rolloutUnhealthy.Set(float64(f.Unhealthy))
}

// rolloutPhaseOf is the one phase of f. A halt comes first: a halted
// rollout is held like a paused one, but asks for a decision; a pause
// counts only while nodes are pending.
func rolloutPhaseOf(f rollout.Figures) string {
	switch {
	case f.Halted || f.Withheld:
		return RolloutPhaseHalted
	case f.Paused:
		return RolloutPhasePaused
	case f.InProgress:
		return RolloutPhaseProgressing
	}
	return RolloutPhaseIdle
}

// phaseGauge is nodeslo_rollout_phase. The phase is one value, and each
// scrape renders every series from that one value: setting a GaugeVec's
// series one by one would let a scrape between two of them see two phases
// at 1, or none.
type phaseGauge struct {
	desc    *prometheus.Desc
	current atomic.Pointer[string]
}

func newPhaseGauge() *phaseGauge {
	g := &phaseGauge{desc: prometheus.NewDesc(MetricRolloutPhase,
		"1 for the phase the staged rollout is in, 0 for the others: idle (no node held), "+
			"progressing, paused (spec.paused, or an invalid spec.strategy) or "+
			"halted (by the health gate, or the ConfigMap's data is a configuration it halted).",
		[]string{"phase"}, nil)}
	g.set(RolloutPhaseIdle)
	return g
}

// set makes phase the current one.
func (g *phaseGauge) set(phase string) { g.current.Store(&phase) }

// Describe sends the one descriptor.
func (g *phaseGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

// Collect sends one series per phase, 1 for the current one.
func (g *phaseGauge) Collect(ch chan<- prometheus.Metric) {
	current := *g.current.Load()
	for _, p := range RolloutPhases {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, gaugeBool(p == current), p)
	}
}

// gaugeBool is 1 for true, 0 for false.
func gaugeBool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
