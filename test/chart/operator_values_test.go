package chart

// The values an operator sets to install the chart without forking it
// (issue 57, item 4): scheduling, pod metadata, environment, security
// contexts, a PodDisruptionBudget, the ServiceAccount and RBAC, the
// Prometheus Operator's labels and scrape settings, a verifiable metrics
// certificate, Prometheus's binding to metrics-reader, global, and helm
// test. Each is off or empty by default (TestDefaultsRenderWhatMakeBuildInstallerWrites
// holds the defaults to config/); each test sets the value and checks what
// it changes.

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	deploymentKey     = "Deployment/koordinator-system/nodeslo-controller-controller-manager"
	serviceMonitorKey = "ServiceMonitor/koordinator-system/nodeslo-controller-controller-manager-metrics-monitor"
	metricsServiceKey = "Service/koordinator-system/nodeslo-controller-controller-manager-metrics-service"
	selfSignedIssuer  = "Issuer/koordinator-system/nodeslo-controller-selfsigned-issuer"
	metricsCertKey    = "Certificate/koordinator-system/nodeslo-controller-metrics-certs"
	prometheusBinding = "ClusterRoleBinding/nodeslo-controller-metrics-reader-prometheus"
	metricsCertSecret = "metrics-server-cert"
)

// podSpec returns the Deployment's pod template spec.
func podSpec(t *testing.T, objs map[string]*unstructured.Unstructured) map[string]any {
	t.Helper()
	spec, _, _ := unstructured.NestedMap(deployment(t, objs).Object, "spec", "template", "spec")
	return spec
}

// theLinuxAffinity is the node affinity config/manager gives the pod, the
// default of manager.affinity.
var theLinuxAffinity = map[string]any{"nodeAffinity": map[string]any{
	"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": []any{
		map[string]any{"matchExpressions": []any{map[string]any{
			"key": "kubernetes.io/os", "operator": "In", "values": []any{"linux"},
		}}},
	}},
}}

func TestPodMetadataEnvAndSecurityContextsAreValues(t *testing.T) {
	objs := byKey(t, "the chart", helmTemplate(t,
		"manager.podLabels.team=slo", "manager.podAnnotations.example\\.com/owner=platform",
		"manager.env[0].name=HTTPS_PROXY", "manager.env[0].value=http://proxy:3128",
		"manager.podSecurityContext.runAsUser=1000", "manager.podSecurityContext.fsGroup=2000",
		"manager.securityContext.readOnlyRootFilesystem=null", "manager.securityContext.runAsUser=1001"))
	meta, _, _ := unstructured.NestedMap(deployment(t, objs).Object, "spec", "template", "metadata")
	labels, _, _ := unstructured.NestedStringMap(meta, "labels")
	if labels["team"] != "slo" || labels["control-plane"] != "controller-manager" {
		t.Errorf("pod labels %v: want team=slo beside the selector's", labels)
	}
	annotations, _, _ := unstructured.NestedStringMap(meta, "annotations")
	if annotations["example.com/owner"] != "platform" ||
		annotations["kubectl.kubernetes.io/default-container"] != managerContainer(t, objs)["name"] {
		t.Errorf("pod annotations %v: want example.com/owner=platform beside default-container", annotations)
	}
	if deploymentLabels := deployment(t, objs).GetLabels(); deploymentLabels["team"] != "" {
		t.Errorf("manager.podLabels reached the Deployment's own labels: %v", deploymentLabels)
	}

	container := managerContainer(t, objs)
	env, _, _ := unstructured.NestedSlice(container, "env")
	names := make([]string, 0, len(env))
	for _, e := range env {
		names = append(names, e.(map[string]any)["name"].(string))
	}
	// The chart's own variable stays, the operator's follows it.
	if !slices.Equal(names, []string{"CONTAINER_MEMORY_LIMIT", "HTTPS_PROXY"}) ||
		env[1].(map[string]any)["value"] != "http://proxy:3128" {
		t.Errorf("env %v, want CONTAINER_MEMORY_LIMIT then HTTPS_PROXY=http://proxy:3128", env)
	}

	// Merged into the defaults: the operator's fields are added, a null
	// removes one, the rest of the hardening stays.
	pod, _, _ := unstructured.NestedMap(podSpec(t, objs), "securityContext")
	want := map[string]any{"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"},
		"runAsUser": int64(1000), "fsGroup": int64(2000)}
	if diffs := diff("", asJSON(t, pod), asJSON(t, want)); len(diffs) > 0 {
		t.Errorf("pod securityContext: %v", diffs)
	}
	c, _, _ := unstructured.NestedMap(container, "securityContext")
	want = map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}},
		"runAsUser": int64(1001)}
	if diffs := diff("", asJSON(t, c), asJSON(t, want)); len(diffs) > 0 {
		t.Errorf("container securityContext: %v", diffs)
	}

	// The labels the Deployment selects on, or that the Services and
	// policies name, are the chart's.
	for _, key := range []string{"control-plane", "app.kubernetes.io/name", "app.kubernetes.io/instance"} {
		out, err := helmTemplateError(t, "manager.podLabels."+strings.ReplaceAll(key, ".", "\\.")+"=x")
		if err == nil || !strings.Contains(out, "manager.podLabels sets "+key) {
			t.Errorf("manager.podLabels.%s rendered (err %v): %.300s", key, err, out)
		}
	}
}

