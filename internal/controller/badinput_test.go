package controller_test

import (
	"maps"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// docs/behaviour.md#bad-input.
var _ = Describe("Bad input", Serial, func() {
	const (
		threshold = string(sloconfig.KeyResourceThreshold)
		hostApps  = string(sloconfig.KeyHostApplication)
		burst     = string(sloconfig.KeyCPUBurst)
		system    = string(sloconfig.KeySystem)
	)
	// good is a valid ConfigMap every bad-input case starts from.
	good := map[string]string{
		threshold: suppressAt55,
		hostApps:  `{"applications": [{"name": "nginx", "qos": "LS"}]}`,
		burst:     autoBurst,
	}
	with := func(key, value string) map[string]string {
		data := maps.Clone(good)
		data[key] = value
		return data
	}
	inForce := And(
		haveField(55.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		haveField("nginx", "hostApplications", "0", "name"),
		haveField("auto", "cpuBurstStrategy", "policy"),
	)

	DescribeTable("a rejected key is reported and changes no NodeSLO until it is fixed",
		func(ctx SpecContext, key, bad, fix string, fixed gomegatypes.GomegaMatcher, inMessage ...string) {
			cm := setConfig(ctx, good)
			nodes := []string{createNode(ctx, nil, nil).Name, createNode(ctx, nil, nil).Name}
			for _, n := range nodes {
				Eventually(specOf(ctx, n)).Should(inForce)
			}
			settle()
			before := resourceVersions(ctx, nodes...)

			setConfig(ctx, with(key, bad))

			want := make([]gomegatypes.GomegaMatcher, 0, 2+len(inMessage))
			want = append(want, ContainSubstring(key+": "), ContainSubstring("last good value stays in force"))
			for _, s := range inMessage {
				want = append(want, ContainSubstring(s))
			}
			Eventually(configWarnings(ctx, cm, controller.ReasonInvalidConfig)).Should(ContainElement(And(want...)))
			Expect(configInvalid(sloconfig.Key(key))()).To(Equal(1.0))
			for _, other := range sloconfig.Keys {
				if string(other) != key {
					Expect(configInvalid(other)()).To(Equal(0.0), string(other))
				}
			}
			Consistently(func() map[string]string { return resourceVersions(ctx, nodes...) }).Should(Equal(before))

			setConfig(ctx, with(key, fix))
			Eventually(configInvalid(sloconfig.Key(key))).Should(Equal(0.0))
			for _, n := range nodes {
				Eventually(specOf(ctx, n)).Should(fixed)
			}
		},
		Entry("JSON syntax", threshold, `{"clusterStrategy": {"enable": true,`,
			`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 45}}`,
			haveField(45.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			"invalid JSON at line 1"),
		Entry("a JSON type", threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": "high"}}`,
			`{"clusterStrategy": {"cpuSuppressThresholdPercent": 45}}`,
			haveField(45.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			"clusterStrategy.cpuSuppressThresholdPercent", "must be an integer"),
		Entry("a bound", threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`,
			`{"clusterStrategy": {"cpuSuppressThresholdPercent": 45}}`,
			haveField(45.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			"clusterStrategy.cpuSuppressThresholdPercent", "150"),
		Entry("a cross-field rule", threshold,
			`{"clusterStrategy": {"memoryEvictThresholdPercent": 70, "memoryEvictLowerPercent": 80}}`,
			`{"clusterStrategy": {"memoryEvictThresholdPercent": 70, "memoryEvictLowerPercent": 60}}`,
			haveField(60.0, "resourceUsedThresholdWithBE", "memoryEvictLowerPercent"),
			"clusterStrategy.memoryEvictLowerPercent", "memoryEvictThresholdPercent"),
		Entry("an enum value", threshold, `{"clusterStrategy": {"cpuSuppressPolicy": "sometimes"}}`,
			`{"clusterStrategy": {"cpuSuppressPolicy": "cfsQuota"}}`,
			haveField("cfsQuota", "resourceUsedThresholdWithBE", "cpuSuppressPolicy"),
			"clusterStrategy.cpuSuppressPolicy", `"sometimes"`),
		Entry("selector syntax", threshold,
			`{"nodeStrategies": [{"name": "x", "nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Maybe"}]}}]}`,
			`{"nodeStrategies": [{"name": "x", "nodeSelector": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}}]}`,
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			"nodeStrategies[0].nodeSelector.matchExpressions[0].operator", `"Maybe"`),
		Entry("a node strategy without nodeSelector", threshold,
			`{"nodeStrategies": [{"name": "x", "cpuSuppressThresholdPercent": 30}]}`,
			`{"nodeStrategies": [{"name": "x", "nodeSelector": {"matchLabels": {"x": "1"}},
				"cpuSuppressThresholdPercent": 30}]}`,
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
			"nodeStrategies[0].nodeSelector", "Required value"),
		Entry("a host-application node config without nodeSelector", hostApps,
			`{"nodeConfigs": [{"name": "x", "applications": [{"name": "redis"}]}]}`,
			`{"applications": [{"name": "redis"}]}`,
			haveField("redis", "hostApplications", "0", "name"),
			"nodeConfigs[0].nodeSelector", "Required value"),
	)

	It("reports every error of every rejected key, one Event per key", func(ctx SpecContext) {
		data := with(threshold, `{"clusterStrategy": {"memoryEvictThresholdPercent": 70, "memoryEvictLowerPercent": 80},
			"nodeStrategies": [{"name": "x", "cpuSuppressThresholdPercent": 30}]}`)
		data[burst] = `{"clusterStrategy": {"policy": "sometimes"}}`
		cm := setConfig(ctx, data)

		Eventually(configWarnings(ctx, cm, controller.ReasonInvalidConfig)).
			Should(ContainElements(
				And(ContainSubstring(threshold+": clusterStrategy.memoryEvictLowerPercent"),
					ContainSubstring(threshold+": nodeStrategies[0].nodeSelector")),
				And(ContainSubstring(burst+": clusterStrategy.policy"), ContainSubstring(`"sometimes"`)),
			))
	})

	It("leaves the good keys of the same ConfigMap in force", func(ctx SpecContext) {
		setConfig(ctx, good)
		node := createNode(ctx, nil, nil)
		Eventually(specOf(ctx, node.Name)).Should(inForce)

		data := with(threshold, `{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}`)
		data[burst] = `{"clusterStrategy": {"policy": "cpuBurstOnly"}}`
		setConfig(ctx, data)

		Eventually(specOf(ctx, node.Name)).Should(haveField("cpuBurstOnly", "cpuBurstStrategy", "policy"))
		Expect(specOf(ctx, node.Name)()).To(haveField(55.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
		Expect(configInvalid(sloconfig.KeyResourceThreshold)()).To(Equal(1.0))
		Expect(configInvalid(sloconfig.KeyCPUBurst)()).To(Equal(0.0))
	})

	It("accepts an empty selector with a warning that the values belong in clusterStrategy", func(ctx SpecContext) {
		cm := setConfig(ctx, with(threshold,
			`{"nodeStrategies": [{"name": "all", "nodeSelector": {}, "cpuSuppressThresholdPercent": 30}]}`))
		node := createNode(ctx, nil, nil)

		Eventually(specOf(ctx, node.Name)).
			Should(haveField(30.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
		Eventually(configWarnings(ctx, cm, controller.ReasonConfigWarning)).
			Should(ContainElement(And(ContainSubstring(threshold+": "), ContainSubstring("nodeStrategies[0].nodeSelector"),
				ContainSubstring("clusterStrategy"))))
		Expect(configInvalid(sloconfig.KeyResourceThreshold)()).To(Equal(0.0))
	})

	It("accepts an unknown field with a warning naming the closest known one, once", func(ctx SpecContext) {
		cm := setConfig(ctx, with(threshold, `{"clusterStrategy": {"enable": true, "cpuSupressThresholdPercent": 30}}`))
		node := createNode(ctx, nil, nil)

		Eventually(specOf(ctx, node.Name)).Should(And(
			haveField(true, "resourceUsedThresholdWithBE", "enable"),
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		))
		warned := ContainElement(And(ContainSubstring("clusterStrategy.cpuSupressThresholdPercent"),
			ContainSubstring(`did you mean "cpuSuppressThresholdPercent"`)))
		Eventually(configWarnings(ctx, cm, controller.ReasonConfigWarning)).Should(warned)
		Expect(configInvalid(sloconfig.KeyResourceThreshold)()).To(Equal(0.0))

		// A change of another key reloads the ConfigMap and changes the
		// configuration in force, but not what there is to warn about: no
		// Warning is recorded again, neither as a new Event (the ConfigMap
		// changed, so a repeat would not join the old one's series) nor as
		// a series.
		Eventually(recordedEvents(ctx, configNamespace, cm, controller.ReasonConfigWarning)).
			Should(BeNumerically(">", 0))
		before := recordedEvents(ctx, configNamespace, cm, controller.ReasonConfigWarning)()
		changes := configChanges()
		data := with(threshold, `{"clusterStrategy": {"enable": true, "cpuSupressThresholdPercent": 30}}`)
		data[burst] = `{"clusterStrategy": {"policy": "cpuBurstOnly"}}`
		setConfig(ctx, data)
		Eventually(configChanges).Should(BeNumerically(">", changes))
		Consistently(recordedEvents(ctx, configNamespace, cm, controller.ReasonConfigWarning)).Should(Equal(before))
	})

	It("warns about a misspelt key and a key under binaryData, not about other controllers' keys", func(ctx SpecContext) {
		data := maps.Clone(good)
		data["resource-threshold-confg"] = `{"clusterStrategy": {"enable": false}}`
		data["colocation-config"] = `{"enable": true}`
		cm := setConfig(ctx, data)
		cm.BinaryData = map[string][]byte{system: []byte(`{"clusterStrategy": {"totalNetworkBandwidth": "1G"}}`)}
		Expect(k8sClient.Update(ctx, cm)).To(Succeed())

		Eventually(configWarnings(ctx, cm, controller.ReasonConfigWarning)).
			Should(ContainElement(And(
				ContainSubstring(`"resource-threshold-confg"`), ContainSubstring(`did you mean "resource-threshold-config"`),
				ContainSubstring(`binaryData key "system-config" is ignored`))))
		Consistently(configWarnings(ctx, cm, controller.ReasonConfigWarning)).
			ShouldNot(ContainElement(ContainSubstring("colocation-config")))
		Expect(configInvalid(sloconfig.KeyResourceThreshold)()).To(Equal(0.0))
	})

	It("warns on the Node when it matches more than one node strategy; the first wins", func(ctx SpecContext) {
		setConfig(ctx, with(burst, `{"clusterStrategy": {"policy": "auto"}, "nodeStrategies": [
			{"name": "first", "nodeSelector": {"matchLabels": {"a": "1"}}, "policy": "cpuBurstOnly"},
			{"name": "second", "nodeSelector": {"matchLabels": {"b": "1"}}, "policy": "cfsQuotaBurstOnly"}]}`))
		node := createNode(ctx, map[string]string{"a": "1", "b": "1"}, nil)

		Eventually(specOf(ctx, node.Name)).Should(haveField("cpuBurstOnly", "cpuBurstStrategy", "policy"))
		Eventually(nodeWarnings(ctx, node, sloconfig.ReasonMultipleNodeStrategies)).
			Should(ContainElement(And(ContainSubstring(burst), ContainSubstring(`"first"`), ContainSubstring(`"second"`))))

		// Reconciled again with the same warnings: none is recorded again,
		// neither as a new Event (the Node changed) nor as a series.
		before := recordedEvents(ctx, metav1.NamespaceDefault, node, sloconfig.ReasonMultipleNodeStrategies)()
		reconciled := reconciles()
		node.Labels["unrelated"] = "x"
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(reconciles).Should(BeNumerically(">", reconciled))
		Consistently(recordedEvents(ctx, metav1.NamespaceDefault, node, sloconfig.ReasonMultipleNodeStrategies)).
			Should(Equal(before))
	})

	It("ignores a bad bandwidth annotation, warning on the Node; the strategy's value stays", func(ctx SpecContext) {
		setConfig(ctx, with(system, `{"clusterStrategy": {"totalNetworkBandwidth": "500M"}}`))
		node := createNode(ctx, nil, map[string]string{sloconfig.NetworkBandwidthAnnotation: "lots"})

		Eventually(specOf(ctx, node.Name)).Should(haveField("500M", "systemStrategy", "totalNetworkBandwidth"))
		Eventually(nodeWarnings(ctx, node, sloconfig.ReasonInvalidNetworkBandwidth)).
			Should(ContainElement(And(ContainSubstring(sloconfig.NetworkBandwidthAnnotation), ContainSubstring(`"lots"`))))

		node.Annotations[sloconfig.NetworkBandwidthAnnotation] = "2G"
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(specOf(ctx, node.Name)).Should(haveField("2G", "systemStrategy", "totalNetworkBandwidth"))
	})
})

// recordedEvents counts the times an Event with reason was recorded about
// obj: one per Event object, or its series count when it has a series.
func recordedEvents(ctx SpecContext, namespace string, obj client.Object, reason string) func() int {
	return func() int {
		list := &eventsv1.EventList{}
		Expect(k8sClient.List(ctx, list, client.InNamespace(namespace))).To(Succeed())
		n := 0
		for _, e := range list.Items {
			if e.Regarding.UID != obj.GetUID() || e.Reason != reason {
				continue
			}
			if e.Series != nil {
				n += int(e.Series.Count)
			} else {
				n++
			}
		}
		return n
	}
}
