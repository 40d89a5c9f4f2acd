//go:build cluster

package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// The names both renderings give the controller's objects (config/default's
// namePrefix; the chart's fixed names).
const (
	namespace         = "koordinator-system"
	deploymentName    = "nodeslo-controller-controller-manager"
	metricsService    = "nodeslo-controller-controller-manager-metrics-service"
	certificateName   = "nodeslo-controller-serving-cert"
	webhookConfigName = "nodeslo-controller-validating-webhook-configuration"
	metricsReaderRole = "nodeslo-controller-metrics-reader"
	configMapName     = "slo-controller-config"
	crdName           = "nodeslos.slo.koordinator.sh"
	rolloutCRDName    = "nodeslorollouts.nodeslo.koordinator.sh"
	helmRelease       = "nodeslo"
)

// Waits on the cluster: a Pod's start includes the kubelet's probes, a
// Node's NotReady the node monitor's grace period, on a loaded machine.
const (
	converge = 3 * time.Minute
	poll     = time.Second
)

// converges polls f every poll for at most converge.
func converges(f any) AsyncAssertion {
	return Eventually(f).WithTimeout(converge).WithPolling(poll)
}

// installation is one way users install the controller.
type installation struct {
	name string
	// install installs it into namespace, which exists, labelled restricted.
	install func()
	// uninstall removes it; rendered lists what it had installed, for
	// `kubectl get -f`.
	uninstall func() (rendered string)
	// kept are the objects of rendered that uninstall leaves on purpose
	// (kubectl's names): both keep the CRDs (make undeploy without
	// DELETE_CRD=true, the chart's crd.keep), and with them the NodeSLOs and
	// the NodeSLORollout, as docs/install.md says; neither created the
	// namespace, Koordinator's.
	kept []string
	// metricsCertificate: the metrics server serves cert-manager's
	// certificate for the metrics Service, whose Secret's CA verifies it
	// (the chart's metrics.certManager.enabled); otherwise its own
	// self-signed one.
	metricsCertificate bool
	// helmTest, when set, runs the installation's own test (helm test).
	helmTest func()
}

// keptCRDs are the CRDs every uninstall keeps, as kubectl names them.
var keptCRDs = []string{
	"customresourcedefinition.apiextensions.k8s.io/" + crdName,
	"customresourcedefinition.apiextensions.k8s.io/" + rolloutCRDName,
}

var _ = Describe("the controller installed into a cluster with one real node", Ordered, func() {
	makeDeploy := installation{
		name: "make deploy",
		install: func() {
			newMake(node).mustRun("deploy")
		},
		uninstall: func() string {
			// What make deploy applied (the image aside): the CRDs, then the controller.
			var rendered []byte
			for _, part := range []string{"crd", "default"} {
				out, err := exec.Command(filepath.Join(root, "bin", "kustomize"), "build",
					filepath.Join(root, "config", part)).Output()
				Expect(err).NotTo(HaveOccurred())
				rendered = append(append(rendered, "\n---\n"...), out...)
			}
			newMake(node).mustRun("undeploy")
			return string(rendered)
		},
		kept: keptCRDs,
	}
	var chart *command
	helmInstall := installation{
		name: "helm install dist/chart",
		install: func() {
			chart = newHelm(node, GinkgoT().TempDir())
			repository, tag := nodecluster.SplitImage(image)
			testRepository, testTag := nodecluster.SplitImage(helmTestImage)
			chart.mustRun("install", helmRelease, "dist/chart", "-n", namespace,
				"--set", "manager.image.repository="+repository, "--set", "manager.image.tag="+tag,
				"--set", "metrics.certManager.enabled=true",
				"--set", "testFramework.image.repository="+testRepository, "--set", "testFramework.image.tag="+testTag,
				// The manager is Ready before each helm test; the one with no
				// replica fails after this long, not a minute.
				"--set", "testFramework.timeoutSeconds=15")
		},
		metricsCertificate: true,
		helmTest:           func() { checkHelmTest(chart) },
		uninstall: func() string {
			rendered := chart.mustRun("get", "manifest", helmRelease, "-n", namespace)
			chart.mustRun("uninstall", helmRelease, "-n", namespace, "--wait")
			return rendered
		},
		kept: keptCRDs,
	}
	for _, in := range []installation{makeDeploy, helmInstall} {
		Context("through "+in.name, Ordered, func() { describeInstallation(in) })
	}
})

