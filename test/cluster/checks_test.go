//go:build cluster

package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"
)

// checkCertManager: cert-manager's controller issued the Certificate of
// the rendering (self-signed Issuer) into its Secret, and its CA injector
// copied the CA into the webhook configuration that asks for it.
func checkCertManager() {
	GinkgoHelper()
	converges(func() (string, error) {
		return kube.run("get", "certificate", certificateName, "-n", namespace,
			"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	}).Should(Equal("True"))
	secretName := kube.mustRun("get", "certificate", certificateName, "-n", namespace, "-o", "jsonpath={.spec.secretName}")
	Expect(kube.mustRun("get", "secret", secretName, "-n", namespace,
		"-o", `jsonpath={.metadata.annotations.cert-manager\.io/certificate-name}`)).To(Equal(certificateName),
		"the Secret is cert-manager's")
	Expect(kube.mustRun("get", "validatingwebhookconfiguration", webhookConfigName,
		"-o", `jsonpath={.metadata.annotations.cert-manager\.io/inject-ca-from}`)).
		To(Equal(namespace + "/" + certificateName))
	caCert := kube.mustRun("get", "secret", secretName, "-n", namespace, "-o", `jsonpath={.data.ca\.crt}`)
	Expect(caCert).NotTo(BeEmpty())
	converges(func() (string, error) {
		return kube.run("get", "validatingwebhookconfiguration", webhookConfigName,
			"-o", "jsonpath={.webhooks[0].clientConfig.caBundle}")
	}).Should(Equal(caCert), "the CA injected by cainjector")
}

// brokenConfigMap has a threshold out of range; the webhook names the key
// and the JSON path.
var brokenConfigMap = fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  namespace: %s
data:
  resource-threshold-config: '{"clusterStrategy": {"cpuSuppressThresholdPercent": 150}}'
`, configMapName, namespace)

// checkWebhook: the apiserver calls the webhook through its Service (TLS
// verified with the injected CA). The webhook fails open, so only a denial
// proves it answered; only the webhook knows the key's JSON path.
func checkWebhook() {
	GinkgoHelper()
	applySample()
	By("denying a broken ConfigMap (once the Service's EndpointSlice names the Ready Pod)")
	converges(func() error {
		_, err := kube.runWithInput(brokenConfigMap, "apply", "--server-side", "--force-conflicts", "-f", "-")
		return err
	}).Should(MatchError(ContainSubstring(
		"resource-threshold-config: clusterStrategy.cpuSuppressThresholdPercent: Invalid value: 150")))

	// The apiserver evaluates admission policies before it calls webhooks:
	// the deletion policy, installed with the controller, answers first
	// (docs/behaviour.md#deleting-the-configmap).
	By("denying the ConfigMap's deletion without the allow-delete annotation, by the deletion policy")
	_, err := kube.run("delete", "configmap", configMapName, "-n", namespace)
	Expect(err).To(MatchError(And(ContainSubstring("nodeslo.koordinator.sh/allow-delete=true"),
		ContainSubstring("ValidatingAdmissionPolicy 'nodeslo-controller-configmap-deletion-policy'"))))
	kube.mustRun("get", "configmap", configMapName, "-n", namespace)

	By("allowing it with the annotation")
	kube.mustRun("annotate", "configmap", configMapName, "-n", namespace, "nodeslo.koordinator.sh/allow-delete=true")
	kube.mustRun("delete", "configmap", configMapName, "-n", namespace)
}

// nodeSLOMatchesRender compares the node's stored NodeSLO spec with what
// `kubectl nodeslo render` makes of the ConfigMap and the Node as they are.
func nodeSLOMatchesRender() error {
	dir, err := os.MkdirTemp("", "render")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	configMap, err := kube.run("get", "configmap", configMapName, "-n", namespace, "-o", "yaml")
	if err != nil {
		return err
	}
	nodes, err := kube.run("get", "node", node.NodeName(), "-o", "yaml")
	if err != nil {
		return err
	}
	configFile, nodesFile := filepath.Join(dir, "config.yaml"), filepath.Join(dir, "nodes.yaml")
	if err := os.WriteFile(configFile, []byte(configMap), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(nodesFile, []byte(nodes), 0o600); err != nil {
		return err
	}
	rendered, err := kube.run("nodeslo", "render", "-f", configFile, "--nodes", nodesFile)
	if err != nil {
		return err
	}
	var list struct {
		Items []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Spec     map[string]any        `json:"spec"`
		} `json:"items"`
	}
	if err := yaml.Unmarshal([]byte(rendered), &list); err != nil {
		return err
	}
	if len(list.Items) != 1 || list.Items[0].Metadata.Name != node.NodeName() {
		return fmt.Errorf("render did not render exactly the node %s: %s", node.NodeName(), rendered)
	}
	stored, err := storedSpec()
	if err != nil {
		return err
	}
	want, _ := json.Marshal(list.Items[0].Spec)
	got, _ := json.Marshal(stored)
	if string(want) != string(got) {
		return fmt.Errorf("the stored spec\n%s\nis not the rendered\n%s", got, want)
	}
	return nil
}

// storedSpec is the node's NodeSLO's spec as stored.
func storedSpec() (map[string]any, error) {
	out, err := kube.run("get", "nodeslo", node.NodeName(), "-o", "json")
	if err != nil {
		return nil, err
	}
	var slo struct {
		Spec map[string]any `json:"spec"`
	}
	return slo.Spec, json.Unmarshal([]byte(out), &slo)
}

// checkPrinterColumns: `kubectl get nodeslo` shows the CRD's columns with
// the stored spec's values.
func checkPrinterColumns() {
	GinkgoHelper()
	table := strings.Split(strings.TrimSpace(kube.mustRun("get", "nodeslo")), "\n")
	Expect(strings.Fields(table[0])).To(Equal(
		[]string{"NAME", "BE-ENABLED", "CPU-SUPPRESS%", "MEM-EVICT%", "CPU-BURST", "AGE"}))
	const be = ".spec.resourceUsedThresholdWithBE"
	threshold := `{` + be + `.enable} {` + be + `.cpuSuppressThresholdPercent} {` + be + `.memoryEvictThresholdPercent} ` +
		`{.spec.cpuBurstStrategy.policy}`
	values := strings.Fields(kube.mustRun("get", "nodeslo", node.NodeName(), "-o", "jsonpath="+threshold))
	Expect(values).To(HaveLen(4))
	var row []string
	for _, line := range table[1:] {
		if fields := strings.Fields(line); len(fields) > 0 && fields[0] == node.NodeName() {
			row = fields
		}
	}
	Expect(row).To(HaveLen(6), "the row of %s in\n%s", node.NodeName(), strings.Join(table, "\n"))
	Expect(row[1:5]).To(Equal(values))
}

// checkMetricsAuthorization calls the metrics Service's ClusterIP from the
// host (kube-proxy's rules take it to the Pod) with ServiceAccount tokens:
// the manager asks the apiserver (TokenReview, SubjectAccessReview) whether
// the token may get /metrics.
func checkMetricsAuthorization(verified bool) {
	GinkgoHelper()
	trust := insecure
	if verified {
		trust = metricsServiceCA()
	}
	const ns = "metrics-check"
	kube.mustRun("create", "namespace", ns)
	DeferCleanup(func() {
		kube.mustRun("delete", "namespace", ns, "--wait=false")
		kube.mustRun("delete", "clusterrolebinding", "metrics-check-scraper")
	})
	kube.mustRun("create", "serviceaccount", "scraper", "-n", ns)
	kube.mustRun("create", "serviceaccount", "stranger", "-n", ns)
	kube.mustRun("create", "clusterrolebinding", "metrics-check-scraper",
		"--clusterrole="+metricsReaderRole, "--serviceaccount="+ns+":scraper")
	clusterIP := kube.mustRun("get", "service", metricsService, "-n", namespace, "-o", "jsonpath={.spec.clusterIP}")
	port := kube.mustRun("get", "service", metricsService, "-n", namespace, "-o", "jsonpath={.spec.ports[0].port}")
	url := "https://" + net.JoinHostPort(clusterIP, port) + "/metrics"
	scraper := strings.TrimSpace(kube.mustRun("create", "token", "scraper", "-n", ns))
	stranger := strings.TrimSpace(kube.mustRun("create", "token", "stranger", "-n", ns))

	type answer struct {
		Status int
		Body   string
	}
	get := func(token string) (answer, error) {
		status, body, err := httpsGet(url, token, trust)
		return answer{status, body}, err
	}
	Eventually(get).WithArguments(scraper).WithTimeout(converge).WithPolling(poll).
		Should(And(HaveField("Status", http.StatusOK),
			HaveField("Body", ContainSubstring("controller_runtime_reconcile_total"))))
	Expect(get(stranger)).To(HaveField("Status", http.StatusForbidden))
	Expect(get("")).To(HaveField("Status", http.StatusUnauthorized))
}

// insecure trusts any certificate: config/default mounts none for the
// metrics server, which then serves its own self-signed one, so only the
// authorization can be checked.
var insecure = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // see above

// metricsServiceCA trusts only the CA of the metrics certificate's Secret
// (the chart's metrics.certManager.enabled), for the metrics Service's name,
// as the ServiceMonitor does: once cert-manager has issued it.
func metricsServiceCA() *tls.Config {
	GinkgoHelper()
	converges(func() (string, error) {
		return kube.run("get", "certificate", metricsCertificate, "-n", namespace,
			"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
	}).Should(Equal("True"))
	encoded := kube.mustRun("get", "secret", metricsCertSecret, "-n", namespace, "-o", `jsonpath={.data.ca\.crt}`)
	ca, err := base64.StdEncoding.DecodeString(encoded)
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(ca)).To(BeTrue(), "ca.crt of %s", metricsCertSecret)
	return &tls.Config{RootCAs: pool, ServerName: metricsService + "." + namespace + ".svc", MinVersion: tls.VersionTLS12}
}

// httpsGet gets url with a bearer token (none if empty), trusting what
// trust does.
func httpsGet(url, token string, trust *tls.Config) (int, string, error) {
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: trust},
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, string(body), err
}
