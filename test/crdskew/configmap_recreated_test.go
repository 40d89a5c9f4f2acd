package crdskew

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// docs/rollout.md#the-configmap-deleted and docs/behaviour.md#faults: the
// ConfigMap deleted mid-rollout (as when the webhook and the deletion
// policy are not there: this control plane runs neither), then created
// again with the same data. Its deletion is a change to the defaults, rolled
// out under the NodeSLORollout's strategy, which outlives it (canaries
// first); its re-creation is another change mid-rollout.
var _ = Describe("With the ConfigMap deleted mid-rollout and created again", Serial, func() {
	It("resets only the canaries while it is gone, says so in the status, stays ready, and completes the "+
		"rollout once it is back, each node written once per change it gets", func(ctx SpecContext) {
		f := startFaultFleet(ctx, memoryQOS(10, 0), func(s *slov1alpha1.NodeSLOSpec) bool { return minLimit(s) == 10 })
		at := func(v int64) func(*slov1alpha1.NodeSLOSpec) bool {
			return func(s *slov1alpha1.NodeSLOSpec) bool { return minLimit(s) == v }
		}
		var steps *schedule
		watch := func(reached func(*slov1alpha1.NodeSLOSpec) bool, most int, until func(look) bool, what string) look {
			var last look
			Eventually(func() bool {
				last = f.look(ctx)
				steps.observe(last)
				if broken := f.breaks(last, reached, most); broken != "" {
					StopTrying(broken).Now()
				}
				return until(last)
			}).WithTimeout(20*time.Second).WithPolling(50*time.Millisecond).Should(BeTrue(), what)
			return last
		}
		canariesAt := func(v int64) func(look) bool {
			return func(l look) bool { return at(v)(l.specs[f.canaries[0]]) && at(v)(l.specs[f.canaries[1]]) }
		}

		steps = newSchedule()
		testkit.WriteConfigMap(ctx, f.c, configKey, memoryQOS(20, 0))
		watch(at(20), 1, canariesAt(20), "the canaries reached")

		By("deleting the ConfigMap during the canaries' soak")
		testkit.DeleteConfig(ctx, f.c, configKey)
		deleted := time.Now()
		steps = newSchedule()
		var reportedAt time.Time
		// The defaults (minLimitPercent absent) go out as a change: the
		// canaries first, no other node before the soak ends.
		gone := watch(at(0), 2, func(l look) bool {
			if reportedAt.IsZero() && l.status.ObservedConfigMapVersion == "" {
				reportedAt = l.at
			}
			return !reportedAt.IsZero() && canariesAt(0)(l)
		}, "the deletion seen and the canaries reset")
		for _, n := range f.others {
			Expect(minLimit(gone.specs[n])).To(BeEquivalentTo(10), "%s keeps its NodeSLO until its step", n)
		}

		By("creating the ConfigMap again with the same data, before the soak ends")
		testkit.WriteConfigMap(ctx, f.c, configKey, memoryQOS(20, 0))
		recreated := time.Now()
		steps = newSchedule()
		var clearedAt time.Time
		final := watch(at(20), 3, func(l look) bool {
			if clearedAt.IsZero() && l.status.ObservedConfigMapVersion != "" {
				clearedAt = l.at
			}
			return !clearedAt.IsZero() && l.status.Completed != nil && l.status.Reached == faultNodes
		}, "the ConfigMap seen again and the rollout complete")
		Expect(steps.lateness()).To(BeNumerically(">", -500*time.Millisecond), "no step before its wait")
		for _, n := range f.all() {
			Expect(minLimit(final.specs[n])).To(BeEquivalentTo(20), n)
		}
		for _, n := range f.canaries {
			Expect(f.writes.Succeeded(n)).To(Equal(3), "writes of canary %s: the change, the defaults, the change", n)
		}
		for _, n := range f.others {
			Expect(f.writes.Succeeded(n)).To(Equal(1), "writes of %s: the change, at its step", n)
		}
		figure("ConfigMap deleted mid-rollout and created again",
			"%d nodes (%d canaries, steps of %d, soak %s, interval %s); NodeSLO writes %d (3 per canary: the "+
				"change, the defaults, the change; 1 per other node); the deletion in the status %s after it, "+
				"gone for %s; rollout complete %s after the re-creation, the status naming the ConfigMap again "+
				"%s after it; largest lateness of a step after the re-creation %s",
			faultNodes, faultCanaries, faultStepSize, faultSoak, faultInterval, f.writes.Total(),
			seconds(reportedAt.Sub(deleted)), seconds(recreated.Sub(deleted)), seconds(final.at.Sub(recreated)),
			seconds(clearedAt.Sub(recreated)), seconds(steps.lateness()))
	})
})
