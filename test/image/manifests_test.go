//go:build image

package image

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// namespace is where both renderings put the manager (Koordinator's).
const namespace = "koordinator-system"

// manifests is one rendering of the project's deployment: kustomize's
// config/default or the chart's templates.
type manifests struct {
	// source names the rendering in messages ("config/default", "dist/chart").
	source  string
	objects []*unstructured.Unstructured
}

// renderKustomize is `kustomize build` of config/crd and config/default,
// as `make deploy` applies them.
func renderKustomize() manifests {
	GinkgoHelper()
	kustomize := filepath.Join(root, "bin", "kustomize")
	return manifests{source: "config/default", objects: append(
		decodeObjects(mustExec(root, kustomize, "build", "config/crd")),
		decodeObjects(mustExec(root, kustomize, "build", "config/default"))...)}
}

// renderChart is `helm template` of dist/chart with its default values and
// the image under test's repository, which the chart requires: what `helm
// install` creates, so without the test hooks only `helm test` creates.
func renderChart() manifests {
	GinkgoHelper()
	home := GinkgoT().TempDir()
	repository, _ := nodecluster.SplitImage(imageName)
	cmd := exec.Command(filepath.Join(root, "bin", "helm"), "template", "nodeslo", "dist/chart", "-n", namespace,
		"--kube-version", "1.30.0", "--skip-tests", "--set", "manager.image.repository="+repository)
	cmd.Env = []string{"HOME=" + home, "HELM_CACHE_HOME=" + home, "HELM_CONFIG_HOME=" + home, "HELM_DATA_HOME=" + home}
	cmd.Dir = root
	return manifests{source: "dist/chart", objects: decodeObjects(mustOutput(cmd))}
}

func mustExec(dir, binary string, args ...string) []byte {
	GinkgoHelper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	return mustOutput(cmd)
}

func mustOutput(cmd *exec.Cmd) []byte {
	GinkgoHelper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	Expect(cmd.Run()).To(Succeed(), "%s: %s", strings.Join(cmd.Args, " "), stderr.String())
	return stdout.Bytes()
}

// one returns the single object of kind (and name, if given), converted.
func one[T any](m manifests, kind, name string) *T {
	GinkgoHelper()
	var found []*unstructured.Unstructured
	for _, obj := range m.objects {
		if obj.GetKind() == kind && (name == "" || obj.GetName() == name) {
			found = append(found, obj)
		}
	}
	Expect(found).To(HaveLen(1), "%s: want exactly one %s %q", m.source, kind, name)
	out := new(T)
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(found[0].Object, out)).To(Succeed())
	return out
}

// deployment is the manager's Deployment of the rendering.
func (m manifests) deployment() *appsv1.Deployment {
	GinkgoHelper()
	return one[appsv1.Deployment](m, "Deployment", "")
}

// certificate finds the cert-manager Certificate that writes secretName:
// its DNS names go into the stand-in certificate.
func (m manifests) certificate(secretName string) (dnsNames []string) {
	GinkgoHelper()
	for _, obj := range m.objects {
		if obj.GetKind() != "Certificate" {
			continue
		}
		if s, _, _ := unstructured.NestedString(obj.Object, "spec", "secretName"); s == secretName {
			names, _, err := unstructured.NestedStringSlice(obj.Object, "spec", "dnsNames")
			Expect(err).NotTo(HaveOccurred())
			return names
		}
	}
	Fail(fmt.Sprintf("%s: no Certificate writes Secret %q, which the Deployment mounts", m.source, secretName))
	return nil
}

// forAPIServer returns what the local control plane can hold: every object
// but cert-manager's (it has no cert-manager; the suite makes the serving
// certificate itself), with the webhook configuration calling the
// container on loopback (callContainer) instead of through its Service.
// Helm's hooks come apart (hooks), to be applied after the rest as helm
// does: the chart's NodeSLORollout is a post-install hook, whose kind exists
// only once the CRD that came with the rest is established.
func (m manifests) forAPIServer(
	callContainer func(*admissionregistrationv1.ValidatingWebhookConfiguration),
) (resources, hooks []*unstructured.Unstructured) {
	GinkgoHelper()
	for _, obj := range m.objects {
		switch {
		case obj.GroupVersionKind().Group == "cert-manager.io":
			continue
		case obj.GetAnnotations()["helm.sh/hook"] != "":
			hooks = append(hooks, obj)
			continue
		case obj.GetKind() == "ValidatingWebhookConfiguration":
			var cfg admissionregistrationv1.ValidatingWebhookConfiguration
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &cfg)).To(Succeed())
			callContainer(&cfg)
			converted, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&cfg)
			Expect(err).NotTo(HaveOccurred())
			obj = &unstructured.Unstructured{Object: converted}
			obj.SetAPIVersion("admissionregistration.k8s.io/v1")
			obj.SetKind("ValidatingWebhookConfiguration")
		}
		resources = append(resources, obj)
	}
	return resources, hooks
}

// serviceTarget resolves what a webhook's Service reference reaches: the
// Service's port (443 unless given) to its targetPort, a number or the
// name of one of the container's ports, as kube-proxy and the endpoints
// controller would. The suite then calls that port on loopback.
func (m manifests) serviceTarget(ref *admissionregistrationv1.ServiceReference, container corev1.Container) int32 {
	GinkgoHelper()
	svc := one[corev1.Service](m, "Service", ref.Name)
	Expect(svc.Namespace).To(Equal(ref.Namespace), "%s: the webhook's Service namespace", m.source)
	port := int32(443)
	if ref.Port != nil {
		port = *ref.Port
	}
	for _, p := range svc.Spec.Ports {
		if p.Port != port {
			continue
		}
		if p.TargetPort.IntVal != 0 {
			return p.TargetPort.IntVal
		}
		if p.TargetPort.StrVal == "" {
			return port // no targetPort: the Service's own port
		}
		return containerPort(container, p.TargetPort.StrVal)
	}
	Fail(fmt.Sprintf("%s: Service %s has no port %d for the webhook", m.source, ref.Name, port))
	return 0
}

// containerPort resolves a probe's or a Service's port: a number, or the
// name of one of the container's ports.
func containerPort(c corev1.Container, port string) int32 {
	GinkgoHelper()
	for _, p := range c.Ports {
		if p.Name == port || fmt.Sprint(p.ContainerPort) == port {
			return p.ContainerPort
		}
	}
	Fail(fmt.Sprintf("container %s has no port %q", c.Name, port))
	return 0
}

// toList wraps objects in a v1 List for one kubectl apply.
func toList(objs []*unstructured.Unstructured) *unstructured.UnstructuredList {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("v1")
	list.SetKind("List")
	for _, o := range objs {
		list.Items = append(list.Items, *o)
	}
	return list
}

// decodeObjects decodes a rendering's objects, failing the spec on bad YAML.
func decodeObjects(stream []byte) []*unstructured.Unstructured {
	GinkgoHelper()
	objs, err := localcluster.DecodeObjects(stream)
	Expect(err).NotTo(HaveOccurred())
	return objs
}
