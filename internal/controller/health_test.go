package controller_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// The health gate of a staged rollout (docs/rollout.md#health-gates)
// against a real apiserver: 40 nodes, 4 canaries, a gate that tolerates 1
// unhealthy reached node. The canary soak is long enough that a halt comes
// before the first batch is due.
const (
	gateCanaries = 4
	gateSoak     = 15 * time.Second
	// gateEvictionReason is koordlet's reason for the Event of an eviction.
	gateEvictionReason = "evictPodSuccess"
)

func gatePolicy(onUnhealthy string) string {
	return fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": 2,
		"canary": {"nodeSelector": {"matchLabels": {%q: "canary"}}, "soakSeconds": %d},
		"healthGate": {"maxUnhealthyNodes": 1, "onUnhealthy": %q}}`,
		rolloutStep, canaryLabel, int(gateSoak.Seconds()), onUnhealthy)
}

// setReady sets a node's Ready condition, as its kubelet or the node
// lifecycle controller would, with the transition at now (the controllers'
// clock).
func setReady(ctx context.Context, name string, status corev1.ConditionStatus) {
	setReadyAt(ctx, name, status, metav1.NewTime(clock.Now()))
}

// setReadyAt is setReady with the transition at the time given.
func setReadyAt(ctx context.Context, name string, status corev1.ConditionStatus, at metav1.Time) {
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node := &corev1.Node{}
		if err := k8sClient.Get(ctx, types.NamespacedName{Name: name}, node); err != nil {
			return err
		}
		ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: status, Reason: "Test",
			LastHeartbeatTime: metav1.NewTime(clock.Now()), LastTransitionTime: at}
		node.Status.Conditions = slices.DeleteFunc(node.Status.Conditions,
			func(c corev1.NodeCondition) bool { return c.Type == corev1.NodeReady })
		node.Status.Conditions = append(node.Status.Conditions, ready)
		return k8sClient.Status().Update(ctx, node)
	})).To(Succeed())
}

// reportEvictions creates n Events with reason, as koordlet records one on
// each Pod it evicts, with the node in the Event's source host.
func reportEvictions(ctx context.Context, node, reason string, n int) {
	for i := range n {
		now := metav1.NewTime(clock.Now())
		ev := &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "evict-", Namespace: "default"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default",
				Name: fmt.Sprintf("be-%s-%d", node, i), APIVersion: "v1"},
			Reason: reason, Message: "evicted by the test", Type: corev1.EventTypeWarning,
			Source:         corev1.EventSource{Component: "koordlet", Host: node},
			FirstTimestamp: now, LastTimestamp: now, Count: 1,
		}
		Expect(k8sClient.Create(ctx, ev)).To(Succeed())
	}
}

// canaryNames lists the fleet's canaries, sorted.
func (f fleet) canaryNames() []string {
	out := make([]string, 0, len(f.canaries))
	for n := range f.canaries {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// onlyCanariesReached checks that no node but a canary has threshold.
func onlyCanariesReached(ctx context.Context, f fleet, threshold int) {
	canaries, others := f.split(f.at(ctx, threshold))
	Expect(others).To(BeZero(), "a node beyond the canaries was reached")
	Expect(canaries).To(Equal(gateCanaries))
}

var _ = Describe("A staged rollout with a health gate", Serial, Label(shardGates), func() {
	var (
		cm     *corev1.ConfigMap
		f      fleet
		target string
	)
	start := func(ctx SpecContext, onUnhealthy string) {
		cm = setConfig(ctx, rolloutData(50, gatePolicy(onUnhealthy)))
		f = createFleetWith(ctx, 50, gateCanaries)
		Eventually(func() bool { return record(ctx).Done }).Should(BeTrue())
		target = record(ctx).Target
		settle()
		writes.Reset()
		setConfig(ctx, rolloutData(40, gatePolicy(onUnhealthy)))
		watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
			func(reached []string) bool { return len(reached) >= gateCanaries })
		onlyCanariesReached(ctx, f, 40)
		// Eviction Events count when in a later second than the write
		// (health_ambiguity_test.go has conditions in the same second):
		// what these specs do to the canaries comes a second later.
		clock.Skip(1100 * time.Millisecond)
	}
	halted := func(ctx SpecContext) func() bool {
		return func() bool { return record(ctx).Health.Halted() }
	}

	It("halts when two canaries turn NotReady, keeps its verdicts across a restart, and resumes on a key change",
		func(ctx SpecContext) {
			start(ctx, rollout.OnUnhealthyPause)
			sick := f.canaryNames()[:2]
			for _, n := range sick {
				setReady(ctx, n, corev1.ConditionFalse)
			}
			Eventually(halted(ctx)).Should(BeTrue())
			Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonHalted)).Should(ContainElement(And(
				ContainSubstring("2 reached nodes unhealthy, more than the 1 allowed"),
				ContainSubstring(sick[0]+" (Ready=False"), ContainSubstring(sick[1]+" (Ready=False"))))
			Eventually(metric(controller.MetricRolloutHalted)).Should(Equal(1.0))
			Expect(metric(controller.MetricRolloutUnhealthy)()).To(Equal(2.0))
			Eventually(func() rollout.Outcome { return history(ctx).InForce().Outcome }).Should(Equal(rollout.OutcomeHalted))
			_, gateReads := nodeReadsByHealthGate()
			Expect(gateReads).NotTo(BeEmpty(), "the gate watched the Nodes' conditions")
			Expect(gateReads).To(HaveEach(HaveField("Accept", HavePrefix("application/vnd.kubernetes.protobuf"))),
				"the gate's watch of whole Nodes asks for protobuf")

			// Past the soak and several step intervals, nothing beyond the canaries.
			skipAndSettle(gateSoak + 5*time.Second)
			_, others := f.split(f.at(ctx, 40))
			Expect(others).To(BeZero(), "a node beyond the canaries was reached past the soak")
			Expect(f.writesTo()).To(Equal(gateCanaries))

			// The nodes recover and the manager restarts: the verdicts stay, nothing is written.
			for _, n := range sick {
				setReady(ctx, n, corev1.ConditionTrue)
			}
			stopManager()
			stopManager = startManager()
			skipAndSettle(5 * time.Second)
			Expect(f.writesTo()).To(Equal(gateCanaries), "nothing written after the restart, 5 s on")
			rec := record(ctx)
			Expect(rec.Health.Halted()).To(BeTrue())
			Expect(rec.Health.UnhealthyNames()).To(ConsistOf(sick))
			Expect(metric(controller.MetricRolloutHalted)()).To(Equal(1.0))

			// A change of the key that leaves it unpaused resumes, the verdicts tolerated.
			setConfig(ctx, rolloutData(40, gatePolicy(rollout.OnUnhealthyPause)+"\n"))
			watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) }, nil)
			settle()
			Expect(f.writesTo()).To(Equal(rolloutNodes), "each pending node written once")
			Expect(metric(controller.MetricRolloutHalted)()).To(BeZero())
		})

	It("with onUnhealthy revert, writes the previous revision back to the canaries and to no other node",
		func(ctx SpecContext) {
			start(ctx, rollout.OnUnhealthyRevert)
			before := newestRevision(ctx)()
			for _, n := range f.canaryNames()[:2] {
				setReady(ctx, n, corev1.ConditionFalse)
			}
			Eventually(aSecondALook(func() []string { return f.at(ctx, 50) })).WithTimeout(rolloutWait).
				Should(HaveLen(rolloutNodes))
			settle()
			for _, n := range f.names {
				want := 0
				if f.canaries[n] {
					want = 2 // the change, then the revert
				}
				Expect(writes.Succeeded(n)).To(Equal(want), "node %s", n)
			}
			Expect(configData(ctx)).To(Equal(rolloutData(40, gatePolicy(rollout.OnUnhealthyRevert))),
				"the ConfigMap keeps its data; the revision reverted to is in force in its place")
			Eventually(newestRevision(ctx)).Should(Equal(before + 1))
			h := history(ctx)
			Expect(h.InForce().ChangeCause).To(ContainSubstring("health gate"))
			Expect(h.Revisions[len(h.Revisions)-2].Outcome).To(Equal(rollout.OutcomeHalted))
			Expect(metric(controller.MetricReverts)()).To(BeNumerically(">=", 1))
		})

	It("halts on eviction Events above maxPerNode from reached nodes", func(ctx SpecContext) {
		start(ctx, rollout.OnUnhealthyPause)
		for _, n := range f.canaryNames()[:2] {
			reportEvictions(ctx, n, gateEvictionReason, 4)
		}
		Eventually(halted(ctx)).Should(BeTrue())
		Expect(record(ctx).Health.Unhealthy).To(HaveEach(ContainSubstring("4 evictPodSuccess Events, at most 3 allowed")))
		skipAndSettle(gateSoak + 3*time.Second)
		_, others := f.split(f.at(ctx, 40))
		Expect(others).To(BeZero(), "a node beyond the canaries was reached past the soak")
	})

	It("ignores evictions from unreached nodes and other reasons, and completes with one write per pending node",
		func(ctx SpecContext) {
			start(ctx, rollout.OnUnhealthyPause)
			unreached := slices.DeleteFunc(slices.Clone(f.names), func(n string) bool { return f.canaries[n] })
			for _, n := range unreached[:2] {
				reportEvictions(ctx, n, gateEvictionReason, 5)
			}
			for _, n := range f.canaryNames()[:2] {
				reportEvictions(ctx, n, "Evicted", 5)
			}
			watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) }, nil)
			Eventually(func() bool { return record(ctx).Done }).Should(BeTrue())
			settle()
			Expect(record(ctx).Health.Halted()).To(BeFalse())
			Expect(record(ctx).Health.UnhealthyNames()).To(BeEmpty())
			for _, n := range f.names {
				Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
			}
			Expect(writes.Total()).To(Equal(rolloutNodes))
		})
})

// configData reads the ConfigMap's data.
func configData(ctx context.Context) map[string]string {
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, cm)).To(Succeed())
	return cm.Data
}
