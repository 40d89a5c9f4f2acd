package crdskew

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// readyzVerbose returns the body of the manager's /readyz?verbose, which
// names each check and why it fails.
func readyzVerbose(address string) func() (string, error) {
	return func() (string, error) {
		resp, err := http.Get(fmt.Sprintf("http://%s/readyz?verbose", address)) //nolint:noctx // polled by Eventually
		if err != nil {
			return "", err
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		return string(body), err
	}
}

// docs/behaviour.md#faults: a CRD deleted under a running manager.
var _ = Describe("With the NodeSLORollout CRD deleted under a running manager", Serial, func() {
	It("the manager fails /readyz naming the CRD and logs it once, then takes up a strategy and rolls out "+
		"once the CRD is installed again, without a restart", func(ctx SpecContext) {
		env := envtestharness.Start(envtestharness.Options{})
		cfg := env.ManagerServiceAccount(ctx, envtestharness.ManagerRBAC)
		logs, probe := startLoggedManager(cfg)
		nodes := createNodes(ctx, env.Client, 3)
		for _, n := range nodes {
			Eventually(storedSpec(ctx, env.Client, n)).ShouldNot(BeNil(), "NodeSLO of %s", n)
		}
		Eventually(readyz(probe)).Should(Equal(http.StatusOK))

		s := runtime.NewScheme()
		Expect(apiextensionsv1.AddToScheme(s)).To(Succeed())
		crds, err := client.New(env.Admin, client.Options{Scheme: s})
		Expect(err).NotTo(HaveOccurred())
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: sloconfig.NodeSLORolloutCRDName}}
		Expect(crds.Delete(ctx, crd)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(crds.Get(ctx, client.ObjectKeyFromObject(crd), crd))
		}).Should(BeTrue(), "the CRD deleted")
		Eventually(readyz(probe)).Should(Equal(http.StatusInternalServerError))
		Expect(readyzVerbose(probe)()).To(And(
			ContainSubstring("[-]nodeslo-crds-served failed"), ContainSubstring("[+]readyz ok")))
		Eventually(logs.String).Should(ContainSubstring("NodeSLORollout CRD no longer served"))

		_, err = envtest.InstallCRDs(env.Admin, envtest.CRDInstallOptions{
			Paths: []string{envtestharness.RepoPath("config", "crd", "bases")},
		})
		Expect(err).NotTo(HaveOccurred())
		Eventually(readyz(probe)).Should(Equal(http.StatusOK))
		Expect(logs.String()).To(ContainSubstring("NodeSLORollout CRD served again"))
		Expect(strings.Count(logs.String(), "NodeSLORollout CRD no longer served")).To(Equal(1),
			"one error, not one per probe")

		// The rollout controller reads and writes NodeSLORollouts again: it
		// takes up a strategy created now and reports a change under it.
		testkit.SetStrategy(ctx, env.Client, configKey, `{"maxNodesPerStep": 1, "stepIntervalSeconds": 1}`)
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(env.Client.Get(ctx, configKey, obj)).To(Succeed())
			g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
		}).Should(Succeed(), "the controller took up the strategy")
		data := map[string]string{string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS": ` +
			`{"enable": true, "pageCacheLimitPercent": 40}}}}`}
		testkit.WriteConfigMap(ctx, env.Client, configKey, data)
		for _, n := range nodes {
			Eventually(func() *int64 { return pageCacheLimit(testkit.Must(storedSpec(ctx, env.Client, n)())) }).
				WithTimeout(time.Minute).Should(HaveValue(BeEquivalentTo(40)), "NodeSLO of %s", n)
		}
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(env.Client.Get(ctx, configKey, obj)).To(Succeed())
			g.Expect(obj.Status.Reached).To(BeEquivalentTo(len(nodes)))
		}).Should(Succeed(), "the status counts every node reached")
	})
})
