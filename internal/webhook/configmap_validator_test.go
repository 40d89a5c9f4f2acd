package webhook_test

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig/rulecases"
)

const (
	threshold = string(sloconfig.KeyResourceThreshold)
	hostApps  = string(sloconfig.KeyHostApplication)
	burst     = string(sloconfig.KeyCPUBurst)
	system    = string(sloconfig.KeySystem)
)

// good is a valid ConfigMap every case starts from (the same as
// internal/controller/badinput_test.go's).
var good = map[string]string{
	threshold: `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 55}}`,
	hostApps:  `{"applications": [{"name": "nginx", "qos": "LS"}]}`,
	burst:     `{"clusterStrategy": {"policy": "auto"}}`,
}

func with(key, value string) map[string]string {
	data := maps.Clone(good)
	data[key] = value
	return data
}

// expectDenied checks that err is the webhook's denial of data: Invalid,
// with every line `kubectl nodeslo validate` prints for data in its message
// and, as kubectl prints an Invalid error's causes ("FIELD: MESSAGE"), as its
// causes; and that a line starts with each of the KEY: PATH given.
func expectDenied(err error, data map[string]string, keyPaths ...string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "not an Invalid error: %v", err)
	Expect(err.Error()).To(ContainSubstring("denied the request"))
	want, _ := validateLines(data)
	Expect(want).NotTo(BeEmpty())
	for _, line := range want {
		Expect(err.Error()).To(ContainSubstring(line))
	}
	var status apierrors.APIStatus
	Expect(errors.As(err, &status)).To(BeTrue())
	Expect(status.Status().Details).NotTo(BeNil())
	printed := make([]string, 0, len(status.Status().Details.Causes))
	for _, c := range status.Status().Details.Causes {
		printed = append(printed, c.Field+": "+c.Message)
	}
	Expect(printed).To(Equal(want))
	for _, p := range keyPaths {
		Expect(printed).To(ContainElement(HavePrefix(p + ": ")))
	}
}