func describeInstallation(in installation) {
	var uninstalled bool

	BeforeAll(func() {
		By("creating " + namespace + " labelled for the restricted Pod Security level")
		kube.mustRun("create", "namespace", namespace)
		kube.mustRun("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted")
		in.install()
		By("checking the NodeSLORollout the installation created, then taking its strategy off")
		// The conservative strategy of config/rollout and of the chart's
		// rollout.strategy. The scenarios here change the configuration
		// within seconds of each other and of Nodes they create, and set
		// the strategy each needs: under a staged one left in place, a
		// change finds the last still rolling out a minute a step, and its
		// gate watches Ready, which the suite's Nodes without a kubelet (the
		// samples, the pending nodes) lose within a minute. Without a
		// strategy every change goes at once, as the scenarios expect.
		Expect(kube.mustRun("get", "nodeslorollout", rolloutName, "-n", namespace, "-o",
			"jsonpath={.spec.strategy.maxNodesPerStep} {.spec.strategy.stepIntervalSeconds} "+
				"{.spec.strategy.healthGate.onUnhealthy}")).To(Equal("10% 60 pause"))
		kube.mustRun("patch", "nodeslorollout", rolloutName, "-n", namespace, "--type=json",
			"-p", `[{"op": "remove", "path": "/spec/strategy"}]`)
		DeferCleanup(func() {
			if !uninstalled {
				in.uninstall()
			}
			kube.mustRun("delete", "crd", crdName, rolloutCRDName, "--ignore-not-found")
			kube.mustRun("delete", "namespace", namespace, "--ignore-not-found", "--timeout=2m")
		})
	})

	It("runs the controller's Pod on the node, Ready through the kubelet's probes, under enforce: restricted", func() {
		waitDeploymentReady(1)
		Expect(kube.mustRun("get", "namespace", namespace,
			"-o", `jsonpath={.metadata.labels.pod-security\.kubernetes\.io/enforce}`)).To(Equal("restricted"))
		pods := kube.mustRun("get", "pods", "-n", namespace, "-l", "control-plane=controller-manager",
			"-o", `jsonpath={range .items[*]}{.spec.nodeName} {.status.phase} {.spec.containers[0].image}{"\n"}{end}`)
		Expect(strings.TrimSpace(pods)).To(Equal(node.NodeName() + " Running " + image))
	})

	It("gets its webhook's serving certificate from cert-manager, with the CA injected", func() {
		checkCertManager()
	})

	if in.helmTest != nil {
		It("passes helm test (/readyz through a Service, under enforce: restricted), and fails it with no replica", func() {
			in.helmTest()
		})
	}

	It("denies a broken ConfigMap through the webhook Service, and its deletion without allow-delete", func() {
		checkWebhook()
	})

	It("writes the node's NodeSLO as `kubectl nodeslo render` renders it, shown with its printer columns", func() {
		applySample()
		converges(nodeSLOMatchesRender).Should(Succeed())
		checkPrinterColumns()
	})

	It("serves /metrics through its Service to a token bound to metrics-reader, and refuses one without", func() {
		checkMetricsAuthorization(in.metricsCertificate)
	})

	It("hands over to the second replica when the leader's Pod is deleted, without writing a NodeSLO", func() {
		checkLeaderHandover()
	})

	It("halts a gated rollout when the kubelet stops and its Node goes NotReady", func() {
		checkHealthGate()
	})

	It("leaves no controller object behind once uninstalled", func() {
		rendered := in.uninstall()
		uninstalled = true
		left := kube.mustRunWithInput(rendered, "get", "-f", "-", "--ignore-not-found", "-o", "name")
		Expect(strings.Fields(left)).To(ConsistOf(in.kept), "objects of the installation still there")
		By("waiting for the garbage collector and the kubelet to remove the Deployment's Pods")
		converges(func() (string, error) {
			return kube.run("get", "pods", "-n", namespace, "-o", "name")
		}).Should(BeEmpty())
		By("the CRDs are kept: the NodeSLO stays, as docs/install.md says")
		nodeSLOs, err := kube.run("get", "nodeslo", node.NodeName(), "-o", "name")
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.TrimSpace(nodeSLOs)).To(Equal("nodeslo.slo.koordinator.sh/" + node.NodeName()))
	})
}

// waitDeploymentReady waits until the Deployment has replicas Pods, all
// Ready, and no other.
func waitDeploymentReady(replicas int) {
	GinkgoHelper()
	want := fmt.Sprintf("%d %d %d", replicas, replicas, replicas)
	converges(func() (string, error) {
		return kube.run("get", "deployment", deploymentName, "-n", namespace,
			"-o", "jsonpath={.status.replicas} {.status.readyReplicas} {.status.updatedReplicas}")
	}).Should(Equal(want), func() string {
		out, _ := kube.run("describe", "pods", "-n", namespace)
		return out
	})
}

// applySample applies config/samples' ConfigMap (valid: the webhook admits
// it) server-side.
func applySample() {
	GinkgoHelper()
	sample, err := os.ReadFile(filepath.Join(root, "config", "samples", "slo-controller-config.yaml"))
	Expect(err).NotTo(HaveOccurred())
	kube.mustRunWithInput(string(sample), "apply", "--server-side", "--force-conflicts", "-f", "-")
}
