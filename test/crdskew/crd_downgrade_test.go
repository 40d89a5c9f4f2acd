package crdskew

import (
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// minLimit reads lsClass.memoryQOS.minLimitPercent (0: absent).
func minLimit(spec *slov1alpha1.NodeSLOSpec) int64 {
	if spec == nil || spec.ResourceQOSStrategy == nil || spec.ResourceQOSStrategy.LSClass == nil ||
		spec.ResourceQOSStrategy.LSClass.MemoryQOS == nil {
		return 0
	}
	return ptr.Deref(spec.ResourceQOSStrategy.LSClass.MemoryQOS.MinLimitPercent, 0)
}

// memoryQOS is a resource-qos-config setting minLimitPercent, and
// pageCacheLimitPercent unless it is 0.
func memoryQOS(minLimit, pageCache int) map[string]string {
	qos := `"enable": true, "minLimitPercent": ` + strconv.Itoa(minLimit)
	if pageCache > 0 {
		qos += `, "pageCacheLimitPercent": ` + strconv.Itoa(pageCache)
	}
	return map[string]string{
		string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS": {` + qos + `}}}}`,
	}
}

// docs/behaviour.md#crd-version-skew and #faults: the NodeSLO CRD replaced
// by Koordinator v1.8.0's, which lacks memoryQOS.pageCache*, while a
// staged rollout of a change setting pageCacheLimitPercent is in progress.
var _ = Describe("With the NodeSLO CRD downgraded under a running manager mid-rollout", Serial, func() {
	It("reports the dropped field within seconds, rolls out on schedule writing each node once (twice more if "+
		"reached before the report), "+
		"stays ready, and writes each node once more with the field once the CRD is upgraded again",
		func(ctx SpecContext) {
			f := startFaultFleet(ctx, memoryQOS(10, 0), func(s *slov1alpha1.NodeSLOSpec) bool { return minLimit(s) == 10 })
			// The change: minLimitPercent, which every CRD stores, and
			// pageCacheLimitPercent, which Koordinator's drops.
			Expect(gauge(controller.MetricCRDDroppedFields, "key")[string(sloconfig.KeyResourceQOS)]).To(BeZero())
			changed := time.Now()
			cm, _ := testkit.WriteConfigMap(ctx, f.c, configKey, memoryQOS(20, 50))
			reached := func(s *slov1alpha1.NodeSLOSpec) bool { return minLimit(s) == 20 }
			steps := newSchedule()
			// firstSeen is when each node was first seen reached.
			firstSeen := map[string]time.Time{}
			// A node written before the skew is found is written again when
			// it is, so that its digest names what the CRD kept (an upgrade
			// later writes the field again): an update the apiserver stores
			// as the same spec, then the digest stamped again at the
			// generation it kept (storedslo.Store.restamp). Two writes.
			watch := func(until func(look) bool, timeout time.Duration, what string) look {
				var last look
				Eventually(func() bool {
					last = f.look(ctx)
					steps.observe(last)
					for n, spec := range last.specs {
						if _, ok := firstSeen[n]; !ok && reached(spec) {
							firstSeen[n] = last.at
						}
					}
					if broken := f.breaks(last, reached, 3); broken != "" {
						StopTrying(broken).Now()
					}
					return until(last)
				}).WithTimeout(timeout).WithPolling(50*time.Millisecond).Should(BeTrue(), what)
				return last
			}
			watch(func(l look) bool { return l.status.Step == 1 && reached(l.specs[f.canaries[0]]) },
				10*time.Second, "the canaries reached")

			By("replacing the NodeSLO CRD by Koordinator v1.8.0's during the canaries' soak")
			_, err := envtest.InstallCRDs(f.env.Admin, envtest.CRDInstallOptions{
				Paths: []string{envtestharness.RepoPath("test", "fixtures", "koordinator-v1.8.0-crd")},
			})
			Expect(err).NotTo(HaveOccurred())
			downgraded := time.Now()
			var reportedAt time.Time
			final := watch(func(l look) bool {
				if reportedAt.IsZero() {
					notes, _ := configEventsOn(ctx, f.c, cm, corev1.EventTypeWarning, controller.ReasonFieldsDroppedByCRD)()
					if len(notes) > 0 && gauge(controller.MetricCRDDroppedFields, "key")[string(sloconfig.KeyResourceQOS)] == 1 {
						reportedAt = l.at
					}
				}
				return !reportedAt.IsZero() && l.status.Completed != nil && l.status.Reached == faultNodes
			}, 30*time.Second, "the skew reported and the rollout complete")
			completed := final.at
			Expect(reportedAt.Sub(downgraded)).To(BeNumerically("<", 5*time.Second), "reported within seconds")
			dropped := configEventsOn(ctx, f.c, cm, corev1.EventTypeWarning, controller.ReasonFieldsDroppedByCRD)
			Expect(dropped()).To(ConsistOf(And(
				ContainSubstring("resource-qos-config: "+droppedPath), ContainSubstring(sloconfig.NodeSLOCRDName),
				ContainSubstring("kubectl apply --server-side"), ContainSubstring("helm upgrade"))))
			Expect(steps.lateness()).To(BeNumerically(">", -500*time.Millisecond), "no step before its wait")
			written := map[string]int{}
			for _, n := range f.all() {
				written[n] = f.writes.Succeeded(n)
				switch {
				case firstSeen[n].After(reportedAt.Add(faultInterval)):
					Expect(written[n]).To(Equal(1), "writes of %s, reached after the report", n)
				default:
					Expect(written[n]).To(BeNumerically("<=", 3), "writes of %s, reached before the report", n)
				}
				Expect(pageCacheLimit(final.specs[n])).To(BeNil(), "the CRD drops the field of %s, also as read", n)
			}
			writesDuring := f.writes.Total()

			By("installing this project's NodeSLO CRD again: the fault ends")
			_, err = envtest.InstallCRDs(f.env.Admin, envtest.CRDInstallOptions{
				Paths: []string{envtestharness.RepoPath("config", "crd", "bases")},
			})
			Expect(err).NotTo(HaveOccurred())
			upgraded := time.Now()
			for _, n := range f.all() {
				Eventually(storedSpec(ctx, f.c, n)).WithTimeout(10*time.Second).
					Should(WithTransform(pageCacheLimit, HaveValue(BeEquivalentTo(50))), n)
			}
			converged := time.Now()
			Eventually(func() float64 {
				return gauge(controller.MetricCRDDroppedFields, "key")[string(sloconfig.KeyResourceQOS)]
			}).Should(BeZero())
			Eventually(configEventsOn(ctx, f.c, cm, corev1.EventTypeNormal, controller.ReasonFieldsStoredByCRD)).
				ShouldNot(BeEmpty())
			cleared := time.Now()
			Consistently(f.writes.Total).WithTimeout(time.Second).Should(Equal(writesDuring + faultNodes))
			for _, n := range f.all() {
				Expect(f.writes.Succeeded(n)).To(Equal(written[n]+1), "writes of %s: once more, the field regained", n)
			}
			figure("NodeSLO CRD downgraded mid-rollout",
				"%d nodes (%d canaries, steps of %d, soak %s, interval %s); NodeSLO writes %d during the fault "+
					"(one per node, and two more for each reached before the report), %d after it; "+
					"reported %s after the downgrade; rollout complete %s after the "+
					"change, %s after the downgrade; largest lateness of a step %s; after the upgrade every node "+
					"holds the field in %s, the report cleared in %s",
				faultNodes, faultCanaries, faultStepSize, faultSoak, faultInterval, writesDuring,
				f.writes.Total()-writesDuring, seconds(reportedAt.Sub(downgraded)), seconds(completed.Sub(changed)),
				seconds(completed.Sub(downgraded)), seconds(steps.lateness()), seconds(converged.Sub(upgraded)),
				seconds(cleared.Sub(upgraded)))
		})
})
