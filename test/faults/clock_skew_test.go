//go:build faults

package faults_test

import (
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/faults"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The replica that takes over is this far ahead of the apiserver's clock,
// during a canary soak of skewSoak.
const (
	skewAhead = 45 * time.Second
	skewSoak  = 60 * time.Second
)

// A replica whose clock is 45 s ahead takes over from the leader during a
// 60 s canary soak (docs/behaviour.md#faults). The soak counts from a time
// the leader wrote in the rollout's record; read on the new leader's own
// clock, it would be over 45 s early. The rollout's times follow the
// apiserver's clock instead: no node beyond the canaries is written before
// the soak is over in real time, and the rest follow in one step, each
// node once.
var _ = Describe("a replica whose clock is ahead takes over during a soak", Serial, Label(scenarioLabel), func() {
	It("writes no node beyond the canaries before the soak is over in real time", func(ctx SpecContext) {
		leader := startReplica(nil)
		Eventually(leader.Manager.Elected()).WithContext(ctx).WithTimeout(converge).Should(BeClosed())
		ahead := startReplica(aheadClock{by: skewAhead})
		from, to := faults.Version(62), faults.Version(63)
		before := settle(ctx, from)
		want := expected(to)
		canaries := markCanaries(ctx)
		startRollout(ctx, nodeslov1alpha1.RolloutStrategy{
			MaxNodesPerStep: new(intstr.FromInt32(fleetSize)),
			Canary:          canariesSoaked(skewSoak),
		})

		start := time.Now()
		testkit.WriteConfigMap(ctx, k8sClient, client.ObjectKey{Namespace: configNamespace, Name: configName}, to)
		// The canaries were written after the start of the last look that
		// did not see them all.
		canariesAfter := start
		Eventually(func(g Gomega) {
			started := time.Now()
			generations := readGenerations(ctx)
			written := 0
			for _, name := range canaries {
				if generations[name] == before[name].Generation+1 {
					written++
				}
			}
			if written < len(canaries) {
				canariesAfter = started
			}
			g.Expect(written).To(Equal(len(canaries)), "every canary written")
		}).WithContext(ctx).WithTimeout(converge).WithPolling(poll).Should(Succeed())
		canariesSeen := time.Now()
		Expect(leader.Stop()).To(Succeed())
		Eventually(ahead.Manager.Elected()).WithContext(ctx).WithTimeout(converge).Should(BeClosed())
		tookOver := time.Now()
		Expect(tookOver.Sub(canariesAfter)).To(BeNumerically("<", skewSoak-skewAhead),
			"the replica ahead leads while its own clock would still have the soak running")

		// A look that sees a node beyond the canaries ended after its
		// write: the soak, counted from the last decision that saw a
		// canary unwritten (a second at most before the canaries' write),
		// was over by then.
		var othersSeen time.Time
		Eventually(func(g Gomega) {
			generations := readGenerations(ctx)
			seen := time.Now()
			others := 0
			for name, generation := range generations {
				if generation > before[name].Generation+1 {
					StopTrying("node " + name + " written more than once").Now()
				}
				if generation > before[name].Generation && !slices.Contains(canaries, name) {
					others++
				}
			}
			if others > 0 && othersSeen.IsZero() {
				othersSeen = seen
				if gap := seen.Sub(canariesAfter); gap < skewSoak-2*time.Second {
					StopTrying(fmt.Sprintf("%d nodes beyond the canaries written %s after them, within the soak of %s",
						others, gap.Round(time.Millisecond), skewSoak)).Now()
				}
			}
			g.Expect(others).To(Equal(fleetSize-len(canaries)), "every node written")
		}).WithContext(ctx).WithTimeout(skewSoak + converge).WithPolling(poll).Should(Succeed())
		done := time.Now()
		after, _ := convergedAndQuiet(ctx, want)
		for name, stored := range after {
			Expect(stored.Generation).To(Equal(before[name].Generation+1), "node %s written exactly once", name)
		}
		figure("a replica 45 s ahead takes over during a soak", "%d nodes, %d canaries soaked %s: canaries seen "+
			"written %s after the change; the leader stopped, the replica ahead led %s after the canaries; the "+
			"first others seen %s after the canaries (the soak: %s), every node %s after them",
			fleetSize, len(canaries), skewSoak, seconds(canariesSeen.Sub(start)), seconds(tookOver.Sub(canariesAfter)),
			seconds(othersSeen.Sub(canariesAfter)), skewSoak, seconds(done.Sub(canariesAfter)))
	})
})

// startReplica starts a replica of the manager with leader election as
// deployed (its Lease timings), its own clock local (nil: the real one),
// and stops it when the spec ends.
func startReplica(local clock.WithDelayedExecution) *managertest.Running {
	GinkgoHelper()
	opts := managertest.Options()
	opts.LeaderElection = true
	opts.LeaderElectionNamespace = envtestharness.SystemNamespace
	opts.LocalClock = local
	running, err := managertest.Start(managerConfig, opts)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(running.Stop()).To(Succeed()) })
	return running
}

// aheadClock is the real clock, ahead by a fixed amount.
type aheadClock struct {
	clock.RealClock
	by time.Duration
}

func (c aheadClock) Now() time.Time                  { return time.Now().Add(c.by) }
func (c aheadClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
