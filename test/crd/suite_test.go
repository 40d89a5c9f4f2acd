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

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

var (
	k8sClient  client.Client
	clientset  *kubernetes.Clientset
	kubeconfig string
	ctx        context.Context
	cancel     context.CancelFunc
)

func TestCRD(t *testing.T) {
	envtestharness.RunSuite(t, "NodeSLO CRD Suite")
}

var _ = BeforeSuite(func() {
	ctx, cancel = context.WithCancel(context.Background())
	DeferCleanup(func() { cancel() })
	env := envtestharness.Start(envtestharness.Options{})
	// Unthrottled: the suite sends some 2,500 dry runs, which client-go's
	// default limit of 5 a second stretched to minutes.
	k8sClient = env.UnthrottledClient()

	var err error
	clientset, err = kubernetes.NewForConfig(env.UnthrottledAdmin())
	Expect(err).NotTo(HaveOccurred())

	kubeconfig = filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, env.AdminKubeconfig, 0o600)).To(Succeed())
})
