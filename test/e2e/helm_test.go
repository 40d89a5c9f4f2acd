//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// helmRelease is the release name of the chart's install, as in the README.
const helmRelease = "nodeslo"

// chartImage names an image, which the chart requires (none is published);
// no kubelet runs here, so it is never pulled.
const chartImage = "manager.image.repository=registry.example.com/nodeslo-controller"

// helm runs bin/helm against one cluster, with its own cache and config
// directories so that nothing of the user's helm setup is read or written.
type helm struct {
	binary, kubeconfig string
	env                []string
}

func newHelm(binary, kubeconfig, home string) *helm {
	env := append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	return &helm{binary: binary, kubeconfig: kubeconfig, env: env}
}

func (h *helm) mustRun(args ...string) string {
	GinkgoHelper()
	cmd := exec.Command(h.binary, append(slices.Clone(args), "--kubeconfig", h.kubeconfig)...)
	cmd.Dir = root
	cmd.Env = h.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	shown := stdout.String()
	if len(shown) > 2000 { // the rendered manifest: the CRD alone is 1,800 lines
		shown = fmt.Sprintf("(%d bytes)\n", len(shown))
	}
	GinkgoWriter.Printf("$ helm %s\n%s%s", strings.Join(args, " "), shown, stderr.String())
	Expect(err).NotTo(HaveOccurred(), "helm %s: %s", strings.Join(args, " "), stderr.String())
	return stdout.String()
}

