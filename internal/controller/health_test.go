package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The health gate of a staged rollout (docs/rollout.md#health-gates)
// against a real apiserver: 40 nodes, 4 canaries, a gate that tolerates 1
// unhealthy reached node. The canary soak is long enough that a halt comes
// before the first batch is due.
const (
	gateCanaries = 4
	gateSoak     = 15 * time.Second
	// koordletEvictionReason is the reason of the Event koordlet records on
	// a Pod it evicts through the Eviction API, which the gate never counts.
	koordletEvictionReason = "evictPodSuccess"
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

// reportEvictionEvents creates n Events with koordlet's eviction reason,
// the node in their source host, in namespace: what anyone who may create
// an Event there can write.
func reportEvictionEvents(ctx context.Context, namespace, node string, n int) {
	for i := range n {
		now := metav1.NewTime(clock.Now())
		ev := &corev1.Event{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "evict-", Namespace: namespace},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: namespace,
				Name: fmt.Sprintf("be-%s-%d", node, i), APIVersion: "v1"},
			Reason: koordletEvictionReason, Message: "evicted by the test", Type: corev1.EventTypeWarning,
			Source:         corev1.EventSource{Component: "koordlet", Host: node},
			FirstTimestamp: now, LastTimestamp: now, Count: 10,
		}
		Expect(k8sClient.Create(ctx, ev)).To(Succeed())
	}
}

// bestEffort labels a Pod as koordlet's best-effort Pods are labelled.
var bestEffort = map[string]string{rollout.BestEffortLabel: rollout.BestEffortClass}

// terminatePods creates n Pods with podLabels on node in podNamespace, the
// namespace the manager counts, each with one container that the spec then
// reports, as the node's kubelet would after koordlet killed it,
// terminated with exitCode at finishedAt and restarted. The Pods are
// deleted at the end of the spec.
func terminatePods(ctx context.Context, node string, podLabels map[string]string, n int,
	exitCode int32, finishedAt metav1.Time) {
	for _, pod := range createPods(ctx, k8sClient, podNamespace, node, podLabels, n) {
		reportTerminated(ctx, pod, exitCode, finishedAt)
	}
}

// createPods creates, as creator, n Pods with podLabels bound to node in
// namespace, deleted at the end of the spec.
func createPods(ctx context.Context, creator client.Client, namespace, node string,
	podLabels map[string]string, n int) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, n)
	for range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "be-" + node + "-", Namespace: namespace, Labels: podLabels},
			Spec: corev1.PodSpec{NodeName: node,
				Containers: []corev1.Container{{Name: evictedContainer, Image: "registry.k8s.io/pause:3.10"}}},
		}
		Expect(creator.Create(ctx, pod)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pod, client.GracePeriodSeconds(0)))).To(Succeed())
		})
		out = append(out, pod)
	}
	return out
}

// reportTerminated writes pod's status as its node's kubelet reports a
// container that ended with exitCode at finishedAt and was restarted.
func reportTerminated(ctx context.Context, pod *corev1.Pod, exitCode int32, finishedAt metav1.Time) {
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return err
		}
		pod.Status.Phase = corev1.PodRunning
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: evictedContainer, Image: "registry.k8s.io/pause:3.10", ImageID: "registry.k8s.io/pause@sha256:0",
			ContainerID: "containerd://1", Ready: true, RestartCount: 1,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: finishedAt}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: exitCode, Reason: "Error", StartedAt: metav1.NewTime(finishedAt.Add(-time.Minute)),
				FinishedAt: finishedAt, ContainerID: "containerd://0"}},
		}}
		return k8sClient.Status().Update(ctx, pod)
	})).To(Succeed())
}

// evictedContainer names the one container of a Pod terminatePods makes.
const evictedContainer = "worker"

// exitKilled is the exit code of a container killed by SIGKILL, as
// koordlet's eviction through the container runtime ends it.
const exitKilled = 137