// docs/behaviour.md#bad-input ("Admission").
var _ = Describe("The ConfigMap webhook", func() {
	BeforeEach(func() { warnings.Take() })

	DescribeTable("denies a bad value, naming the key and the JSON path as kubectl nodeslo validate does",
		func(ctx SpecContext, key, bad, path string) {
			data := with(key, bad)
			expectDenied(putConfig(ctx, data), data, key+": "+path)
			Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName},
				&corev1.ConfigMap{})).To(Satisfy(apierrors.IsNotFound), "a denied ConfigMap was stored")

			// An update is denied the same way, and the stored value stays.
			Expect(putConfig(ctx, good)).To(Succeed())
			expectDenied(putConfig(ctx, data), data, key+": "+path)
			stored := &corev1.ConfigMap{}
			Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, stored)).
				To(Succeed())
			Expect(stored.Data).To(Equal(good))
		},
		// The corpus of internal/controller/badinput_test.go.
		Entry("a JSON type", threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": "high"}}`,
			"clusterStrategy.cpuSuppressThresholdPercent"),
		Entry("a bound", threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`,
			"clusterStrategy.cpuSuppressThresholdPercent"),
		Entry("a cross-field rule", threshold,
			`{"clusterStrategy": {"memoryEvictThresholdPercent": 70, "memoryEvictLowerPercent": 80}}`,
			"clusterStrategy.memoryEvictLowerPercent"),
		Entry("an enum value", threshold, `{"clusterStrategy": {"cpuSuppressPolicy": "sometimes"}}`,
			"clusterStrategy.cpuSuppressPolicy"),
		Entry("selector syntax", threshold,
			`{"nodeStrategies": [{"name": "x", "nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Maybe"}]}}]}`,
			"nodeStrategies[0].nodeSelector.matchExpressions[0].operator"),
		Entry("a node strategy without nodeSelector", threshold,
			`{"nodeStrategies": [{"name": "x", "cpuSuppressThresholdPercent": 30}]}`,
			"nodeStrategies[0].nodeSelector"),
		Entry("a host-application node config without nodeSelector", hostApps,
			`{"nodeConfigs": [{"name": "x", "applications": [{"name": "redis"}]}]}`,
			"nodeConfigs[0].nodeSelector"),
	)

	It("denies JSON syntax errors with the line and column", func(ctx SpecContext) {
		data := with(threshold, `{"clusterStrategy": {"enable": true,`)
		err := putConfig(ctx, data)
		expectDenied(err, data)
		Expect(err.Error()).To(ContainSubstring(threshold + ": Invalid value: invalid JSON at line 1, column 37"))
	})

	It("denies every invalid value of the rule table at its path and admits every valid one", func(ctx SpecContext) {
		cases := rulecases.EngineCases()
		Expect(cases).NotTo(BeEmpty())
		for _, c := range cases {
			bad := map[string]string{c.Section.Key: c.Document(c.Bad)}
			expectDenied(putConfig(ctx, bad), bad, c.Section.Key+": "+c.EnginePath())
			ok := map[string]string{c.Section.Key: c.Document(c.OK)}
			Expect(putConfig(ctx, ok)).To(Succeed(), "%s = %s", c.EnginePath(), c.OK)
		}
	})

	It("lists every error of every invalid key in one denial", func(ctx SpecContext) {
		data := with(threshold, `{"clusterStrategy": {"memoryEvictThresholdPercent": 70, "memoryEvictLowerPercent": 80},
			"nodeStrategies": [{"name": "x", "cpuSuppressThresholdPercent": 30}]}`)
		data[burst] = `{"clusterStrategy": {"policy": "sometimes"}}`
		expectDenied(putConfig(ctx, data), data,
			threshold+": clusterStrategy.memoryEvictLowerPercent",
			threshold+": nodeStrategies[0].nodeSelector",
			burst+": clusterStrategy.policy")
	})

	It("admits a valid ConfigMap without a warning", func(ctx SpecContext) {
		Expect(putConfig(ctx, good)).To(Succeed())
		Expect(warnings.Take()).To(BeEmpty())
	})

	It("admits oddities with the warnings kubectl nodeslo validate prints", func(ctx SpecContext) {
		data := with(threshold, `{"clusterStrategy": {"enable": true, "cpuSupressThresholdPercent": 30},
			"nodeStrategies": [{"name": "all", "nodeSelector": {}, "cpuSuppressThresholdPercent": 30}]}`)
		data["resource-qos-confg"] = `{}`
		binary := map[string][]byte{system: []byte(`{}`)}
		Expect(putConfigMap(ctx, configNamespace, configName, data, binary)).To(Succeed())

		_, want := validateLines(data)
		want = append(want, sloconfig.DataKeyWarnings(data, binary)...)
		got := warnings.Take()
		Expect(got).To(ConsistOf(want))
		Expect(got).To(ContainElements(
			And(ContainSubstring("clusterStrategy.cpuSupressThresholdPercent"),
				ContainSubstring(`did you mean "cpuSuppressThresholdPercent"`)),
			And(ContainSubstring("nodeStrategies[0].nodeSelector"), ContainSubstring("clusterStrategy")),
			ContainSubstring(`did you mean "resource-qos-config"`),
			ContainSubstring(`binaryData key "system-config" is ignored`),
		))
	})

	It("warns about node strategies of one key that match the same live nodes, naming five", func(ctx SpecContext) {
		overlapping := createNodes(ctx, 7, map[string]string{"a": "1", "b": "1"})
		createNodes(ctx, 2, map[string]string{"a": "1"})
		data := with(burst, `{"clusterStrategy": {"policy": "auto"}, "nodeStrategies": [
			{"name": "first", "nodeSelector": {"matchLabels": {"a": "1"}}, "policy": "cpuBurstOnly"},
			{"name": "second", "nodeSelector": {"matchLabels": {"b": "1"}}, "policy": "cfsQuotaBurstOnly"}]}`)

		// The manager's Node cache sees the new nodes shortly after they are created.
		Eventually(func(g Gomega) {
			g.Expect(putConfigAgain(ctx, data)).To(Succeed())
			g.Expect(warnings.Take()).To(ConsistOf(And(
				ContainSubstring(burst+": "), ContainSubstring(`"first"`), ContainSubstring(`"second"`),
				ContainSubstring("7 live nodes: "), ContainSubstring(" and 2 more"))))
		}).WithContext(ctx).Should(Succeed())

		// The names shown are of overlapping nodes, five of them.
		Expect(putConfigAgain(ctx, data)).To(Succeed())
		got := warnings.Take()
		Expect(got).To(HaveLen(1))
		named := 0
		for _, n := range overlapping {
			if strings.Contains(got[0], n) {
				named++
			}
		}
		Expect(named).To(Equal(5), got[0])
	})

	It("admits an update that leaves the data as stored at once, checking nothing against the cluster",
		func(ctx SpecContext) {
			createNodes(ctx, 3, map[string]string{"a": "1", "b": "1"})
			data := with(burst, `{"clusterStrategy": {"policy": "auto"}, "nodeStrategies": [
				{"name": "first", "nodeSelector": {"matchLabels": {"a": "1"}}, "policy": "cpuBurstOnly"},
				{"name": "second", "nodeSelector": {"matchLabels": {"b": "1"}}, "policy": "cfsQuotaBurstOnly"}]}`)
			// A change of the data is checked against the live nodes (the
			// manager's Node cache sees them shortly after they are created).
			Eventually(func(g Gomega) {
				g.Expect(putConfigAgain(ctx, data)).To(Succeed())
				g.Expect(warnings.Take()).To(ConsistOf(ContainSubstring("3 live nodes")))
			}).WithContext(ctx).Should(Succeed())

			// An annotation, as the controller writes its rollout record,
			// goes through the webhook and comes back without any check.
			cm := &corev1.ConfigMap{}
			Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, cm)).
				To(Succeed())
			before := webhookCalls()
			patch := client.MergeFrom(cm.DeepCopy())
			metav1.SetMetaDataAnnotation(&cm.ObjectMeta, "example.com/note", "metadata only")
			Expect(k8sClient.Patch(ctx, cm, patch)).To(Succeed())
			Eventually(webhookCalls).Should(BeNumerically(">", before))
			Expect(warnings.Take()).To(BeEmpty(), "the update was checked against the live nodes")
		})

	It("is not called for any other ConfigMap, on writes or deletions", func(ctx SpecContext) {
		Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere"}})).To(Succeed())
		bad := with(threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`)
		before := webhookCalls()

		Expect(putConfigMap(ctx, configNamespace, "another-config", bad, nil)).To(Succeed())
		Expect(putConfigMap(ctx, "elsewhere", configName, bad, nil)).To(Succeed())
		// Deleting them needs no annotation: only the configured one is protected.
		for _, key := range []types.NamespacedName{
			{Namespace: configNamespace, Name: "another-config"}, {Namespace: "elsewhere", Name: configName},
		} {
			Expect(k8sClient.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: key.Namespace, Name: key.Name}})).To(Succeed(), "deleting %s", key)
		}
		// The configured one is, once: the count moves for it and only for it.
		Expect(putConfig(ctx, good)).To(Succeed())
		Eventually(webhookCalls).Should(Equal(before + 1))
		Consistently(webhookCalls).Should(Equal(before + 1))
	})
})

