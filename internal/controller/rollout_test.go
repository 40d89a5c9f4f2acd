package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/plugin"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// The staged rollout (docs/rollout.md) against a real apiserver: 40 nodes,
// 3 of them canaries, batches of 10.
const (
	rolloutNodes    = 40
	rolloutCanaries = 3
	rolloutStep     = 10
	// rolloutSteps is the canary step and four batches (10, 10, 10, 7).
	rolloutSteps = 5
	canaryLabel  = "rollout-group"
	// rolloutWait bounds a whole rollout, not one reaction: a 3 s canary
	// soak and four 2 s step intervals come before the last write.
	rolloutWait = 90 * time.Second
)

// rolloutPolicy is the policy used by these tests: the strategy, and
// "paused" for spec.paused (testkit.Policy).
func rolloutPolicy(paused bool) string {
	return fmt.Sprintf(`{"maxNodesPerStep": %d, "stepIntervalSeconds": 2, "paused": %t,
		"canary": {"nodeSelector": {"matchLabels": {%q: "canary"}}, "soakSeconds": 3}}`,
		rolloutStep, paused, canaryLabel)
}

// strategyJSON is policy's strategy as the controller keeps it with each
// revision (rollout.StrategyJSON), "paused" left out.
func strategyJSON(policy string) string {
	GinkgoHelper()
	var p testkit.Policy
	Expect(json.Unmarshal([]byte(policy), &p)).To(Succeed(), "the spec's policy %s", policy)
	return rollout.StrategyJSON(&p.RolloutStrategy)
}

// rolloutData is a ConfigMap's data setting the cpu suppress threshold, with
// policy under the retired rollout key, from where setConfig moves it to
// the NodeSLORollout (empty: without it).
func rolloutData(threshold int, policy string) map[string]string {
	data := map[string]string{
		string(sloconfig.KeyResourceThreshold): fmt.Sprintf(
			`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": %d}}`, threshold),
	}
	if policy != "" {
		data[string(sloconfig.KeyRollout)] = policy
	}
	return data
}

// fleet is the nodes of one test.
type fleet struct {
	names    []string
	canaries map[string]bool
}

// createFleet creates the nodes and waits until each has a NodeSLO with threshold.
func createFleet(ctx context.Context, threshold int) fleet {
	return createFleetWith(ctx, threshold, rolloutCanaries)
}

// createFleetWith is createFleet with the given number of canaries.
func createFleetWith(ctx context.Context, threshold, canaries int) fleet {
	f := fleet{canaries: map[string]bool{}}
	for i := range rolloutNodes {
		var labels map[string]string
		if i < canaries {
			labels = map[string]string{canaryLabel: "canary"}
		}
		n := newNode(ctx, labels, nil)
		f.names = append(f.names, n.Name)
		if labels != nil {
			f.canaries[n.Name] = true
		}
	}
	DeferCleanup(deleteNodes, f.names)
	Eventually(func() int { return len(f.at(ctx, threshold)) }).Should(Equal(rolloutNodes))
	return f
}

// at returns the nodes of the fleet whose NodeSLO has threshold.
func (f fleet) at(ctx context.Context, threshold int) []string {
	list := &slov1alpha1.NodeSLOList{}
	Expect(k8sClient.List(ctx, list)).To(Succeed())
	of := map[string]bool{}
	for _, n := range f.names {
		of[n] = true
	}
	var out []string
	for _, s := range list.Items {
		t := s.Spec.ResourceUsedThresholdWithBE
		if of[s.Name] && t != nil && t.CPUSuppressThresholdPercent != nil &&
			*t.CPUSuppressThresholdPercent == int64(threshold) {
			out = append(out, s.Name)
		}
	}
	return out
}

// split counts the canaries and the other nodes among names.
func (f fleet) split(names []string) (canaries, others int) {
	for _, n := range names {
		if f.canaries[n] {
			canaries++
		} else {
			others++
		}
	}
	return canaries, others
}

// writesTo sums the NodeSLO writes to the fleet's nodes.
func (f fleet) writesTo() int {
	n := 0
	for _, name := range f.names {
		n += writes.Succeeded(name)
	}
	return n
}

// record reads the rollout record on the NodeSLORollout (none: no record).
func record(ctx context.Context) rollout.Record {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	err := k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, obj)
	Expect(client.IgnoreNotFound(err)).To(Succeed())
	rec, err := rollout.RecordOf(obj.Status.RolloutRecord)
	Expect(err).NotTo(HaveOccurred())
	return rec
}

// metricInconclusive reports whether the record h holds an inconclusive
// metric check: the rollout waits for Prometheus to answer.
func metricInconclusive(h *rollout.HealthRecord) bool {
	return h != nil && slices.ContainsFunc(slices.Collect(maps.Values(h.Metrics)),
		func(r rollout.MetricRecord) bool { return r.Inconclusive })
}

// recordsAfter follows the NodeSLORollout from the write after (etcd's
// revisions order every kind's writes) and returns a function that waits
// until a record that ends satisfies has been seen, stops following and
// returns the rollout records of every version after after up to that one,
// oldest first: what a spec's polls could miss, such as a step recorded
// between two looks.
func recordsAfter(ctx context.Context, after *corev1.ConfigMap) func(ends func(rollout.Record) bool) []rollout.Record {
	w, err := watcher.Watch(ctx, &nodeslov1alpha1.NodeSLORolloutList{}, client.InNamespace(configNamespace),
		&client.ListOptions{Raw: &metav1.ListOptions{
			ResourceVersion: after.ResourceVersion, FieldSelector: "metadata.name=" + configName,
		}})
	Expect(err).NotTo(HaveOccurred())
	seen, stopped := make(chan rollout.Record), make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(seen)
		for e := range w.ResultChan() {
			select {
			case <-stopped:
				return // client-go reports the stream Stop closes as an error event
			default:
			}
			obj, ok := e.Object.(*nodeslov1alpha1.NodeSLORollout)
			Expect(ok).To(BeTrue(), "a watch event of %T (%s): %+v", e.Object, e.Type, e.Object)
			rec, err := rollout.RecordOf(obj.Status.RolloutRecord)
			Expect(err).NotTo(HaveOccurred())
			select {
			case seen <- rec:
			case <-stopped:
				return
			}
		}
	}()
	return func(ends func(rollout.Record) bool) []rollout.Record {
		defer w.Stop()
		defer close(stopped)
		var records []rollout.Record
		for {
			select {
			case rec, open := <-seen:
				Expect(open).To(BeTrue(), "the watch ended before a record that ends it: %+v", records)
				records = append(records, rec)
				if ends(rec) {
					return records
				}
			case <-time.After(rolloutWait):
				Fail(fmt.Sprintf("no record that ends the watch in %s: %+v", rolloutWait, records))
			}
		}
	}
}

