package manager

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

func TestManager(t *testing.T) {
	envtestharness.RunSuite(t, "Manager Suite")
}

// runUntilCleanup starts mgr and, when the spec ends, stops it and checks
// that it returned without an error.
func runUntilCleanup(mgr ctrl.Manager) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	DeferCleanup(func() {
		cancel()
		Eventually(done).Should(Receive(Not(HaveOccurred())))
	})
}

func httpGet(url string) (int, string, error) {
	resp, err := http.Get(url) //nolint:noctx // a test helper polled by Eventually
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

var _ = Describe("The manager", func() {
	It("starts against a real apiserver and serves probes and metrics", func() {
		cfg := envtestharness.Start(envtestharness.Options{}).Admin

		opts := DefaultOptions()
		opts.MetricsBindAddress = envtestharness.FreeAddress("127.0.0.1")
		opts.SecureMetrics = false
		opts.HealthProbeBindAddress = envtestharness.FreeAddress("127.0.0.1")
		opts.LeaderElection = true
		opts.LeaderElectionNamespace = "default"
		mgr, err := New(cfg, opts)
		Expect(err).NotTo(HaveOccurred())

		runUntilCleanup(mgr)

		for _, path := range []string{"/healthz", "/readyz"} {
			Eventually(func(g Gomega) {
				code, _, err := httpGet(fmt.Sprintf("http://%s%s", opts.HealthProbeBindAddress, path))
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(code).To(Equal(http.StatusOK))
			}).Should(Succeed(), path)
		}
		Eventually(mgr.Elected()).Should(BeClosed(), "leader election through a Lease")
		Eventually(func(g Gomega) {
			code, body, err := httpGet(fmt.Sprintf("http://%s/metrics", opts.MetricsBindAddress))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(http.StatusOK))
			g.Expect(body).To(ContainSubstring("rest_client_requests_total"))
		}).Should(Succeed())
	})
})
