package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/plugin"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The health gate when the ConfigMap's data lives in Git and Argo CD or
// Flux applies it (docs/rollout.md#gitops-argo-cd-flux), against a real
// apiserver: the 40 nodes, 4 canaries and gate of health_test.go. Argo
// CD's self-heal is a server-side apply of Git's data under its own field
// manager, forcing conflicts.

// gitopsReapplies is how many times the spec applies the halted data again;
// quietFor how long each time nothing may be written.
const (
	gitopsReapplies = 3
	quietFor        = 3 * time.Second
)

// argoApply applies data to the ConfigMap as Argo CD's self-heal does.
func argoApply(ctx context.Context, data map[string]string) { applyAs(ctx, "argocd-controller", data) }

// applyAs applies data to the ConfigMap server-side as manager, forcing
// conflicts (kubectl apply --server-side --force-conflicts), and the
// policy in it (testkit.SplitPolicy) to the NodeSLORollout, as a GitOps
// tool that owns both does.
func applyAs(ctx context.Context, manager string, data map[string]string) {
	data, policy := testkit.SplitPolicy(data)
	cm := corev1ac.ConfigMap(configName, configNamespace).WithData(data)
	Expect(k8sClient.Apply(ctx, cm, client.ForceOwnership, client.FieldOwner(manager))).To(Succeed())
	applyStrategyAs(ctx, manager, policy)
}

// applyStrategyAs applies policy ("": none) to the NodeSLORollout's
// spec.strategy server-side as manager, forcing conflicts; spec.paused
// only when the policy pauses, so that the tool never owns a pause it does
// not set.
func applyStrategyAs(ctx context.Context, manager, policy string) {
	if policy == "" {
		return
	}
	var strategy map[string]any
	Expect(json.Unmarshal([]byte(policy), &strategy)).To(Succeed())
	spec := map[string]any{"strategy": strategy}
	if paused, _ := strategy["paused"].(bool); paused {
		spec["paused"] = true
	}
	delete(strategy, "paused")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": nodeslov1alpha1.GroupVersion.String(), "kind": "NodeSLORollout",
		"metadata": map[string]any{"namespace": configNamespace, "name": configName},
		"spec":     spec,
	}}
	Expect(k8sClient.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj),
		client.ForceOwnership, client.FieldOwner(manager))).To(Succeed())
}

// nothingWritten checks, for quietFor, that no NodeSLO is written: by the
// manager (the write log) or anyone (the resourceVersions). A re-apply of
// the same data may change nothing the controllers watch, so there is no
// reconcile to wait for: the check is a while instead. Three seconds is
// enough: a write the re-apply caused would be sent within milliseconds of
// its event on loopback, and the window spans three of the health gate's
// looks (one a second), the other way a write could come.
func nothingWritten(ctx context.Context, why string) {
	before, total := allResourceVersions(ctx), writes.Total()
	Consistently(func() int { return writes.Total() - total }).WithTimeout(quietFor).Should(BeZero(), why)
	Expect(allResourceVersions(ctx)).To(Equal(before), why)
}

// newManager stops the manager and starts a new one, which knows of the
// rollout only what the NodeSLORollout's status and the NodeSLOs keep.
func newManager() {
	stopManager()
	stopManager = startManager()
}

