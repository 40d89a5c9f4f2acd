package controller_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The table in docs/behaviour.md#triggers. Node create and delete, and
// NodeSLO spec change and delete, are proven in lifecycle_test.go.
var _ = Describe("What triggers a reconcile", Serial, func() {
	const goldThreshold = `{"clusterStrategy": {"enable": true},
	  "nodeStrategies": [{"name": "gold", "nodeSelector": {"matchLabels": {"tier": "gold"}},
	                      "cpuSuppressThresholdPercent": 40}]}`

	It("a label change moves a node to another node strategy and back", func(ctx SpecContext) {
		setConfig(ctx, map[string]string{string(sloconfig.KeyResourceThreshold): goldThreshold})
		node := createNode(ctx, map[string]string{tierLabel: "silver"}, nil)
		Eventually(specOf(ctx, node.Name)).Should(And(
			haveField(true, "resourceUsedThresholdWithBE", "enable"),
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		))

		node.Labels[tierLabel] = gold
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(specOf(ctx, node.Name)).
			Should(haveField(40.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))

		delete(node.Labels, tierLabel)
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(specOf(ctx, node.Name)).
			Should(haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
	})

	It("a bandwidth annotation change reaches the node's systemStrategy", func(ctx SpecContext) {
		setConfig(ctx, map[string]string{
			string(sloconfig.KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "500M"}}`,
		})
		node := createNode(ctx, nil, nil)
		Eventually(specOf(ctx, node.Name)).Should(haveField("500M", "systemStrategy", "totalNetworkBandwidth"))

		node.Annotations = map[string]string{sloconfig.NetworkBandwidthAnnotation: "10G"}
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(specOf(ctx, node.Name)).Should(haveField("10G", "systemStrategy", "totalNetworkBandwidth"))

		node.Annotations[sloconfig.NetworkBandwidthAnnotation] = "25G"
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(specOf(ctx, node.Name)).Should(haveField("25G", "systemStrategy", "totalNetworkBandwidth"))

		delete(node.Annotations, sloconfig.NetworkBandwidthAnnotation)
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(specOf(ctx, node.Name)).Should(haveField("500M", "systemStrategy", "totalNetworkBandwidth"))
	})

	It("a Node status or unrelated metadata change triggers no reconcile; a label change does", func(ctx SpecContext) {
		node := createNode(ctx, map[string]string{"zone": "a"}, nil)
		Eventually(nodeSLOOf(ctx, node.Name)).Should(Not(BeNil()))
		settle()
		before := reconciles()

		node.Status.Conditions = []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: corev1.ConditionTrue,
			LastHeartbeatTime: metav1.Now(), Reason: "KubeletReady",
		}}
		Expect(k8sClient.Status().Update(ctx, node)).To(Succeed())
		node.Annotations = map[string]string{"example.com/unrelated": "1"}
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Consistently(reconciles).Should(Equal(before))

		// The same counter does move for an input that matters.
		node.Labels["zone"] = "b"
		Expect(k8sClient.Update(ctx, node)).To(Succeed())
		Eventually(reconciles).Should(BeNumerically(">", before))
	})

	It("a ConfigMap change reaches every NodeSLO, each node reconciled once", func(ctx SpecContext) {
		nodes := []*corev1.Node{createNode(ctx, nil, nil), createNode(ctx, nil, nil), createNode(ctx, nil, nil)}
		for _, n := range nodes {
			Eventually(specOf(ctx, n.Name)).Should(haveField("none", "cpuBurstStrategy", "policy"))
		}
		settle()
		changes, before := configChanges(), reconciles()
		all := &corev1.NodeList{}
		Expect(k8sClient.List(ctx, all)).To(Succeed())

		setConfig(ctx, map[string]string{
			string(sloconfig.KeyCPUBurst): `{"clusterStrategy": {"policy": "auto", "cpuBurstPercent": 500}}`,
		})
		for _, n := range nodes {
			Eventually(specOf(ctx, n.Name)).Should(And(
				haveField("auto", "cpuBurstStrategy", "policy"),
				haveField(500.0, "cpuBurstStrategy", "cpuBurstPercent"),
			))
		}
		Expect(configChanges()).To(Equal(changes + 1))
		Expect(metricSeries(controller.MetricConfigInfo)).To(HaveLen(1), "one fingerprint in force")
		// One reconcile per node: neither the echo of the controller's own
		// write nor a second request for the same node costs another.
		settle()
		Expect(reconciles()-before).To(BeEquivalentTo(len(all.Items)), "reconciles for %d nodes", len(all.Items))
	})

	It("a ConfigMap change that leaves the effective configuration alone reconciles no node", func(ctx SpecContext) {
		setConfig(ctx, map[string]string{
			string(sloconfig.KeyCPUBurst): autoBurst,
		})
		node := createNode(ctx, nil, nil)
		Eventually(specOf(ctx, node.Name)).Should(haveField("auto", "cpuBurstStrategy", "policy"))
		settle()
		before, changes := reconciles(), configChanges()

		// Other controllers' keys and a reformatted value change the
		// ConfigMap, not what any node gets.
		setConfig(ctx, map[string]string{
			string(sloconfig.KeyCPUBurst): "{\n  \"clusterStrategy\": {\"policy\": \"auto\"}\n}",
			"colocation-config":           `{"enable": true}`,
		})
		Consistently(reconciles).Should(Equal(before))
		Expect(configChanges()).To(Equal(changes))
	})

	It("deleting the ConfigMap brings every NodeSLO back to the defaults", func(ctx SpecContext) {
		setConfig(ctx, map[string]string{string(sloconfig.KeyResourceThreshold): goldThreshold})
		node := createNode(ctx, map[string]string{tierLabel: gold}, nil)
		Eventually(specOf(ctx, node.Name)).
			Should(haveField(40.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))

		deleteConfig(ctx)
		Eventually(specOf(ctx, node.Name)).Should(And(
			haveField(false, "resourceUsedThresholdWithBE", "enable"),
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		))
	})
})
