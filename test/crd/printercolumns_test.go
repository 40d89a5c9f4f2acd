package crd

import (
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// kubectl runs the kubectl of the envtest store (same version as the
// apiserver) or, failing that, the one on PATH, against the test apiserver.
func kubectl(args ...string) string {
	bin, err := localcluster.KubectlBinary(envtestharness.AssetsDir())
	Expect(err).NotTo(HaveOccurred())
	out, err := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl %s: %s", strings.Join(args, " "), out)
	return string(out)
}

var _ = Describe("kubectl get nodeslo", func() {
	BeforeEach(func() {
		nodeSLO := &slov1alpha1.NodeSLO{
			ObjectMeta: metav1.ObjectMeta{Name: "printer-columns"},
			Spec:       fullySetSpec(),
		}
		nodeSLO.Spec.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent = new(int64(61))
		nodeSLO.Spec.ResourceUsedThresholdWithBE.MemoryEvictThresholdPercent = new(int64(79))
		Expect(k8sClient.Create(ctx, nodeSLO)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, nodeSLO)).To(Succeed()) })
	})

	It("shows what the node is told at a glance", func() {
		out := kubectl("get", "nodeslo", "printer-columns")
		Expect(strings.Fields(firstLine(out))).To(Equal([]string{
			nameColumn, "BE-ENABLED", "CPU-SUPPRESS%", "MEM-EVICT%", "CPU-BURST", ageColumn}))
		Expect(strings.Fields(secondLine(out))[:5]).To(Equal([]string{"printer-columns", "true", "61", "79", "auto"}))
	})

	It("answers to the short name nslo", func() {
		Expect(kubectl("get", "nslo", "printer-columns", "--no-headers")).To(HavePrefix("printer-columns "))
	})

	It("shows the policies and bandwidth with -o wide", func() {
		out := kubectl("get", "nodeslo", "printer-columns", "-o", "wide")
		Expect(strings.Fields(firstLine(out))).To(Equal([]string{
			nameColumn, "BE-ENABLED", "CPU-SUPPRESS%", "MEM-EVICT%", "CPU-BURST",
			"SUPPRESS-POLICY", "CPU-EVICT-POLICY", "BANDWIDTH", ageColumn}))
		Expect(strings.Fields(secondLine(out))[5:8]).To(Equal([]string{"cfsQuota", "evictByAllocatable", "10G"}))
	})
})

// The headers of the columns kubectl adds to every kind's.
const nameColumn, ageColumn = "NAME", "AGE"

func firstLine(s string) string  { return strings.Split(s, "\n")[0] }
func secondLine(s string) string { return strings.Split(s, "\n")[1] }

var _ = Describe("kubectl get nodeslorollout", func() {
	It("shows where the rollout stands at a glance, and answers to nslor", func() {
		const name, halted = "rollout-columns", "Halted"
		obj := &nodeslov1alpha1.NodeSLORollout{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		Expect(k8sClient.Create(ctx, obj)).To(Succeed())
		DeferCleanup(func() { Expect(k8sClient.Delete(ctx, obj)).To(Succeed()) })
		obj.Status = nodeslov1alpha1.NodeSLORolloutStatus{Phase: halted, Revision: 3, Step: 2, Steps: 5,
			Reached: 13, Pending: 27, Health: &nodeslov1alpha1.RolloutHealth{Allowed: 1, Unhealthy: 2},
			Conditions: []metav1.Condition{{Type: nodeslov1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: halted,
				LastTransitionTime: metav1.Now()}}}
		Expect(k8sClient.Status().Update(ctx, obj)).To(Succeed())

		out := kubectl("get", "nslor", "-n", "default", name)
		Expect(strings.Fields(firstLine(out))).To(Equal([]string{
			nameColumn, "PHASE", "REVISION", "STEP", "STEPS", "REACHED", "PENDING", "UNHEALTHY", "READY", ageColumn}))
		Expect(strings.Fields(secondLine(out))[:9]).To(Equal([]string{
			name, halted, "3", "2", "5", "13", "27", "2", "False"}))
	})
})
