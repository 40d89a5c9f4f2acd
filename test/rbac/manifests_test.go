package rbac_test

import (
	"bytes"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// deployedNamespace is where config/default installs everything namespaced.
const deployedNamespace = "koordinator-system"

var _ = Describe("what config/default deploys", func() {
	var objects []*unstructured.Unstructured

	BeforeEach(func() {
		kustomize, err := filepath.Abs(filepath.Join(root, "bin", "kustomize"))
		Expect(err).NotTo(HaveOccurred())
		Expect(kustomize).To(BeAnExistingFile(), "run `make kustomize` (make test does it first)")
		cmd := exec.Command(kustomize, "build", filepath.Join(root, "config", "default"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		Expect(err).NotTo(HaveOccurred(), stderr.String())
		objects, err = localcluster.DecodeObjects(out)
		Expect(err).NotTo(HaveOccurred())
		Expect(objects).NotTo(BeEmpty())
	})

	It("puts the webhook's Service, Issuer and Certificate in the controller's namespace", func() {
		var webhookServices []string
		for _, o := range objectsOf(objects, "ValidatingWebhookConfiguration") {
			hooks, _, err := unstructured.NestedSlice(o.Object, "webhooks")
			Expect(err).NotTo(HaveOccurred())
			for _, h := range hooks {
				service, found, err := unstructured.NestedMap(h.(map[string]any), "clientConfig", "service")
				Expect(err).NotTo(HaveOccurred())
				Expect(found).To(BeTrue(), "webhook of %s calls a URL, not a Service", o.GetName())
				Expect(service["namespace"]).To(Equal(deployedNamespace), "the webhook's Service reference")
				webhookServices = append(webhookServices, service["name"].(string))
			}
		}
		Expect(webhookServices).NotTo(BeEmpty())
		for _, name := range webhookServices {
			service := findObject(objects, "Service", name)
			Expect(service).NotTo(BeNil(), "Service %s is not deployed", name)
			Expect(service.GetNamespace()).To(Equal(deployedNamespace))
		}

		Expect(objectsOf(objects, "ClusterIssuer")).To(BeEmpty(), "a ClusterIssuer would serve every namespace")
		issuers := objectsOf(objects, "Issuer")
		certificates := objectsOf(objects, "Certificate")
		Expect(issuers).NotTo(BeEmpty())
		Expect(certificates).NotTo(BeEmpty())
		for _, o := range append(issuers, certificates...) {
			Expect(o.GetNamespace()).To(Equal(deployedNamespace), "%s %s", o.GetKind(), o.GetName())
		}
		for _, c := range certificates {
			kind, _, _ := unstructured.NestedString(c.Object, "spec", "issuerRef", "kind")
			Expect(kind).To(Equal("Issuer"), "Certificate %s signed by a cluster-wide issuer", c.GetName())
		}
	})

	It("grants no access to Secrets in any role", func() {
		roles := append(objectsOf(objects, "Role"), objectsOf(objects, "ClusterRole")...)
		Expect(roles).NotTo(BeEmpty())
		for _, o := range roles {
			role := &rbacv1.ClusterRole{} // a Role's rules have the same shape
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, role)).To(Succeed())
			for _, rule := range role.Rules {
				coreGroup := len(rule.APIGroups) == 0
				for _, g := range rule.APIGroups {
					coreGroup = coreGroup || g == "" || g == rbacv1.APIGroupAll
				}
				for _, r := range rule.Resources {
					Expect(coreGroup && (r == "secrets" || r == rbacv1.ResourceAll)).To(BeFalse(),
						"%s %s grants %v on %s", o.GetKind(), o.GetName(), rule.Verbs, r)
				}
			}
		}
	})
})

func objectsOf(objects []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objects {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	return out
}

func findObject(objects []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objectsOf(objects, kind) {
		if o.GetName() == name {
			return o
		}
	}
	return nil
}
