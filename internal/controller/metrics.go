package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Operations a NodeSLO reconcile ends with (label "operation").
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
	// OpNoop: the stored NodeSLO already matches, or neither Node nor NodeSLO exists.
	OpNoop = "noop"
	// OpSkip: the configuration was not loaded yet; the node is reconciled once it is.
	OpSkip = "skip"
	// OpGet: reading the Node or the NodeSLO failed.
	OpGet = "get"
	// OpHeld: a staged rollout holds the node on its stored NodeSLO for now.
	OpHeld = "held"
)

// Results of a reconcile (label "result").
const (
	ResultSuccess = "success"
	ResultFailure = "failure"
)

// Metric names, exported so that tests and dashboards share one spelling.
const (
	MetricReconcileTotal   = "nodeslo_reconcile_total"
	MetricConfigInvalid    = "nodeslo_config_invalid"
	MetricConfigInfo       = "nodeslo_config_info"
	MetricConfigGeneration = "nodeslo_config_generation"
	MetricResolveSeconds   = "nodeslo_resolve_duration_seconds"
)

var (
	reconcileTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricReconcileTotal,
		Help: "NodeSLO reconciles by the operation they ended with and its result.",
	}, []string{"operation", "result"})

	configInvalid = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricConfigInvalid,
		Help: "1 when the ConfigMap key's value is invalid and was rejected, 0 when it is valid or absent.",
	}, []string{"key"})

	configInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricConfigInfo,
		Help: "Always 1, labelled with the fingerprint of the effective configuration in force.",
	}, []string{"fingerprint"})

	configGeneration = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricConfigGeneration,
		Help: "Number of times the effective configuration changed since the process started (1 after the first load).",
	})

	resolveSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    MetricResolveSeconds,
		Help:    "Time taken to resolve the configuration into one node's spec.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 4, 10), // 1µs .. ~0.26s
	})
)

func init() {
	metrics.Registry.MustRegister(reconcileTotal, configInvalid, configInfo, configGeneration, resolveSeconds)
	// Start every series at zero so that rates and alerts see them from the start.
	for _, op := range []string{OpCreate, OpUpdate, OpDelete, OpNoop, OpSkip, OpGet, OpHeld} {
		for _, res := range []string{ResultSuccess, ResultFailure} {
			reconcileTotal.WithLabelValues(op, res)
		}
	}
	for _, k := range sloconfig.Keys {
		configInvalid.WithLabelValues(string(k))
	}
}

// countReconcile records the outcome of one reconcile.
func countReconcile(operation string, err error) {
	result := ResultSuccess
	if err != nil {
		result = ResultFailure
	}
	reconcileTotal.WithLabelValues(operation, result).Inc()
}

// recordConfig sets the configuration metrics for cfg; changed says whether
// its fingerprint differs from the one in force before.
func recordConfig(cfg *sloconfig.Config, changed bool) {
	for _, r := range cfg.Reports() {
		v := 0.0
		if !r.Valid() {
			v = 1
		}
		configInvalid.WithLabelValues(string(r.Key)).Set(v)
	}
	if changed {
		configInfo.Reset()
		configInfo.WithLabelValues(cfg.Fingerprint()).Set(1)
		configGeneration.Inc()
	}
}

// Rollout metric names (docs/rollout.md#what-the-operator-sees).
const (
	MetricRolloutPending    = "nodeslo_rollout_pending_nodes"
	MetricRolloutReached    = "nodeslo_rollout_reached_nodes"
	MetricRolloutStep       = "nodeslo_rollout_step"
	MetricRolloutInProgress = "nodeslo_rollout_in_progress"
	MetricRolloutPaused     = "nodeslo_rollout_paused"
)

var (
	rolloutPending = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricRolloutPending,
		Help: "Nodes a staged rollout still holds on their stored NodeSLO (0 without a rollout).",
	})
	rolloutReached = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricRolloutReached,
		Help: "Nodes pending when the rollout in progress started that it has reached.",
	})
	rolloutStep = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricRolloutStep,
		Help: "Steps the rollout in progress has taken, the canary step included.",
	})
	rolloutInProgress = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricRolloutInProgress,
		Help: "1 while a staged rollout has pending nodes (paused or not), else 0.",
	})
	// rolloutPaused tells a rollout paused on purpose (or by an invalid
	// rollout key) from one whose steps stopped landing: two alerts, two
	// different actions.
	rolloutPaused = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricRolloutPaused,
		Help: "1 while a staged rollout with pending nodes is paused (\"paused\": true, or its key invalid), else 0.",
	})
)

func init() {
	metrics.Registry.MustRegister(rolloutPending, rolloutReached, rolloutStep, rolloutInProgress, rolloutPaused)
}

// rolloutFigures are the values of the rollout gauges; the zero value is
// "no rollout".
type rolloutFigures struct {
	pending, reached, step int
	inProgress, paused     bool
}

// recordRollout sets the rollout metrics.
func recordRollout(f rolloutFigures) {
	rolloutPending.Set(float64(f.pending))
	rolloutReached.Set(float64(f.reached))
	rolloutStep.Set(float64(f.step))
	rolloutInProgress.Set(gaugeBool(f.inProgress))
	rolloutPaused.Set(gaugeBool(f.paused))
}

// gaugeBool is 1 for true, 0 for false.
func gaugeBool(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
