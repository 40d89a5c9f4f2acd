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

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// When the health gate cannot tell a node's trouble from its write
// (docs/rollout.md#health-gates), against a real apiserver: 40 nodes, 4
// canaries, a canary soak that a halt comes well before.
const ambiguitySoak = 5 * time.Second

func ambiguityPolicy(maxUnhealthy int) string {
	return ambiguityPolicyOn(maxUnhealthy, rollout.OnUnhealthyPause)
}

// ambiguityPolicyOn is ambiguityPolicy with onUnhealthy.
func ambiguityPolicyOn(maxUnhealthy int, onUnhealthy string) string {
	return fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": 2,
		"canary": {"nodeSelector": {"matchLabels": {%q: "canary"}}, "soakSeconds": %d},
		"healthGate": {"maxUnhealthyNodes": %d, "onUnhealthy": %q}}`,
		rolloutStep, canaryLabel, int(ambiguitySoak.Seconds()), maxUnhealthy, onUnhealthy)
}

// writtenAt is the time the controller last wrote node's NodeSLO, as its
// spec-written-at annotation says (milliseconds).
func writtenAt(ctx context.Context, node string) metav1.Time {
	slo := &slov1alpha1.NodeSLO{}
	Expect(getNodeSLO(ctx, node, slo)).To(Succeed())
	at := storedslo.ParseWrittenAt(slo.Annotations)
	Expect(at.IsZero()).To(BeFalse(), "NodeSLO %s has no spec-written-at", node)
	return metav1.NewTime(at)
}

// setUpWith makes the fleet at threshold 50 under policy, with canaries
// canaries, and returns it with the ConfigMap and the target of that
// configuration, the writes log reset. The set-up's own rollout is past
// its soak: the gate no longer judges it, so that what a spec does to a
// node before its change cannot halt the set-up's configuration.
func setUpWith(ctx SpecContext, policy string, canaries int) (*corev1.ConfigMap, fleet, string) {
	cm := setConfig(ctx, rolloutData(50, policy))
	f := createFleetWith(ctx, 50, canaries)
	Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
	target := record(ctx).Target
	skipAndSettle(ambiguitySoak)
	Expect(record(ctx).Health.Halted()).To(BeFalse(), "the set-up's rollout halted")
	writes.Reset()
	return cm, f, target
}

var _ = Describe("A health gate that cannot tell the order", Serial, Label(shardGates), func() {
	// setUp makes the fleet at threshold 50 under policy and returns it with
	// the target of that configuration.
	setUp := func(ctx SpecContext, policy string) (*corev1.ConfigMap, fleet, string) {
		return setUpWith(ctx, policy, gateCanaries)
	}

	It("with onUnhealthy revert, puts every canary the halted change reached back at once, the two made NotReady "+
		"in the second of the revert's write included, and never halts the revert", func(ctx SpecContext) {
		// docs/rollout.md#the-revert: two canaries, both reached, both turn
		// NotReady; the gate halts and reverts within the same second, as
		// it does when the clock is held.
		const canaries = 2
		policy := ambiguityPolicyOn(0, rollout.OnUnhealthyRevert)
		cm, f, target := setUpWith(ctx, policy, canaries)
		holdClock()
		// Held at the start of a second, so that the nudges below stay
		// within the second of the canaries' write.
		clock.Skip(clock.Now().Truncate(time.Second).Add(time.Second).Sub(clock.Now()))
		bad := rolloutData(40, policy)
		setConfig(ctx, bad)
		watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
			func(reached []string) bool { return len(reached) >= canaries })
		reached, others := f.split(f.at(ctx, 40))
		Expect(reached).To(Equal(canaries))
		Expect(others).To(BeZero(), "a node beyond the canaries was reached")

		sick := f.canaryNames()
		now := metav1.NewTime(clock.Now())
		for _, n := range sick {
			setReadyAt(ctx, n, corev1.ConditionFalse, now)
		}
		// No step interval passes: the revert reaches both at once. The
		// halt carries it out with the controller's next decision, which it
		// queues controller.MinRequeue ahead on its clock (nothing else may
		// wake it, when one look saw both canaries NotReady): the held
		// clock moves by 10 ms a look, half a second at most.
		var nudged time.Duration
		Eventually(func() []string {
			if nudged < 5*controller.MinRequeue {
				clock.Skip(10 * time.Millisecond)
				nudged += 10 * time.Millisecond
			}
			return f.at(ctx, 50)
		}).WithTimeout(rolloutWait).Should(ContainElements(sick),
			"both canaries back on the previous revision's values")
		for _, n := range sick {
			Expect(writtenAt(ctx, n).Truncate(time.Second)).To(BeTemporally("==", now.Truncate(time.Second)),
				"canary %s written back in the second it turned NotReady", n)
		}
		rec := record(ctx)
		Expect(rec.Target).To(Equal(target), "the previous configuration in force again")
		Expect(rec.RevertOf).NotTo(BeEmpty())

		// Past the soak and several step intervals: the revert is complete,
		// unhalted, and no node but the canaries was ever written.
		skipAndSettle(ambiguitySoak + 3*time.Second)
		rec = record(ctx)
		Expect(rec.Health.Halted()).To(BeFalse(), "the revert halted: %+v", rec.Health)
		Expect(rec.Done).To(BeTrue())
		Expect(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonHalted)()).To(HaveLen(1),
			"one RolloutHalted Event: the change's, none for the revert")
		st, err := statusInForce(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Status.Phase).To(Equal(rollout.PhaseCompleted), "the revert completed")
		Expect(st.Status.Withheld).To(HaveField("Reverted", BeTrue()))
		for _, n := range f.names {
			want := 0
			if f.canaries[n] {
				want = 2 // the change, then the revert
			}
			Expect(writes.Succeeded(n)).To(Equal(want), "node %s", n)
		}

		// The halted data applied again stays withheld: nothing is written.
		argoApply(ctx, bad)
		nothingWritten(ctx, "the halted data applied again")
		Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))
		for _, n := range sick {
			setReady(ctx, n, corev1.ConditionTrue)
		}
	})

	// haltsOnCanaries rolls a change out to the canaries, makes two of
	// them NotReady with the transition at(their write), and checks that
	// the gate halts with signal in both verdicts, says so in an Event,
	// and reaches no node beyond the canaries past the soak.
	haltsOnCanaries := func(ctx SpecContext, at func(written metav1.Time) metav1.Time, signal string) {
		cm, f, target := setUp(ctx, ambiguityPolicy(1))
		setConfig(ctx, rolloutData(40, ambiguityPolicy(1)))
		watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
			func(reached []string) bool { return len(reached) >= gateCanaries })
		onlyCanariesReached(ctx, f)

		sick := f.canaryNames()[:2]
		for _, n := range sick {
			setReadyAt(ctx, n, corev1.ConditionFalse, at(writtenAt(ctx, n)))
		}
		Eventually(func() bool { return record(ctx).Health.Halted() }).Should(BeTrue())
		Expect(record(ctx).Health.Unhealthy).To(HaveLen(2))
		Expect(record(ctx).Health.Unhealthy).To(HaveEach(ContainSubstring(signal)))
		Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonHalted)).Should(ContainElement(And(
			ContainSubstring(sick[0]+" (Ready=False"), ContainSubstring(sick[1]+" (Ready=False"))))

		// Past the soak and several step intervals, nothing beyond the canaries.
		skipAndSettle(ambiguitySoak + 3*time.Second)
		_, others := f.split(f.at(ctx, 40))
		Expect(others).To(BeZero(), "a node beyond the canaries was reached past the soak")
		Expect(f.writesTo()).To(Equal(gateCanaries))
	}

	It("halts when canaries turn NotReady in the second of their write, before any other node is reached",
		func(ctx SpecContext) {
			// Both NotReady with the transition in the very second of their write.
			haltsOnCanaries(ctx, func(written metav1.Time) metav1.Time { return written }, "(the second of its write)")
		})

	It("halts when canaries whose clocks are 2 s behind turn NotReady a second after their write",
		func(ctx SpecContext) {
			// docs/rollout.md#health-gates: the kubelet stamps the
			// transition on its clock, 2 s behind the apiserver's, which
			// stamped the write: the transition reads a second before the
			// write, and still counts.
			haltsOnCanaries(ctx, func(written metav1.Time) metav1.Time {
				return metav1.NewTime(written.Add(time.Second - rollout.NodeClockSkew))
			}, "before its write, as far as a node's clock may be behind")
		})

	It("halts when canaries turn NotReady in the second of their write, decided in its last millisecond",
		func(ctx SpecContext) {
			// docs/rollout.md#which-nodes-are-judged-and-when: no node is
			// stamped in a later second than its write. Rounded up to the
			// millisecond, a decision at x.9995 stamped its writes x+1, and
			// a condition that turned bad at x, after the write, was taken
			// for one from before it: no halt (the revert spec above failed
			// this way beside a CPU hog).
			cm, f, target := setUp(ctx, ambiguityPolicy(1))
			holdClock()
			now := clock.Now()
			lastMillisecond := now.Truncate(time.Second).Add(time.Second - 500*time.Microsecond)
			if !lastMillisecond.After(now) {
				lastMillisecond = lastMillisecond.Add(time.Second)
			}
			clock.Skip(lastMillisecond.Sub(now))
			setConfig(ctx, rolloutData(40, ambiguityPolicy(1)))
			watchRolloutTo(ctx, f, target, func() []string { return f.at(ctx, 40) },
				func(reached []string) bool { return len(reached) >= gateCanaries })
			canaries, others := f.split(f.at(ctx, 40))
			Expect(others).To(BeZero(), "a node beyond the canaries was reached")
			Expect(canaries).To(Equal(gateCanaries))

			sick := f.canaryNames()[:2]
			at := metav1.NewTime(clock.Now())
			for _, n := range sick {
				setReadyAt(ctx, n, corev1.ConditionFalse, at)
			}
			Eventually(func() bool { return record(ctx).Health.Halted() }).Should(BeTrue(),
				"canaries NotReady in the second of their write did not halt")
			Expect(record(ctx).Health.Unhealthy).To(HaveEach(ContainSubstring("(the second of its write)")))
			Expect(record(ctx).Health.BeforeNames()).To(BeEmpty())
			Expect(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonUnhealthyBeforeWrite)()).To(BeEmpty())
			for _, n := range sick {
				Expect(writtenAt(ctx, n).Time).To(BeTemporally("==", lastMillisecond), "canary %s's stamp", n)
			}
		})

	It("judges a node it wrote, relabelled and seen by a decision before its reconcile, as reached",
		func(ctx SpecContext) {
			// docs/rollout.md#which-nodes-are-judged-and-when: a node this
			// rollout wrote the target to stays reached when its labels
			// change. Taken for a node not yet written (it differs), it was
			// recorded unhealthy before its write (simulator seed 8384).
			cm, f, _ := setUp(ctx, ambiguityPolicy(5))
			// The set-up's soak, not the default 300 s: the gate watches
			// that long after a rollout completes, and a spec leaves no
			// wait behind longer than its own (the skip spec below).
			paused := fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": 2, "paused": true,
				"canary": {"nodeSelector": {"matchLabels": {%q: "canary"}}, "soakSeconds": %d},
				"healthGate": {"maxUnhealthyNodes": 5, "onUnhealthy": "pause"}}`,
				rolloutStep, canaryLabel, int(ambiguitySoak.Seconds()))
			setConfig(ctx, pooledData(40, 30, paused))
			Eventually(metric(controller.MetricRolloutPending)).Should(Equal(float64(rolloutNodes)))
			created := createNode(ctx, nil, nil).Name
			Eventually(specOf(ctx, created)).Should(haveField(40.0, "resourceUsedThresholdWithBE",
				"cpuSuppressThresholdPercent"), "a node created during the rollout gets the target at once")
			setReady(ctx, created, corev1.ConditionFalse)
			Eventually(func() []string { return record(ctx).Health.UnhealthyNames() }).Should(ContainElement(created))

			arrived, release := heldReconciles.hold(created)
			defer release()
			relabelPool(ctx, created, "batch")
			Eventually(arrived).Should(BeClosed(), "the NodeSLO controller never took up the relabel")
			// A pending node's health signal makes the rollout decide while
			// the relabelled node's reconcile is held.
			trigger := f.names[len(f.names)-1]
			decided := rolloutReconciles()
			setReady(ctx, trigger, corev1.ConditionFalse)
			Eventually(func() []string { return record(ctx).Health.BeforeNames() }).Should(ContainElement(trigger))
			// The status is written inside the reconcile, which is counted
			// once it returns.
			Eventually(rolloutReconciles).Should(BeNumerically(">", decided))
			Expect(specOf(ctx, created)()).To(haveField(40.0, "resourceUsedThresholdWithBE",
				"cpuSuppressThresholdPercent"), "written while its reconciles were held")
			Expect(record(ctx).Health.BeforeNames()).NotTo(ContainElement(created),
				"a node the rollout wrote recorded unhealthy before its write")
			Expect(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonUnhealthyBeforeWrite)()).
				NotTo(ContainElement(ContainSubstring(created)))
			release()
			Eventually(specOf(ctx, created)).Should(haveField(30.0, "resourceUsedThresholdWithBE",
				"cpuSuppressThresholdPercent"), "reached, it gets the target for its new labels")
			setReady(ctx, created, corev1.ConditionTrue)
			setReady(ctx, trigger, corev1.ConditionTrue)
		})

	It("reports a canary NotReady before the rollout, reaches it in a batch rather than as a canary, "+
		"and does not hold it against the change", func(ctx SpecContext) {
		cm, f, target := setUp(ctx, ambiguityPolicy(0))
		down := f.canaryNames()[0]
		setReady(ctx, down, corev1.ConditionFalse)
		setConfig(ctx, rolloutData(40, ambiguityPolicy(0)))

		// At every observation (the nodes read before the record, which is
		// written before a step's nodes): the node down is reached by a
		// batch, never by the canary step.
		deadline := time.Now().Add(rolloutWait)
		for {
			reached := f.at(ctx, 40)
			rec := record(ctx)
			if slices.Contains(reached, down) {
				Expect(rec.Steps).To(BeNumerically(">=", 2), "the node down was reached as a canary")
			}
			if len(reached) == rolloutNodes && rec.Done {
				Expect(rec.Canaries).To(Equal(gateCanaries-1), "canaries pending at the start")
				break
			}
			Expect(time.Now().Before(deadline)).To(BeTrue(), "the rollout did not end: %d reached", len(reached))
			// The soak and the step intervals pass a second a look.
			time.Sleep(envtestharness.PollingInterval)
			clock.Skip(time.Second)
		}
		Expect(target).NotTo(Equal(record(ctx).Target))

		// Still NotReady, reached, and a gate allowing no unhealthy node did not halt.
		rec := record(ctx)
		Expect(rec.Health.Halted()).To(BeFalse())
		Expect(rec.Health.UnhealthyNames()).To(BeEmpty())
		Expect(rec.Health.BeforeNames()).To(Equal([]string{down}))
		Expect(rec.Health.Before[down]).To(HavePrefix("Ready=False since "))
		Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonUnhealthyBeforeWrite)).
			Should(ContainElement(And(ContainSubstring("not used as canaries"), ContainSubstring(down+" (Ready=False"))))
		status, err := statusInForce(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(status.Status.Health.Before).To(Equal(int32(1)))
		Expect(status.Status.Health.BeforeNodes).To(ConsistOf(HaveField("Name", down)))
		Expect(status.Done()).To(BeTrue())
		settle()
		Expect(f.writesTo()).To(Equal(rolloutNodes), "each pending node written once")
		setReady(ctx, down, corev1.ConditionTrue)
	})
})

var _ = Describe("A skip past a wait the real time ended first", Serial, Label(shardGates), func() {
	It("settles without waiting for a look the skip cannot cause, the set-up's rollout past its soak",
		func(ctx SpecContext) {
			// docs/testing.md, "The controllers' clock": the set-up above skips
			// its rollout's canary soak; on a slow machine the soak's requeue
			// fires in real time first. Here it always does: the spec waits
			// until no timer is left on the clock (the soak ended in real time
			// and the controller looked), then skips as the set-up does.
			setConfig(ctx, rolloutData(50, ambiguityPolicy(0)))
			createFleetWith(ctx, 50, gateCanaries)
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			Eventually(clock.Armed).WithTimeout(ambiguitySoak+rolloutWait).Should(BeZero(),
				"the soak's requeue did not fire in real time")
			writes.Reset()
			skipAndSettle(ambiguitySoak)
			Expect(record(ctx).Health.Halted()).To(BeFalse(), "the set-up's rollout halted")
			Expect(writes.Total()).To(BeZero(), "a skip past a finished soak wrote a node")
		})
})
