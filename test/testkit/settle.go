package testkit

import (
	"slices"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the kit is Ginkgo's, like the suites that use it
	. "github.com/onsi/gomega"    //nolint:staticcheck // the kit is Gomega's, like the suites that use it
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The metrics controller-runtime keeps for every controller of a manager:
// requests waiting in its work queue, and reconciles running.
const (
	metricQueueDepth    = "workqueue_depth"
	metricActiveWorkers = "controller_runtime_active_workers"
)

// Busy is how many requests the named controllers hold, from their
// manager's metrics: those queued and those being reconciled. Requests
// waiting for a requeue delay are not counted: they are due later, on the
// controllers' clock. Other work queues of the process (a unit test's)
// are not the manager's and are left out.
func Busy(families []*dto.MetricFamily, controllers []string) float64 {
	busy := 0.0
	for _, m := range busyMetrics(families, controllers) {
		busy += m.GetGauge().GetValue()
	}
	return busy
}

// busyMetrics are the series Busy adds up.
func busyMetrics(families []*dto.MetricFamily, controllers []string) []*dto.Metric {
	var out []*dto.Metric
	for _, f := range families {
		if n := f.GetName(); n != metricQueueDepth && n != metricActiveWorkers {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && slices.Contains(controllers, l.GetValue()) {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// Settle waits until the named controllers of the manager running in this
// process hold no request: none queued and no reconcile running (Busy over
// controller-runtime's metrics registry). A worker takes a request off the queue a moment before
// it counts itself active, so the reading must hold on two polls in a row.
//
// It replaces waiting for a quiet while: a spec first waits for what its
// action must cause (a NodeSLO's spec, a count of writes, the rollout's
// record), then settles; every reconcile that action queued has then run,
// and the counts the spec takes next include them all.
func Settle(controllers ...string) {
	GinkgoHelper()
	Expect(controllers).NotTo(BeEmpty(), "Settle counts the work of the controllers it is given: name them")
	Eventually(func(g Gomega) {
		families, err := metrics.Registry.Gather()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(Busy(families, controllers)).To(BeZero(),
			"requests queued or reconciles running: %v", busyMetrics(families, controllers))
	}).MustPassRepeatedly(2).Should(Succeed())
}
