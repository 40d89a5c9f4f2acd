package controller_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// The health gate's metric checks (docs/rollout.md#metric-gates) against a
// real Prometheus server (bin/prometheus, built by make prometheus from the
// module promtool comes from), started by the test as envtest starts
// kube-apiserver, scraping every second an exporter the test runs with one
// series per node. The canary soak is an hour: no batch follows the
// canaries, so whatever halts, halts at the canaries.

// metricCanaries is how many of the fleet's 40 nodes are canaries.
const metricCanaries = 2

// nodeExporter serves node_latency_seconds with one series per node, and
// koordlet_pod_eviction as koordlet v1.8 declares it: a counter by node and
// reason whose series appears, at 1, with a node's first eviction.
type nodeExporter struct {
	server    *httptest.Server
	latency   *prometheus.GaugeVec
	evictions *prometheus.CounterVec
}

func startNodeExporter() *nodeExporter {
	reg := prometheus.NewRegistry()
	e := &nodeExporter{latency: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "node_latency_seconds", Help: "A service's latency on the node, as the test sets it.",
	}, []string{"node"}), evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: "koordlet", Name: "pod_eviction", Help: "Number of eviction launched by koordlet",
	}, []string{"node", "reason"})}
	reg.MustRegister(e.latency, e.evictions)
	e.server = httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	DeferCleanup(e.server.Close)
	return e
}

// promQuery asks Prometheus at url for a query's one value (NaN: no data).
func promQuery(ctx context.Context, url, query string) func() (float64, error) {
	client, err := api.NewClient(api.Config{Address: url})
	Expect(err).NotTo(HaveOccurred())
	prom := promv1.NewAPI(client)
	return func() (float64, error) {
		v, _, err := prom.Query(ctx, query, time.Now())
		if err != nil {
			return 0, err
		}
		if vec, ok := v.(model.Vector); ok && len(vec) == 1 {
			return float64(vec[0].Value), nil
		}
		return -1, nil
	}
}