var _ = Describe("A health gate under GitOps", Serial, Label(shardGitOps), func() {
	var (
		cm           *corev1.ConfigMap
		f            fleet
		good, halted map[string]string
	)
	fingerprint := func(data map[string]string) string { return sloconfig.Load(data, nil).Fingerprint() }
	// haltByGit rolls out halted as Argo CD's first sync does, and turns two
	// canaries NotReady once it reached them: the gate halts it.
	haltByGit := func(ctx SpecContext, onUnhealthy string) {
		good, halted = rolloutData(50, gatePolicy(onUnhealthy)), rolloutData(40, gatePolicy(onUnhealthy))
		cm = setConfig(ctx, good)
		f = createFleetWith(ctx, 50, gateCanaries)
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		target := record(ctx).Target
		settle()
		writes.Reset()
		argoApply(ctx, halted)
		watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
			func(reached []string) bool { return len(reached) >= gateCanaries })
		onlyCanariesReached(ctx, f)
		clock.Skip(1100 * time.Millisecond) // the gate's times have seconds (health_test.go)
		for _, n := range f.canaryNames()[:2] {
			setReady(ctx, n, corev1.ConditionFalse)
		}
		Eventually(func() bool { _, ok := record(ctx).HaltOf(fingerprint(halted)); return ok }).Should(BeTrue())
	}
	countEvents := func(ctx context.Context, reason string) func() int {
		return func() int {
			notes, err := configEvents(ctx, cm, corev1.EventTypeWarning, reason)()
			Expect(err).NotTo(HaveOccurred())
			return len(notes)
		}
	}
	recoverCanaries := func(ctx context.Context) {
		for _, n := range f.canaryNames()[:2] {
			setReady(ctx, n, corev1.ConditionTrue)
		}
	}
	retried := func(ctx SpecContext) {
		from := record(ctx).Target
		Expect(plugin.RetryHalted(ctx, k8sClient, historyRef, io.Discard)).To(Succeed())
		watchRolloutTo(ctx, f, from, func() []string { return f.at(ctx, 40) }, nil)
		Eventually(func(g Gomega) {
			st, err := statusInForce(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(st.Done()).To(BeTrue())
			g.Expect(st.Status.Withheld).To(BeNil())
		}).Should(Succeed())
		Expect(configData(ctx)).To(Equal(dataOf(halted)), "a retry writes no data")
		Expect(rolloutPhase()).NotTo(Equal(controller.RolloutPhaseHalted))
	}

	It("with onUnhealthy revert, puts the previous revision back on the reached nodes without writing the ConfigMap, "+
		"writes nothing on three re-applies nor after a restart, and rolls the data out on a retry",
		func(ctx SpecContext) {
			haltByGit(ctx, rollout.OnUnhealthyRevert)
			Eventually(aSecondALook(func() []string { return f.at(ctx, 50) })).WithTimeout(rolloutWait).
				Should(HaveLen(rolloutNodes),
					"the reached canaries go back to the last good revision's values")
			settle()
			for n := range f.canaries {
				Expect(writes.Succeeded(n)).To(Equal(2), "canary %s: the change, then the revert", n)
			}
			Expect(f.writesTo()).To(Equal(2*gateCanaries), "no node but the canaries written")
			Expect(configData(ctx)).To(Equal(dataOf(halted)), "the ConfigMap keeps what Git wrote")
			rec := record(ctx)
			Expect(rec.Target).To(Equal(fingerprint(good)))
			Expect(rec.RevertOf).To(Equal(fingerprint(halted)))
			st, err := statusInForce(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.TakenUp()).To(BeTrue(), "the status is about the ConfigMap's data")
			Expect(st.Done()).To(BeFalse(), "the ConfigMap's data is not in force")
			Expect(st.Status.Withheld).To(HaveField("Reverted", BeTrue()))
			Expect(st.Status.Withheld.Configuration).To(Equal(fingerprint(halted)))
			Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonReverted)).Should(ContainElement(And(
				ContainSubstring("the ConfigMap is not written"), ContainSubstring("kubectl nodeslo rollout retry"))))
			Eventually(countEvents(ctx, rollout.ReasonHalted)).Should(Equal(1))
			Expect(rolloutPhase()).To(Equal(controller.RolloutPhaseHalted), "the halt's alert stays")

			for i := range gitopsReapplies {
				argoApply(ctx, halted)
				nothingWritten(ctx, fmt.Sprintf("re-apply %d", i+1))
			}
			Expect(countEvents(ctx, rollout.ReasonHalted)()).To(Equal(1), "no RolloutHalted Event beyond the halt's")
			Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))

			stopManager()
			stopManager = startManager()
			nothingWritten(ctx, "after a restart")
			Eventually(rolloutPhase).Should(Equal(controller.RolloutPhaseHalted))
			Expect(record(ctx).RevertOf).To(Equal(fingerprint(halted)))

			recoverCanaries(ctx)
			retried(ctx)
		})

	It("without revert, keeps the data halted when it is applied again after an undo, with an Event saying how to retry",
		func(ctx SpecContext) {
			haltByGit(ctx, rollout.OnUnhealthyPause)
			haltedRevision := history(ctx).InForce().Number
			nothingWritten(ctx, "the halt holds every pending node; the reached canaries keep the halted values")
			Expect(f.at(ctx, 40)).To(ConsistOf(f.canaryNames()))

			// A person undoes the change; the nodes reached go back.
			applyAs(ctx, "kubectl", good)
			Eventually(aSecondALook(func() []string { return f.at(ctx, 50) })).WithTimeout(rolloutWait).
				Should(HaveLen(rolloutNodes))
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			settle()

			for i := range gitopsReapplies {
				argoApply(ctx, halted)
				nothingWritten(ctx, fmt.Sprintf("re-apply %d", i+1))
				Eventually(func(g Gomega) {
					st, err := statusInForce(ctx)
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(st.TakenUp()).To(BeTrue())
					g.Expect(st.Status.Configuration).To(Equal(fingerprint(good)), "the undo's configuration stays in force")
					g.Expect(st.Status.Withheld).NotTo(BeNil())
					g.Expect(st.Status.Withheld.Reverted).To(BeFalse())
				}).Should(Succeed())
				Expect(rolloutPhase()).To(Equal(controller.RolloutPhaseHalted), "the halt's alert stays")
				applyAs(ctx, "kubectl", good) // the drift Argo CD's self-heal undoes
				nothingWritten(ctx, "back to the configuration in force")
			}
			Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))
			Expect(countEvents(ctx, rollout.ReasonHalted)()).To(Equal(1), "no RolloutHalted Event beyond the halt's")
			Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonWithheld)).Should(ContainElement(And(
				ContainSubstring(fmt.Sprintf("was halted by the health gate at revision %d", haltedRevision)),
				ContainSubstring("kubectl nodeslo rollout retry"))))

			argoApply(ctx, halted)
			recoverCanaries(ctx)
			retried(ctx)
		})

	It("continues a halt and a withheld configuration across a manager restart",
		func(ctx SpecContext) {
			haltByGit(ctx, rollout.OnUnhealthyPause)
			halt, _ := record(ctx).HaltOf(fingerprint(halted))
			newManager()
			nothingWritten(ctx, "the halt recorded before the restart holds every pending node")
			after, _ := record(ctx).HaltOf(fingerprint(halted))
			Expect(after.HaltedAt).To(BeTemporally("==", halt.HaltedAt), "the same halt")
			Eventually(rolloutPhase).Should(Equal(controller.RolloutPhaseHalted))

			applyAs(ctx, "kubectl", good)
			Eventually(aSecondALook(func() []string { return f.at(ctx, 50) })).WithTimeout(rolloutWait).
				Should(HaveLen(rolloutNodes))
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			argoApply(ctx, halted)
			Eventually(func(g Gomega) {
				st, err := statusInForce(ctx)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(st.TakenUp()).To(BeTrue())
				g.Expect(st.Status.Withheld).NotTo(BeNil())
			}).Should(Succeed())
			settle()
			newManager()
			for i := range gitopsReapplies {
				argoApply(ctx, halted)
				nothingWritten(ctx, fmt.Sprintf("re-apply %d after the restart", i+1))
			}
			st, err := statusInForce(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Status.Withheld).NotTo(BeNil(), "the data halted before the restart stays withheld")
			Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))
		})

	It("lets kubectl wait end on Halted, never on Ready while halted, and on Ready when the resumed rollout completes",
		func(ctx SpecContext) {
			haltByGit(ctx, rollout.OnUnhealthyPause)
			out, err := kubectlWait(ctx, "Halted", "30s")
			Expect(err).NotTo(HaveOccurred(), out)
			out, err = kubectlWait(ctx, "Stalled", "30s")
			Expect(err).NotTo(HaveOccurred(), "kstatus's name for it: %s", out)
			out, err = kubectlWait(ctx, "Ready", "3s")
			Expect(err).To(HaveOccurred(), "kubectl wait --for=condition=Ready ended while halted: %s", out)
			Expect(out).To(ContainSubstring("timed out"))

			recoverCanaries(ctx)
			Expect(plugin.SetPaused(ctx, k8sClient, historyRef, false, io.Discard)).To(Succeed())
			Eventually(func(g Gomega) {
				st, err := statusInForce(ctx)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(st.TakenUp()).To(BeTrue())
				g.Expect(st.Status.Phase).NotTo(Equal(rollout.PhaseHalted), "the resume is taken up")
			}).Should(Succeed())
			waited := make(chan error, 1)
			go func() {
				defer GinkgoRecover()
				out, err := kubectlWait(ctx, "Ready", "120s")
				if err == nil {
					// Ready is said only once the record says the rollout is done.
					if !record(ctx).Done {
						err = fmt.Errorf("kubectl wait ended before the rollout completed: %s", out)
					}
				}
				waited <- err
			}()
			watchRolloutTo(ctx, f, fingerprint(good), func() []string { return f.at(ctx, 40) }, nil)
			Eventually(waited).WithTimeout(rolloutWait).Should(Receive(BeNil()))
		})

	It("rolls out different data as today", func(ctx SpecContext) {
		haltByGit(ctx, rollout.OnUnhealthyPause)
		other := rolloutData(45, gatePolicy(rollout.OnUnhealthyPause))
		recoverCanaries(ctx)
		argoApply(ctx, other)
		watchRolloutTo(ctx, f, fingerprint(halted), func() []string { return f.at(ctx, 45) }, nil)
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		_, remembered := record(ctx).HaltOf(fingerprint(halted))
		Expect(remembered).To(BeTrue(), "the halt of the earlier data is remembered")
	})
})