// docs/behaviour.md#bad-input: the webhook is a convenience; the controller
// validates whatever it loads.
var _ = Describe("With the webhook down", Ordered, func() {
	It("a bad ConfigMap is admitted and the controller rejects it, keeping the last good value", func(ctx SpecContext) {
		// The NodeSLORollout, whose status says which ConfigMap the
		// controller decided on, is its operator's to create.
		rollout := &nodeslov1alpha1.NodeSLORollout{
			ObjectMeta: metav1.ObjectMeta{Namespace: configNamespace, Name: configName}}
		Expect(k8sClient.Create(ctx, rollout)).To(Succeed())
		DeferCleanup(k8sClient.Delete, rollout)
		Expect(putConfig(ctx, good)).To(Succeed())
		// The controller has decided on this ConfigMap, not only on the one
		// a spec before deleted (which may have held the same data).
		written := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, written)).
			To(Succeed())
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, obj)).
				To(Succeed())
			g.Expect(obj.Status.ObservedConfigMapVersion).To(Equal(written.ResourceVersion))
		}).WithContext(ctx).Should(Succeed())
		node := createNodes(ctx, 1, nil)[0]
		slo := &slov1alpha1.NodeSLO{}
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Name: node}, slo)).To(Succeed())
			g.Expect(slo.Spec.ResourceUsedThresholdWithBE).NotTo(BeNil())
			g.Expect(slo.Spec.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent).To(HaveValue(BeEquivalentTo(55)))
		}).WithContext(ctx).Should(Succeed())

		By("stopping the manager: the apiserver cannot reach the webhook")
		stopManager()
		stopManager = nil
		DeferCleanup(func() {
			if stopManager == nil {
				stopManager = startManager()
			}
		})
		bad := with(threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`)
		before := webhookCalls()
		Expect(putConfig(ctx, bad)).To(Succeed(), "failurePolicy Ignore admits it")
		Expect(webhookCalls()).To(Equal(before))
		cm := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, cm)).To(Succeed())
		Expect(cm.Data).To(Equal(bad))
		version := slo.ResourceVersion

		By("starting the manager again: the controller rejects the key and writes nothing")
		stopManager = startManager()
		Eventually(func(g Gomega) {
			events := &eventsv1.EventList{}
			g.Expect(k8sClient.List(ctx, events, client.InNamespace(configNamespace))).To(Succeed())
			var notes []string
			for _, e := range events.Items {
				if e.Regarding.UID == cm.UID && e.Reason == "InvalidConfig" {
					notes = append(notes, e.Note)
				}
			}
			g.Expect(notes).To(ContainElement(ContainSubstring(threshold + ": clusterStrategy.cpuSuppressThresholdPercent")))
		}).WithContext(ctx).Should(Succeed())
		Consistently(func(g Gomega) string {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Name: node}, slo)).To(Succeed())
			return slo.ResourceVersion
		}).WithContext(ctx).Should(Equal(version))

		By("with the webhook back, the stored invalid ConfigMap can be annotated and deleted, not changed")
		still := with(threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 160}}`)
		expectDenied(putConfig(ctx, still), still)
		warnings.Take()
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: configNamespace, Name: configName}, cm)).To(Succeed())
		Expect(annotateAllowDelete(ctx, cm, "true")).To(Succeed(), "a metadata-only update is admitted")
		Expect(warnings.Take()).To(BeEmpty(), "a metadata-only update is admitted at once, unchecked")
		Expect(k8sClient.Delete(ctx, cm)).To(Succeed())
	})
})

