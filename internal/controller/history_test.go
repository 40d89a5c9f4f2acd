package controller_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/plugin"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The revision history and undo (docs/rollout.md#revision-history-and-undo)
// against a real apiserver, with the kubectl plugin's own functions: three
// changes make three revisions, an undo puts the first back byte for byte
// and rolls it out in steps as a fourth.

var historyRef = plugin.ConfigMapRef{Namespace: configNamespace, Name: configName}

// history reads the revision history as `kubectl nodeslo rollout history` does.
func history(ctx context.Context) plugin.History {
	h, err := plugin.FetchHistory(ctx, k8sClient, historyRef)
	Expect(err).NotTo(HaveOccurred())
	return h
}

// rolloutState is the NodeSLORollout's status as the specs read it.
type rolloutState struct {
	// Status is the status (nil: none yet); takenUp says whether it was
	// decided on the ConfigMap as it stands and the spec as it is.
	Status  *nodeslov1alpha1.NodeSLORolloutStatus
	takenUp bool
}

// TakenUp reports whether the status is about the ConfigMap as it stands.
func (s rolloutState) TakenUp() bool { return s.takenUp }

// Done reports whether the status is taken up and nothing is left to wait for.
func (s rolloutState) Done() bool { return s.takenUp && rollout.StatusDone(s.Status) }

// timeOf is a status time, in UTC (zero: the status holds none).
func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// statusInForce reads the NodeSLORollout's status and the ConfigMap's
// version, as `kubectl nodeslo rollout status` does.
func statusInForce(ctx context.Context) (rolloutState, error) {
	key := types.NamespacedName{Namespace: configNamespace, Name: configName}
	cm, obj := &corev1.ConfigMap{}, &nodeslov1alpha1.NodeSLORollout{}
	if err := k8sClient.Get(ctx, key, cm); client.IgnoreNotFound(err) != nil {
		return rolloutState{}, err
	}
	if err := k8sClient.Get(ctx, key, obj); err != nil {
		return rolloutState{}, client.IgnoreNotFound(err)
	}
	if obj.Status.Phase == "" {
		return rolloutState{}, nil
	}
	return rolloutState{Status: &obj.Status, takenUp: obj.Status.ObservedConfigMapVersion == cm.ResourceVersion &&
		obj.Status.ObservedGeneration == obj.Generation}, nil
}

// rolloutDone reports whether the controller decided on the ConfigMap as
// it stands and its rollout record says done: a record alone may be the
// one of the ConfigMap before (the NodeSLORollout outlives it).
func rolloutDone(ctx context.Context) bool {
	st, err := statusInForce(ctx)
	Expect(err).NotTo(HaveOccurred())
	return st.TakenUp() && record(ctx).Done
}

// rolloutObject0 is an empty NodeSLORollout to read into.
func rolloutObject0() *nodeslov1alpha1.NodeSLORollout { return &nodeslov1alpha1.NodeSLORollout{} }

// rolloutObject reads the NodeSLORollout.
func rolloutObject(ctx context.Context) *nodeslov1alpha1.NodeSLORollout {
	obj := &nodeslov1alpha1.NodeSLORollout{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, obj)).To(Succeed())
	return obj
}

// newestRevision is the number of the revision in force (0: none).
func newestRevision(ctx context.Context) func() int64 {
	return func() int64 {
		if r := history(ctx).InForce(); r != nil {
			return r.Number
		}
		return 0
	}
}

// matching lists the fleet's nodes whose NodeSLO is what data resolves to
// (the configurations here have no node strategies, so labels do not matter).
func (f fleet) matching(ctx context.Context, data map[string]string) []string {
	cfg := sloconfig.Load(data, nil)
	list := &slov1alpha1.NodeSLOList{}
	Expect(k8sClient.List(ctx, list)).To(Succeed())
	stored := map[string]*slov1alpha1.NodeSLOSpec{}
	for i := range list.Items {
		stored[list.Items[i].Name] = &list.Items[i].Spec
	}
	var out []string
	for _, name := range f.names {
		if spec := stored[name]; spec != nil {
			want := cfg.Resolve(sloconfig.Node{Name: name}, spec)
			if sloconfig.SpecEqual(spec, &want.Spec) {
				out = append(out, name)
			}
		}
	}
	return out
}