func TestAffinityAndTopologySpreadAreValues(t *testing.T) {
	affinity := func(objs map[string]*unstructured.Unstructured) any {
		a, _, _ := unstructured.NestedFieldNoCopy(podSpec(t, objs), "affinity")
		return a
	}
	if diffs := diff("", affinity(byKey(t, "the chart", helmTemplate(t))), theLinuxAffinity); len(diffs) > 0 {
		t.Errorf("the default affinity is not the Linux node affinity: %v", diffs)
	}

	// A podAntiAffinity is added beside the Linux term; nodeAffinity null
	// drops the term.
	anti := "manager.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
	objs := byKey(t, "the chart", helmTemplate(t, anti+"weight=100",
		anti+"podAffinityTerm.topologyKey=kubernetes.io/hostname",
		anti+"podAffinityTerm.labelSelector.matchLabels.control-plane=controller-manager"))
	got, _ := affinity(objs).(map[string]any)
	if diffs := diff("", got["nodeAffinity"], theLinuxAffinity["nodeAffinity"]); len(diffs) > 0 ||
		got["podAntiAffinity"] == nil {
		t.Errorf("affinity %v: want the Linux node affinity and the podAntiAffinity", got)
	}
	if a := affinity(byKey(t, "the chart", helmTemplate(t, "manager.affinity.nodeAffinity=null"))); a != nil {
		t.Errorf("manager.affinity.nodeAffinity=null left the affinity %v", a)
	}

	constraints := func(set ...string) []any {
		c, _, _ := unstructured.NestedSlice(podSpec(t, byKey(t, "the chart", helmTemplate(t, set...))),
			"topologySpreadConstraints")
		return c
	}
	if c := constraints(); c != nil {
		t.Errorf("the defaults spread the pod: %v", c)
	}
	const zone, host = "manager.topologySpreadConstraints[0].", "manager.topologySpreadConstraints[1]."
	c := constraints(zone+"maxSkew=1", zone+"topologyKey=topology.kubernetes.io/zone",
		zone+"whenUnsatisfiable=ScheduleAnyway",
		host+"maxSkew=1", host+"topologyKey=kubernetes.io/hostname", host+"whenUnsatisfiable=DoNotSchedule",
		host+"labelSelector.matchLabels.app=other")
	if len(c) != 2 {
		t.Fatalf("topologySpreadConstraints %v, want 2", c)
	}
	selector, _, _ := unstructured.NestedStringMap(deployment(t, byKey(t, "the chart", helmTemplate(t))).Object,
		"spec", "selector", "matchLabels")
	first, _, _ := unstructured.NestedStringMap(c[0].(map[string]any), "labelSelector", "matchLabels")
	if !maps.Equal(first, selector) || c[0].(map[string]any)["topologyKey"] != "topology.kubernetes.io/zone" {
		t.Errorf("a constraint without a labelSelector: %v, want the Deployment's selector %v", c[0], selector)
	}
	second, _, _ := unstructured.NestedStringMap(c[1].(map[string]any), "labelSelector", "matchLabels")
	if !maps.Equal(second, map[string]string{"app": "other"}) {
		t.Errorf("a constraint's own labelSelector was changed: %v", c[1])
	}
}

