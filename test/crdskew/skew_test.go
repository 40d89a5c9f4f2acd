package crdskew

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
	"github.com/nodeslo/nodeslo-controller/internal/plugin"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// droppedPath is the field Koordinator v1.8.0's CRD lacks, as the messages name it.
const droppedPath = "spec.resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent"

// runPlugin runs kubectl nodeslo with args against the suite's cluster.
func runPlugin(args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = plugin.Execute(append(args, "--kubeconfig", kubeconfig),
		plugin.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// configMapFile writes cm to a file, as `kubectl get cm -o yaml` would.
func configMapFile(cm *corev1.ConfigMap) string {
	out := cm.DeepCopy()
	out.APIVersion, out.Kind = "v1", "ConfigMap"
	raw, err := yaml.Marshal(out)
	Expect(err).NotTo(HaveOccurred())
	file := filepath.Join(GinkgoT().TempDir(), "cm.yaml")
	Expect(os.WriteFile(file, raw, 0o600)).To(Succeed())
	return file
}

var _ = Describe("Against Koordinator v1.8.0's NodeSLO CRD, which lacks memoryQOS.pageCache*", Ordered, Serial, func() {
	const nodeCount = 4
	data := map[string]string{string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS": ` +
		`{"enable": true, "pageCacheLimitPercent": 50}}}}`}
	var (
		cm        *corev1.ConfigMap
		nodes     []string
		admission []string
	)

	BeforeAll(func(ctx SpecContext) {
		warnings.Take()
		cm = putConfig(ctx, k8sClient, data)
		admission = warnings.Take()
		writes.Reset()
		nodes = createNodes(ctx, k8sClient, nodeCount)
		for _, n := range nodes {
			Eventually(storedSpec(ctx, k8sClient, n)).Should(WithTransform(
				func(s *slov1alpha1.NodeSLOSpec) bool {
					return s.ResourceQOSStrategy != nil && s.ResourceQOSStrategy.LSClass != nil &&
						s.ResourceQOSStrategy.LSClass.MemoryQOS != nil
				}, BeTrue()), "NodeSLO of %s", n)
		}
		Eventually(configEvents(ctx, cm, corev1.EventTypeWarning, controller.ReasonFieldsDroppedByCRD)).ShouldNot(BeEmpty())
		testkit.Settle(controller.Controllers...)
	})

	It("the admission webhook warns of the field the CRD would drop", func() {
		Expect(admission).To(ContainElement(And(
			HavePrefix("resource-qos-config: "+droppedPath+": "), ContainSubstring(sloconfig.NodeSLOCRDName),
			ContainSubstring("kubectl apply --server-side"), ContainSubstring("helm upgrade"))))
	})

	It("stores every NodeSLO without the field, and writes each once: the creates", func(ctx SpecContext) {
		for _, n := range nodes {
			spec, err := storedSpec(ctx, k8sClient, n)()
			Expect(err).NotTo(HaveOccurred())
			Expect(pageCacheLimit(spec)).To(BeNil(), "the apiserver pruned the field of %s", n)
			Expect(*spec.ResourceQOSStrategy.LSClass.MemoryQOS.Enable).To(BeTrue())
		}
		succeeded, conflicts, failed := writes.Totals()
		Expect(succeeded).To(Equal(nodeCount), "writes (the creates), with %d conflicts and %d failures", conflicts, failed)
	})

	It("records one Warning Event on the ConfigMap naming the key, the path and the fix", func(ctx SpecContext) {
		notes, err := configEvents(ctx, cm, corev1.EventTypeWarning, controller.ReasonFieldsDroppedByCRD)()
		Expect(err).NotTo(HaveOccurred())
		Expect(notes).To(ConsistOf(And(
			ContainSubstring("resource-qos-config: "+droppedPath), ContainSubstring(sloconfig.NodeSLOCRDName),
			ContainSubstring("kubectl apply --server-side"), ContainSubstring("helm upgrade"))))
	})

	It("sets the gauge, and the alert's expression fires for the key", func() {
		Expect(gauge(controller.MetricCRDDroppedFields, "key")).To(HaveKeyWithValue(string(sloconfig.KeyResourceQOS), 1.0))
		Expect(evalAlert("NodeSLOFieldsDroppedByCRD")).To(ConsistOf(string(sloconfig.KeyResourceQOS)))
	})

	It("writes nothing after an unrelated label change", func(ctx SpecContext) {
		writes.Reset()
		before := reconciles()
		for _, n := range nodes {
			node := &corev1.Node{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Name: n}, node)).To(Succeed())
			node.Labels = map[string]string{"rack": "r1"}
			Expect(k8sClient.Update(ctx, node)).To(Succeed())
		}
		Eventually(func() float64 { return reconciles() - before }).Should(BeNumerically(">=", nodeCount))
		Consistently(writes.Total).Should(BeZero())
	})

	It("a staged rollout counts the nodes lacking only the field as reached: its status completes, "+
		"and kubectl nodeslo rollout status exits 0", func(ctx SpecContext) {
		staged := map[string]string{
			string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS": ` +
				`{"enable": true, "pageCacheLimitPercent": 50, "minLimitPercent": 10}}}}`,
		}
		// The strategy goes on the NodeSLORollout of the ConfigMap's name,
		// taken up by the controller before the change: read after it, it
		// would find the change gone out at once.
		if testkit.SetStrategy(ctx, k8sClient, configKey, `{"maxNodesPerStep": 2, "stepIntervalSeconds": 1}`) {
			DeferCleanup(func(ctx SpecContext) {
				Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, &nodeslov1alpha1.NodeSLORollout{
					ObjectMeta: metav1.ObjectMeta{Namespace: configKey.Namespace, Name: configKey.Name},
				}))).To(Succeed())
			})
		}
		Eventually(func(g Gomega) {
			obj := &nodeslov1alpha1.NodeSLORollout{}
			g.Expect(k8sClient.Get(ctx, configKey, obj)).To(Succeed())
			g.Expect(obj.Status.ObservedGeneration).To(Equal(obj.Generation))
		}).Should(Succeed(), "the controller took up the strategy")
		putConfig(ctx, k8sClient, staged)
		code, stdout, stderr := runPlugin("rollout", "status", "--timeout", "2m")
		Expect(code).To(Equal(plugin.ExitOK), stderr)
		Expect(stdout).To(ContainSubstring(fmt.Sprintf("reached: %d of %d nodes\n", nodeCount, nodeCount)))
		Expect(stdout).To(ContainSubstring("complete: every node has the configuration in force"))
		for _, n := range nodes {
			spec, err := storedSpec(ctx, k8sClient, n)()
			Expect(err).NotTo(HaveOccurred())
			Expect(pageCacheLimit(spec)).To(BeNil(), "the apiserver pruned the field of %s", n)
			Expect(*spec.ResourceQOSStrategy.LSClass.MemoryQOS.MinLimitPercent).To(BeEquivalentTo(10))
		}
		// Back to the configuration the specs below start from, at once (the
		// strategy removed first: the rollout is complete); the restart below
		// starts the rechecks of the dropped field afresh.
		testkit.SetStrategy(ctx, k8sClient, configKey, "")
		putConfig(ctx, k8sClient, data)
		testkit.Settle(controller.Controllers...)
	})

	It("writes nothing after a restart, and learns the dropped field again by dry runs", func(ctx SpecContext) {
		stopManager()
		writes.Reset()
		before := reconciles()
		stopManager = startManager()
		Eventually(func() float64 { return reconciles() - before }).Should(BeNumerically(">=", nodeCount))
		// At most one dry run per node whose NodeSLO lacks a field of unknown
		// fate (the workers run at once), one of the whole configuration and
		// one recheck of the field.
		dryRuns := writes.DryRuns()
		AddReportEntry("dry runs to learn the dropped field again after a restart", dryRuns)
		Expect(dryRuns).To(BeNumerically(">=", 1), "the dropped field is learned again")
		Expect(dryRuns).To(BeNumerically("<=", nodeCount+2))
		Consistently(writes.Total).Should(BeZero())
		Eventually(func() map[string]float64 { return gauge(controller.MetricCRDDroppedFields, "key") }).
			Should(HaveKeyWithValue(string(sloconfig.KeyResourceQOS), 1.0))
	})

	It("kubectl nodeslo validate --check-crd names the path", func() {
		file := configMapFile(cm)
		code, stdout, stderr := runPlugin("validate", "-f", file, "--check-crd")
		Expect(code).To(Equal(plugin.ExitOK), stderr)
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(ContainSubstring("warning: resource-qos-config: " + droppedPath + ": "))

		code, _, stderr = runPlugin("validate", "-f", file)
		Expect(code).To(Equal(plugin.ExitOK))
		Expect(stderr).NotTo(ContainSubstring(droppedPath), "without --check-crd the cluster is not asked")
	})

	It("kubectl nodeslo explain lists the node's value its NodeSLO cannot carry", func() {
		code, stdout, stderr := runPlugin("explain", nodes[0])
		Expect(code).To(Equal(plugin.ExitOK), stderr)
		Expect(stdout).To(ContainSubstring(
			"NodeSLO:   matches the configuration, but for the values the installed CRD drops"))
		Expect(stdout).To(ContainSubstring(fmt.Sprintf("  resource-qos-config: %s = 50\n", droppedPath)))
	})

	It("once the CRD is replaced by this project's, writes each node once, with the field", func(ctx SpecContext) {
		writes.Reset()
		_, err := envtest.InstallCRDs(env.Admin, envtest.CRDInstallOptions{
			Paths: []string{envtestharness.RepoPath("config", "crd", "bases")},
		})
		Expect(err).NotTo(HaveOccurred())
		for _, n := range nodes {
			Eventually(storedSpec(ctx, k8sClient, n)).Should(WithTransform(pageCacheLimit, HaveValue(BeEquivalentTo(50))), n)
		}
		testkit.Settle(controller.Controllers...)
		Expect(writes.Total()).To(Equal(nodeCount))
		for _, n := range nodes {
			Expect(writes.Succeeded(n)).To(Equal(1), "writes of %s", n)
		}
		Expect(gauge(controller.MetricCRDDroppedFields, "key")).To(HaveKeyWithValue(string(sloconfig.KeyResourceQOS), 0.0))
		Expect(evalAlert("NodeSLOFieldsDroppedByCRD")).To(BeEmpty())
		Eventually(configEvents(ctx, cm, corev1.EventTypeNormal, controller.ReasonFieldsStoredByCRD)).
			Should(ConsistOf(ContainSubstring(strings.TrimPrefix(droppedPath, "spec."))))
	})

	It("against this project's CRD, the webhook, validate --check-crd and explain say nothing of it",
		func(ctx SpecContext) {
			warnings.Take()
			changed := map[string]string{string(sloconfig.KeyResourceQOS): data[string(sloconfig.KeyResourceQOS)] + " "}
			cm = putConfig(ctx, k8sClient, changed)
			Expect(warnings.Take()).NotTo(ContainElement(ContainSubstring(droppedPath)))

			file := configMapFile(cm)
			code, stdout, stderr := runPlugin("validate", "-f", file, "--check-crd")
			Expect(code).To(Equal(plugin.ExitOK), stderr)
			Expect(stdout + stderr).To(BeEmpty())

			code, stdout, stderr = runPlugin("explain", nodes[0])
			Expect(code).To(Equal(plugin.ExitOK), stderr)
			Expect(stdout).To(ContainSubstring("NodeSLO:   matches the configuration\n"))
			Expect(stdout).To(ContainSubstring("the installed NodeSLO CRD stores every value configured for this node"))
		})

	It("checks a configuration whose strategies together break a cross-field rule of the CRD strategy by strategy",
		func(ctx SpecContext) {
			// As in the samples: the cluster strategy evicts above 70 %, a node
			// strategy evicts from 85 % down to 75 %. One spec holding both
			// would have its lower bound above its threshold, which this
			// project's CRD refuses.
			crossed := map[string]string{
				string(sloconfig.KeyResourceThreshold): `{"clusterStrategy": {"enable": true, "memoryEvictThresholdPercent": 70},
					"nodeStrategies": [{"name": "colocation", "nodeSelector": {"matchLabels": {"pool": "colocation"}},
						"memoryEvictThresholdPercent": 85, "memoryEvictLowerPercent": 75}]}`,
				string(sloconfig.KeyResourceQOS): data[string(sloconfig.KeyResourceQOS)],
			}
			warnings.Take()
			cm = putConfig(ctx, k8sClient, crossed)
			Expect(warnings.Take()).NotTo(ContainElement(ContainSubstring(droppedPath)))
			code, stdout, stderr := runPlugin("validate", "-f", configMapFile(cm), "--check-crd")
			Expect(code).To(Equal(plugin.ExitOK), stderr)
			Expect(stdout + stderr).To(BeEmpty())
		})
})