// configEvents returns the notes of the Events of type and reason on cm.
func configEvents(ctx context.Context, cm *corev1.ConfigMap, eventType, reason string) func() ([]string, error) {
	return func() ([]string, error) {
		list := &eventsv1.EventList{}
		if err := k8sClient.List(ctx, list, client.InNamespace(configNamespace)); err != nil {
			return nil, err
		}
		var notes []string
		for _, e := range list.Items {
			if e.Regarding.UID == cm.UID && e.Reason == reason && e.Type == eventType {
				notes = append(notes, e.Note)
			}
		}
		return notes, nil
	}
}

// counts are a rollout status' step, steps, step size, nodes reached,
// pending at the start, pending now and canaries pending, in that order.
func counts(s *nodeslov1alpha1.NodeSLORolloutStatus) []int {
	return []int{int(s.Step), int(s.Steps), int(s.StepSize), int(s.Reached), int(s.PendingAtStart), int(s.Pending),
		int(s.CanariesPending)}
}

const countsAre = "step, steps, step size, reached, pending at the start, pending, canaries pending"

func metric(name string) func() float64 {
	return func() float64 { return metricValue(name, nil) }
}

// rolloutPhase is the phase nodeslo_rollout_phase says the rollout is in,
// after checking that it says one: every phase has a series, exactly one
// of them at 1. All series come from one gather, as one scrape sees them:
// reading them in several would see a phase that changed between two
// reads as two phases at 1, or none.
func rolloutPhase() string {
	GinkgoHelper()
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	var series, current []string
	for _, f := range families {
		if f.GetName() != controller.MetricRolloutPhase {
			continue
		}
		for _, m := range f.GetMetric() {
			phase := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "phase" {
					phase = l.GetValue()
				}
			}
			series = append(series, phase)
			switch v := m.GetGauge().GetValue(); v {
			case 1:
				current = append(current, phase)
			case 0:
			default:
				Fail(fmt.Sprintf("%s{phase=%q} is %v, neither 0 nor 1", controller.MetricRolloutPhase, phase, v))
			}
		}
	}
	Expect(series).To(ConsistOf(controller.RolloutPhases), "a series per phase")
	Expect(current).To(HaveLen(1), "exactly one phase at 1")
	return current[0]
}

// watchRollout follows a rollout from the old target towards threshold
// until every node has it, checking at every observation what the cluster
// shows against the record (written before the nodes of each step): no
// node changes before the record names the new target, no other node
// before every canary, and the others never beyond 10 per batch step.
// until, when set, ends the watch early once it returns true.
func watchRollout(ctx context.Context, f fleet, oldTarget string, threshold int, until func(reached []string) bool) {
	watchRolloutTo(ctx, f, oldTarget, func() []string { return f.at(ctx, threshold) }, until)
}

// watchRolloutTo is watchRollout towards any configuration: at lists the
// nodes of the fleet that have it.
func watchRolloutTo(
	ctx context.Context, f fleet, oldTarget string, at func() []string, until func(reached []string) bool,
) {
	deadline, last := time.Now().Add(rolloutWait), -1
	for {
		reached := at()
		rec := record(ctx)
		canaries, others := f.split(reached)
		if rec.Target == oldTarget {
			Expect(reached).To(BeEmpty(), "a node changed before the rollout was recorded")
		} else {
			if others > 0 {
				Expect(canaries).To(Equal(len(f.canaries)), "a node changed before every canary did")
			}
			Expect(others).To(BeNumerically("<=", rolloutStep*max(rec.Steps-1, 0)),
				"more nodes changed than the steps recorded allow (steps %d)", rec.Steps)
		}
		if len(reached) == rolloutNodes || (until != nil && until(reached)) {
			return
		}
		Expect(time.Now().Before(deadline)).To(BeTrue(),
			"the rollout did not end: %d of %d nodes", len(reached), rolloutNodes)
		if len(reached) == last {
			clock.Skip(time.Second) // waiting for a soak or a step: a second of it passes
		}
		last = len(reached)
		time.Sleep(envtestharness.PollingInterval)
	}
}