func TestPodDisruptionBudgetIsOffByDefault(t *testing.T) {
	const pdbKey = "PodDisruptionBudget/koordinator-system/nodeslo-controller-controller-manager"
	if _, ok := byKey(t, "the chart", helmTemplate(t))[pdbKey]; ok {
		t.Errorf("the defaults render %s", pdbKey)
	}
	selector, _, _ := unstructured.NestedStringMap(deployment(t, byKey(t, "the chart", helmTemplate(t))).Object,
		"spec", "selector", "matchLabels")
	for _, c := range []struct {
		set  []string
		want map[string]any // the spec's budget fields
	}{
		{nil, map[string]any{"minAvailable": int64(1)}},
		{[]string{"podDisruptionBudget.minAvailable=50%"}, map[string]any{"minAvailable": "50%"}},
		{[]string{"podDisruptionBudget.maxUnavailable=1"}, map[string]any{"maxUnavailable": int64(1)}},
	} {
		set := append([]string{"podDisruptionBudget.enabled=true", "manager.replicas=2"}, c.set...)
		pdb, ok := byKey(t, "the chart", helmTemplate(t, set...))[pdbKey]
		if !ok {
			t.Errorf("with %v no %s", set, pdbKey)
			continue
		}
		spec, _, _ := unstructured.NestedMap(pdb.Object, "spec")
		matchLabels, _, _ := unstructured.NestedStringMap(spec, "selector", "matchLabels")
		if !maps.Equal(matchLabels, selector) {
			t.Errorf("with %v the budget selects %v, want the Deployment's %v", set, matchLabels, selector)
		}
		delete(spec, "selector")
		if diffs := diff("", asJSON(t, spec), asJSON(t, c.want)); len(diffs) > 0 {
			t.Errorf("with %v: %v", set, diffs)
		}
	}
}

