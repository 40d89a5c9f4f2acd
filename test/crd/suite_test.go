// Package crd tests the generated NodeSLO CustomResourceDefinition against a
// real kube-apiserver: nothing a node agent reads may be pruned, every bound
// is enforced, and kubectl shows the printer columns.
package crd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
)

var (
	testEnv    *envtest.Environment
	k8sClient  client.Client
	clientset  *kubernetes.Clientset
	kubeconfig string
	ctx        context.Context
	cancel     context.CancelFunc
)

func TestCRD(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "NodeSLO CRD Suite")
}

var _ = BeforeSuite(func() {
	ctx, cancel = context.WithCancel(context.Background())
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred())

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.New()})
	Expect(err).NotTo(HaveOccurred())

	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())

	admin, err := testEnv.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	raw, err := admin.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, raw, 0o600)).To(Succeed())
})

var _ = AfterSuite(func() {
	cancel()
	if testEnv != nil {
		Expect(testEnv.Stop()).To(Succeed())
	}
})