var _ = Describe("A staged rollout", Serial, Label(shardRollout), func() {
	var (
		cm     *corev1.ConfigMap
		f      fleet
		target string // fingerprint in force before the change
	)
	BeforeEach(func(ctx SpecContext) { cm, f, target = stagedRolloutSetUp(ctx) })

	It("reaches the canaries first, then at most 10 nodes a step, writing each pending node once", func(ctx SpecContext) {
		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, func([]string) bool {
			// Mid-rollout, the metrics show it.
			return rolloutPhase() == controller.RolloutPhaseProgressing &&
				metric(controller.MetricRolloutPending)() > 0
		})
		// Between two steps, the status on the revision in force is the
		// rollout's progress as the record and the NodeSLOs show it.
		Eventually(func(g Gomega) {
			st, err := statusInForce(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			rec, reached := record(ctx), len(f.at(ctx, 40))
			g.Expect(st.TakenUp()).To(BeTrue())
			s := st.Status
			g.Expect(s.Phase).To(Equal(rollout.PhaseProgressing))
			g.Expect(counts(s)).To(Equal([]int{rec.Steps, rolloutSteps, rolloutStep, reached, rolloutNodes,
				rolloutNodes - reached, 0}), countsAre)
			g.Expect(timeOf(s.Started)).To(Equal(rec.Started.UTC().Truncate(time.Second)), "the API keeps seconds")
			g.Expect(timeOf(s.NextStep)).To(BeTemporally(">", rec.StepAt))
		}).Should(Succeed())
		watchRollout(ctx, f, target, 40, nil)

		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		rec := record(ctx)
		Expect(rec.Pending).To(Equal(rolloutNodes))
		Expect(rec.Canaries).To(Equal(rolloutCanaries))
		Expect(rec.Steps).To(Equal(rolloutSteps))
		Eventually(func(g Gomega) {
			st, err := statusInForce(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(st.Done()).To(BeTrue(), "the rollout completed")
			g.Expect(counts(st.Status)).To(Equal([]int{rolloutSteps, rolloutSteps, rolloutStep, rolloutNodes,
				rolloutNodes, 0, 0}), countsAre)
			g.Expect(timeOf(st.Status.Completed)).To(Equal(rec.DoneAt.UTC().Truncate(time.Second)))
		}).Should(Succeed())
		settle()
		for _, n := range f.names {
			Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
		}
		Expect(writes.Total()).To(Equal(rolloutNodes), "no NodeSLO but the pending ones written")

		Eventually(configEvents(ctx, cm, corev1.EventTypeNormal, rollout.ReasonStarted)).
			Should(ContainElement(
				ContainSubstring("40 nodes pending (3 canaries), step size 10, 5 steps")))
		Eventually(configEvents(ctx, cm, corev1.EventTypeNormal, rollout.ReasonStep)).
			Should(ContainElements(
				ContainSubstring("step 1 of 5: 3 of 40 nodes reached"),
				ContainSubstring("step 5 of 5: 40 of 40 nodes reached")))
		Eventually(configEvents(ctx, cm, corev1.EventTypeNormal, rollout.ReasonCompleted)).
			ShouldNot(BeEmpty())
		Eventually(rolloutPhase).Should(Equal(controller.RolloutPhaseIdle))
		Expect(metric(controller.MetricRolloutPending)()).To(BeZero())
		Expect(metric(controller.MetricRolloutReached)()).To(Equal(float64(rolloutNodes)))
		Expect(metric(controller.MetricRolloutStep)()).To(Equal(float64(rolloutSteps)))
	})

	It("reads whole only the NodeSLOs whose digest cannot vouch for their spec", func(ctx SpecContext) {
		// Without its digest annotation (as an older version, or another
		// controller, leaves it) a NodeSLO's spec is known only whole.
		edited := f.names[rolloutCanaries]
		slo := &slov1alpha1.NodeSLO{}
		Expect(getNodeSLO(ctx, edited, slo)).To(Succeed())
		delete(slo.Annotations, storedslo.SpecDigestAnnotation)
		Expect(k8sClient.Update(ctx, slo)).To(Succeed())
		settle()
		before := len(wholeReads())
		writtenBefore := map[string]int{}
		for _, n := range f.names {
			writtenBefore[n] = writes.Succeeded(n)
		}

		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, nil)
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		Expect(record(ctx).Pending).To(Equal(rolloutNodes), "the unvouched node counted as pending too")
		read := wholeReads()[before:]
		Expect(read).To(ContainElement(HaveField("Path", controller.NodeSLOsPath+"/"+edited)),
			"that NodeSLO read by name")
		for _, r := range read {
			name, byName := strings.CutPrefix(r.Path, controller.NodeSLOsPath+"/")
			Expect(byName).To(BeTrue(), "no LIST of every NodeSLO whole: %s", r.Path)
			if name == edited {
				continue
			}
			// A vouched NodeSLO is read whole only once the manager wrote
			// it in this rollout, while its cache may not have seen that
			// write yet (docs/behaviour.md#triggers): a step
			// can come moments after the one that wrote it.
			Expect(r.WritesBefore).To(BeNumerically(">", writtenBefore[name]),
				"NodeSLO %s, whose digest vouches for its spec, read whole before its write", name)
		}
	})

	It("writes nothing while paused, and resumes where it stopped", func(ctx SpecContext) {
		// Held: the step the pause finds due fires only on the spec's skip
		// below, never in the real time a busy machine takes before it
		// (then nothing was left for the skip to fire).
		holdClock()
		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, func(reached []string) bool { return len(reached) >= rolloutCanaries+rolloutStep })
		setConfig(ctx, rolloutData(40, rolloutPolicy(true)))
		Eventually(configEvents(ctx, cm, corev1.EventTypeNormal, rollout.ReasonPaused)).ShouldNot(BeEmpty())
		settle()
		held := rolloutNodes - len(f.at(ctx, 40))
		Expect(held).To(BeNumerically(">", 0))
		Expect(metric(controller.MetricRolloutPending)()).To(Equal(float64(held)))
		Expect(rolloutPhase()).To(Equal(controller.RolloutPhasePaused))
		st, err := statusInForce(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Status.Phase).To(Equal(rollout.PhasePaused))
		Expect(st.Status.Paused).To(BeTrue())
		Expect(counts(st.Status)[3:]).To(Equal([]int{rolloutNodes - held, rolloutNodes, held, 0}),
			"reached, pending at the start, pending, canaries pending")
		Expect(st.Status.NextStep).To(BeZero())
		written := rolloutObject(ctx).ResourceVersion
		writes.Reset()

		// A paused rollout must skip several 2 s step intervals.
		skipAndSettle(10 * time.Second)
		Expect(writes.Total()).To(BeZero(), "a paused rollout wrote in 10 s")
		Expect(rolloutObject(ctx).ResourceVersion).To(Equal(written),
			"the NodeSLORollout is not written again while nothing changes")

		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, nil)
		// Completion is seen by the look a second after the last step's
		// writes (docs/rollout-design.md#where-the-decision-runs): on the
		// held clock, only a skip makes that look.
		Eventually(aSecondALook(func() bool { return rolloutDone(ctx) })).Should(BeTrue())
		settle()
		Expect(f.writesTo()).To(Equal(held), "only the nodes held are written after the resume")
		Expect(rolloutPhase()).To(Equal(controller.RolloutPhaseIdle))
	})

	It("keeps a pause made with the plugin through three server-side applies of the ConfigMap and the strategy "+
		"by another field manager",
		func(ctx SpecContext) {
			holdClock()
			data := rolloutData(40, rolloutPolicy(false))
			argoApply(ctx, data)
			watchRollout(ctx, f, target, 40, func(reached []string) bool {
				return len(reached) >= rolloutCanaries+rolloutStep
			})
			Expect(plugin.SetPaused(ctx, k8sClient, historyRef, true, io.Discard)).To(Succeed())
			Eventually(func(g Gomega) {
				st, err := statusInForce(ctx)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(st.TakenUp()).To(BeTrue())
				g.Expect(st.Status.Phase).To(Equal(rollout.PhasePaused))
			}).Should(Succeed())
			settle()
			held := rolloutNodes - len(f.at(ctx, 40))
			Expect(held).To(BeNumerically(">", 0))
			writes.Reset()
			for i := range gitopsReapplies {
				// Each sync writes the ConfigMap (its tracking annotation
				// changes), so the controller decides again each time, and
				// applies the strategy, which owns no pause.
				before := rolloutReconciles()
				synced, policy := testkit.SplitPolicy(data)
				sync := corev1ac.ConfigMap(configName, configNamespace).WithData(synced).
					WithAnnotations(map[string]string{"argocd.argoproj.io/tracking-id": fmt.Sprintf("sync-%d", i)})
				Expect(k8sClient.Apply(ctx, sync, client.ForceOwnership, client.FieldOwner("argocd-controller"))).
					To(Succeed())
				applyStrategyAs(ctx, "argocd-controller", policy)
				Eventually(rolloutReconciles).Should(BeNumerically(">", before))
				skipAndSettle(10 * time.Second) // five step intervals
				Expect(writes.Total()).To(BeZero(), "sync %d undid the pause", i+1)
				Expect(rolloutObject(ctx).Spec.Paused).To(BeTrue())
			}
			Expect(configData(ctx)).To(Equal(dataOf(data)), "the pause wrote nothing into the ConfigMap's data")

			Expect(plugin.SetPaused(ctx, k8sClient, historyRef, false, io.Discard)).To(Succeed())
			watchRollout(ctx, f, target, 40, nil)
			settle()
			Expect(f.writesTo()).To(Equal(held), "only the nodes held are written after the resume")
		})

	It("continues a rollout in progress across a manager restart, the clock held", func(ctx SpecContext) {
		holdClock()
		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, func(reached []string) bool { return len(reached) >= rolloutCanaries+rolloutStep })
		steps := record(ctx).Steps
		newManager()
		Expect(record(ctx).Steps).To(Equal(steps), "the steps taken before the restart stay taken")
		watchRollout(ctx, f, target, 40, nil)
		settle()
		Expect(f.writesTo()).To(Equal(rolloutNodes), "each node written once, across the restart")
	})

	It("survives a manager restart without a burst, and completes", func(ctx SpecContext) {
		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, func(reached []string) bool { return len(reached) >= rolloutCanaries+rolloutStep })

		stopManager()
		steps := record(ctx).Steps
		before := len(f.at(ctx, 40))
		writes.Reset()
		stopManager = startManager()

		// The record is written before each step's nodes: read after the
		// writes, it bounds them. Within the step in progress at the restart
		// at most one step's nodes are written.
		deadline := time.Now().Add(rolloutWait)
		for len(f.at(ctx, 40)) < rolloutNodes {
			written := f.writesTo()
			taken := record(ctx).Steps - steps
			Expect(written).To(BeNumerically("<=", rolloutStep*(taken+1)),
				"%d NodeSLOs written %d steps after the restart", written, taken)
			Expect(time.Now().Before(deadline)).To(BeTrue(), "the rollout did not complete after the restart")
			clock.Skip(time.Second)
			time.Sleep(envtestharness.PollingInterval)
		}
		settle()
		Expect(f.writesTo()).To(Equal(rolloutNodes-before), "each node still pending written once")
	})

	It("restarts towards the newest configuration on a second change mid-rollout", func(ctx SpecContext) {
		holdClock() // no step between reading what was reached and the second change
		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, func(reached []string) bool { return len(reached) >= rolloutCanaries+rolloutStep })
		target = record(ctx).Target
		first := len(f.at(ctx, 40))

		setConfig(ctx, rolloutData(30, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 30, nil)
		settle()
		Expect(record(ctx).Pending).To(Equal(rolloutNodes), "every node differs from the newest configuration")
		Expect(f.writesTo()).To(Equal(first + rolloutNodes))
		Expect(f.at(ctx, 40)).To(BeEmpty())
	})

	// Simulator seeds 64, 208, 238: a step size raised mid-rollout released
	// the steps taken times the new size at once, a catch-up
	// docs/rollout-design.md rules out.
	It("sizes only the steps to come when maxNodesPerStep is raised mid-rollout (issue 54)", func(ctx SpecContext) {
		// A minute between steps, and a clock that moves by the spec's
		// skips alone: when the strategy changes, the next step is far off.
		holdClock()
		policy := func(size int) string {
			return strings.NewReplacer(
				fmt.Sprintf(`"maxNodesPerStep": %d`, rolloutStep), fmt.Sprintf(`"maxNodesPerStep": %d`, size),
				`"stepIntervalSeconds": 2`, `"stepIntervalSeconds": 60`,
			).Replace(rolloutPolicy(false))
		}
		setConfig(ctx, rolloutData(40, policy(rolloutStep)))
		watchRollout(ctx, f, target, 40, func(reached []string) bool { return len(reached) >= rolloutCanaries+rolloutStep })
		settle()
		before := len(f.at(ctx, 40))
		Expect(before).To(Equal(rolloutCanaries+rolloutStep), "the canaries and one batch")

		const raised = 2 * rolloutStep
		setConfig(ctx, rolloutData(40, policy(raised)))
		Eventually(func(g Gomega) {
			st, err := statusInForce(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(st.TakenUp()).To(BeTrue())
			g.Expect(st.Status.StepSize).To(BeEquivalentTo(raised))
		}).Should(Succeed())
		settle()
		Expect(f.at(ctx, 40)).To(HaveLen(before), "no node reached before the next step is due")

		skipAndSettle(time.Minute)
		Expect(f.at(ctx, 40)).To(HaveLen(before+raised), "the next step reaches one batch of the new size")
		skipAndSettle(time.Minute)
		Expect(f.at(ctx, 40)).To(HaveLen(rolloutNodes))
		Expect(f.writesTo()).To(Equal(rolloutNodes), "each pending node written once")
	})

	It("on a revert mid-rollout, writes only the nodes already reached", func(ctx SpecContext) {
		// The clock moves only by the spec's skips: between reading what the
		// first rollout reached and the revert being taken up, no step
		// interval may pass, however slow the machine.
		holdClock()
		setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
		watchRollout(ctx, f, target, 40, func(reached []string) bool { return len(reached) >= rolloutCanaries+rolloutStep })
		settle()
		reached := f.at(ctx, 40)
		first := record(ctx)
		target = first.Target
		writes.Reset()

		revert := setConfig(ctx, rolloutData(50, rolloutPolicy(false)))
		// Every record written after the revert until the revert's own: no
		// step of the first rollout among them.
		for _, r := range recordsAfter(ctx, revert)(func(r rollout.Record) bool { return r.Target != target }) {
			Expect(r.Target != target || r.Steps == first.Steps).To(BeTrue(),
				"the first rollout took step %d after the revert was written", r.Steps)
		}
		Eventually(aSecondALook(func() []string { return f.at(ctx, 40) })).WithTimeout(rolloutWait).Should(BeEmpty())
		settle()
		Expect(record(ctx).Pending).To(Equal(len(reached)), "only the reached nodes are pending")
		for _, n := range f.names {
			want := 0
			for _, r := range reached {
				if r == n {
					want = 1
				}
			}
			Expect(writes.Succeeded(n)).To(Equal(want), "node %s", n)
		}
		Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))
	})

	It("resets the nodes of a deleted ConfigMap to the defaults in the steps of the rollout key it had",
		func(ctx SpecContext) {
			// No admission webhook runs in this suite: as when it is down, the
			// deletion goes through (docs/rollout.md#the-configmap-deleted).
			deleteConfig(ctx)
			deadline := time.Now().Add(rolloutWait)
			for {
				reset := f.matching(ctx, nil)
				steps := int(metric(controller.MetricRolloutStep)())
				canaries, others := f.split(reset)
				if others > 0 {
					Expect(canaries).To(Equal(rolloutCanaries), "a node was reset before every canary")
				}
				Expect(others).To(BeNumerically("<=", rolloutStep*max(steps-1, 0)),
					"more nodes reset than the steps taken allow (steps %d)", steps)
				if len(reset) == rolloutNodes {
					break
				}
				Expect(time.Now().Before(deadline)).To(BeTrue(), "the reset did not end: %d of %d", len(reset), rolloutNodes)
				clock.Skip(time.Second)
				time.Sleep(envtestharness.PollingInterval)
			}
			Eventually(rolloutPhase).Should(Equal(controller.RolloutPhaseIdle))
			Expect(metric(controller.MetricRolloutStep)()).To(Equal(float64(rolloutSteps)))
			settle()
			for _, n := range f.names {
				Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
			}
			Expect(history(ctx).InForce().RolloutKey).To(Equal(strategyJSON(rolloutPolicy(false))),
				"the revision of the defaults keeps the strategy it rolled out under")
		})

	It("pauses on a strategy only the controller can refuse, with a Warning Event, and writes nothing",
		func(ctx SpecContext) {
			// The schema takes any operator; the controller's selector does not.
			setConfig(ctx, rolloutData(40, `{"canary": {"nodeSelector": {"matchExpressions": `+
				`[{"key": "pool", "operator": "Near"}]}}}`))
			Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, rollout.ReasonPaused)).
				Should(ContainElement(
					And(ContainSubstring("spec.strategy.canary.nodeSelector.matchExpressions[0].operator"),
						ContainSubstring("40 nodes pending keep their NodeSLO"))))
			Consistently(writes.Total).Should(BeZero())
			Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))
			Expect(metric(controller.MetricRolloutPending)()).To(Equal(float64(rolloutNodes)))
			Expect(rolloutPhase()).To(Equal(controller.RolloutPhasePaused), "an invalid strategy pauses")

			setConfig(ctx, rolloutData(40, rolloutPolicy(false)))
			watchRollout(ctx, f, target, 40, nil)
			settle()
			Expect(f.writesTo()).To(Equal(rolloutNodes))
		})
})