var _ = Describe("The revision history", Serial, Label(shardRollout), func() {
	It("keeps each configuration put in force; an undo writes one back byte for byte and rolls it out in steps",
		func(ctx SpecContext) {
			setConfig(ctx, rolloutData(50, rolloutPolicy(false)))
			f := createFleet(ctx, 50)
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			Eventually(newestRevision(ctx)).ShouldNot(BeZero())
			base := newestRevision(ctx)()

			// Three changes, one key each: the threshold, then CPU burst, then system.
			first := rolloutData(45, rolloutPolicy(false))
			second := maps.Clone(first)
			second[string(sloconfig.KeyCPUBurst)] = `{"clusterStrategy": {"policy": "cfsQuotaBurstOnly"}}`
			third := maps.Clone(second)
			third[string(sloconfig.KeySystem)] = "{\n  \"clusterStrategy\": {\"minFreeKbytesFactor\": 150}\n}"
			for i, data := range []map[string]string{first, second, third} {
				setConfig(ctx, data)
				Eventually(newestRevision(ctx)).Should(Equal(base + int64(i+1)))
			}
			Eventually(aSecondALook(func() []string { return f.matching(ctx, third) })).WithTimeout(rolloutWait).
				Should(HaveLen(rolloutNodes))
			Eventually(func() rollout.Outcome { return history(ctx).InForce().Outcome }).Should(Equal(rollout.OutcomeCompleted))

			h := history(ctx)
			three := h.Revisions[len(h.Revisions)-3:]
			previous := h.Revisions[len(h.Revisions)-4]
			Expect(rollout.ChangedKeys(previous.Data, three[0].Data)).To(Equal([]string{string(sloconfig.KeyResourceThreshold)}))
			Expect(rollout.ChangedKeys(three[0].Data, three[1].Data)).To(Equal([]string{string(sloconfig.KeyCPUBurst)}))
			Expect(rollout.ChangedKeys(three[1].Data, three[2].Data)).To(Equal([]string{string(sloconfig.KeySystem)}))
			Expect([]rollout.Outcome{three[0].Outcome, three[1].Outcome, three[2].Outcome}).To(Equal(
				[]rollout.Outcome{rollout.OutcomeSuperseded, rollout.OutcomeSuperseded, rollout.OutcomeCompleted}))
			Expect(three[2].Reached).To(Equal(rolloutNodes))
			for _, r := range three {
				Expect(r.ChangedBy).NotTo(BeEmpty(), "revision %d names who changed the ConfigMap", r.Number)
			}
			var listing bytes.Buffer
			Expect(h.Write(&listing, time.Now())).To(Succeed())
			Expect(listing.String()).To(And(
				MatchRegexp(`(?m)^%d .*resource-threshold-config .*Superseded`, three[0].Number),
				MatchRegexp(`(?m)^%d .*cpu-burst-config .*Superseded`, three[1].Number),
				MatchRegexp(`(?m)^%d .*system-config .*40 +Completed \(in force\)`, three[2].Number)))

			// A dry run writes nothing.
			cmKey := types.NamespacedName{Namespace: configNamespace, Name: configName}
			before := &corev1.ConfigMap{}
			Expect(k8sClient.Get(ctx, cmKey, before)).To(Succeed())
			var out, errOut bytes.Buffer
			Expect(plugin.Undo(ctx, k8sClient, historyRef, three[0].Number, plugin.DryRunClient, &out, &errOut)).To(Succeed())
			Expect(out.String()).To(ContainSubstring("dry run: nothing written"))
			Expect(out.String()).To(MatchRegexp(`spec.cpuBurstStrategy.policy: "cfsQuotaBurstOnly" -> "none"`))
			after := &corev1.ConfigMap{}
			Expect(k8sClient.Get(ctx, cmKey, after)).To(Succeed())
			Expect(after.ResourceVersion).To(Equal(before.ResourceVersion))

			// The undo: revision 1 of the three, byte for byte, in steps.
			target := record(ctx).Target
			strategyGeneration := rolloutObject(ctx).Generation
			settle()
			writes.Reset()
			Expect(plugin.Undo(ctx, k8sClient, historyRef, three[0].Number, plugin.DryRunNone, &out, &errOut)).To(Succeed())
			Expect(k8sClient.Get(ctx, cmKey, after)).To(Succeed())
			for _, k := range sloconfig.Keys {
				want, ok := three[0].Data[string(k)]
				got, has := after.Data[string(k)]
				Expect(has).To(Equal(ok), "key %s", k)
				Expect(got).To(Equal(want), "key %s byte for byte", k)
			}
			Expect(rolloutObject(ctx).Generation).To(Equal(strategyGeneration), "the strategy is left as it is")
			watchRolloutTo(ctx, f, target, func() []string { return f.matching(ctx, first) }, nil)
			Eventually(func() bool { return rolloutDone(ctx) }).Should(BeTrue())
			Expect(record(ctx).Steps).To(Equal(rolloutSteps), "the undo rolled out in the steps of the rollout key")
			settle()
			for _, n := range f.names {
				Expect(writes.Succeeded(n)).To(Equal(1), "node %s written once", n)
			}

			Eventually(func() rollout.Outcome { return history(ctx).InForce().Outcome }).Should(Equal(rollout.OutcomeCompleted))
			fourth := *history(ctx).InForce()
			Expect(fourth.Number).To(Equal(three[2].Number + 1))
			Expect(fourth.Data).To(Equal(three[0].Data))
			Expect(fourth.ChangedBy).To(Equal("kubectl-nodeslo"))
			Expect(fourth.ChangeCause).To(Equal(fmt.Sprintf("kubectl nodeslo rollout undo --to-revision=%d", three[0].Number)))

			in, err := plugin.FetchExplainInputs(ctx, k8sClient, f.names[0], cmKey)
			Expect(err).NotTo(HaveOccurred())
			Expect(plugin.Explain(in).Revision).To(Equal(fourth.Number), "explain names the revision the node matches")
		})

	It("records a configuration put in force under a strategy over 128 KiB with a 200 KiB change-cause, "+
		"the strategy refused and both bounded in the revision", func(ctx SpecContext) {
		setConfig(ctx, rolloutData(35, ""))
		Eventually(newestRevision(ctx)).ShouldNot(BeZero())
		n := newestRevision(ctx)()

		// What whoever writes the ConfigMap may write, a change-cause of
		// 200 KiB, and the NodeSLORollout's strategy, which the schema
		// bounds in all but a label selector: one of some 280 KiB.
		cmKey := types.NamespacedName{Namespace: configNamespace, Name: configName}
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cm := &corev1.ConfigMap{}
			if err := k8sClient.Get(ctx, cmKey, cm); err != nil {
				return err
			}
			cm.Annotations = map[string]string{rollout.ChangeCauseAnnotation: strings.Repeat("why ", 50<<10)}
			return k8sClient.Update(ctx, cm)
		})).To(Succeed())
		labels := make([]string, 5000)
		for i := range labels {
			labels[i] = fmt.Sprintf("%q: %q", fmt.Sprintf("label-%04d", i), strings.Repeat("v", 40))
		}
		huge := `{"canary": {"nodeSelector": {"matchLabels": {` + strings.Join(labels, ", ") + `}}}}`
		setConfig(ctx, rolloutData(30, huge))

		Eventually(newestRevision(ctx)).Should(Equal(n+1), "the revision was created")
		r := history(ctx).InForce()
		Expect(r.Data[string(sloconfig.KeyResourceThreshold)]).To(ContainSubstring("30"))
		Expect(r.RolloutKey).To(MatchRegexp(`^\(not kept: the strategy was \d+ bytes, more than the 131072 allowed\)$`))
		Expect(len(r.ChangeCause)).To(BeNumerically("<=", rollout.MaxChangeCause))
		Expect(r.ChangeCause).To(HaveSuffix("(cut at 1024 bytes)"))
		Eventually(invalidStrategyEvents(ctx)).Should(ContainElement(And(
			ContainSubstring("spec.strategy: Too long: "),
			MatchRegexp(`the value is \d+ bytes, more than the 131072 allowed`))))
	})

	It("adds no revision when a restarted manager finds the configuration in force recorded", func(ctx SpecContext) {
		setConfig(ctx, rolloutData(35, ""))
		Eventually(func() string {
			if r := history(ctx).InForce(); r != nil {
				return r.Data[string(sloconfig.KeyResourceThreshold)]
			}
			return ""
		}).Should(ContainSubstring("35"))
		n := newestRevision(ctx)()
		Expect(history(ctx).InForce().Outcome).To(Equal(rollout.OutcomeAllAtOnce))
		Eventually(func(g Gomega) {
			st := rolloutObject(ctx).Status
			g.Expect(st.Phase).To(BeEquivalentTo(rollout.PhaseAllAtOnce))
			g.Expect(st.Revision).To(Equal(n), "the status names the revision in force")
		}).Should(Succeed())
		settle()
		written := rolloutObject(ctx).ResourceVersion
		stopManager()
		stopManager = startManager()
		settle()
		Consistently(newestRevision(ctx)).WithTimeout(3 * time.Second).Should(Equal(n))
		Expect(rolloutObject(ctx).ResourceVersion).To(Equal(written), "nor is the status written again")
	})
})