// subjectsNaming lists the bindings whose subjects name the ServiceAccount
// namespace/name.
func subjectsNaming(objs map[string]*unstructured.Unstructured, namespace, name string) []string {
	var out []string
	for key, obj := range objs {
		subjects, _, _ := unstructured.NestedSlice(obj.Object, "subjects")
		for _, s := range subjects {
			s := s.(map[string]any)
			if s["kind"] == "ServiceAccount" && s["name"] == name && s["namespace"] == namespace {
				out = append(out, key)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestServiceAccountValues(t *testing.T) {
	const (
		defaultName = "nodeslo-controller-controller-manager"
		saKey       = "ServiceAccount/koordinator-system/" + defaultName
	)
	defaults := byKey(t, "the chart", helmTemplate(t))
	bound := subjectsNaming(defaults, releaseNamespace, defaultName)
	if len(bound) < 5 {
		t.Fatalf("the defaults bind %s in %v only", defaultName, bound)
	}

	objs := byKey(t, "the chart", helmTemplate(t, "serviceAccount.name=slo-manager",
		"serviceAccount.annotations.iam\\.example\\.com/role=slo"))
	sa, ok := objs["ServiceAccount/koordinator-system/slo-manager"]
	if !ok || sa.GetAnnotations()["iam.example.com/role"] != "slo" {
		t.Errorf("ServiceAccount slo-manager: rendered %v, annotations %v", ok, sa)
	}
	if name, _, _ := unstructured.NestedString(podSpec(t, objs), "serviceAccountName"); name != "slo-manager" {
		t.Errorf("the pod runs as %q, want slo-manager", name)
	}
	// Every binding follows the name, and so does the admission policy that
	// recognises the manager's ControllerRevision writes by their user.
	if got := subjectsNaming(objs, releaseNamespace, "slo-manager"); !slices.Equal(got, bound) {
		t.Errorf("bindings of slo-manager %v, want those of the default name %v", got, bound)
	}
	policy := objs[kindPolicy+"/nodeslo-controller-controllerrevisions-policy"]
	conditions, _, _ := unstructured.NestedSlice(policy.Object, "spec", "matchConditions")
	if len(conditions) != 1 || !strings.Contains(fmt.Sprint(conditions[0]),
		"system:serviceaccount:koordinator-system:slo-manager:") {
		t.Errorf("the ControllerRevision policy matches %v, not slo-manager", conditions)
	}

	objs = byKey(t, "the chart", helmTemplate(t, "serviceAccount.create=false"))
	if _, ok := objs[saKey]; ok {
		t.Errorf("%s rendered with serviceAccount.create=false", saKey)
	}
	if name, _, _ := unstructured.NestedString(podSpec(t, objs), "serviceAccountName"); name != defaultName {
		t.Errorf("without the chart's ServiceAccount the pod runs as %q, want the existing %s", name, defaultName)
	}
	if got := subjectsNaming(objs, releaseNamespace, defaultName); !slices.Equal(got, bound) {
		t.Errorf("with serviceAccount.create=false the bindings %v, want %v", got, bound)
	}
	if len(objs) != len(defaults)-1 {
		t.Errorf("serviceAccount.create=false renders %d objects, want %d", len(objs), len(defaults)-1)
	}
}

func TestRBACCreateFalseRendersNoRBAC(t *testing.T) {
	// Roles, ClusterRoles and their bindings, with a Role per namespace
	// of healthGate.podNamespaces and Prometheus's binding among them.
	const values = "healthGate.podNamespaces={batch},metrics.prometheusServiceAccount.name=prometheus," +
		"metrics.prometheusServiceAccount.namespace=monitoring"
	with := byKey(t, "the chart", helmTemplate(t, values))
	without := byKey(t, "the chart", helmTemplate(t, values, "rbac.create=false"))
	rbacObjects := 0
	for _, key := range slices.Sorted(maps.Keys(with)) {
		isRBAC := with[key].GroupVersionKind().Group == "rbac.authorization.k8s.io"
		_, kept := without[key]
		switch {
		case isRBAC && kept:
			t.Errorf("%s: rendered with rbac.create=false", key)
		case !isRBAC && !kept:
			t.Errorf("%s: missing with rbac.create=false", key)
		}
		if isRBAC {
			rbacObjects++
		}
	}
	if rbacObjects < 10 || len(without) != len(with)-rbacObjects {
		t.Errorf("rbac.create=false renders %d objects of %d, of which %d RBAC", len(without), len(with), rbacObjects)
	}
	// Not RBAC: the admission policy narrowing the ControllerRevision writes stays.
	if _, ok := without[kindPolicy+"/nodeslo-controller-controllerrevisions-policy"]; !ok {
		t.Error("the ControllerRevision policy is gone with rbac.create=false")
	}
}

func TestServiceMonitorAndPrometheusRuleLabelsAndInterval(t *testing.T) {
	objs := byKey(t, "the chart", helmTemplate(t, "serviceMonitor.enabled=true", "prometheusRule.enabled=true",
		"serviceMonitor.labels.release=kube-prometheus-stack", "prometheusRule.labels.release=kube-prometheus-stack",
		"prometheusRule.labels.role=alert-rules", "serviceMonitor.interval=30s", "serviceMonitor.scrapeTimeout=10s"))
	monitor := objs[serviceMonitorKey]
	rule := objs["PrometheusRule/koordinator-system/nodeslo-controller-controller-manager-alerts"]
	if monitor == nil || rule == nil {
		t.Fatalf("ServiceMonitor %v, PrometheusRule %v: want both", monitor != nil, rule != nil)
	}
	for obj, want := range map[*unstructured.Unstructured]map[string]string{
		monitor: {"release": "kube-prometheus-stack"},
		rule:    {"release": "kube-prometheus-stack", "role": "alert-rules"},
	} {
		labels := obj.GetLabels()
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("%s: label %s=%q, want %q", objectKey(obj), k, labels[k], v)
			}
		}
		if labels["control-plane"] != "controller-manager" || labels["app.kubernetes.io/name"] != "nodeslo-controller" {
			t.Errorf("%s lost the chart's labels: %v", objectKey(obj), labels)
		}
	}
	endpoint := serviceMonitorEndpoint(t, objs)
	if endpoint["interval"] != "30s" || endpoint["scrapeTimeout"] != "10s" {
		t.Errorf("endpoint interval %v, scrapeTimeout %v: want 30s and 10s", endpoint["interval"], endpoint["scrapeTimeout"])
	}
	defaults := serviceMonitorEndpoint(t, byKey(t, "the chart", helmTemplate(t, "serviceMonitor.enabled=true")))
	if _, ok := defaults["interval"]; ok {
		t.Errorf("the default ServiceMonitor sets an interval: %v", defaults)
	}
	for _, set := range []string{"serviceMonitor.labels.control-plane=x", "prometheusRule.labels.helm\\.sh/chart=x"} {
		out, err := helmTemplateError(t, "serviceMonitor.enabled=true", "prometheusRule.enabled=true", set)
		if err == nil || !strings.Contains(out, "a label the chart sets itself") {
			t.Errorf("%s rendered (err %v): %.300s", set, err, out)
		}
	}
}

func serviceMonitorEndpoint(t *testing.T, objs map[string]*unstructured.Unstructured) map[string]any {
	t.Helper()
	monitor, ok := objs[serviceMonitorKey]
	if !ok {
		t.Fatalf("no %s", serviceMonitorKey)
	}
	endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("%d endpoints, want 1", len(endpoints))
	}
	return endpoints[0].(map[string]any)
}

// With metrics.certManager.enabled cert-manager issues the metrics server a
// certificate for the metrics Service's name, the manager serves it, and the
// ServiceMonitor verifies it with the CA of the same Secret and that name,
// instead of skipping verification.
func TestMetricsCertificateIsVerifiedByTheServiceMonitor(t *testing.T) {
	objs := byKey(t, "the chart", helmTemplate(t, "serviceMonitor.enabled=true", "metrics.certManager.enabled=true",
		"webhook.enabled=false"))
	cert, ok := objs[metricsCertKey]
	if !ok {
		t.Fatalf("no %s", metricsCertKey)
	}
	if _, ok := objs[selfSignedIssuer]; !ok {
		t.Errorf("no %s: the metrics Certificate needs it, webhook or not", selfSignedIssuer)
	}
	secret, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	issuer, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "name")
	dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	service := objs[metricsServiceKey]
	serviceName := service.GetName() + "." + service.GetNamespace() + ".svc"
	if secret != metricsCertSecret || issuer != "nodeslo-controller-selfsigned-issuer" ||
		!slices.Contains(dnsNames, serviceName) {
		t.Errorf("%s: secret %q, issuer %q, names %v; want %s, the self-signed issuer, %s",
			metricsCertKey, secret, issuer, dnsNames, metricsCertSecret, serviceName)
	}

	// The manager serves the Secret's files.
	container := managerContainer(t, objs)
	dir := containerFlags(t, container)["--metrics-cert-path"]
	mounts, _, _ := unstructured.NestedSlice(container, "volumeMounts")
	volumes, _, _ := unstructured.NestedSlice(podSpec(t, objs), "volumes")
	served := ""
	for _, m := range mounts {
		m := m.(map[string]any)
		if m["mountPath"] != dir {
			continue
		}
		for _, v := range volumes {
			if v := v.(map[string]any); v["name"] == m["name"] && m["readOnly"] == true {
				served = volumeSecrets(v)
			}
		}
	}
	if dir == "" || served != metricsCertSecret {
		t.Errorf("--metrics-cert-path=%v holds the Secret %q read-only, want %s", dir, served, metricsCertSecret)
	}

	tlsConfig, _, _ := unstructured.NestedMap(serviceMonitorEndpoint(t, objs), "tlsConfig")
	want := map[string]any{"serverName": serviceName,
		"ca": map[string]any{"secret": map[string]any{"name": metricsCertSecret, "key": "ca.crt"}}}
	if diffs := diff("", tlsConfig, want); len(diffs) > 0 {
		t.Errorf("the ServiceMonitor's tlsConfig: %v", diffs)
	}

	// Off by default: no certificate, and the manager makes its own.
	defaults := byKey(t, "the chart", helmTemplate(t))
	if _, ok := defaults[metricsCertKey]; ok {
		t.Errorf("the defaults render %s", metricsCertKey)
	}
	if got := containerFlags(t, managerContainer(t, defaults))["--metrics-cert-path"]; got != "" {
		t.Errorf("the defaults set --metrics-cert-path=%v", got)
	}
	out, err := helmTemplateError(t, "metrics.certManager.enabled=true", "metrics.secure=false")
	if err == nil || !strings.Contains(out, "metrics.certManager.enabled needs metrics.secure") {
		t.Errorf("a certificate for plain-HTTP metrics rendered (err %v): %.300s", err, out)
	}
	without := byKey(t, "the chart", helmTemplate(t, "metrics.certManager.enabled=true", "metrics.enabled=false"))
	if _, ok := without[metricsCertKey]; ok {
		t.Errorf("%s rendered with metrics off", metricsCertKey)
	}
}

