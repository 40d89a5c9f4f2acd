//go:build e2e

package e2e

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// newerPercent is the cpuBurstPercent of the change the new leader writes
// while the stale one is stopped.
const newerPercent = 456

// A leader stalled past its Lease resumes believing it leads, its work
// queue still full of the change it was writing and its cache from before
// the stall (docs/behaviour.md#faults, "a stale leader").
var _ = Describe("a stale leader", func() {
	It("SIGSTOPped mid-change, SIGCONTed after the other replica took over and wrote a newer change: "+
		"writes nothing, exits, and no NodeSLO goes back", func() {
		admin, err := client.New(cluster.Admin, client.Options{Scheme: scheme.New()})
		Expect(err).NotTo(HaveOccurred())
		By("a ConfigMap with a known cpu-burst-config and 500 more Nodes")
		withLeaderTestNodes(admin)
		stale := manager
		staleIdentity := leaseHolder(Default, admin)
		Expect(staleIdentity).NotTo(BeEmpty())
		standby := startStandby(newMetricsScraper("stale-leader-scraper"))

		By("changing the ConfigMap, and SIGSTOPping the leader once it wrote some NodeSLOs but not all")
		setCPUBurstPercent(leaderTestPercent)
		Eventually(func(g Gomega) int {
			return changedIn(leaderTestSLOs(g, admin))
		}).WithPolling(50 * time.Millisecond).Should(BeNumerically(">", 0))
		stale.Pause()
		DeferCleanup(func() {
			if stale.Running() {
				stale.Resume()
				stale.Kill()
			}
		})
		stopped := time.Now()

		By("the other manager takes the Lease over and finishes the change")
		Eventually(func(g Gomega) {
			g.Expect(leaseHolder(g, admin)).NotTo(BeElementOf("", staleIdentity))
		}).WithTimeout(takeover).WithPolling(100 * time.Millisecond).Should(Succeed())
		manager = standby // the suite's other specs and its cleanup use the leader
		Eventually(func(g Gomega) int {
			return changedIn(leaderTestSLOs(g, admin))
		}).WithPolling(100 * time.Millisecond).Should(Equal(leaderTestNodes))

		By("a newer change, which the new leader writes to every node")
		setCPUBurstPercent(newerPercent)
		Eventually(func(g Gomega) int {
			return countAt(leaderTestSLOs(g, admin), newerPercent)
		}).WithPolling(100 * time.Millisecond).Should(Equal(leaderTestNodes))
		generations := map[string]int64{}
		for _, slo := range leaderTestSLOs(Default, admin) {
			generations[slo.Name] = slo.Generation
		}

		By("resuming the stale leader: every NodeSLO keeps the newer change and its generation, until it exited and after")
		stale.Resume()
		resumed := time.Now()
		unchanged := func(g Gomega) {
			for _, slo := range leaderTestSLOs(g, admin) {
				g.Expect(cpuBurstPercent(slo)).To(Equal(int64(newerPercent)),
					"%s: written back by the stale leader", slo.Name)
				g.Expect(slo.Generation).To(Equal(generations[slo.Name]), "%s: written since the newer change", slo.Name)
			}
		}
		lookUntilExited(stale, unchanged)
		exited := time.Since(resumed)
		// Nothing more may land: the process is gone, and a write it let
		// through before was cancelled at the end of its Lease, long past.
		// 3 s covers a request the apiserver was still carrying out when the
		// process ended; the new leader has nothing to write.
		Consistently(unchanged).WithTimeout(3 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

		figure := fmt.Sprintf("leader SIGSTOPped mid-change for %.1fs (lease settings as deployed: %s): "+
			"resumed after the other wrote a newer change, it exited %.1fs later with no NodeSLO written (%v)",
			resumed.Sub(stopped).Seconds(), deployedLeaseArgsText(), exited.Seconds(), stale.Err())
		AddReportEntry("stale leader", figure)
		GinkgoWriter.Println(figure)
	})
})

// countAt counts the NodeSLOs whose cpuBurstPercent is percent.
func countAt(slos []slov1alpha1.NodeSLO, percent int64) int {
	n := 0
	for _, slo := range slos {
		if cpuBurstPercent(slo) == percent {
			n++
		}
	}
	return n
}

// lookUntilExited runs look (every NodeSLO, say) every 100 ms until the
// stale process has exited (its Exited channel), for at most a minute.
func lookUntilExited(stale *managerProcess, look func(Gomega)) {
	GinkgoHelper()
	tick, giveUp := time.NewTicker(100*time.Millisecond), time.After(time.Minute)
	defer tick.Stop()
	for {
		look(Default)
		select {
		case <-stale.Exited():
			return
		case <-giveUp:
			Fail("the stale leader still runs a minute after it resumed")
		case <-tick.C:
		}
	}
}
