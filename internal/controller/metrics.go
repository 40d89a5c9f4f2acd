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

// Results of a reconcile (label "result"), as controller-runtime's
// controller_runtime_reconcile_total names them, so that both counters of
// one reconcile say the same: an error is returned for backoff, a write
// race that outlasted its retries asks to be reconciled again later.
const (
	ResultSuccess      = "success"
	ResultError        = "error"
	ResultRequeueAfter = "requeue_after"
)

// Metric names, exported so that tests and dashboards share one spelling.
const (
	MetricReconcileTotal   = "nodeslo_reconcile_total"
	MetricConfigInvalid    = "nodeslo_config_invalid"
	MetricConfigInfo       = "nodeslo_config_info"
	MetricConfigChanges    = "nodeslo_config_changes_total"
	MetricResolveSeconds   = "nodeslo_resolve_duration_seconds"
	MetricCRDDroppedFields = "nodeslo_crd_dropped_fields"
	// MetricHealthWatchedNodes tells whether the health gate's watches run,
	// and over how many Nodes: make bench waits on it to weigh their memory.
	MetricHealthWatchedNodes = "nodeslo_rollout_health_watched_nodes"
	// MetricReverts counts the health gate's reverts: the halted gauge says
	// the ConfigMap's data is halted, the counter that a revert happened.
	MetricReverts = "nodeslo_rollout_reverts_total"
)

// labelKey is the label that names a ConfigMap key.
const labelKey = "key"

var (
	reconcileTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricReconcileTotal,
		Help: "NodeSLO reconciles by the operation they ended with and their result (success, error, requeue_after).",
	}, []string{"operation", "result"})

	configInvalid = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricConfigInvalid,
		Help: "1 when the ConfigMap key's value is invalid and was rejected, 0 when it is valid or absent.",
	}, []string{labelKey})

	configInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricConfigInfo,
		Help: "Always 1, labelled with the fingerprint of the effective configuration in force.",
	}, []string{"fingerprint"})

	// configChanges counts what nodeslo_config_info shows as it changes: a
	// counter, so that rate() and increase() see changes across restarts.
	configChanges = prometheus.NewCounter(prometheus.CounterOpts{
		Name: MetricConfigChanges,
		Help: "Changes of the effective configuration in force since the process started (the first load counts).",
	})

	crdDroppedFields = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: MetricCRDDroppedFields,
		Help: "Number of fields the ConfigMap key sets that the installed NodeSLO CRD drops from every NodeSLO.",
	}, []string{labelKey})

	healthWatchedNodes = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: MetricHealthWatchedNodes,
		Help: "Nodes the health gate's watch holds, once listed; 0 while no rollout under a health gate is judged.",
	})

	reverts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: MetricReverts,
		Help: "Configurations the health gate reverted: the previous revision put in force in place of the ConfigMap's data.",
	})

	resolveSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    MetricResolveSeconds,
		Help:    "Time taken to resolve the configuration into one node's spec.",
		Buckets: prometheus.ExponentialBuckets(1e-6, 4, 10), // 1µs .. ~0.26s
	})
)

func init() {
	metrics.Registry.MustRegister(reconcileTotal, configInvalid, configInfo, configChanges, resolveSeconds,
		crdDroppedFields, healthWatchedNodes, reverts)
	// Start every series at zero so that rates and alerts see them from the start.
	for _, op := range []string{OpCreate, OpUpdate, OpDelete, OpNoop, OpSkip, OpGet, OpHeld} {
		for _, res := range []string{ResultSuccess, ResultError, ResultRequeueAfter} {
			reconcileTotal.WithLabelValues(op, res)
		}
	}
	for _, k := range sloconfig.Keys {
		configInvalid.WithLabelValues(string(k))
		crdDroppedFields.WithLabelValues(string(k))
	}
}

// countReconcile records the outcome of one reconcile: its operation, and
// its result as controller-runtime counts the same reconcile (err is
// returned; a write race is requeued after a delay, without an error).
func countReconcile(operation string, err error) {
	result := ResultSuccess
	switch {
	case isWriteRace(err):
		result = ResultRequeueAfter
	case err != nil:
		result = ResultError
	}
	reconcileTotal.WithLabelValues(operation, result).Inc()
}

// recordValidity sets each key's validity gauge for cfg as loaded, with
// the Events that report the same.
func recordValidity(cfg *sloconfig.Config) {
	for _, r := range cfg.Reports() {
		configInvalid.WithLabelValues(string(r.Key)).Set(gaugeBool(!r.Valid()))
	}
}

// recordInForce sets the metrics of the configuration in force once cfg is
// published; changed says whether its fingerprint differs from the one in
// force before.
func recordInForce(cfg *sloconfig.Config, changed bool) {
	if changed {
		configInfo.Reset()
		configInfo.WithLabelValues(cfg.Fingerprint()).Set(1)
		configChanges.Inc()
	}
}

// setDroppedFields sets, per key, how many of its fields the installed CRD
// drops (docs/behaviour.md#crd-version-skew).
func setDroppedFields(paths []string) {
	count := map[sloconfig.Key]int{}
	for _, kp := range sloconfig.DroppedByKey(paths) {
		count[kp.Key] = len(kp.Paths)
	}
	for _, k := range sloconfig.Keys {
		crdDroppedFields.WithLabelValues(string(k)).Set(float64(count[k]))
	}
}
