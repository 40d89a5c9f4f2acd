package crd

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// fullStrategy sets every field of spec.strategy to a valid value; each
// entry below breaks one of them.
const fullStrategy = `{
  "maxNodesPerStep": "20%",
  "stepIntervalSeconds": 60,
  "revisionHistoryLimit": 10,
  "canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}, "soakSeconds": 300},
  "healthGate": {
    "maxUnhealthyNodes": 1,
    "nodeConditions": ["Ready", "MemoryPressure"],
    "evictions": {"podSelector": {"matchLabels": {"koordinator.sh/qosClass": "BE"}}, "maxPerNode": 3},
    "onUnhealthy": "revert",
    "metrics": [{
      "name": "p99-latency",
      "address": "https://prometheus.monitoring:9090",
      "credentials": "prometheus",
      "query": "max(latency{node=~\"{{.NodesRegex}}\"})",
      "max": 0.3,
      "intervalSeconds": 30,
      "failureLimit": 1,
      "noDataLimit": 2
    }]
  }
}`

var _ = Describe("The NodeSLORollout's spec.strategy", func() {
	// create stores a NodeSLORollout whose strategy is fullStrategy after
	// mutate changed it (the strategy as a JSON object).
	create := func(mutate func(s map[string]any)) error {
		var strategy map[string]any
		Expect(json.Unmarshal([]byte(fullStrategy), &strategy)).To(Succeed())
		mutate(strategy)
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": nodeslov1alpha1.GroupVersion.String(),
			"kind":       "NodeSLORollout",
			"metadata":   map[string]any{"generateName": "strategy-", "namespace": "default"},
			"spec":       map[string]any{"strategy": strategy},
		}}
		return k8sClient.Create(ctx, obj, client.FieldValidation("Strict"))
	}
	healthGate := func(s map[string]any) map[string]any { return s["healthGate"].(map[string]any) }
	metric := func(s map[string]any) map[string]any {
		return healthGate(s)["metrics"].([]any)[0].(map[string]any)
	}

	It("accepts every field set, so each refusal below is caused by its one change", func() {
		Expect(create(func(map[string]any) {})).To(Succeed())
	})

	It("accepts counts and percents at their bounds", func() {
		Expect(create(func(s map[string]any) { s["maxNodesPerStep"] = 3 })).To(Succeed())
		Expect(create(func(s map[string]any) { s["maxNodesPerStep"] = "100%" })).To(Succeed())
		Expect(create(func(s map[string]any) { healthGate(s)["maxUnhealthyNodes"] = "0%" })).To(Succeed())
	})

	DescribeTable("refuses a bad strategy, naming the field",
		func(mutate func(s map[string]any), path, says string) {
			err := create(mutate)
			Expect(apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)).To(BeTrue(), "expected Invalid, got %v", err)
			Expect(err.Error()).To(ContainSubstring(path))
			Expect(err.Error()).To(ContainSubstring(says))
		},
		Entry("maxNodesPerStep 0", func(s map[string]any) { s["maxNodesPerStep"] = 0 },
			"spec.strategy.maxNodesPerStep", "must be an integer >= 1"),
		Entry("maxNodesPerStep 0%", func(s map[string]any) { s["maxNodesPerStep"] = "0%" },
			"spec.strategy.maxNodesPerStep", "must be an integer >= 1"),
		Entry("maxNodesPerStep 101%", func(s map[string]any) { s["maxNodesPerStep"] = "101%" },
			"spec.strategy.maxNodesPerStep", `"1%" to "100%"`),
		Entry("stepIntervalSeconds over a day", func(s map[string]any) { s["stepIntervalSeconds"] = 86401 },
			"spec.strategy.stepIntervalSeconds", "86400"),
		Entry("revisionHistoryLimit 0", func(s map[string]any) { s["revisionHistoryLimit"] = 0 },
			"spec.strategy.revisionHistoryLimit", "1"),
		Entry("a canary without a selector", func(s map[string]any) { s["canary"] = map[string]any{"soakSeconds": 1} },
			"spec.strategy.canary.nodeSelector", "Required"),
		Entry("an unknown field", func(s map[string]any) { s["maxNodesPerStpe"] = 1 },
			"spec.strategy.maxNodesPerStpe", "unknown field"),
		Entry("an unknown onUnhealthy", func(s map[string]any) { healthGate(s)["onUnhealthy"] = "explode" },
			"spec.strategy.healthGate.onUnhealthy", `"pause", "revert"`),
		Entry("maxUnhealthyNodes -1", func(s map[string]any) { healthGate(s)["maxUnhealthyNodes"] = -1 },
			"spec.strategy.healthGate.maxUnhealthyNodes", "integer >= 0"),
		Entry("a node condition with a space", func(s map[string]any) {
			healthGate(s)["nodeConditions"] = []any{"Memory Pressure"}
		}, "spec.strategy.healthGate.nodeConditions[0]", "should match"),
		Entry("a node condition twice", func(s map[string]any) {
			healthGate(s)["nodeConditions"] = []any{"Ready", "Ready"}
		}, "spec.strategy.healthGate.nodeConditions[1]", "Duplicate"),
		Entry("credentials over http", func(s map[string]any) { metric(s)["address"] = "http://prometheus:9090" },
			"spec.strategy.healthGate.metrics[0]", "must be https when credentials is set"),
		Entry("insecureSkipVerify with credentials", func(s map[string]any) { metric(s)["insecureSkipVerify"] = true },
			"spec.strategy.healthGate.metrics[0]", "insecureSkipVerify must not be set with credentials"),
		Entry("insecureSkipVerify over http", func(s map[string]any) {
			delete(metric(s), "credentials")
			metric(s)["insecureSkipVerify"] = true
			metric(s)["address"] = "http://prometheus:9090"
		}, "spec.strategy.healthGate.metrics[0]", "must be https when insecureSkipVerify is set"),
		Entry("an address with a user", func(s map[string]any) { metric(s)["address"] = "https://me@prometheus" },
			"spec.strategy.healthGate.metrics[0].address", "should match"),
		Entry("credentials naming a path", func(s map[string]any) { metric(s)["credentials"] = "../token" },
			"spec.strategy.healthGate.metrics[0].credentials", "should match"),
		Entry("a check without bounds", func(s map[string]any) { delete(metric(s), "max") },
			"spec.strategy.healthGate.metrics[0]", "a check needs min, max or both"),
		Entry("min above max", func(s map[string]any) { metric(s)["min"] = 1 },
			"spec.strategy.healthGate.metrics[0]", "min must not be greater than max"),
		Entry("a check without a query", func(s map[string]any) { delete(metric(s), "query") },
			"spec.strategy.healthGate.metrics[0].query", "Required"),
		Entry("two checks of one name", func(s map[string]any) {
			checks := healthGate(s)["metrics"].([]any)
			healthGate(s)["metrics"] = append(checks, checks[0])
		}, "spec.strategy.healthGate.metrics[1]", "Duplicate"),
		Entry("failureLimit over 100", func(s map[string]any) { metric(s)["failureLimit"] = 101 },
			"spec.strategy.healthGate.metrics[0].failureLimit", "100"),
	)
})
