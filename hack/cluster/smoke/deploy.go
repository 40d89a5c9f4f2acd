package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/nodeslo/nodeslo-controller/test/nodecluster"
)

// checkDeployment applies a rendering of the manifests (make
// build-installer's dist/install.yaml, its image loaded into containerd) to
// the cluster and waits until the controller's Deployment is available: its
// Pod scheduled on the node, in a namespace labelled for the restricted Pod
// Security level, started by the kubelet from the image, reaching the
// apiserver through the kubernetes Service (in-cluster configuration), and
// Ready through the kubelet's probes; then that the node's NodeSLO exists
// and that a broken ConfigMap is denied by the webhook through its Service.
//
// There is no cert-manager yet: its Issuer and Certificate are left out and
// their work is done here as test/image does it (a serving certificate for
// the Certificate's DNS names in the Secret the Deployment mounts, its CA in
// the caBundle of the webhook configurations that ask cert-manager to
// inject it).
func checkDeployment(ctx context.Context, cluster *nodecluster.Cluster, installFile string) error {
	namespace, deployment, err := applyInstall(ctx, cluster, installFile)
	if err != nil {
		return err
	}
	if err := waitAvailable(ctx, cluster, namespace, deployment); err != nil {
		return err
	}
	if err := checkNodeSLO(ctx, cluster); err != nil {
		return err
	}
	return checkWebhookDenies(ctx, cluster, namespace)
}

// installation is what applyInstall needs of a rendering.
type installation struct {
	namespace, deployment string
	secretName            string
	dnsNames              []string
	apply, injectInto     []*unstructured.Unstructured
}

// readInstallation sorts the objects of a rendering, its files separated
// by commas (dist/crds.yaml,dist/install.yaml): cert-manager's are left
// out, the Certificate's secretName and dnsNames kept. The namespace is the
// Deployment's: the rendering creates none (it is Koordinator's).
func readInstallation(installFiles string) (installation, error) {
	var objects []*unstructured.Unstructured
	for file := range strings.SplitSeq(installFiles, ",") {
		objs, err := readObjects(file)
		if err != nil {
			return installation{}, err
		}
		objects = append(objects, objs...)
	}
	var in installation
	for _, obj := range objects {
		certManager := obj.GroupVersionKind().Group == "cert-manager.io"
		switch {
		case obj.GetKind() == "Deployment":
			in.namespace, in.deployment = obj.GetNamespace(), obj.GetName()
		case obj.GetKind() == "Certificate" && certManager:
			in.secretName, _, _ = unstructured.NestedString(obj.Object, "spec", "secretName")
			in.dnsNames, _, _ = unstructured.NestedStringSlice(obj.Object, "spec", "dnsNames")
		}
		if certManager {
			continue
		}
		if obj.GetAnnotations()["cert-manager.io/inject-ca-from"] != "" {
			in.injectInto = append(in.injectInto, obj)
		}
		in.apply = append(in.apply, obj)
	}
	if in.namespace == "" || in.deployment == "" || in.secretName == "" || len(in.dnsNames) == 0 {
		return installation{}, fmt.Errorf(
			"%s: no Deployment or cert-manager Certificate with a secretName and dnsNames", installFiles)
	}
	return in, nil
}

// applyInstall creates the namespace labelled restricted, the serving
// certificate's Secret, and applies the rest of the rendering with the CA
// injected; it returns the namespace and the Deployment's name.
func applyInstall(ctx context.Context, cluster *nodecluster.Cluster, installFile string) (string, string, error) {
	in, err := readInstallation(installFile)
	if err != nil {
		return "", "", err
	}
	client := cluster.Clientset()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   in.namespace,
		Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"},
	}}, metav1.CreateOptions{}); err != nil {
		return "", "", err
	}
	caPEM, certPEM, keyPEM, err := servingCert(in.dnsNames)
	if err != nil {
		return "", "", err
	}
	if _, err := client.CoreV1().Secrets(in.namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: in.secretName, Namespace: in.namespace},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{"ca.crt": caPEM, "tls.crt": certPEM, "tls.key": keyPEM},
	}, metav1.CreateOptions{}); err != nil {
		return "", "", err
	}
	for _, obj := range in.injectInto {
		if err := injectCABundle(obj, caPEM); err != nil {
			return "", "", err
		}
	}
	var manifest bytes.Buffer
	for _, obj := range in.apply {
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			return "", "", err
		}
		manifest.WriteString("---\n")
		manifest.Write(data)
	}
	out, err := kubectlWithInput(ctx, cluster, &manifest, "apply", "--server-side", "-f", "-")
	fmt.Printf("$ kubectl apply --server-side -f - (%s without cert-manager's objects)\n%s", installFile, out)
	return in.namespace, in.deployment, err
}

