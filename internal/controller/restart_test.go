package controller_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// A restart must not disturb the cluster: these tests stop the suite's
// manager and start a new one over the same apiserver.
var _ = Describe("A restarted manager", Serial, func() {
	restart := restartManager

	It("performs zero writes over unchanged inputs", func(ctx SpecContext) {
		setConfig(ctx, map[string]string{
			string(sloconfig.KeyResourceThreshold): `{"clusterStrategy": {"enable": true}, "nodeStrategies": [
				{"name": "gold", "nodeSelector": {"matchLabels": {"tier": "gold"}}, "cpuSuppressThresholdPercent": 40}]}`,
			string(sloconfig.KeySystem):          `{"clusterStrategy": {"totalNetworkBandwidth": "1000M"}}`,
			string(sloconfig.KeyHostApplication): `{"applications": [{"name": "nginx", "qos": "LS"}]}`,
		})
		gold := createNode(ctx, map[string]string{tierLabel: gold}, nil)
		plain := createNode(ctx, nil, map[string]string{sloconfig.NetworkBandwidthAnnotation: "10G"})
		Eventually(specOf(ctx, gold.Name)).
			Should(haveField(40.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
		Eventually(specOf(ctx, plain.Name)).Should(haveField("10G", "systemStrategy", "totalNetworkBandwidth"))
		settle()
		before := allResourceVersions(ctx)
		reconciled := reconciles()

		restart(ctx, func() {})

		Consistently(writes.Total).Should(BeZero())
		Expect(allResourceVersions(ctx)).To(Equal(before))
		// One reconcile per node: none before the configuration is loaded
		// (they could only skip), one for each after it.
		Expect(reconciles()-reconciled).To(BeEquivalentTo(len(before)), "reconciles for %d NodeSLOs", len(before))
	})

	It("a key broken while it was down: NodeSLOs keep that section, new nodes get the default", func(ctx SpecContext) {
		cm := setConfig(ctx, map[string]string{
			string(sloconfig.KeyResourceThreshold): suppressAt55,
		})
		old := createNode(ctx, nil, nil)
		Eventually(specOf(ctx, old.Name)).
			Should(haveField(55.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
		settle()
		before := resourceVersions(ctx, old.Name)

		restart(ctx, func() {
			writeConfig(ctx, map[string]string{
				string(sloconfig.KeyResourceThreshold): `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 150}}`,
				string(sloconfig.KeyCPUBurst):          autoBurst,
			})
		})

		Eventually(configWarnings(ctx, cm, controller.ReasonInvalidConfig)).
			Should(ContainElement(And(ContainSubstring("clusterStrategy.cpuSuppressThresholdPercent"),
				ContainSubstring("existing NodeSLOs keep their current value"))))
		Expect(configInvalid(sloconfig.KeyResourceThreshold)()).To(Equal(1.0))

		// The good key applies to the existing node; the frozen one does not move.
		Eventually(specOf(ctx, old.Name)).Should(And(
			haveField("auto", "cpuBurstStrategy", "policy"),
			haveField(55.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		))
		Expect(resourceVersions(ctx, old.Name)).NotTo(Equal(before), "the cpu-burst change was written")

		fresh := createNode(ctx, nil, nil)
		Eventually(specOf(ctx, fresh.Name)).Should(And(
			haveField("auto", "cpuBurstStrategy", "policy"),
			haveField(false, "resourceUsedThresholdWithBE", "enable"),
			haveField(65.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"),
		))

		// Fixing the key converges every node.
		setConfig(ctx, map[string]string{
			string(sloconfig.KeyResourceThreshold): `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": 45}}`,
			string(sloconfig.KeyCPUBurst):          autoBurst,
		})
		for _, n := range []string{old.Name, fresh.Name} {
			Eventually(specOf(ctx, n)).
				Should(haveField(45.0, "resourceUsedThresholdWithBE", "cpuSuppressThresholdPercent"))
		}
		Expect(configInvalid(sloconfig.KeyResourceThreshold)()).To(Equal(0.0))
	})
})
