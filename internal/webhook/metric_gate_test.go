package webhook_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// metricAllowedHost is the suite manager's --metric-gate-allowed-hosts;
// it has no --metric-gate-credentials-dir.
const metricAllowedHost = "prometheus.monitoring"

var _ = Describe("The ConfigMap webhook, on metric checks", func() {
	It("denies a token file, a credential over http, a host not allowed and credentials the manager lacks, "+
		"each at its path", func(ctx SpecContext) {
		key := string(sloconfig.KeyRollout)
		err := putConfig(ctx, map[string]string{key: `{"healthGate": {"metrics": [
			{"name": "a", "address": "http://prometheus.monitoring:9090", "query": "up", "max": 1,
			 "bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token"},
			{"name": "b", "address": "http://prometheus.monitoring:9090", "query": "up", "max": 1,
			 "credentials": "prometheus"},
			{"name": "c", "address": "http://10.0.0.1:9090", "query": "up", "max": 1},
			{"name": "d", "address": "https://prometheus.monitoring", "query": "up", "max": 1,
			 "credentials": "prometheus"}]}}`})
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "not denied as Invalid: %v", err)
		for _, want := range []string{
			key + ": healthGate.metrics[0].bearerTokenFile: Forbidden: a ConfigMap names no file",
			key + `: healthGate.metrics[1].address: Invalid value: "http://prometheus.monitoring:9090": ` +
				"must be https when credentials is set",
			key + `: healthGate.metrics[2].address: Invalid value: "http://10.0.0.1:9090": host 10.0.0.1:9090 ` +
				"is not among the manager's --metric-gate-allowed-hosts (prometheus.monitoring)",
			key + `: healthGate.metrics[3].credentials: Invalid value: "prometheus": ` +
				"the manager runs without --metric-gate-credentials-dir",
		} {
			Expect(err.Error()).To(ContainSubstring(want))
		}
	})
})