func TestPrometheusServiceAccountIsBoundToMetricsReader(t *testing.T) {
	if _, ok := byKey(t, "the chart", helmTemplate(t))[prometheusBinding]; ok {
		t.Errorf("the defaults render %s", prometheusBinding)
	}
	const name, namespace = "metrics.prometheusServiceAccount.name=kps-prometheus",
		"metrics.prometheusServiceAccount.namespace=monitoring"
	objs := byKey(t, "the chart", helmTemplate(t, name, namespace))
	binding, ok := objs[prometheusBinding]
	if !ok {
		t.Fatalf("no %s", prometheusBinding)
	}
	role, _, _ := unstructured.NestedString(binding.Object, "roleRef", "name")
	if _, ok := objs["ClusterRole/"+role]; role != "nodeslo-controller-metrics-reader" || !ok {
		t.Errorf("%s binds %q, want the rendered nodeslo-controller-metrics-reader", prometheusBinding, role)
	}
	if got := subjectsNaming(objs, "monitoring", "kps-prometheus"); !slices.Equal(got, []string{prometheusBinding}) {
		t.Errorf("monitoring/kps-prometheus is bound by %v, want %s only", got, prometheusBinding)
	}
	out, err := helmTemplateError(t, name)
	if err == nil || !strings.Contains(out, "metrics.prometheusServiceAccount.namespace is not set") {
		t.Errorf("a ServiceAccount without namespace rendered (err %v): %.300s", err, out)
	}
	// No metrics-reader to bind to: plain-HTTP metrics need none.
	if _, ok := byKey(t, "the chart", helmTemplate(t, name, namespace, "metrics.secure=false"))[prometheusBinding]; ok {
		t.Errorf("%s rendered for plain-HTTP metrics", prometheusBinding)
	}
}

