package webhook_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// metricAllowedHost is the suite manager's --metric-gate-allowed-hosts;
// it has no --metric-gate-credentials-dir.
const metricAllowedHost = "prometheus.monitoring"

var _ = Describe("The NodeSLORollout webhook, on metric checks", func() {
	It("denies a host not allowed and credentials the manager lacks, each at its path under spec.strategy, "+
		"which the schema cannot", func(ctx SpecContext) {
		var strategy nodeslov1alpha1.RolloutStrategy
		Expect(json.Unmarshal([]byte(`{"healthGate": {"metrics": [
			{"name": "a", "address": "http://prometheus.monitoring:9090", "query": "up", "max": 1},
			{"name": "b", "address": "http://10.0.0.1:9090", "query": "up", "max": 1},
			{"name": "c", "address": "https://prometheus.monitoring", "query": "up", "max": 1,
			 "credentials": "prometheus"}]}}`), &strategy)).To(Succeed())
		obj := &nodeslov1alpha1.NodeSLORollout{
			ObjectMeta: metav1.ObjectMeta{Namespace: configNamespace, Name: configName},
			Spec:       nodeslov1alpha1.NodeSLORolloutSpec{Strategy: &strategy},
		}
		err := k8sClient.Create(ctx, obj)
		if err == nil {
			DeferCleanup(k8sClient.Delete, obj)
		}
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "not denied as Invalid: %v", err)
		for _, want := range []string{
			`spec.strategy.healthGate.metrics[1].address: Invalid value: "http://10.0.0.1:9090": host 10.0.0.1:9090 ` +
				"is not among the manager's --metric-gate-allowed-hosts (prometheus.monitoring)",
			`spec.strategy.healthGate.metrics[2].credentials: Invalid value: "prometheus": ` +
				"the manager runs without --metric-gate-credentials-dir",
		} {
			Expect(err.Error()).To(ContainSubstring(want))
		}
		Expect(err.Error()).NotTo(ContainSubstring("metrics[0]"), "the allowed host is admitted")
	})

	It("denies the ConfigMap's retired rollout key, saying where its policy went", func(ctx SpecContext) {
		key := string(sloconfig.KeyRollout)
		err := putConfig(ctx, map[string]string{key: `{"maxNodesPerStep": 1}`})
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "not denied as Invalid: %v", err)
		Expect(err.Error()).To(ContainSubstring(key + ": the staged rollout's policy is the NodeSLORollout's " +
			"spec.strategy; kubectl nodeslo rollout convert -f prints the NodeSLORollout"))
	})
})
