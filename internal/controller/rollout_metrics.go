package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// Rollout metric names (docs/rollout.md#what-the-operator-sees), exported
// so that tests and dashboards share one spelling.
const (
	MetricRolloutPending    = "nodeslo_rollout_pending_nodes"
	MetricRolloutReached    = "nodeslo_rollout_reached_nodes"
	MetricRolloutStep       = "nodeslo_rollout_step"
	MetricRolloutInProgress = "nodeslo_rollout_in_progress"
	MetricRolloutPaused     = "nodeslo_rollout_paused"
	MetricRolloutHalted     = "nodeslo_rollout_halted"
	MetricRolloutUnhealthy  = "nodeslo_rollout_unhealthy_nodes"
)

var (
	rolloutPending = newGauge(MetricRolloutPending,
		"Nodes a staged rollout still holds on their stored NodeSLO (0 without a rollout).")
	rolloutReached = newGauge(MetricRolloutReached,
		"Nodes pending when the rollout in progress started that it has reached.")
	rolloutStep = newGauge(MetricRolloutStep,
		"Steps the rollout in progress has taken, the canary step included.")
	rolloutInProgress = newGauge(MetricRolloutInProgress,
		"1 while a staged rollout has pending nodes (paused or not), else 0.")
	// rolloutPaused tells a rollout paused on purpose (or by an invalid
	// rollout key) from one whose steps stopped landing: two alerts, two
	// different actions.
	rolloutPaused = newGauge(MetricRolloutPaused,
		"1 while a staged rollout with pending nodes is held: paused (\"paused\": true, or its key invalid) "+
			"or halted by its health gate (then nodeslo_rollout_halted is 1 too), else 0.")
	// rolloutHalted is the health gate's verdict on the rollout in progress:
	// its alert asks for a decision (resume, undo, retry), not for patience.
	rolloutHalted = newGauge(MetricRolloutHalted,
		"1 while the rollout key's health gate holds a rollout halted (resume or undo it), "+
			"or the ConfigMap's data is a configuration it halted (retry or change it), else 0.")
	rolloutUnhealthy = newGauge(MetricRolloutUnhealthy,
		"Nodes reached by the rollout in progress that its health gate judged unhealthy.")
)

// newGauge is a gauge without labels.
func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

func init() {
	metrics.Registry.MustRegister(rolloutPending, rolloutReached, rolloutStep, rolloutInProgress, rolloutPaused,
		rolloutHalted, rolloutUnhealthy)
}

// exportRollout sets the rollout gauges to what a rollout decision found.
func exportRollout(f rollout.Figures) {
	rolloutPending.Set(float64(f.Pending))
	rolloutReached.Set(float64(f.Reached))
	rolloutStep.Set(float64(f.Step))
	rolloutInProgress.Set(gaugeBool(f.InProgress))
	rolloutPaused.Set(gaugeBool(f.Paused))
	rolloutHalted.Set(gaugeBool(f.Halted || f.Withheld))
	rolloutUnhealthy.Set(float64(f.Unhealthy))
}

// gaugeBool is 1 for true, 0 for false.
func gaugeBool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