// Helm hands a subchart the parent's global values: the schema must let
// them through, or the chart cannot be a dependency.
func TestTheChartInstallsAsASubchartWithGlobalValues(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "parent")
	if err := os.CopyFS(filepath.Join(parent, "charts", "nodeslo-controller"),
		os.DirFS(filepath.Join(root, "dist", "chart"))); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: parent\nversion: 0.1.0\n" +
			"dependencies:\n- name: nodeslo-controller\n  version: \">=0.0.0-0\"\n",
		"values.yaml": "global:\n  imageRegistry: registry.example.com\n  imagePullSecrets: []\n" +
			"nodeslo-controller:\n  manager:\n    image:\n      repository: registry.example.com/nodeslo-controller\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(parent, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, err := helmCombinedOutput(t, "template", releaseName, parent, "--namespace", releaseNamespace,
		"--kube-version", oldestKubernetes, "--skip-tests")
	if err != nil {
		t.Fatalf("the parent chart does not render: %v\n%.600s", err, out)
	}
	objs := byKey(t, "the parent chart", decode(t, []byte(out)))
	if _, ok := objs[deploymentKey]; !ok {
		t.Errorf("the subchart rendered no %s", deploymentKey)
	}
}

// helmTemplateWithTests renders the chart with its test hooks.
func helmTemplateWithTests(t *testing.T, set ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	args := slices.DeleteFunc(templateArgs(releaseNamespace, set), func(a string) bool { return a == "--skip-tests" })
	return byKey(t, "the chart with its tests", decode(t, run(t, tool(t, "helm"), args...)))
}

