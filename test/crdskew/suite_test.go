// Package crdskew checks the controller, the admission webhook and the
// kubectl plugin against a NodeSLO CRD older than this project's
// (Koordinator v1.8.0's, test/fixtures/koordinator-v1.8.0-crd), against
// this project's CRD installed over it, and with no CRD at all
// (docs/behaviour.md#crd-version-skew).
package crdskew

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	"github.com/nodeslo/nodeslo-controller/internal/manager/managertest"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// recheckInterval is the manager's CRD recheck interval in this suite,
// shortened from a minute so that the CRD upgrade is noticed quickly.
const recheckInterval = 3 * time.Second

var (
	env *envtestharness.Environment
	// k8sClient is the admin's; it collects the admission warnings it receives.
	k8sClient     client.Client
	warnings      = &envtestharness.WarningCollector{}
	managerConfig *rest.Config
	writes        = &localcluster.WriteLog{}
	// kubeconfig is the admin's, for the plugin's commands.
	kubeconfig  string
	stopManager func()
)

func TestCRDSkew(t *testing.T) {
	envtestharness.RunSuite(t, "CRD version skew suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	envtestharness.LogToGinkgo()
	env = envtestharness.Start(envtestharness.Options{
		// Koordinator's NodeSLO CRD, beside this project's NodeSLORollout
		// CRD, which Koordinator does not ship.
		CRDDir:    envtestharness.RepoPath("test", "fixtures", "koordinator-v1.8.0-crd"),
		ExtraCRDs: []string{envtestharness.RepoPath("config", "crd", "bases", "nodeslo.koordinator.sh_nodeslorollouts.yaml")},
		Webhook:   true,
	})
	clientConfig := rest.CopyConfig(env.Admin)
	clientConfig.WarningHandlerWithContext = warnings
	var err error
	k8sClient, err = client.New(clientConfig, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())
	kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, env.AdminKubeconfig, 0o600)).To(Succeed())

	managerConfig = env.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC)
	managerConfig.Wrap(writes.Wrap)
	stopManager = startManager()
})

var _ = AfterSuite(func() {
	if stopManager != nil {
		stopManager()
	}
})

// startManager builds the manager as cmd/ does, webhook on, and returns a
// function that stops it.
func startManager() func() {
	opts := managertest.Options()
	opts.Webhook.Enable = true
	opts.Webhook.Host, opts.Webhook.Port, opts.Webhook.CertDir = env.WebhookServing()
	opts.Controllers.CRDRecheckInterval = recheckInterval
	running, err := managertest.Start(managerConfig, opts)
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error { return running.Manager.GetWebhookServer().StartedChecker()(nil) }).Should(Succeed())
	return func() { Expect(running.Stop()).To(Succeed()) }
}
