package controller_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// poolKey is the node label the strategies of these tests select by.
const poolKey = "pool"

// strategyNodes returns the metric's series of key as strategy -> value.
func strategyNodes(key sloconfig.Key) map[string]float64 {
	out := map[string]float64{}
	for _, labels := range metricSeries(controller.MetricStrategyNodes) {
		if labels["key"] == string(key) {
			out[labels["strategy"]] = metricValue(controller.MetricStrategyNodes, labels)
		}
	}
	return out
}

// docs/behaviour.md#node-strategies-and-their-nodes.
var _ = Describe("The nodeslo_strategy_nodes metric", Serial, func() {
	It("counts, per key and strategy, the nodes each strategy applies to, as they are now", func(ctx SpecContext) {
		// A pool label of its own, so that nodes of other tests count nowhere.
		pool := uniqueName("pool")
		a, b, c := pool+"-a", pool+"-b", pool+"-c"
		setConfig(ctx, map[string]string{
			string(sloconfig.KeyResourceThreshold): fmt.Sprintf(`{"nodeStrategies": [
				{"name": "a", "nodeSelector": {"matchLabels": {"pool": %q}}, "cpuSuppressThresholdPercent": 50},
				{"nodeSelector": {"matchExpressions": [{"key": "pool", "operator": "In", "values": [%q, %q]}]},
				 "cpuSuppressThresholdPercent": 40},
				{"name": "c", "nodeSelector": {"matchLabels": {"pool": %q}}, "cpuSuppressThresholdPercent": 30}]}`,
				a, a, b, c),
			string(sloconfig.KeyHostApplication): fmt.Sprintf(`{"nodeConfigs": [
				{"name": "b-apps", "nodeSelector": {"matchLabels": {"pool": %q}}, "applications": [{"name": "redis"}]}]}`,
				b),
		})
		for range 3 {
			createNode(ctx, map[string]string{poolKey: a}, nil)
		}
		inB := createNode(ctx, map[string]string{poolKey: b}, nil)
		createNode(ctx, map[string]string{poolKey: b}, nil)

		// The first matching strategy wins: the unnamed one (index 1)
		// matches all five nodes but applies to pool b's two only.
		Eventually(func() map[string]float64 { return strategyNodes(sloconfig.KeyResourceThreshold) }).
			WithContext(ctx).Should(Equal(map[string]float64{"a": 3, "1": 2, "c": 0}))
		Expect(strategyNodes(sloconfig.KeyHostApplication)).To(Equal(map[string]float64{"b-apps": 2}))
		Expect(strategyNodes(sloconfig.KeyCPUBurst)).To(BeEmpty(), "a key without node strategies has no series")

		By("a node moving to another pool moves its count at the next scrape")
		inB.Labels[poolKey] = c
		Expect(k8sClient.Update(ctx, inB)).To(Succeed())
		Eventually(func() map[string]float64 { return strategyNodes(sloconfig.KeyResourceThreshold) }).
			WithContext(ctx).Should(Equal(map[string]float64{"a": 3, "1": 1, "c": 1}))
		Expect(strategyNodes(sloconfig.KeyHostApplication)).To(Equal(map[string]float64{"b-apps": 1}))

		By("a rejected key keeps its last good strategies, and their counts")
		setConfig(ctx, map[string]string{
			string(sloconfig.KeyResourceThreshold): `{"nodeStrategies": [{"name": "broken",
				"nodeSelector": {}, "cpuSuppressThresholdPercent": 150}]}`,
		})
		Eventually(configInvalid(sloconfig.KeyResourceThreshold)).WithContext(ctx).Should(BeEquivalentTo(1))
		Expect(strategyNodes(sloconfig.KeyResourceThreshold)).To(Equal(map[string]float64{"a": 3, "1": 1, "c": 1}))
		Eventually(func() map[string]float64 { return strategyNodes(sloconfig.KeyHostApplication) }).
			WithContext(ctx).Should(BeEmpty(), "the key was removed")

		By("without the ConfigMap, no strategy and no series")
		deleteConfig(ctx)
		Eventually(func() []map[string]string { return metricSeries(controller.MetricStrategyNodes) }).
			WithContext(ctx).Should(BeEmpty())
	})
})