// The helm test is a Pod that asks /readyz through a Service of the health
// port, both test hooks (created by `helm test` only, deleted once it
// passes), the Pod under the restricted Pod Security Standard. test/cluster
// runs it against a real kubelet.
func TestHelmTestAsksTheManagersReadiness(t *testing.T) {
	const (
		testService = "Service/koordinator-system/nodeslo-controller-test-readiness"
		testPod     = "Pod/koordinator-system/nodeslo-controller-test-readiness"
		testPolicy  = "NetworkPolicy/koordinator-system/nodeslo-controller-test-readiness"
	)
	all := helmTemplateWithTests(t, "manager.healthProbePort=9091", "networkPolicy.enabled=true",
		"testFramework.image.repository=registry.example.com/busybox", "testFramework.image.tag=1.36.1",
		"testFramework.timeoutSeconds=15")
	installed := byKey(t, "the chart", helmTemplate(t, "manager.healthProbePort=9091", "networkPolicy.enabled=true"))
	hooks := map[string]string{} // key: weight
	for key, obj := range all {
		annotations := obj.GetAnnotations()
		if annotations["helm.sh/hook"] == "" {
			if _, ok := installed[key]; !ok {
				t.Errorf("%s is rendered only with the tests, but is no hook", key)
			}
			continue
		}
		if annotations["helm.sh/hook"] == rolloutHook {
			continue // the NodeSLORollout, TestTheNodeSLORolloutIsCreatedOnceAtInstall
		}
		if annotations["helm.sh/hook"] != "test" ||
			annotations["helm.sh/hook-delete-policy"] != "before-hook-creation,hook-succeeded" {
			t.Errorf("%s: hook annotations %v", key, annotations)
		}
		hooks[key] = annotations["helm.sh/hook-weight"]
	}
	// The Service and the NetworkPolicy exist before the Pod starts.
	if want := map[string]string{testService: "-1", testPolicy: "-1", testPod: "0"}; !maps.Equal(hooks, want) {
		t.Fatalf("test hooks and weights %v, want %v", hooks, want)
	}

	service := all[testService]
	selector, _, _ := unstructured.NestedStringMap(service.Object, "spec", "selector")
	deploymentSelector, _, _ := unstructured.NestedStringMap(deployment(t, installed).Object,
		"spec", "selector", "matchLabels")
	ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")
	if !maps.Equal(selector, deploymentSelector) || len(ports) != 1 ||
		fmt.Sprint(ports[0].(map[string]any)["port"]) != "9091" ||
		ports[0].(map[string]any)["targetPort"] != "health" ||
		!slices.Contains(portNames(managerContainer(t, installed)), "health") {
		t.Errorf("%s selects %v on %v, want the manager's pods and their port health on 9091", testService, selector, ports)
	}

	pod := all[testPod]
	spec, _, _ := unstructured.NestedMap(pod.Object, "spec")
	containers, _, _ := unstructured.NestedSlice(spec, "containers")
	if len(containers) != 1 {
		t.Fatalf("%s has %d containers", testPod, len(containers))
	}
	container := containers[0].(map[string]any)
	if container["image"] != "registry.example.com/busybox:1.36.1" {
		t.Errorf("%s runs %v, want testFramework.image", testPod, container["image"])
	}
	script := fmt.Sprint(container["command"])
	for _, want := range []string{"$NODESLO_CONTROLLER_TEST_READINESS_SERVICE_HOST", // the Service's variable
		"${host:-nodeslo-controller-test-readiness}:9091/readyz", `[ "$body" = ok ]`, "exit 1",
		"end=$(( $(date +%s) + 15 ))", "did not answer ok within 15 s"} { // testFramework.timeoutSeconds
		if !strings.Contains(script, want) {
			t.Errorf("%s's script lacks %q: %s", testPod, want, script)
		}
	}
	assertRestricted(t, testPod, spec, container)
	if spec["restartPolicy"] != "Never" || spec["automountServiceAccountToken"] != false {
		t.Errorf("%s: restartPolicy %v, automountServiceAccountToken %v", testPod, spec["restartPolicy"],
			spec["automountServiceAccountToken"])
	}

	// The chart's NetworkPolicies admit no pod to the health port: the
	// test's own admits the test Pod, by its labels.
	policy := all[testPolicy]
	from, _, _ := unstructured.NestedSlice(policy.Object, "spec", "ingress")
	admitted, _, _ := unstructured.NestedStringMap(from[0].(map[string]any)["from"].([]any)[0].(map[string]any),
		"podSelector", "matchLabels")
	for k, v := range admitted {
		if pod.GetLabels()[k] != v {
			t.Errorf("%s admits %v, which the test Pod's labels %v do not match", testPolicy, admitted, pod.GetLabels())
		}
	}
	policyPorts := fmt.Sprint(from[0].(map[string]any)["ports"])
	if !strings.Contains(policyPorts, "port:9091") {
		t.Errorf("%s admits the ports %s, want 9091", testPolicy, policyPorts)
	}

	// It is scheduled where the manager may be, with its pull secrets.
	placed := helmTemplateWithTests(t, "manager.nodeSelector.pool=system", "manager.tolerations[0].key=dedicated",
		"manager.tolerations[0].operator=Exists", "manager.imagePullSecrets[0].name=mirror")[testPod]
	for field, want := range map[string]string{"nodeSelector": "map[pool:system]",
		"tolerations": "[map[key:dedicated operator:Exists]]", "imagePullSecrets": "[map[name:mirror]]"} {
		if got := fmt.Sprint(nested(placed.Object, "spec", field)); got != want {
			t.Errorf("%s's %s: %s, want the manager's %s", testPod, field, got, want)
		}
	}

	if _, ok := helmTemplateWithTests(t)[testPolicy]; ok {
		t.Errorf("%s rendered without networkPolicy.enabled", testPolicy)
	}
	for key, obj := range helmTemplateWithTests(t, "testFramework.enabled=false") {
		if hook := obj.GetAnnotations()["helm.sh/hook"]; hook != "" && hook != rolloutHook {
			t.Errorf("%s rendered with testFramework.enabled=false", key)
		}
	}
}

