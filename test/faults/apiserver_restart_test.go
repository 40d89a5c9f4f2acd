package faults_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/internal/manager"
	"github.com/nodeslo/nodeslo-controller/test/faults"
)

// The apiserver dies in the middle of a change and comes back on the same
// etcd data and address: the manager's client reconnects, its informers
// relist, and the reconciles that failed meanwhile are retried.
var _ = Describe("kube-apiserver stopped in the middle of a change", Serial, func() {
	It("converges once it is back on the same etcd data, nothing lost or doubled", func(ctx SpecContext) {
		// A slower client than deployed (100/s, burst 200), so that the
		// change is still rolling when the apiserver stops, on any machine.
		hold := faults.NewWriteHold()
		writes := startManager(func(o *manager.Options) { o.KubeAPIQPS, o.KubeAPIBurst = 50, 10 }, hold.Wrap)
		from, to := faults.Version(10), faults.Version(11)
		before := settle(ctx, from)
		want := expected(to)
		changes := faults.ChangesBetween(expected(from), want)
		writes.Reset()

		// A fifth of the fleet written, the manager's next writes wait
		// until the apiserver is down, so that the change is in the middle
		// however the machine paces the manager and the spec.
		hold.Arm(fleetSize / 5)
		setConfig(ctx, to)
		changed := time.Now()
		Eventually(hold.Waiting).WithContext(ctx).WithTimeout(converge).WithPolling(poll).
			Should(BeNumerically(">", 0), "no write held after the first %d", fleetSize/5)
		left := fleetSize - readState(ctx).Matching(want)
		By("killing kube-apiserver; etcd keeps running")
		Expect(cluster.StopAPIServer()).To(Succeed())
		stopped := time.Now()
		hold.Release()
		// The held writes refused while it is down show the change was in the middle.
		Eventually(writes.Failed).WithTimeout(converge).WithPolling(poll).Should(BeNumerically(">", 0))
		By("starting kube-apiserver again on the same address")
		Expect(cluster.StartAPIServer()).To(Succeed())
		restarted := time.Now()

		after, converged := convergedAndQuiet(ctx, want)
		tally, err := faults.NoWriteDoubled(before, after, changes, nil, writes.Succeeded, true)
		Expect(err).NotTo(HaveOccurred())
		_, conflicts, failed := writes.Totals()
		figure("apiserver restart", "%d nodes: converged %s after kube-apiserver was healthy again "+
			"(killed with about %d nodes left, healthy %s later; %s from the change); %s; "+
			"%d writes failed while it was down, %d conflicts", fleetSize, seconds(converged.Sub(restarted)), left,
			seconds(restarted.Sub(stopped)), seconds(converged.Sub(changed)), tally, failed, conflicts)
	})
})
