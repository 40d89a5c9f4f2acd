//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// installObjects reads the objects of dist/install.yaml.
func installObjects() []*unstructured.Unstructured {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(root, "dist", "install.yaml"))
	Expect(err).NotTo(HaveOccurred())
	objs, err := localcluster.DecodeObjects(raw)
	Expect(err).NotTo(HaveOccurred())
	return objs
}

// installWithoutWebhook is dist/install.yaml as a List without what the
// local control plane cannot serve: it has no cert-manager (no Issuer or
// Certificate kinds) and bin/manager runs there without the webhook server
// (no --enable-webhook), so the ValidatingWebhookConfiguration would point
// at nothing. The webhook itself is tested with envtest in internal/webhook.
func installWithoutWebhook() string {
	GinkgoHelper()
	list := map[string]any{"apiVersion": "v1", "kind": "List"}
	var items []any
	for _, obj := range installObjects() {
		if obj.GroupVersionKind().Group == "cert-manager.io" || obj.GetKind() == "ValidatingWebhookConfiguration" {
			continue
		}
		items = append(items, obj.Object)
	}
	list["items"] = items
	out, err := json.Marshal(list)
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}

var _ = Describe("dist/install.yaml's admission webhook", func() {
	It("is scoped to the one ConfigMap and its NodeSLORollout, checks their writes and the ConfigMap's deletion, "+
		"fails open, and its Service and "+
		"certificate are namespaced", func() {
		var hooks []admissionregistrationv1.ValidatingWebhookConfiguration
		namespaced := map[string]string{}
		for _, obj := range installObjects() {
			switch obj.GetKind() {
			case "ValidatingWebhookConfiguration":
				var h admissionregistrationv1.ValidatingWebhookConfiguration
				Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &h)).To(Succeed())
				hooks = append(hooks, h)
			case "Service", "Certificate", "Issuer":
				namespaced[obj.GetKind()+"/"+obj.GetName()] = obj.GetNamespace()
			}
		}
		Expect(hooks).To(HaveLen(1))
		Expect(hooks[0].Annotations).To(HaveKeyWithValue("cert-manager.io/inject-ca-from",
			namespace+"/nodeslo-controller-serving-cert"))
		// Two webhooks, of the ConfigMap and of its NodeSLORollout, each
		// scoped to the one object of that namespace and name.
		Expect(hooks[0].Webhooks).To(HaveLen(2))
		resources := map[string][]admissionregistrationv1.OperationType{}
		var w admissionregistrationv1.ValidatingWebhook
		for _, hook := range hooks[0].Webhooks {
			Expect(hook.FailurePolicy).To(HaveValue(Equal(admissionregistrationv1.Ignore)), hook.Name)
			Expect(hook.TimeoutSeconds).To(HaveValue(BeNumerically("<=", 5)), hook.Name)
			Expect(hook.NamespaceSelector.MatchLabels).To(Equal(map[string]string{
				"kubernetes.io/metadata.name": namespace}), hook.Name)
			Expect(hook.MatchConditions).To(ConsistOf(HaveField("Expression",
				ContainSubstring(`'`+configMapName+`'`))), hook.Name)
			Expect(hook.Rules).To(HaveLen(1), hook.Name)
			for _, r := range hook.Rules[0].Resources {
				resources[r] = hook.Rules[0].Operations
			}
			Expect(hook.ClientConfig.Service).NotTo(BeNil())
			Expect(hook.ClientConfig.Service.Namespace).To(Equal(namespace))
			w = hook
		}
		// DELETE: the ConfigMap is not deleted without the allow-delete annotation.
		Expect(resources).To(Equal(map[string][]admissionregistrationv1.OperationType{
			"configmaps": {admissionregistrationv1.Create, admissionregistrationv1.Update,
				admissionregistrationv1.Delete},
			"nodeslorollouts": {admissionregistrationv1.Create, admissionregistrationv1.Update},
		}))
		Expect(namespaced).To(Equal(map[string]string{
			"Service/" + w.ClientConfig.Service.Name:                        namespace,
			"Service/nodeslo-controller-controller-manager-metrics-service": namespace,
			"Certificate/nodeslo-controller-serving-cert":                   namespace,
			"Issuer/nodeslo-controller-selfsigned-issuer":                   namespace,
		}))
	})
})
