package testkit

import (
	"slices"

	. "github.com/onsi/ginkgo/v2" //nolint:staticcheck // the kit is Ginkgo's, like the suites that use it
	. "github.com/onsi/gomega"    //nolint:staticcheck // the kit is Gomega's, like the suites that use it
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The metrics controller-runtime keeps for every controller of a manager:
// reconciles running, and reconciles done.
const (
	metricActiveWorkers = "controller_runtime_active_workers"
	metricReconciles    = "controller_runtime_reconcile_total"
)

// Activity is what the named controllers of a manager are doing and have
// done, read from that manager's metrics.
type Activity struct {
	// Running is how many reconciles are running.
	Running float64
	// Reconciled is how many reconciles have ended.
	Reconciled float64
}

// ActivityOf reads the Activity of the named controllers from their
// manager's metrics. Other controllers and work queues of the process (a
// unit test's) are left out.
func ActivityOf(families []*dto.MetricFamily, controllers []string) Activity {
	var a Activity
	for _, f := range families {
		var sum *float64
		var value func(*dto.Metric) float64
		switch f.GetName() {
		case metricActiveWorkers:
			sum, value = &a.Running, func(m *dto.Metric) float64 { return m.GetGauge().GetValue() }
		case metricReconciles:
			sum, value = &a.Reconciled, func(m *dto.Metric) float64 { return m.GetCounter().GetValue() }
		default:
			continue
		}
		for _, m := range f.GetMetric() {
			if slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
				return l.GetName() == "controller" && slices.Contains(controllers, l.GetValue())
			}) {
				*sum += value(m)
			}
		}
	}
	return a
}

// SettledSince reports whether the controllers held no work between an
// earlier reading and this one: no reconcile running at either, and none
// begun or ended between them. A queued request is handed to an idle worker
// at once, so idle workers and an unchanged count over one poll mean that
// nothing is queued either.
func (a Activity) SettledSince(earlier Activity) bool {
	return a.Running == 0 && earlier.Running == 0 && a.Reconciled == earlier.Reconciled
}

// Settle waits until the named controllers of the manager running in this
// process hold no work: no reconcile running, none begun between two polls
// (SettledSince), twice in a row.
//
// It replaces waiting for a quiet while: a spec first waits for what its
// action must cause (a NodeSLO's spec, a count of writes, the rollout's
// record), then settles; every reconcile that action queued has then run,
// and the counts the spec takes next include them all. The work queues'
// depth gauge is not read: controller-runtime's priority queue was seen to
// leave it at 1 with nothing queued.
func Settle(controllers ...string) {
	GinkgoHelper()
	Expect(controllers).NotTo(BeEmpty(), "Settle counts the work of the controllers it is given: name them")
	Eventually(Settled(func() (Activity, error) {
		families, err := metrics.Registry.Gather()
		return ActivityOf(families, controllers), err
	})).MustPassRepeatedly(2).Should(Succeed())
}

// Settled is the body of an Eventually that passes when read's Activity
// has settled since its previous reading (SettledSince); the first reading
// fails, as it has nothing to compare with. Ask it to pass twice in a row.
func Settled(read func() (Activity, error)) func(Gomega) {
	var earlier *Activity
	return func(g Gomega) {
		now, err := read()
		g.Expect(err).NotTo(HaveOccurred())
		before := earlier
		earlier = &now
		g.Expect(before).NotTo(BeNil(), "a first reading")
		g.Expect(now.SettledSince(*before)).To(BeTrue(),
			"reconciles running or begun since the last reading: %+v, then %+v", *before, now)
	}
}