// canaryNames lists the fleet's canaries, sorted.
func (f fleet) canaryNames() []string {
	out := make([]string, 0, len(f.canaries))
	for n := range f.canaries {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// onlyCanariesReached checks that no node but a canary has the threshold
// of the change the gate specs roll out (rolloutData(40, ...)).
func onlyCanariesReached(ctx context.Context, f fleet) {
	canaries, others := f.split(f.at(ctx, 40))
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
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		target = record(ctx).Target
		settle()
		writes.Reset()
		setConfig(ctx, rolloutData(40, gatePolicy(onUnhealthy)))
		watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
			func(reached []string) bool { return len(reached) >= gateCanaries })
		onlyCanariesReached(ctx, f)
		// Eviction Events count when in a later second than the write
		// (health_ambiguity_test.go has conditions in the same second):
		// what these specs do to the canaries comes a second later.
		clock.Skip(1100 * time.Millisecond)
	}
	halted := func(ctx SpecContext) func() bool {
		return func() bool { return record(ctx).Health.Halted() }
	}
	// completesUnhalted waits until the rollout started completed, and
	// checks that the gate judged no node unhealthy and that each node was
	// written once: no halt, no revert.
	completesUnhalted := func(ctx SpecContext) {
		watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) }, nil)
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		settle()
		Expect(record(ctx).Health.Halted()).To(BeFalse())
		Expect(record(ctx).Health.UnhealthyNames()).To(BeEmpty())
		for _, n := range f.names {
			Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
		}
	}

	It("halts when two canaries turn NotReady, stays halted whatever a ConfigMap editor writes, keeps its verdicts "+
		"across a restart, and resumes on a strategy change",
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
			Eventually(rolloutPhase).Should(Equal(controller.RolloutPhaseHalted))
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

			// A ConfigMap editor's retired key, its bytes changed, then removed
			// (each resumed a halt or released the held nodes before it was
			// retired): still halted, nothing written.
			for _, key := range []string{`{"paused": false}`, `{"paused": false, "maxNodesPerStep": 1000}`, ""} {
				editConfig(ctx, configData(ctx), key)
				skipAndSettle(3 * time.Second)
				Expect(f.writesTo()).To(Equal(gateCanaries), "the editor's key %q released a node", key)
				Expect(record(ctx).Health.Halted()).To(BeTrue(), "the editor's key %q resumed the halt", key)
			}

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
			Expect(rolloutPhase()).To(Equal(controller.RolloutPhaseHalted))

			// A change of the strategy that leaves it unpaused resumes, the verdicts tolerated.
			changed := strings.Replace(gatePolicy(rollout.OnUnhealthyPause),
				`"stepIntervalSeconds": 2`, `"stepIntervalSeconds": 3`, 1)
			setConfig(ctx, rolloutData(40, changed))
			watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) }, nil)
			settle()
			Expect(f.writesTo()).To(Equal(rolloutNodes), "each pending node written once")
			Expect(rolloutPhase()).NotTo(Equal(controller.RolloutPhaseHalted))
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
			Expect(configData(ctx)).To(Equal(dataOf(rolloutData(40, gatePolicy(rollout.OnUnhealthyRevert)))),
				"the ConfigMap keeps its data; the revision reverted to is in force in its place")
			Eventually(newestRevision(ctx)).Should(Equal(before + 1))
			h := history(ctx)
			Expect(h.InForce().ChangeCause).To(ContainSubstring("health gate"))
			Expect(h.Revisions[len(h.Revisions)-2].Outcome).To(Equal(rollout.OutcomeHalted))
			Expect(metric(controller.MetricReverts)()).To(BeNumerically(">=", 1))
		})

	It("halts on evictions of best-effort Pods above maxPerNode on reached nodes, as their status shows them",
		func(ctx SpecContext) {
			start(ctx, rollout.OnUnhealthyPause)
			for _, n := range f.canaryNames()[:2] {
				terminatePods(ctx, n, bestEffort, 4, exitKilled, metav1.NewTime(clock.Now()))
			}
			Eventually(halted(ctx)).Should(BeTrue())
			Expect(record(ctx).Health.Unhealthy).To(HaveEach(
				ContainSubstring("4 Pod evictions (4 containers terminated non-zero), at most 3 allowed")))
			skipAndSettle(gateSoak + 3*time.Second)
			_, others := f.split(f.at(ctx, 40))
			Expect(others).To(BeZero(), "a node beyond the canaries was reached past the soak")

			podReads := reads.Of("pods")
			Expect(podReads).NotTo(BeEmpty(), "the gate watched the Pods")
			for _, r := range podReads {
				Expect(r.Path).To(Equal("/api/v1/namespaces/"+podNamespace+"/pods"),
					"Pods read only in the namespace the manager counts")
				q, err := url.ParseQuery(r.Query)
				Expect(err).NotTo(HaveOccurred())
				Expect(q.Get("labelSelector")).To(Equal(rollout.BestEffortLabel+"="+rollout.BestEffortClass),
					"the apiserver selects the gate's Pods")
				Expect(r.Accept).To(HavePrefix("application/vnd.kubernetes.protobuf"))
			}
			Expect(reads.Of("events")).To(BeEmpty(), "the manager read Events")
		})

	It("halts nothing when a namespace tenant's best-effort Pods on the canaries exit non-zero or are evicted, "+
		"reverts nothing, and reads no Pod of the tenant's namespace", func(ctx SpecContext) {
		start(ctx, rollout.OnUnhealthyRevert)
		now := metav1.NewTime(clock.Now())
		var evicted []*corev1.Pod
		for _, n := range f.canaryNames()[:2] {
			// What a user with edit in a namespace of its own can do: create
			// best-effort Pods bound to a canary whose containers exit 1
			// (the kubelet reports what the tenant's command did) ...
			for _, pod := range createPods(ctx, tenant, tenantNamespace, n, bestEffort, 4) {
				reportTerminated(ctx, pod, 1, now)
			}
			// ... and evict others through the Eviction API.
			for _, pod := range createPods(ctx, tenant, tenantNamespace, n, bestEffort, 4) {
				Expect(tenant.SubResource("eviction").Create(ctx, pod, &policyv1.Eviction{
					ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}})).To(Succeed())
				evicted = append(evicted, pod)
			}
		}
		for _, pod := range evicted {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			Expect(pod.Status.Conditions).To(ContainElement(And(
				HaveField("Type", corev1.DisruptionTarget), HaveField("Status", corev1.ConditionTrue))),
				"the apiserver marked the tenant's eviction")
		}
		completesUnhalted(ctx)
		for _, r := range reads.Of("pods") {
			Expect(r.Path).To(Equal("/api/v1/namespaces/"+podNamespace+"/pods"),
				"Pods read only in the namespace the manager counts")
		}
	})

	It("ignores eviction Events from anyone in any namespace, evictions of unselected Pods, before the write, "+
		"with exit code 0 or on unreached nodes, and completes with one write per pending node",
		func(ctx SpecContext) {
			start(ctx, rollout.OnUnhealthyPause)
			unreached := slices.DeleteFunc(slices.Clone(f.names), func(n string) bool { return f.canaries[n] })
			now := metav1.NewTime(clock.Now())
			for _, n := range unreached[:2] {
				terminatePods(ctx, n, bestEffort, 5, exitKilled, now)
			}
			for _, n := range f.canaryNames()[:2] {
				// Events as koordlet records them with --only-evict-by-api, in
				// two namespaces, by the test's client: an Event never counts.
				reportEvictionEvents(ctx, "default", n, 5)
				reportEvictionEvents(ctx, configNamespace, n, 5)
				terminatePods(ctx, n, map[string]string{"tier": "best-effort"}, 5, exitKilled, now)
				terminatePods(ctx, n, bestEffort, 5, 0, now)
				before := metav1.NewTime(writtenAt(ctx, n).Truncate(time.Second).Add(-rollout.NodeClockSkew - time.Second))
				terminatePods(ctx, n, bestEffort, 5, exitKilled, before)
			}
			completesUnhalted(ctx)
			Expect(writes.Total()).To(Equal(rolloutNodes))
		})

	It("goes on past Ready conditions whose status is 300 KiB, its status written with their signals cut",
		func(ctx SpecContext) {
			start(ctx, rollout.OnUnhealthyPause)
			// What anyone who may write a Node's status can set: not True,
			// so NotReady, and large enough to push an uncut record past
			// the 256 KiB the NodeSLORollout's status.rolloutRecord allows.
			huge := corev1.ConditionStatus("False" + strings.Repeat("\x1b[2K", 300<<10/4))
			canary := f.canaryNames()[0]
			pending := slices.DeleteFunc(slices.Clone(f.names), func(n string) bool { return f.canaries[n] })[0]
			setReady(ctx, canary, huge)
			setReady(ctx, pending, huge)

			// One unhealthy canary is the one the gate allows; the pending
			// node is unhealthy before its write. Both are in the status.
			cut := HaveField("Signal", ContainSubstring("(cut at 64 bytes)"))
			Eventually(func(g Gomega) {
				h := rolloutObject(ctx).Status.Health
				g.Expect(h).NotTo(BeNil())
				g.Expect(h.Nodes).To(ContainElement(And(HaveField("Name", canary), cut)))
				g.Expect(h.BeforeNodes).To(ContainElement(And(HaveField("Name", pending), cut)))
			}).Should(Succeed())

			watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) }, nil)
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			settle()
			obj := rolloutObject(ctx)
			recordJSON, err := json.Marshal(obj.Status.RolloutRecord)
			Expect(err).NotTo(HaveOccurred())
			Expect(len(recordJSON)).To(BeNumerically("<", 16<<10), "the record stays small")
			Expect(record(ctx).Health.Halted()).To(BeFalse())
			Expect(record(ctx).Health.UnhealthyNames()).To(ConsistOf(canary))
			for _, n := range f.names {
				Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
			}
		})
})

// configData reads the ConfigMap's data.
// dataOf is what the ConfigMap holds of a spec's data: all but its policy.
func dataOf(data map[string]string) map[string]string {
	data, _ = testkit.SplitPolicy(data)
	return data
}

func configData(ctx context.Context) map[string]string {
	cm := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, cm)).To(Succeed())
	return cm.Data
}