// docs/behaviour.md#node-strategies-and-their-nodes.
var _ = Describe("The ConfigMap webhook, on node strategies and live nodes", func() {
	BeforeEach(func() { warnings.Take() })

	It("warns about a node strategy that matches no live node, naming key, strategy and selector",
		func(ctx SpecContext) {
			pool := "pool-" + rand.String(6)
			createNodes(ctx, 2, map[string]string{"pool": pool})
			data := with(burst, fmt.Sprintf(`{"clusterStrategy": {"policy": "auto"}, "nodeStrategies": [
				{"name": "here", "nodeSelector": {"matchLabels": {"pool": %q}}, "policy": "cpuBurstOnly"},
				{"name": "typo", "nodeSelector": {"matchLabels": {"pool": "%s-x"}}, "policy": "cfsQuotaBurstOnly"}]}`,
				pool, pool))

			// The manager's Node cache sees the new nodes shortly after they are created.
			Eventually(func(g Gomega) {
				g.Expect(putConfigAgain(ctx, data)).To(Succeed())
				g.Expect(warnings.Take()).To(ConsistOf(fmt.Sprintf(
					`%s: nodeStrategies[1].nodeSelector: node strategy "typo" matches none of the %d nodes in the `+
						`cluster, so it applies to no node (selector: pool=%s-x)`, burst, nodeCount(ctx), pool)))
			}).WithContext(ctx).Should(Succeed())
		})
})