// The held nodes of a staged rollout: a process of their own in make test
// (shardHeld), beside the rest of the rollout's specs.
var _ = Describe("A staged rollout's held nodes", Serial, Label(shardHeld), func() {
	var (
		cm *corev1.ConfigMap
		f  fleet
	)
	BeforeEach(func(ctx SpecContext) { cm, f, _ = stagedRolloutSetUp(ctx) })

	It("writes a new node at once while paused, and keeps a relabelled held node and one edited by hand "+
		"on the configuration held (issue 54)",
		func(ctx SpecContext) {
			setConfig(ctx, rolloutData(40, rolloutPolicy(true)))
			Eventually(configEvents(ctx, cm, corev1.EventTypeNormal, rollout.ReasonPaused)).
				Should(ContainElement(
					ContainSubstring("40 nodes pending keep their NodeSLO")))
			settle()
			writes.Reset()

			relabelled, edited := f.names[rolloutCanaries], f.names[rolloutCanaries+1]
			node := &corev1.Node{}
			Expect(k8sClient.Get(ctx, types.NamespacedName{Name: relabelled}, node)).To(Succeed())
			node.Labels = map[string]string{"zone": "b"} // a label no selector reads
			Expect(k8sClient.Update(ctx, node)).To(Succeed())
			slo := &slov1alpha1.NodeSLO{}
			Expect(getNodeSLO(ctx, edited, slo)).To(Succeed())
			slo.Spec.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent = new(int64(77))
			Expect(k8sClient.Update(ctx, slo)).To(Succeed())
			fresh := createNode(ctx, nil, nil)

			Eventually(specOf(ctx, fresh.Name)).
				Should(haveField(40.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
			Eventually(specOf(ctx, edited)).
				Should(haveField(50.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
					"the hand edit is put back to what the rollout holds, not to the target")
			settle()
			Expect(f.at(ctx, 40)).To(BeEmpty(), "no held node gets the paused configuration")
			Expect(f.at(ctx, 50)).To(HaveLen(rolloutNodes))
			Expect(writes.Succeeded(relabelled)).To(BeZero(), "a label no selector reads changes nothing")
			Expect(writes.Total()).To(Equal(2), "one write each: the edited node put back, the new one")
			Eventually(metric(controller.MetricRolloutPending)).Should(Equal(float64(rolloutNodes)))
		})

	// Simulator seeds 402 (a held node relabelled twice) and 2290 (relabelled,
	// the manager restarted, relabelled again). The configuration paused
	// first resolves alike to the one in force for the node under its first
	// new labels; only the configuration the NodeSLO was written from tells
	// them apart.
	It("keeps a held node on the configuration in force for it across relabels and a restart between two (issue 54)",
		func(ctx SpecContext) {
			pooled := func(cluster, batch int, paused bool) map[string]string {
				return pooledData(cluster, batch, rolloutPolicy(paused))
			}
			relabel := func(name, pool string) { relabelPool(ctx, name, pool) }
			// In force: 50, batch 30, which no node of the fleet is pending
			// for (none is labelled pool=batch). Then 40 (batch 30 still)
			// paused, then 45 (batch 35) paused: every node held on 50.
			setConfig(ctx, pooled(50, 30, false))
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			setConfig(ctx, pooled(40, 30, true))
			Eventually(metric(controller.MetricRolloutPending)).Should(Equal(float64(rolloutNodes)))
			setConfig(ctx, pooled(45, 35, true))
			Eventually(func() string { return record(ctx).Target }).ShouldNot(BeEmpty())
			settle()
			held := f.names[rolloutCanaries]
			relabel(held, "batch")
			Eventually(specOf(ctx, held)).
				Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
					"written with what the configuration in force for it gives batch nodes")
			// Simulator seed 402: relabelled again, the node written for its
			// first new labels stays on the configuration in force for it.
			relabel(held, "")
			Eventually(specOf(ctx, held)).
				Should(haveField(50.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
					"relabelled twice, back to the configuration in force for it, never the paused 40")
			relabel(held, "batch")
			Eventually(specOf(ctx, held)).
				Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))

			restartManager(ctx, func() {})
			relabel(held, "")

			Eventually(specOf(ctx, held)).
				Should(haveField(50.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
					"back to the configuration in force for it, never the paused 40")
			settle()
			Expect(f.at(ctx, 40)).To(BeEmpty(), "no node gets a paused configuration")
			Expect(f.at(ctx, 45)).To(BeEmpty())
			slo := &slov1alpha1.NodeSLO{}
			Expect(getNodeSLO(ctx, held, slo)).To(Succeed())
			Expect(slo.Annotations).To(HaveKeyWithValue(storedslo.ConfigurationAnnotation, Not(BeEmpty())))
		})

	// Simulator seeds 183 and 84465: a held node whose write with the
	// configuration in force for it (50) leaves it matching the target
	// (40) is not reached by that write. It stays held on 50, and its
	// NodeSLO's stamp names 50, so that held again by a newer change,
	// after a restart, its next labels still get 50's spec: 40, which
	// never reached it, may not (seed 84465: while halted).
	It("keeps a held node that its own write left matching the target on the configuration in force for it, "+
		"across a restart (issue 54)",
		func(ctx SpecContext) {
			held := f.names[rolloutCanaries]
			heldMatchingTheTarget(ctx, held)
			// 45 (batch 35) paused, then a restart: the new manager knows
			// only what is stored.
			setConfig(ctx, pooledData(45, 35, rolloutPolicy(true)))
			Eventually(metric(controller.MetricRolloutPending)).Should(Equal(float64(rolloutNodes)))
			settle()
			restartManager(ctx, func() {})
			relabelPool(ctx, held, "")
			Eventually(specOf(ctx, held)).Should(
				haveField(50.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
				"the configuration in force for it gives it 50; never 40, which never reached it, nor the paused 45")
			settle()
			Expect(f.at(ctx, 45)).To(BeEmpty(), "no node gets the paused configuration")
			Expect(f.at(ctx, 40)).To(BeEmpty(), "no node gets the configuration paused before")
		})

	// Simulator seed 80368: a held node relabelled so that the target gives
	// it what it stores is reached by a step without a write. Its NodeSLO's
	// stamp named the configuration in force for it before, so a manager
	// after a restart took it for held, and its next labels got that
	// configuration again. The step now writes its stamps alone.
	It("stamps a held node that a step reaches without a write with the target, so a restart does not hold it again "+
		"(seed 80368)",
		func(ctx SpecContext) {
			held := f.names[rolloutCanaries]
			paused40 := heldMatchingTheTarget(ctx, held)

			setConfig(ctx, pooledData(40, 30, rolloutPolicy(false)))
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			Eventually(func() string { return stampOf(ctx, held) }).Should(Equal(paused40),
				"reached by a step that changed nothing for it: its stamps name the target")
			Expect(specOf(ctx, held)()).To(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))

			restartManager(ctx, func() {})
			relabelPool(ctx, held, "")
			Eventually(specOf(ctx, held)).Should(haveField(40.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
				"reached by 40: relabelled after a restart, it gets 40, not 50 again")
		})

	// Simulator seed 2: a decision that saw a held node's new labels before
	// the NodeSLO reconciler wrote it looked for the node's base again,
	// found in its NodeSLO's stamp an older configuration that resolves the
	// new labels to what is stored, and so kept the node on the spec of its
	// old labels for good. Only the order of a loaded machine showed it in
	// the spec above; here the spec chooses that order.
	It("writes a held node relabelled before a decision with the configuration in force for it (issue 54, seed 2)",
		func(ctx SpecContext) {
			// The fleet's NodeSLOs name the set-up's configuration (50, no
			// batch pool), which the pools' 50 leaves as they are.
			pausedOverPools(ctx)
			held := f.names[rolloutCanaries]
			relabelBeforeADecision(ctx, held, "batch", f.names[rolloutCanaries+1])
			Eventually(specOf(ctx, held)).
				Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
					"written with what the configuration in force for it gives batch nodes, not left on 50")
			settle()
			Expect(f.at(ctx, 40)).To(BeEmpty(), "no node gets the paused configuration")
		})

	// Simulator seeds 10, 12 and 16: a node done by a paused change (it
	// matched the target), relabelled, was taken for pending by a decision
	// that saw its new labels before the NodeSLO reconciler wrote it, and
	// stayed held for as long as the pause lasted.
	It("writes a node done by a paused change, relabelled before a decision, with that change at once "+
		"(issue 54, seeds 10, 12, 16)",
		func(ctx SpecContext) {
			done := f.names[rolloutCanaries]
			setConfig(ctx, pooledData(50, 30, rolloutPolicy(false)))
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			relabelPool(ctx, done, "batch")
			Eventually(specOf(ctx, done)).
				Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
			// 40 (batch 30) paused: every node held on 50 but the batch
			// node, which matches it and is done.
			setConfig(ctx, pooledData(40, 30, rolloutPolicy(true)))
			Eventually(metric(controller.MetricRolloutPending)).Should(Equal(float64(rolloutNodes - 1)))
			settle()
			relabelBeforeADecision(ctx, done, "", f.names[rolloutCanaries+1])
			Eventually(specOf(ctx, done)).
				Should(haveField(40.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
					"done with the paused change, its new labels get that change at once, not a hold on 30")
			settle()
			Expect(f.at(ctx, 40)).To(ConsistOf(done), "no held node gets the paused configuration")
		})

	// A done rollout holds no node: a new manager knows nothing of the
	// last plan, so only the record tells it that a node differing from
	// the target was done before. Paused after it was done, a rollout that
	// took such a node for pending held it for as long as the pause lasted,
	// on the configuration before the target.
	It("writes a node relabelled while the manager was stopped, after its rollout was done and paused, "+
		"with the target (issue 54)", func(ctx SpecContext) {
		setConfig(ctx, pooledData(50, 30, rolloutPolicy(false)))
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		setConfig(ctx, pooledData(50, 30, rolloutPolicy(true)))
		settle()
		Expect(rolloutDone(ctx)).To(BeTrue(), "pausing a done rollout starts none")
		node := f.names[rolloutCanaries]

		stopManager()
		relabelPool(ctx, node, "batch")
		arrived, release := heldReconciles.hold(node)
		decided := rolloutReconciles()
		stopManager = startManager()
		Eventually(arrived).Should(BeClosed(), "the new manager never took up %s", node)
		Eventually(rolloutReconciles).Should(BeNumerically(">", decided), "the new manager never decided")
		testkit.Settle(controller.RolloutController)
		release()
		Eventually(specOf(ctx, node)).
			Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
				"the target's spec for batch nodes, not held on the set-up's 50")
		settle()
		Expect(f.at(ctx, 30)).To(ConsistOf(node))
	})

	// Simulator seeds 6303, 6330, 12471: changes made while a rollout held
	// nodes pushed the revision of the configuration in force for them
	// beyond revisionHistoryLimit; once pruned it was lost to a restart,
	// and a relabelled held node kept its NodeSLO rather than that
	// configuration's spec for its new labels.
	It("keeps the revision held nodes stay on beyond revisionHistoryLimit, across a restart, "+
		"and prunes it once no node is held on it (issue 54)", func(ctx SpecContext) {
		limited := func(paused bool) string {
			return strings.Replace(rolloutPolicy(paused), "{", `{"revisionHistoryLimit": 2, `, 1)
		}
		kept := func(g Gomega) []int {
			h, err := plugin.FetchHistory(ctx, k8sClient, historyRef)
			g.Expect(err).NotTo(HaveOccurred())
			thresholds := make([]int, 0, len(h.Revisions))
			for _, r := range h.Revisions {
				var data struct {
					ClusterStrategy struct{ CPUSuppressThresholdPercent int } `json:"clusterStrategy"`
				}
				g.Expect(json.Unmarshal([]byte(r.Data[string(sloconfig.KeyResourceThreshold)]), &data)).To(Succeed())
				thresholds = append(thresholds, data.ClusterStrategy.CPUSuppressThresholdPercent)
			}
			return thresholds
		}
		setConfig(ctx, pooledData(50, 30, limited(false)))
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		// Three paused changes: every node stays held on 50, whose
		// revision is now the oldest of four.
		for _, cluster := range []int{41, 42, 43} {
			setConfig(ctx, pooledData(cluster, 35, limited(true)))
			Eventually(kept).Should(ContainElement(cluster))
		}
		Eventually(kept).Should(Equal([]int{50, 42, 43}), "the limit of 2, and the revision held nodes stay on")

		held := f.names[rolloutCanaries]
		restartManager(ctx, func() {})
		relabelPool(ctx, held, "batch")
		Eventually(specOf(ctx, held)).
			Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
				"after the restart, written with what the configuration in force for it gives batch nodes, not 35")
		settle()
		Expect(f.at(ctx, 43)).To(BeEmpty(), "no node gets the paused configuration")

		setConfig(ctx, pooledData(43, 35, limited(false)))
		Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
		Eventually(kept).Should(HaveLen(2), "the rollout done, the history is back within its limit")
		Expect(kept(Default)).NotTo(ContainElement(50))
	})
})

// stagedRolloutSetUp puts 50 in force on a fleet under rolloutPolicy and
// waits until the rollout is done: the ConfigMap, the fleet and the
// fingerprint in force.
func stagedRolloutSetUp(ctx SpecContext) (*corev1.ConfigMap, fleet, string) {
	cm := setConfig(ctx, rolloutData(50, rolloutPolicy(false)))
	f := createFleet(ctx, 50)
	Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
	target := record(ctx).Target
	settle()
	writes.Reset()
	return cm, f, target
}

// pooledData is a ConfigMap's data setting the cpu suppress threshold of
// the cluster and of nodes labelled pool=batch, under policy.
func pooledData(cluster, batch int, policy string) map[string]string {
	return map[string]string{
		string(sloconfig.KeyResourceThreshold): fmt.Sprintf(`{"clusterStrategy": {"enable": true, `+
			`"cpuSuppressThresholdPercent": %d}, "nodeStrategies": [{"name": "batch", "nodeSelector": `+
			`{"matchLabels": {"pool": "batch"}}, "cpuSuppressThresholdPercent": %d}]}`, cluster, batch),
		string(sloconfig.KeyRollout): policy,
	}
}

// pausedOverPools puts 50 (batch 30) in force, then 40 (batch 30) paused:
// every node of the fleet, none a batch node, held on 50.
func pausedOverPools(ctx context.Context) {
	GinkgoHelper()
	setConfig(ctx, pooledData(50, 30, rolloutPolicy(false)))
	Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
	setConfig(ctx, pooledData(40, 30, rolloutPolicy(true)))
	Eventually(metric(controller.MetricRolloutPending)).Should(Equal(float64(rolloutNodes)))
	settle()
}

// heldMatchingTheTarget is pausedOverPools with the held node relabelled
// to the batch pool, for which 50 and the paused 40 both give 30: the gate
// writes it with 30 from 50, and it then matches the target without being
// reached. It returns the target's short fingerprint.
func heldMatchingTheTarget(ctx context.Context, held string) (paused40 string) {
	GinkgoHelper()
	pausedOverPools(ctx)
	paused40 = rollout.ShortTarget(record(ctx).Target)
	relabelPool(ctx, held, "batch")
	Eventually(specOf(ctx, held)).Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		"what 50 and 40 both give batch nodes")
	settle()
	Expect(stampOf(ctx, held)).NotTo(Equal(paused40),
		"stamped with the configuration in force for it, 50, not the paused target 40")
	return paused40
}