// metricGatePolicy is a strategy with the one metric check given and
// an hour's canary soak.
func metricGatePolicy(check string) string {
	return fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": 2,
		"canary": {"nodeSelector": {"matchLabels": {%q: "canary"}}, "soakSeconds": 3600},
		"healthGate": {"maxUnhealthyNodes": 1, "metrics": [%s]}}`, rolloutStep, canaryLabel, check)
}

// measurements counts the gate's measurements of a check with a result
// ("": any).
func measurements(check, result string) func() float64 {
	labels := map[string]string{"check": check}
	if result != "" {
		labels["result"] = result
	}
	return func() float64 { return metricValue(controller.MetricGateMeasurements, labels) }
}

var _ = Describe("A staged rollout with metric checks on Prometheus", Serial, Label(shardMetrics), Ordered, func() {
	var (
		exporter *nodeExporter
		promURL  string
	)
	BeforeAll(func() {
		exporter = startNodeExporter()
		promURL = envtestharness.StartPrometheus(envtestharness.FreeAddress("127.0.0.1"),
			exporter.server.Listener.Addr().String())
	})

	// start is startMetricRollout, waiting first, when export is set,
	// until Prometheus holds every node's series.
	start := func(ctx SpecContext, policy string, export bool) (*corev1.ConfigMap, fleet) {
		return startMetricRollout(ctx, policy, func(f fleet) {
			if !export {
				return
			}
			for _, n := range f.names {
				exporter.latency.WithLabelValues(n).Set(0.1)
			}
			Eventually(promQuery(ctx, promURL, "count(node_latency_seconds == 0.1)")).
				Should(BeNumerically(">=", rolloutNodes), "Prometheus did not scrape every node's series")
		})
	}

	It("halts at the first measurement once a reached canary's value crosses the threshold, not on an unreached node's",
		func(ctx SpecContext) {
			const check = "latency"
			cm, f := start(ctx, metricGatePolicy(fmt.Sprintf(`{"name": %q, "address": %q, "max": 0.5,
				"query": "max(node_latency_seconds{node=~\"{{.NodesRegex}}\"})", "intervalSeconds": 1}`,
				check, promURL)), true)
			Eventually(measurements(check, controller.MeasurementPass)).Should(BeNumerically(">=", 1),
				"the gate measured the canaries")

			// An unreached node crosses the threshold: the gate keeps passing.
			unreached := slices.DeleteFunc(slices.Clone(f.names), func(n string) bool { return f.canaries[n] })[0]
			exporter.latency.WithLabelValues(unreached).Set(2)
			Eventually(promQuery(ctx, promURL, fmt.Sprintf(`node_latency_seconds{node=%q}`, unreached))).Should(Equal(2.0))
			passed := measurements(check, controller.MeasurementPass)()
			Eventually(measurements(check, controller.MeasurementPass)).Should(BeNumerically(">=", passed+2),
				"two measurements after Prometheus held the unreached node's value")
			Expect(measurements(check, controller.MeasurementOutOfBounds)()).To(BeZero())
			Expect(record(ctx).Health.Halted()).To(BeFalse())

			// A reached canary crosses it: the next measurement halts.
			canary := f.canaryNames()[0]
			exporter.latency.WithLabelValues(canary).Set(2)
			Eventually(promQuery(ctx, promURL, fmt.Sprintf(`node_latency_seconds{node=%q}`, canary))).Should(Equal(2.0))
			passed = measurements(check, controller.MeasurementPass)()
			Eventually(func() bool { return record(ctx).Health.Halted() }).Should(BeTrue())
			Expect(measurements(check, controller.MeasurementPass)()).To(BeNumerically("<=", passed+1),
				"at most one measurement, begun before Prometheus held the value, passed after it")
			Expect(measurements(check, controller.MeasurementOutOfBounds)()).To(Equal(1.0),
				"the first measurement out of bounds halted, and none followed the halt")
			h := record(ctx).Health
			Expect(h.Metrics).To(HaveKeyWithValue(check, And(
				HaveField("Failed", BeTrue()), HaveField("Failures", 1),
				HaveField("Seen", "value 2 outside <= 0.5"))))
			Expect(h.Unhealthy).To(BeEmpty(), "the nodes themselves stayed healthy")
			Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonHalted)).Should(ContainElement(
				ContainSubstring("halted by its health gate: metric check latency failed: value 2 outside <= 0.5")))
			Eventually(rolloutPhase).Should(Equal(controller.RolloutPhaseHalted))
			onlyMetricCanariesReached(ctx, f)
			for _, n := range f.names {
				exporter.latency.DeleteLabelValues(n)
			}
		})

	It("halts on koordlet's first eviction on a reached canary, counted by the recipe of docs/rollout.md",
		func(ctx SpecContext) {
			const (
				check    = "koordlet-evictions"
				interval = 30 * time.Second
			)
			query := envtestharness.DocumentedQuery(check)
			_, f := start(ctx, metricGatePolicy(fmt.Sprintf(`{"name": %q, "address": %q, "max": 0,
				"query": %q, "intervalSeconds": %d}`, check, promURL, query, int(interval.Seconds()))), false)
			Eventually(measurements(check, controller.MeasurementPass)).Should(BeNumerically(">=", 1),
				"the gate measured the canaries before any eviction")

			// koordlet evicts on an unreached node, then on a reached canary:
			// each counter series appears at 1, so the first eviction of a
			// node has no earlier sample to increase from.
			unreached := slices.DeleteFunc(slices.Clone(f.names), func(n string) bool { return f.canaries[n] })[0]
			canary := f.canaryNames()[0]
			exporter.evictions.WithLabelValues(unreached, "evictByMemory").Inc()
			Eventually(promQuery(ctx, promURL, fmt.Sprintf(`koordlet_pod_eviction{node=%q}`, unreached))).
				Should(Equal(1.0))
			skipAndSettle(interval)
			Expect(record(ctx).Health.Halted()).To(BeFalse(), "an eviction on an unreached node halted")

			exporter.evictions.WithLabelValues(canary, "evictByMemory").Inc()
			Eventually(promQuery(ctx, promURL, fmt.Sprintf(`koordlet_pod_eviction{node=%q}`, canary))).
				Should(Equal(1.0))
			skipAndSettle(interval)
			Eventually(func() bool { return record(ctx).Health.Halted() }).Should(BeTrue())
			Expect(record(ctx).Health.Metrics).To(HaveKeyWithValue(check, And(
				HaveField("Failed", BeTrue()), HaveField("Seen", "value 1 outside <= 0"))))
			onlyMetricCanariesReached(ctx, f)
			exporter.evictions.Reset()
		})

	It("measures a dry run and shows what it sees, and never halts on it", func(ctx SpecContext) {
		const check = "trial"
		_, f := start(ctx, metricGatePolicy(fmt.Sprintf(`{"name": %q, "address": %q, "max": 0,
			"query": "count(node_latency_seconds)", "intervalSeconds": 1, "dryRun": true}`, check, promURL)), true)
		Eventually(measurements(check, controller.MeasurementOutOfBounds)).Should(BeNumerically(">=", 3),
			"measured out of bounds again and again")
		Eventually(func(g Gomega) {
			h := rolloutObject(ctx).Status.Health
			g.Expect(h).NotTo(BeNil())
			g.Expect(h.Metrics).To(ContainElement(And(HaveField("Name", check), HaveField("DryRun", BeTrue()),
				HaveField("Failed", BeFalse()), HaveField("Failures", BeNumerically(">=", 2)),
				HaveField("Seen", HavePrefix("value ")))))
		}).Should(Succeed())
		Expect(record(ctx).Health.Halted()).To(BeFalse())
		Expect(rolloutPhase()).NotTo(Equal(controller.RolloutPhaseHalted))
		onlyMetricCanariesReached(ctx, f)
	})

	It("holds the rollout as inconclusive while Prometheus cannot answer beyond the failure limit, never halts, "+
		"and goes on once it answers", func(ctx SpecContext) {
		const check = "reachable"
		down := "http://" + envtestharness.FreeAddress("127.0.0.1")
		policy := func(address string) string {
			return fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": 1,
				"canary": {"nodeSelector": {"matchLabels": {%q: "canary"}}, "soakSeconds": 5},
				"healthGate": {"maxUnhealthyNodes": 1, "metrics": [{"name": %q, "address": %q, "max": 0.5,
				"query": "max(node_latency_seconds{node=~\"{{.NodesRegex}}\"})", "intervalSeconds": 1,
				"failureLimit": 2}]}}`, rolloutStep, canaryLabel, check, address)
		}
		cm, f := start(ctx, policy(down), true)
		Eventually(func() bool { return metricInconclusive(record(ctx).Health) }).Should(BeTrue())
		Expect(record(ctx).Health.Metrics).To(HaveKeyWithValue(check, And(
			HaveField("Inconclusive", BeTrue()), HaveField("Failed", BeFalse()), HaveField("Failures", 0),
			HaveField("Errors", BeNumerically(">=", 3)),
			HaveField("Seen", ContainSubstring("Prometheus unreachable at "+down)))))
		Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonInconclusive)).Should(ContainElement(And(
			ContainSubstring("metric check reachable inconclusive: Prometheus unreachable at "+down),
			ContainSubstring("consecutive errors"))))
		Eventually(rolloutPhase).Should(Equal(controller.RolloutPhasePaused))
		Eventually(func(g Gomega) {
			ready := meta.FindStatusCondition(rolloutObject(ctx).Status.Conditions, nodeslov1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(rollout.ReasonMetricsInconclusive))
		}).Should(Succeed())

		// It goes on measuring, past the canaries' soak, and takes no step.
		errs := measurements(check, controller.MeasurementError)()
		Eventually(measurements(check, controller.MeasurementError)).Should(BeNumerically(">=", errs+6))
		Expect(record(ctx).Health.Halted()).To(BeFalse(), "nothing says the change hurt")
		onlyMetricCanariesReached(ctx, f)

		// Prometheus answers, and the rollout goes on to every node.
		setStrategy(ctx, policy(promURL))
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		Expect(f.at(ctx, 40)).To(HaveLen(len(f.names)))
		Expect(record(ctx).Health.Halted()).To(BeFalse())
		Expect(measurements(check, controller.MeasurementPass)()).To(BeNumerically(">=", 1))
	})
})

// startMetricRollout creates the fleet under a strategy without a gate, calls
// before (when set) with it, changes the configuration under policy and
// returns once the canaries have it.
func startMetricRollout(ctx context.Context, policy string, before func(fleet)) (*corev1.ConfigMap, fleet) {
	cm := setConfig(ctx, rolloutData(50, rolloutPolicy(false)))
	f := createFleetWith(ctx, 50, metricCanaries)
	Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
	target := record(ctx).Target
	if before != nil {
		before(f)
	}
	settle()
	writes.Reset()
	setConfig(ctx, rolloutData(40, policy))
	watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
		func(reached []string) bool { return len(reached) >= metricCanaries })
	onlyMetricCanariesReached(ctx, f)
	return cm, f
}

// onlyMetricCanariesReached checks that no node of f but a canary has the
// configuration changed to.
func onlyMetricCanariesReached(ctx context.Context, f fleet) {
	canaries, others := f.split(f.at(ctx, 40))
	Expect(others).To(BeZero(), "a node beyond the canaries was reached")
	Expect(canaries).To(Equal(metricCanaries))
}
