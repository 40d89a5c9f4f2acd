//go:build faults

package faults_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
	"github.com/nodeslo/nodeslo-controller/test/faults"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// kubeletSoak is the canaries' soak of the kubelet clock scenario: long
// enough that the halt comes well within it.
const kubeletSoak = 30 * time.Second

// A canary turns NotReady a second after its write, as its kubelet, whose
// clock is 2 s off the apiserver's, stamps it (docs/rollout.md#health-gates:
// a node's clock may be up to 2 s behind). On real clocks, with the
// manager's times read from the apiserver's: behind, the transition reads
// as a second before the write, and still counts; ahead, three seconds
// after. Either way the gate halts within the soak, and no node beyond
// the canaries is written, up to and past the soak's end.
var _ = Describe("a canary whose kubelet's clock is 2 s off turns NotReady a second after its write",
	Serial, Label(scenarioLabel), func() {
		DescribeTable("halts the rollout, and no other node is written",
			func(ctx SpecContext, offset time.Duration) {
				startManager(nil)
				from, to := faults.Version(66), faults.Version(67)
				before := settle(ctx, from)
				canaries := markCanaries(ctx)
				startRollout(ctx, nodeslov1alpha1.RolloutStrategy{
					MaxNodesPerStep: new(intstr.FromInt32(fleetSize)),
					Canary:          canariesSoaked(kubeletSoak),
					HealthGate:      &nodeslov1alpha1.HealthGateStrategy{NodeConditions: []string{"Ready"}},
				})
				sick := canaries[0]
				DeferCleanup(func(ctx SpecContext) { clearConditions(ctx, sick) })

				start := time.Now()
				testkit.WriteConfigMap(ctx, k8sClient, client.ObjectKey{Namespace: configNamespace, Name: configName}, to)
				onlyCanaries := func() {
					for name, generation := range readGenerations(ctx) {
						if generation != before[name].Generation && !slices.Contains(canaries, name) {
							StopTrying(fmt.Sprintf("node %s, not a canary, written before the halt", name)).Now()
						}
					}
				}
				var written time.Time
				Eventually(func(g Gomega) {
					onlyCanaries()
					written = writtenAt(ctx, sick, before[sick].Generation)
					g.Expect(written).NotTo(BeZero(), "the canary written")
				}).WithContext(ctx).WithTimeout(converge).WithPolling(poll).Should(Succeed())
				Eventually(func(g Gomega) {
					onlyCanaries()
					g.Expect(time.Now()).To(BeTemporally(">=", written.Add(time.Second)))
				}).WithContext(ctx).WithTimeout(converge).WithPolling(10 * time.Millisecond).Should(Succeed())
				turned := time.Now()
				stamp := turned.Add(offset)
				setReady(ctx, sick, corev1.ConditionFalse, stamp)

				Eventually(func(g Gomega) {
					onlyCanaries()
					g.Expect(rolloutStatus(ctx).Phase).To(Equal(rollout.PhaseHalted))
				}).WithContext(ctx).WithTimeout(kubeletSoak).WithPolling(poll).Should(Succeed())
				halted := time.Now()
				st := rolloutStatus(ctx)
				// Past the soak's end and a recheck: the halt holds the others.
				Consistently(func(g Gomega) {
					onlyCanaries()
					g.Expect(rolloutStatus(ctx).Phase).To(Equal(rollout.PhaseHalted))
				}).WithContext(ctx).WithTimeout(time.Until(written.Add(kubeletSoak + 3*time.Second))).
					WithPolling(poll).Should(Succeed())
				Expect(st.Health).NotTo(BeNil())
				Expect(st.Health.Nodes).To(ContainElement(HaveField("Name", sick)), "the canary judged unhealthy")
				way := map[bool]string{true: "ahead", false: "behind"}[offset > 0]
				figure(fmt.Sprintf("a canary's kubelet 2 s %s turns NotReady a second after its write", way),
					"written at %s (its annotation), NotReady %s after it, stamped %s (%s after the write); halted "+
						"%s after the transition, %s after the change; the gate's verdict: %v; no other node "+
						"written up to %s after the write (the soak: %s)",
					written.UTC().Format(time.StampMilli), seconds(turned.Sub(written)), stamp.UTC().Format(time.Stamp),
					seconds(stamp.Truncate(time.Second).Sub(written.Truncate(time.Second))), seconds(halted.Sub(turned)),
					seconds(halted.Sub(start)), st.Health.Nodes, kubeletSoak+3*time.Second, kubeletSoak)
			},
			Entry("the kubelet's clock 2 s behind", -2*time.Second),
			Entry("the kubelet's clock 2 s ahead", 2*time.Second),
		)
	})

// writtenAt is the time the NodeSLO of node says it was written, once its
// generation is past was (zero before).
func writtenAt(ctx context.Context, node string, was int64) time.Time {
	GinkgoHelper()
	meta, ok := nodeSLOMeta(ctx)[node]
	if !ok || meta.Generation == was {
		return time.Time{}
	}
	return storedslo.ParseWrittenAt(meta.Annotations)
}

// setReady sets node's Ready condition to status since at, as its
// kubelet would with its own clock.
func setReady(ctx context.Context, node string, status corev1.ConditionStatus, at time.Time) {
	GinkgoHelper()
	n := &corev1.Node{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: node}, n)).To(Succeed())
	reason := map[corev1.ConditionStatus]string{corev1.ConditionFalse: "KubeletNotReady",
		corev1.ConditionTrue: "KubeletReady"}[status]
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: reason,
		LastHeartbeatTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at)}}
	Expect(k8sClient.Status().Update(ctx, n)).To(Succeed())
}

// clearConditions takes node's conditions off, as the fleet was made.
func clearConditions(ctx context.Context, node string) {
	GinkgoHelper()
	n := &corev1.Node{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Name: node}, n)).To(Succeed())
	n.Status.Conditions = nil
	Expect(k8sClient.Status().Update(ctx, n)).To(Succeed())
}