// stampOf is the configuration node's NodeSLO was last written from, as
// its storedslo.ConfigurationAnnotation names it.
func stampOf(ctx context.Context, node string) string {
	GinkgoHelper()
	slo := &slov1alpha1.NodeSLO{}
	Expect(getNodeSLO(ctx, node, slo)).To(Succeed())
	from, _ := storedslo.ParseConfiguration(slo.Annotations[storedslo.ConfigurationAnnotation])
	Expect(from).NotTo(BeEmpty(), "%s's NodeSLO names no configuration", node)
	return from
}

// relabelBeforeADecision relabels node (relabelPool) and has the rollout
// decide before the NodeSLO reconciler writes it: node's reconciles are
// held (reconcileHold) until trigger, a held node relabelled to the batch
// pool, has been written and the decision its write signals has run.
func relabelBeforeADecision(ctx context.Context, node, pool, trigger string) {
	GinkgoHelper()
	stored, err := specOf(ctx, node)()
	Expect(err).NotTo(HaveOccurred())
	arrived, release := heldReconciles.hold(node)
	defer release()
	relabelPool(ctx, node, pool)
	Eventually(arrived).Should(BeClosed(), "the NodeSLO controller never took up the relabel of %s", node)
	was, err := specOf(ctx, trigger)()
	Expect(err).NotTo(HaveOccurred())
	decided := rolloutReconciles()
	relabelPool(ctx, trigger, "batch")
	Eventually(specOf(ctx, trigger)).ShouldNot(Equal(was), "%s, held, was not written for its new labels", trigger)
	Eventually(rolloutReconciles).Should(BeNumerically(">", decided),
		"the write of held node %s did not make the rollout decide", trigger)
	testkit.Settle(controller.RolloutController)
	Expect(specOf(ctx, node)()).To(Equal(stored), "%s was written while its reconciles were held", node)
}

// relabelPool sets a Node's labels to pool=<pool> alone (none when pool is
// empty).
func relabelPool(ctx context.Context, name, pool string) {
	node := &corev1.Node{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: name}, node)).To(Succeed())
	node.Labels = map[string]string{}
	if pool != "" {
		node.Labels["pool"] = pool
	}
	Expect(k8sClient.Update(ctx, node)).To(Succeed())
}