// assertRestricted checks what the "restricted" Pod Security Standard
// demands of a pod with one container.
func assertRestricted(t *testing.T, name string, spec, container map[string]any) {
	t.Helper()
	checks := map[string]bool{
		"runAsNonRoot":             fieldIs(spec, true, "securityContext", "runAsNonRoot"),
		"seccompProfile":           fieldIs(spec, "RuntimeDefault", "securityContext", "seccompProfile", "type"),
		"allowPrivilegeEscalation": fieldIs(container, false, "securityContext", "allowPrivilegeEscalation"),
		"capabilities":             fmt.Sprint(nested(container, "securityContext", "capabilities", "drop")) == "[ALL]",
		"a numeric non-root user": fmt.Sprint(nested(spec, "securityContext", "runAsUser")) != "0" &&
			nested(spec, "securityContext", "runAsUser") != nil,
		"no host namespaces": spec["hostNetwork"] == nil && spec["hostPID"] == nil && spec["hostIPC"] == nil,
	}
	for check, ok := range checks {
		if !ok {
			t.Errorf("%s fails the restricted level: %s", name, check)
		}
	}
}

// asJSON is v as encoding/json decodes it, so that numbers compare whatever
// their Go type.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func nested(obj map[string]any, fields ...string) any {
	v, _, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	return v
}

func fieldIs(obj map[string]any, want any, fields ...string) bool {
	return nested(obj, fields...) == want
}
