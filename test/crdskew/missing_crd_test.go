package crdskew

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// syncBuffer is a log sink tests read while the manager writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// readyz returns the status code of the manager's /readyz.
func readyz(address string) func() (int, error) {
	return func() (int, error) {
		resp, err := http.Get(fmt.Sprintf("http://%s/readyz", address)) //nolint:noctx // polled by Eventually
		if err != nil {
			return 0, err
		}
		defer func() { _ = resp.Body.Close() }()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
}

// startLoggedManager starts the manager against cfg, its log kept in logs
// and its probes served on probe, and stops it when the spec ends.
func startLoggedManager(cfg *rest.Config) (logs *syncBuffer, probe string) {
	GinkgoHelper()
	logs = &syncBuffer{}
	opts := managertest.Options()
	opts.Logger = zap.New(zap.WriteTo(io.MultiWriter(logs, GinkgoWriter)), zap.UseDevMode(true))
	opts.HealthProbeBindAddress = envtestharness.FreeAddress("127.0.0.1")
	running, err := managertest.Start(cfg, opts)
	Expect(err).NotTo(HaveOccurred(), "the manager is built whether the CRDs are installed or not")
	DeferCleanup(func() { Expect(running.Stop()).To(Succeed()) })
	return logs, opts.HealthProbeBindAddress
}

var _ = Describe("With no NodeSLO CRD installed", Serial, func() {
	It("the manager logs one error naming the CRD and how to install it, stays up but not ready, "+
		"and gives every node its NodeSLO once the CRD is installed, without a restart", func(ctx SpecContext) {
		bare := envtestharness.Start(envtestharness.Options{CRDDir: GinkgoT().TempDir()})
		cfg := bare.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC)
		logs, probe := startLoggedManager(cfg)
		nodes := createNodes(ctx, bare.Client, 3)

		Eventually(readyz(probe)).Should(Equal(http.StatusInternalServerError))
		Expect(logs.String()).To(And(
			ContainSubstring("NodeSLO CRD not installed"), ContainSubstring(sloconfig.NodeSLOCRDName),
			ContainSubstring("kubectl apply --server-side --force-conflicts -k config/crd"),
			ContainSubstring("helm upgrade --install nodeslo dist/chart")))

		_, err := envtest.InstallCRDs(bare.Admin, envtest.CRDInstallOptions{
			Paths: []string{envtestharness.RepoPath("config", "crd", "bases")},
		})
		Expect(err).NotTo(HaveOccurred())
		for _, n := range nodes {
			Eventually(storedSpec(ctx, bare.Client, n)).ShouldNot(BeNil(), "NodeSLO of %s", n)
		}
		Eventually(readyz(probe)).Should(Equal(http.StatusOK))
		Expect(strings.Count(logs.String(), "NodeSLO CRD not installed")).To(Equal(1), "one error, not one per retry")
	})
})
