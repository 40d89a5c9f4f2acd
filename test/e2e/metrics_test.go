//go:build e2e

package e2e

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the metrics endpoint", func() {
	It("serves the metrics over HTTPS only to clients granted metrics-reader", func() {
		By("a ServiceAccount bound to the metrics-reader ClusterRole, as Prometheus would be")
		kube.mustRun("create", "serviceaccount", "metrics-scraper", "-n", namespace)
		kube.mustRun("create", "clusterrolebinding", "metrics-scraper",
			"--clusterrole=nodeslo-controller-metrics-reader", "--serviceaccount="+namespace+":metrics-scraper")
		token := strings.TrimSpace(kube.mustRun("create", "token", "metrics-scraper", "-n", namespace))

		// The manager's certificate is self-signed, as in the cluster.
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed, local test
		}}
		url := "https://" + manager.metricsAddr + "/metrics"
		Eventually(func(g Gomega) {
			req, err := http.NewRequest(http.MethodGet, url, nil)
			g.Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := client.Do(req)
			g.Expect(err).NotTo(HaveOccurred())
			defer func() { _ = resp.Body.Close() }()
			body, err := io.ReadAll(resp.Body)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			g.Expect(string(body)).To(ContainSubstring("controller_runtime_"))
		}).WithPolling(time.Second).Should(Succeed())

		By("and refuses a client without a token")
		resp, err := client.Get(url)
		Expect(err).NotTo(HaveOccurred())
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
	})
})
