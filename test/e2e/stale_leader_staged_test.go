//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The staged rollout the stale leader is stopped in: the first
// stagedCanaries leader-test Nodes soaked stagedWait, then steps of
// stagedStepSize, stagedWait apart.
const (
	stagedCanaries = 20
	stagedStepSize = 100
	stagedWait     = 5 * time.Second
	// stagedRoleLabel marks the canaries, as stagedCanary.
	stagedRoleLabel, stagedCanary = "stale-leader-test/role", "canary"
)

// A leader stalled past its Lease in the middle of a staged rollout
// resumes with its work queue holding the step it was writing, and its
// record of the rollout (the step taken, when) not yet written
// (docs/behaviour.md#faults, "a stale leader"). By then the other replica
// took over, and the operator rolled the change back, which the new
// leader carried out step by step. The stale leader writes nothing before
// it exits: no NodeSLO goes back to the change, no generation moves, and
// the NodeSLORollout's status, the record of the rollback, stays as the
// new leader left it.
var _ = Describe("a stale leader in a staged rollout", func() {
	It("SIGSTOPped after its second step, SIGCONTed once the other replica rolled the change back: "+
		"writes no NodeSLO and no step record, and exits", func(ctx SpecContext) {
		admin, err := client.New(cluster.Admin, client.Options{Scheme: scheme.New()})
		Expect(err).NotTo(HaveOccurred())
		By("500 Nodes at cpuBurstPercent 200, the first 20 canaries, and a staged strategy")
		withLeaderTestNodes(admin)
		labelCanaries(ctx, admin)
		withStagedStrategy(ctx, admin)
		stale := manager
		staleIdentity := leaseHolder(Default, admin)
		Expect(staleIdentity).NotTo(BeEmpty())
		standby := startStandby(newMetricsScraper("staged-stale-leader-scraper"))

		By("the change, and the leader SIGSTOPped once its second step has begun")
		changed := time.Now()
		setCPUBurstPercent(leaderTestPercent)
		Eventually(func(g Gomega) int {
			return changedIn(leaderTestSLOs(g, admin))
		}).WithTimeout(time.Minute).WithPolling(50 * time.Millisecond).Should(BeNumerically(">", stagedCanaries))
		stale.Pause()
		DeferCleanup(func() {
			if stale.Running() {
				stale.Resume()
				stale.Kill()
			}
		})
		stopped := time.Now()
		reachedByStale := changedIn(leaderTestSLOs(Default, admin))

		By("the other manager takes the Lease over, and the operator rolls the change back")
		Eventually(func(g Gomega) {
			g.Expect(leaseHolder(g, admin)).NotTo(BeElementOf("", staleIdentity))
		}).WithTimeout(takeover).WithPolling(100 * time.Millisecond).Should(Succeed())
		tookOver := time.Now()
		manager = standby // the suite's other specs and its cleanup use the leader
		setCPUBurstPercent(200)
		Eventually(func(g Gomega) {
			g.Expect(countAt(leaderTestSLOs(g, admin), 200)).To(Equal(leaderTestNodes))
			g.Expect(rolloutOf(g, admin).Status.Phase).To(Equal(rollout.PhaseCompleted))
		}).WithTimeout(2 * time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
		rolledBack := time.Now()
		generations := map[string]int64{}
		for _, slo := range leaderTestSLOs(Default, admin) {
			generations[slo.Name] = slo.Generation
		}
		record := rolloutOf(Default, admin)

		By("resuming the stale leader: no NodeSLO and no status of the NodeSLORollout written, until it exited and after")
		stale.Resume()
		resumed := time.Now()
		unchanged := func(g Gomega) {
			for _, slo := range leaderTestSLOs(g, admin) {
				g.Expect(cpuBurstPercent(slo)).To(Equal(int64(200)), "%s: the change written again", slo.Name)
				g.Expect(slo.Generation).To(Equal(generations[slo.Name]), "%s: written since the rollback", slo.Name)
			}
			now := rolloutOf(g, admin)
			g.Expect(now.ResourceVersion).To(Equal(record.ResourceVersion),
				"the NodeSLORollout written since the rollback: %s", statusJSON(now))
		}
		lookUntilExited(stale, unchanged)
		exited := time.Since(resumed)
		// As in "a stale leader": the process is gone, and a write it let
		// through before was cancelled at the end of its Lease.
		Consistently(unchanged).WithTimeout(3 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

		figure := fmt.Sprintf("leader SIGSTOPped in a staged rollout (%d canaries, steps of %d, %s apart) %.1fs "+
			"after the change, with %d of %d nodes changed; the other took over %.1fs later and rolled the change "+
			"back in %.1fs; the stale leader, resumed, exited %.1fs later with no NodeSLO and no status written (%v)",
			stagedCanaries, stagedStepSize, stagedWait, stopped.Sub(changed).Seconds(), reachedByStale,
			leaderTestNodes, tookOver.Sub(stopped).Seconds(), rolledBack.Sub(tookOver).Seconds(), exited.Seconds(),
			stale.Err())
		AddReportEntry("stale leader in a staged rollout", figure)
		GinkgoWriter.Println(figure)
	})
})

// labelCanaries labels the first stagedCanaries leader-test Nodes as canaries.
func labelCanaries(ctx context.Context, admin client.Client) {
	GinkgoHelper()
	for i := range stagedCanaries {
		node := &corev1.Node{}
		Expect(admin.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("leader-test-%03d", i)}, node)).To(Succeed())
		patch := client.MergeFrom(node.DeepCopy())
		node.Labels[stagedRoleLabel] = stagedCanary
		Expect(admin.Patch(ctx, node, patch)).To(Succeed())
	}
}

// withStagedStrategy gives the NodeSLORollout the spec's staged strategy,
// and takes it off when the spec ends.
func withStagedStrategy(ctx context.Context, admin client.Client) {
	GinkgoHelper()
	wait := ptr.To(int32(stagedWait / time.Second))
	policy, err := json.Marshal(nodeslov1alpha1.RolloutStrategy{
		MaxNodesPerStep:     new(intstr.FromInt32(stagedStepSize)),
		StepIntervalSeconds: wait,
		Canary: &nodeslov1alpha1.CanaryStrategy{
			NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{stagedRoleLabel: stagedCanary}},
			SoakSeconds:  wait,
		},
	})
	Expect(err).NotTo(HaveOccurred())
	key := client.ObjectKey{Namespace: namespace, Name: configMapName}
	testkit.SetStrategy(ctx, admin, key, string(policy))
	DeferCleanup(func(ctx SpecContext) { testkit.SetStrategy(ctx, admin, key, "") })
}

// rolloutOf reads the NodeSLORollout.
func rolloutOf(g Gomega, c client.Client) *nodeslov1alpha1.NodeSLORollout {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: configMapName}, obj)).
		To(Succeed())
	return obj
}

// statusJSON is obj's status as JSON, for a failure's message.
func statusJSON(obj *nodeslov1alpha1.NodeSLORollout) string {
	b, _ := json.Marshal(obj.Status)
	return string(b)
}
