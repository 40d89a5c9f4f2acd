package rollout

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Rollout metric names (docs/rollout.md#what-the-operator-sees), exported
// so that tests and dashboards share one spelling.
const (
	MetricPending    = "nodeslo_rollout_pending_nodes"
	MetricReached    = "nodeslo_rollout_reached_nodes"
	MetricStep       = "nodeslo_rollout_step"
	MetricInProgress = "nodeslo_rollout_in_progress"
	MetricPaused     = "nodeslo_rollout_paused"
	MetricHalted     = "nodeslo_rollout_halted"
	MetricUnhealthy  = "nodeslo_rollout_unhealthy_nodes"
)

var (
	pendingGauge = newGauge(MetricPending,
		"Nodes a staged rollout still holds on their stored NodeSLO (0 without a rollout).")
	reachedGauge = newGauge(MetricReached,
		"Nodes pending when the rollout in progress started that it has reached.")
	stepGauge = newGauge(MetricStep,
		"Steps the rollout in progress has taken, the canary step included.")
	inProgressGauge = newGauge(MetricInProgress,
		"1 while a staged rollout has pending nodes (paused or not), else 0.")
	// pausedGauge tells a rollout paused on purpose (or by an invalid
	// rollout key) from one whose steps stopped landing: two alerts, two
	// different actions.
	pausedGauge = newGauge(MetricPaused,
		"1 while a staged rollout with pending nodes is paused (\"paused\": true, or its key invalid), else 0.")
	// haltedGauge is the health gate's verdict on the rollout in progress:
	// its alert asks for a decision (resume, undo), not for patience.
	haltedGauge = newGauge(MetricHalted,
		"1 while the rollout key's health gate holds a rollout halted (resume or undo it), else 0.")
	unhealthyGauge = newGauge(MetricUnhealthy,
		"Nodes reached by the rollout in progress that its health gate judged unhealthy.")
)

// newGauge is a gauge without labels.
func newGauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
}

func init() {
	metrics.Registry.MustRegister(pendingGauge, reachedGauge, stepGauge, inProgressGauge, pausedGauge,
		haltedGauge, unhealthyGauge)
}

// Figures are the values of the rollout gauges; the zero value is "no
// rollout".
type Figures struct {
	Pending, Reached, Step, Unhealthy int
	InProgress, Paused, Halted        bool
}

// Export sets the rollout gauges to f.
func (f Figures) Export() {
	pendingGauge.Set(float64(f.Pending))
	reachedGauge.Set(float64(f.Reached))
	stepGauge.Set(float64(f.Step))
	inProgressGauge.Set(gaugeBool(f.InProgress))
	pausedGauge.Set(gaugeBool(f.Paused))
	haltedGauge.Set(gaugeBool(f.Halted))
	unhealthyGauge.Set(float64(f.Unhealthy))
}

// gaugeBool is 1 for true, 0 for false.
func gaugeBool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
