//go:build e2e

package e2e

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// restrictedNamespace enforces the "restricted" Pod Security Standard.
const restrictedNamespace = "pod-security-restricted"

var _ = Describe("dist/install.yaml", func() {
	var manifest appsv1.Deployment

	BeforeEach(func() {
		out := kube.mustRun("get", "deployment", deployment, "-n", namespace, "-o", "json")
		Expect(json.Unmarshal([]byte(out), &manifest)).To(Succeed())
	})

	It("runs the manager hardened: read-only root, probes, resources, leader election", func() {
		spec := manifest.Spec.Template.Spec
		Expect(spec.ServiceAccountName).To(Equal(serviceAccount))
		Expect(spec.Containers).To(HaveLen(1))
		c := spec.Containers[0]
		Expect(c.Args).To(ContainElements("--leader-elect", "--metrics-bind-address=:8443"))
		Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
		Expect(c.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
		Expect(c.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
		Expect(c.Resources.Requests).To(HaveKey(corev1.ResourceMemory))
		Expect(c.Resources.Limits).To(HaveKey(corev1.ResourceMemory))
		kube.mustRun("get", "service", "nodeslo-controller-controller-manager-metrics-service", "-n", namespace)
	})

	It("has a pod template that passes the restricted Pod Security level", func() {
		kube.mustRun("create", "namespace", restrictedNamespace)
		DeferCleanup(kube.mustRun, "delete", "namespace", restrictedNamespace, "--wait=false")
		kube.mustRun("label", "namespace", restrictedNamespace, "pod-security.kubernetes.io/enforce=restricted")

		pod := podFrom(manifest.Spec.Template, "manager")
		_, err := kube.runWithInput(toJSON(pod), "create", "--dry-run=server", "-f", "-")
		Expect(err).NotTo(HaveOccurred())

		By("and the namespace does reject what the restricted level forbids")
		pod.Spec.HostNetwork = true
		_, err = kube.runWithInput(toJSON(pod), "create", "--dry-run=server", "-f", "-")
		Expect(err).To(MatchError(ContainSubstring(`violates PodSecurity "restricted`)))
	})
})

// podFrom builds the Pod a ReplicaSet would create from template.
func podFrom(template corev1.PodTemplateSpec, name string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: restrictedNamespace, Labels: template.Labels},
		Spec:       *template.Spec.DeepCopy(),
	}
}

func toJSON(v any) string {
	GinkgoHelper()
	out, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}
