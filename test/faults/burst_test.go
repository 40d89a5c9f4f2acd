package faults_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/test/faults"
)

// burstLength is how many ConfigMap versions are written back to back.
const burstLength = 20

// The ConfigMap changes 20 times in a burst, each version giving every
// node another spec: the manager may write intermediate versions (at most
// one write per version per node), but every node must end on the last.
var _ = Describe("the ConfigMap changed 20 times in a burst", Serial, func() {
	It("ends with every node on the last version, none on an intermediate one", func(ctx SpecContext) {
		writes := startManager(nil)
		first := 30
		before := settle(ctx, faults.Version(first))
		seq := []faults.Specs{expected(faults.Version(first))}
		for v := first + 1; v <= first+burstLength; v++ {
			seq = append(seq, expected(faults.Version(v)))
		}
		want := seq[burstLength]
		changes := faults.ChangesBetween(seq...)
		writes.Reset()
		inForceBefore := configChanges()

		start := time.Now()
		for v := first + 1; v <= first+burstLength; v++ {
			setConfig(ctx, faults.Version(v))
		}
		lastWritten := time.Now()

		after, converged := convergedAndQuiet(ctx, want)
		// The manager may skip versions it never saw in force: those did
		// not reach the nodes.
		applied := int(configChanges() - inForceBefore)
		Expect(applied).To(BeNumerically(">=", 1))
		for name, n := range changes {
			changes[name] = min(n, applied)
		}
		tally, err := faults.NoWriteDoubled(before, after, changes, nil, writes.Succeeded, false)
		Expect(err).NotTo(HaveOccurred())
		final := faults.ChangesBetween(seq[0], want)
		intermediate := tally.Stored - len(final)
		figure("ConfigMap burst", "%d nodes, %d versions written in %s, %d of them put in force by the manager: "+
			"converged %s after the last one; %s; %d of the writes were of intermediate versions", fleetSize,
			burstLength, seconds(lastWritten.Sub(start)), applied, seconds(converged.Sub(lastWritten)), tally,
			intermediate)
	})
})

// configChanges reads how many times the in-process manager's
// configuration in force changed (controller.MetricConfigChanges).
func configChanges() float64 {
	GinkgoHelper()
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() == controller.MetricConfigChanges {
			for _, m := range f.GetMetric() {
				return m.GetCounter().GetValue()
			}
		}
	}
	Fail(controller.MetricConfigChanges + " is not registered")
	return 0
}
