//go:build cluster

// Package cluster deploys the controller as its users do, into a cluster
// with one real node on this machine (test/nodecluster: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, containerd, a
// kubelet, kube-proxy) with cert-manager (hack/cluster/cert-manager), once
// with `make deploy` and once with `helm install` of dist/chart, and checks
// what only a real cluster shows: Pods scheduled, started and probed by the
// kubelet under the restricted Pod Security level, the webhook reached
// through its Service with cert-manager's certificate and injected CA, the
// metrics Service's authorization (and, through the chart, its certificate
// verified), the chart's helm test, leader election between Pods, and the
// health gate fed by a Node the node lifecycle controller turns NotReady.
//
// Run it with `make test-cluster` (as root), which builds and installs what
// it needs first.
package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

var (
	// root is the repository: make, bin/ and dist/ are used from it.
	root string
	// node is the running cluster.
	node *nodecluster.Cluster
	// kube runs kubectl as the cluster's administrator, bin/ on PATH.
	kube *command
	// image is the manager's image (IMG), loaded into containerd.
	image string
)

func TestCluster(t *testing.T) {
	envtestharness.RunSuite(t, "nodeslo-controller in a cluster with one real node")
}

// setting is an environment variable make test-cluster sets.
func setting(name string) string {
	GinkgoHelper()
	value := os.Getenv(name)
	Expect(value).NotTo(BeEmpty(), "%s is not set: run `make test-cluster`", name)
	return value
}

var _ = BeforeSuite(func(ctx SpecContext) {
	Expect(os.Geteuid()).To(BeZero(), "the kubelet and containerd need root")
	root = envtestharness.RepoPath()
	dir := setting("CLUSTER_DIR")
	image = setting("CLUSTER_IMAGE")
	for _, built := range []string{"bin/kubectl-nodeslo", "bin/helm", "bin/kustomize"} {
		Expect(filepath.Join(root, built)).To(BeAnExistingFile(), "run `make test-cluster`: it builds %s first", built)
	}

	before, err := nodecluster.PrepareHost(dir, logf)
	Expect(err).NotTo(HaveOccurred())

	By("starting the cluster: control plane, containerd, kubelet, kube-proxy")
	node, err = nodecluster.Start(context.WithoutCancel(ctx), nodecluster.Options{
		Dir: dir, Assets: setting("KUBEBUILDER_ASSETS"), Logf: logf,
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		By("stopping the cluster and checking that the host is as before")
		Expect(node.StopAndCompare(context.WithoutCancel(ctx), before)).To(Succeed())
	}, NodeTimeout(3*time.Minute))
	kube = newKubectl(node)

	By("starting cert-manager and installing its CRDs")
	Expect(node.StartCertManager(ctx, setting("CERT_MANAGER"), setting("CERT_MANAGER_CRDS"))).To(Succeed())

	By("loading the manager's image into containerd")
	_, err = node.LoadImage(ctx, setting("CLUSTER_IMAGE_TOOL"), image)
	Expect(err).NotTo(HaveOccurred())
	By("importing the image of the chart's helm test Pod (hack/cluster/install-node-packages.sh made it)")
	Expect(node.ImportImage(ctx, filepath.Join(dir, "helm-test-image.tar"))).To(Succeed())
	for _, timing := range node.Timings {
		logf("timing: %-50s %s", timing.Step, timing.Duration.Round(time.Millisecond))
	}
}, NodeTimeout(10*time.Minute))

func logf(format string, args ...any) {
	GinkgoWriter.Printf("%s %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}
