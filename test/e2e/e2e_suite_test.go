//go:build e2e

// Package e2e runs the controller as its users do: dist/install.yaml applied
// to a real kube-apiserver, bin/manager running as the deployed
// ServiceAccount, and every check made with kubectl and the kubectl plugin.
// Run it with `make test-e2e`, which builds what it needs first.
package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

var (
	// root is the repository: the tests use its bin/, dist/ and config/.
	root string
	// cluster is the control plane all specs share.
	cluster *envtestharness.Environment
	// kube runs kubectl as the cluster administrator.
	kube *kubectl
	// manager is bin/manager running as the deployed ServiceAccount.
	manager *managerProcess
	// managerKubeconfig is the ServiceAccount's kubeconfig file, for specs
	// that start the manager again.
	managerKubeconfig string
)

func TestE2E(t *testing.T) {
	envtestharness.RunSuite(t, "nodeslo-controller end-to-end suite")
}

var _ = BeforeSuite(func() {
	// Slower than the harness's default: each look runs kubectl.
	SetDefaultEventuallyPollingInterval(poll)
	root = envtestharness.RepoPath()
	for _, built := range []string{"bin/manager", "bin/kubectl-nodeslo", "dist/crds.yaml", "dist/install.yaml"} {
		Expect(filepath.Join(root, built)).To(BeAnExistingFile(), "run `make test-e2e`: it builds %s first", built)
	}

	By("starting kube-apiserver and etcd")
	cluster = envtestharness.Start(envtestharness.Options{})
	work := GinkgoT().TempDir()
	adminKubeconfig := filepath.Join(work, "admin.kubeconfig")
	Expect(os.WriteFile(adminKubeconfig, cluster.AdminKubeconfig, 0o600)).To(Succeed())
	kube = newKubectl(adminKubeconfig, filepath.Join(root, "bin"))
	GinkgoWriter.Printf("kubectl: %s (%s)\n", kube.binary, kube.mustRun("version", "--client", "-o", "yaml"))

	By("creating " + namespace + ", Koordinator's namespace, which dist/install.yaml expects to exist")
	kube.mustRun("create", "namespace", namespace)

	By("applying dist/install.yaml server-side, so that the apiserver validates every object " +
		"(but the webhook's, see installWithoutWebhook)")
	_, err := kube.runWithInput(installWithoutWebhook(), "apply", "--server-side", "-f", "-")
	Expect(err).NotTo(HaveOccurred())

	By("running bin/manager as the deployed ServiceAccount")
	token := kube.mustRun("create", "token", serviceAccount, "-n", namespace, "--duration=2h")
	tokenKubeconfig, err := cluster.TokenKubeconfig(token)
	Expect(err).NotTo(HaveOccurred())
	managerKubeconfig = filepath.Join(work, "manager.kubeconfig")
	Expect(os.WriteFile(managerKubeconfig, tokenKubeconfig, 0o600)).To(Succeed())
	manager = startManager(filepath.Join(root, "bin", "manager"), managerKubeconfig)
	DeferCleanup(func() {
		By("stopping the manager")
		manager.Stop(15 * time.Second)
	})
	manager.waitUntilLeading(kube)
})