// injectCABundle sets every webhook's caBundle, as cert-manager's CA
// injector does.
func injectCABundle(obj *unstructured.Unstructured, caPEM []byte) error {
	webhooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
	for _, w := range webhooks {
		if err := unstructured.SetNestedField(w.(map[string]any), base64.StdEncoding.EncodeToString(caPEM),
			"clientConfig", "caBundle"); err != nil {
			return err
		}
	}
	return unstructured.SetNestedSlice(obj.Object, webhooks, "webhooks")
}

// waitAvailable waits until every replica of the Deployment is Ready.
func waitAvailable(ctx context.Context, cluster *nodecluster.Cluster, namespace, deployment string) error {
	start := time.Now()
	err := poll(ctx, 3*time.Minute, func() error {
		d, err := cluster.Clientset().AppsV1().Deployments(namespace).Get(ctx, deployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range d.Status.Conditions {
			if cond.Type == appsv1.DeploymentAvailable && cond.Status == corev1.ConditionTrue &&
				d.Status.ReadyReplicas > 0 && d.Status.ReadyReplicas == d.Status.Replicas {
				return nil
			}
		}
		return fmt.Errorf("%d of %d replicas ready", d.Status.ReadyReplicas, d.Status.Replicas)
	})
	kubectl(cluster, "get", "deployment,pods", "-n", namespace, "-o", "wide")
	if err != nil {
		kubectl(cluster, "describe", "pods", "-n", namespace)
		kubectl(cluster, "logs", "-n", namespace, "deployment/"+deployment, "--tail=40")
		return fmt.Errorf("the Deployment %s/%s: %w", namespace, deployment, err)
	}
	logf("Deployment %s/%s available %s after the apply (Pods Ready through the kubelet's probes)",
		namespace, deployment, time.Since(start).Round(time.Millisecond))
	kubectl(cluster, "logs", "-n", namespace, "deployment/"+deployment, "--tail=15")
	return nil
}

// checkNodeSLO waits for the manager, in-cluster, to make the node's
// NodeSLO.
func checkNodeSLO(ctx context.Context, cluster *nodecluster.Cluster) error {
	if err := poll(ctx, time.Minute, func() error {
		_, err := kubectlWithInput(ctx, cluster, nil, "get", "nodeslo", cluster.NodeName())
		return err
	}); err != nil {
		return fmt.Errorf("no NodeSLO %s: %w", cluster.NodeName(), err)
	}
	kubectl(cluster, "get", "nodeslo")
	return nil
}

// checkWebhookDenies applies a broken slo-controller-config: the admission
// webhook, reached through its Service (the apiserver's aggregator routing:
// the EndpointSlice's pod IP) with the serving certificate's CA, must deny
// it. It fails open, so a denial proves it answered; the apiserver knows
// nothing of the key's contents, so only the webhook names the JSON path.
func checkWebhookDenies(ctx context.Context, cluster *nodecluster.Cluster, namespace string) error {
	broken := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: slo-controller-config
  namespace: %s
data:
  resource-threshold-config: '{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}'
`, namespace)
	out, err := kubectlWithInput(ctx, cluster, strings.NewReader(broken),
		"apply", "--server-side", "--force-conflicts", "-f", "-")
	fmt.Printf("$ kubectl apply --server-side -f - (slo-controller-config, cpuSuppressThresholdPercent 150)\n%s", out)
	const named = "resource-threshold-config: clusterStrategy.cpuSuppressThresholdPercent"
	if err == nil || !strings.Contains(string(out), named) {
		return fmt.Errorf("a broken ConfigMap was not denied by the webhook (%v): %s", err, out)
	}
	logf("the webhook denied a broken ConfigMap through its Service")
	return nil
}

// kubectlWithInput runs kubectl on the cluster with stdin (nil: none) and
// returns its combined output.
func kubectlWithInput(ctx context.Context, cluster *nodecluster.Cluster, stdin io.Reader, args ...string,
) ([]byte, error) {
	cmd := exec.CommandContext(ctx, cluster.Kubectl(),
		append([]string{"--kubeconfig", cluster.Kubeconfig()}, args...)...)
	cmd.Stdin = stdin
	return cmd.CombinedOutput()
}

// readObjects reads every object of a multi-document YAML file.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var objects []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return objects, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(obj.Object) > 0 {
			objects = append(objects, obj)
		}
	}
}

// servingCert makes a CA and a serving certificate for dnsNames, as
// cert-manager's self-signed Issuer and the Certificate would.
func servingCert(dnsNames []string) (caPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smoke-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, caKey.Public(), caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: dnsNames[0]}, DNSNames: dnsNames,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, key.Public(), caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}