// The chart is installed on a control plane of its own: the suite's has
// dist/install.yaml's objects, of the same names, and its manager running.
// That one starts without the CRDs, so that the chart installs them. It has no
// cert-manager (and runs no pods), so the chart is installed with the
// webhook off; the manager runs as a process, as the chart's ServiceAccount,
// with the arguments of the chart's Deployment.
var _ = Describe("helm install dist/chart", Ordered, func() {
	var (
		chartKube *kubectl
		chartHelm *helm
		cluster   *envtestharness.Environment
		manifest  string
	)

	BeforeAll(func() {
		helmBinary := filepath.Join(root, "bin", "helm")
		Expect(helmBinary).To(BeAnExistingFile(), "run `make test-e2e`: it installs bin/helm first")

		By("starting a second control plane, without the CRDs")
		cluster = envtestharness.Start(envtestharness.Options{CRDDir: GinkgoT().TempDir()})
		work := GinkgoT().TempDir()
		adminKubeconfig := filepath.Join(work, "admin.kubeconfig")
		Expect(os.WriteFile(adminKubeconfig, cluster.AdminKubeconfig, 0o600)).To(Succeed())
		chartKube = newKubectl(adminKubeconfig, filepath.Join(root, "bin"))
		chartHelm = newHelm(helmBinary, adminKubeconfig, filepath.Join(work, "helm"))
	})

	It("creates every object of the chart", func() {
		chartHelm.mustRun("install", helmRelease, "dist/chart", "-n", namespace, "--create-namespace",
			"--set", chartImage, "--set", "webhook.enabled=false")
		manifest = chartHelm.mustRun("get", "manifest", helmRelease, "-n", namespace)
		created := strings.Fields(chartKube.mustRunWithInput(manifest, "get", "-f", "-", "-o", "name"))
		Expect(created).To(ContainElements(
			"customresourcedefinition.apiextensions.k8s.io/"+crdName,
			"customresourcedefinition.apiextensions.k8s.io/"+rolloutCRDName,
			"serviceaccount/"+serviceAccount,
			"deployment.apps/"+deployment,
			"clusterrole.rbac.authorization.k8s.io/nodeslo-controller-manager-role",
			"role.rbac.authorization.k8s.io/nodeslo-controller-manager-role",
			"role.rbac.authorization.k8s.io/nodeslo-controller-leader-election-role",
			"service/nodeslo-controller-controller-manager-metrics-service",
		))
		Expect(created).To(HaveLen(countObjects(manifest)), "every object of the release exists")
		Expect(created).NotTo(ContainElement(ContainSubstring("webhook")))
		Expect(chartKube.mustRun("get", "nodeslorollout", configMapName, "-n", namespace,
			"-o", "jsonpath={.spec.strategy.maxNodesPerStep} {.spec.strategy.healthGate.onUnhealthy}")).
			To(Equal("10% pause"), "the post-install hook's NodeSLORollout, with the conservative strategy")
	})

	It("leaves the NodeSLORollout as the operator set it on helm upgrade", func() {
		chartKube.mustRun("patch", "nodeslorollout", configMapName, "-n", namespace, "--type=merge",
			"-p", `{"spec":{"paused":true,"strategy":{"stepIntervalSeconds":600}}}`)
		chartHelm.mustRun("upgrade", helmRelease, "dist/chart", "-n", namespace,
			"--set", chartImage, "--set", "webhook.enabled=false")
		Expect(chartKube.mustRun("get", "nodeslorollout", configMapName, "-n", namespace,
			"-o", "jsonpath={.spec.paused} {.spec.strategy.stepIntervalSeconds}")).To(Equal("true 600"))
	})

	It("converges the sample nodes with bin/manager run as the chart's ServiceAccount", func() {
		chartKube.mustRun("apply", "--server-side", "-k", filepath.Join(root, "config", "samples"))

		By("taking the arguments of the chart's Deployment")
		var args []string
		Expect(json.Unmarshal([]byte(chartKube.mustRun("get", "deployment", deployment, "-n", namespace,
			"-o", "jsonpath={.spec.template.spec.containers[0].args}")), &args)).To(Succeed())
		Expect(args).To(ContainElements("--leader-elect=true", "--enable-webhook=false"))

		token := chartKube.mustRun("create", "token", serviceAccount, "-n", namespace, "--duration=1h")
		kubeconfig, err := cluster.TokenKubeconfig(token)
		Expect(err).NotTo(HaveOccurred())
		kubeconfigPath := filepath.Join(GinkgoT().TempDir(), "manager.kubeconfig")
		Expect(os.WriteFile(kubeconfigPath, kubeconfig, 0o600)).To(Succeed())
		chartManager := startManagerWithArgs(filepath.Join(root, "bin", "manager"), kubeconfigPath, args)
		DeferCleanup(func() { chartManager.Stop(converge) })
		chartManager.waitUntilLeading(chartKube)

		Eventually(func(g Gomega) {
			out, err := chartKube.run("get", "nodeslo", "--no-headers")
			g.Expect(err).NotTo(HaveOccurred())
			lines := strings.Split(strings.TrimSpace(out), "\n")
			g.Expect(lines).To(HaveLen(len(sampleNodes)))
			g.Expect(rowOf(lines, "general-1")).To(HavePrefix("general-1 true 65 70 none "))
			g.Expect(rowOf(lines, "colocation-1")).To(HavePrefix("colocation-1 true 80 85 auto "))
			g.Expect(rowOf(lines, "colocation-2")).To(HavePrefix("colocation-2 true 80 85 auto "))
			g.Expect(rowOf(lines, "online-1")).To(HavePrefix("online-1 false 65 70 none "))
		}).Should(Succeed())
	})

	It("uninstalls everything but the CRDs, so that the NodeSLOs stay", func() {
		chartHelm.mustRun("uninstall", helmRelease, "-n", namespace, "--wait")
		left := strings.Fields(chartKube.mustRunWithInput(manifest, "get", "-f", "-", "-o", "name",
			"--ignore-not-found"))
		Expect(left).To(ConsistOf("customresourcedefinition.apiextensions.k8s.io/"+crdName,
			"customresourcedefinition.apiextensions.k8s.io/"+rolloutCRDName), "helm.sh/resource-policy: keep")
		Expect(strings.Fields(chartKube.mustRun("get", "nodeslo", "-o", "name"))).To(HaveLen(len(sampleNodes)))
		chartKube.mustRun("get", "configmap", configMapName, "-n", namespace)
		Expect(chartKube.mustRun("get", "nodeslorollout", configMapName, "-n", namespace,
			"-o", "jsonpath={.spec.paused}")).To(Equal("true"), "the NodeSLORollout, the rollout's policy and state, stays")
	})

	It("installs again over the NodeSLORollout left behind, leaving it as it was", func() {
		chartHelm.mustRun("install", helmRelease, "dist/chart", "-n", namespace,
			"--set", chartImage, "--set", "webhook.enabled=false")
		Expect(chartKube.mustRun("get", "nodeslorollout", configMapName, "-n", namespace,
			"-o", "jsonpath={.spec.paused} {.spec.strategy.stepIntervalSeconds}")).To(Equal("true 600"))
		chartHelm.mustRun("uninstall", helmRelease, "-n", namespace, "--wait")
	})
})

// mustRunWithInput fails the spec when kubectl fails.
func (k *kubectl) mustRunWithInput(stdin string, args ...string) string {
	GinkgoHelper()
	out, err := k.runWithInput(stdin, args...)
	Expect(err).NotTo(HaveOccurred(), fmt.Sprint(err))
	return out
}

// countObjects counts the objects of a multi-document YAML stream.
func countObjects(stream string) int {
	GinkgoHelper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(stream), 4096)
	count := 0
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return count
		}
		Expect(err).NotTo(HaveOccurred())
		if len(obj) > 0 {
			count++
		}
	}
}
