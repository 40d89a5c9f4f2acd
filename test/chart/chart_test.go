// Package chart checks the Helm chart in dist/chart against config/: the
// chart is written by hand, and these tests keep the two from drifting. They
// run bin/helm and bin/kustomize (`make test` installs both first).
package chart

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// off is how a false boolean flag reads.
const off = "false"

// assertSameObjects fails, object by object and path by path, where the
// chart's objects differ from config/'s: the same set (kind, namespace,
// name), and for each the same significant parts (see significant).
func assertSameObjects(t *testing.T, chartObjs, configObjs []*unstructured.Unstructured) {
	t.Helper()
	chart := byKey(t, "the chart", chartObjs)
	config := byKey(t, "config/", configObjs)
	// config/ creates the namespace; a chart does not own its release's
	// namespace (`helm install --create-namespace` creates it).
	delete(config, "Namespace/"+releaseNamespace)
	for _, key := range sortedKeys(chart) {
		if _, ok := config[key]; !ok {
			t.Errorf("%s: rendered by the chart, not by config/", key)
		}
	}
	for _, key := range sortedKeys(config) {
		chartObj, ok := chart[key]
		if !ok {
			t.Errorf("%s: in config/, not rendered by the chart", key)
			continue
		}
		a, err := significant(chartObj)
		if err != nil {
			t.Errorf("%s in the chart: %v", key, err)
			continue
		}
		b, err := significant(config[key])
		if err != nil {
			t.Errorf("%s in config/: %v", key, err)
			continue
		}
		if diffs := diff("", a, b); len(diffs) > 0 {
			t.Errorf("%s differs:\n  %s", key, strings.Join(diffs, "\n  "))
		}
	}
}

func TestDefaultsRenderWhatMakeBuildInstallerWrites(t *testing.T) {
	objs := helmTemplate(t)
	assertSameObjects(t, objs, kustomizeBuild(t))
	kinds := kindCounts(objs)
	for _, kind := range []string{"CustomResourceDefinition", "Deployment", "ValidatingWebhookConfiguration",
		"Certificate", "Issuer"} {
		if kinds[kind] != 1 {
			t.Errorf("the defaults render %d %s, want 1 (the webhook is on by default, as in config/default)",
				kinds[kind], kind)
		}
	}
	for _, kind := range []string{"ServiceMonitor", "PrometheusRule", "NetworkPolicy"} {
		if kinds[kind] != 0 {
			t.Errorf("the defaults render a %s; it is optional, off as in config/default", kind)
		}
	}
}

func TestEveryOptionalPartRendersConfigWithItsOptionalParts(t *testing.T) {
	objs := helmTemplate(t, "networkPolicy.enabled=true", "serviceMonitor.enabled=true", "prometheusRule.enabled=true")
	configObjs := kustomizeBuild(t, "../prometheus", "../network-policy")
	assertSameObjects(t, objs, configObjs)

	kinds, configKinds := kindCounts(objs), kindCounts(configObjs)
	if kinds["NetworkPolicy"] != 2 || kinds["ServiceMonitor"] != 1 {
		t.Errorf("want the metrics and webhook NetworkPolicies and a ServiceMonitor, got %v", kinds)
	}
	// The alerts are written apart from the chart's other templates: both
	// sides must have them once either has.
	for _, path := range []string{"config/prometheus/prometheusrule.yaml",
		"dist/chart/templates/prometheus/prometheusrule.yaml"} {
		if _, err := os.Stat(filepath.Join(root, path)); err == nil &&
			(kinds["PrometheusRule"] == 0 || configKinds["PrometheusRule"] == 0) {
			t.Errorf("%s exists, but the PrometheusRule is rendered %d times by the chart and %d times by config/",
				path, kinds["PrometheusRule"], configKinds["PrometheusRule"])
		}
	}
}

func TestWithoutWebhookNothingOfTheWebhookIsRendered(t *testing.T) {
	with := byKey(t, "the chart", helmTemplate(t, "networkPolicy.enabled=true"))
	without := byKey(t, "the chart without webhook",
		helmTemplate(t, "networkPolicy.enabled=true", "webhook.enabled=false"))
	webhookObjects := []string{
		"ValidatingWebhookConfiguration/nodeslo-controller-validating-webhook-configuration",
		"Service/koordinator-system/nodeslo-controller-webhook-service",
		"Certificate/koordinator-system/nodeslo-controller-serving-cert",
		"Issuer/koordinator-system/nodeslo-controller-selfsigned-issuer",
		"NetworkPolicy/koordinator-system/nodeslo-controller-allow-webhook-traffic",
	}
	for _, key := range webhookObjects {
		if _, ok := with[key]; !ok {
			t.Errorf("%s: not rendered with the webhook on", key)
		}
	}
	for _, key := range sortedKeys(with) {
		_, kept := without[key]
		if slices.Contains(webhookObjects, key) {
			if kept {
				t.Errorf("%s: rendered with the webhook off", key)
			}
			continue
		}
		if !kept {
			t.Errorf("%s: missing with the webhook off", key)
			continue
		}
		if strings.HasPrefix(key, "Deployment/") {
			continue
		}
		a, _ := significant(without[key])
		b, _ := significant(with[key])
		if diffs := diff("", a, b); len(diffs) > 0 {
			t.Errorf("%s changes with the webhook off:\n  %s", key, strings.Join(diffs, "\n  "))
		}
	}
	for _, obj := range without {
		if strings.HasPrefix(obj.GetAPIVersion(), "cert-manager.io/") {
			t.Errorf("%s: a cert-manager object with the webhook off", objectKey(obj))
		}
	}

	container := managerContainer(t, without)
	flags := containerFlags(t, container)
	if flags["--enable-webhook"] != off {
		t.Errorf("--enable-webhook is %v with the webhook off", flags["--enable-webhook"])
	}
	for _, field := range []string{"volumeMounts"} {
		if _, ok := container[field]; ok {
			t.Errorf("the manager container has %s with the webhook off", field)
		}
	}
	if ports := portNames(container); slices.Contains(ports, "webhook-server") {
		t.Errorf("the manager container has the webhook port with the webhook off: %v", ports)
	}
	pod, _, _ := unstructured.NestedMap(deployment(t, without).Object, "spec", "template", "spec")
	if _, ok := pod["volumes"]; ok {
		t.Error("the pod mounts the webhook certificate with the webhook off")
	}
}

func TestValuesReachTheManagerAndItsObjects(t *testing.T) {
	objs := byKey(t, "the chart", helmTemplate(t,
		"manager.image.repository=registry.example.com/nodeslo-controller", "manager.image.tag=v9",
		"manager.replicas=2", "config.namespace=slo-config", "config.name=my-slo-config",
		"manager.maxConcurrentReconciles=4", "manager.kubeAPIQPS=50.5", "manager.kubeAPIBurst=75",
		"metrics.port=9090", "metrics.secure=false", "manager.healthProbePort=9091", "webhook.port=9444",
		"manager.pprofBindAddress=127.0.0.1:6060", "manager.extraArgs={--zap-log-level=debug}",
		"manager.resources.limits.memory=1Gi"))
	container := managerContainer(t, objs)
	want := map[string]string{
		"--config-namespace": "slo-config", "--slo-config-name": "my-slo-config",
		"--max-concurrent-reconciles": "4", "--kube-api-qps": "50.5", "--kube-api-burst": "75",
		"--metrics-bind-address": ":9090", "--metrics-secure": "false", "--health-probe-bind-address": ":9091",
		"--webhook-port": "9444", "--pprof-bind-address": "127.0.0.1:6060", "--zap-log-level": "debug",
		"--leader-elect": "true", "--enable-webhook": "true",
	}
	flags := containerFlags(t, container)
	for flagName, value := range want {
		if flags[flagName] != value {
			t.Errorf("%s is %v, want %s", flagName, flags[flagName], value)
		}
	}
	if container["image"] != "registry.example.com/nodeslo-controller:v9" {
		t.Errorf("image %v", container["image"])
	}
	if limit, _, _ := unstructured.NestedString(container, "resources", "limits", "memory"); limit != "1Gi" {
		t.Errorf("memory limit %q, want 1Gi", limit)
	}
	replicas, _, _ := unstructured.NestedFieldNoCopy(deployment(t, objs).Object, "spec", "replicas")
	if fmt.Sprint(replicas) != "2" {
		t.Errorf("replicas %v, want 2", replicas)
	}
	if ports := portNames(container); !slices.Equal(ports, []string{"health", "http", "webhook-server"}) {
		t.Errorf("container ports %v", ports)
	}

	// The ConfigMap's Role follows it to its namespace; the webhook receives
	// that one ConfigMap only.
	for _, key := range []string{"Role/slo-config/nodeslo-controller-manager-role",
		"RoleBinding/slo-config/nodeslo-controller-manager-rolebinding"} {
		if _, ok := objs[key]; !ok {
			t.Errorf("%s: not rendered (the ConfigMap is in slo-config)", key)
		}
	}
	hook := objs["ValidatingWebhookConfiguration/nodeslo-controller-validating-webhook-configuration"]
	webhooks, _, _ := unstructured.NestedSlice(hook.Object, "webhooks")
	selector, _, _ := unstructured.NestedStringMap(webhooks[0].(map[string]any),
		"namespaceSelector", "matchLabels")
	if selector["kubernetes.io/metadata.name"] != "slo-config" {
		t.Errorf("webhook namespaceSelector %v, want the namespace slo-config", selector)
	}
	conditions, _, _ := unstructured.NestedSlice(webhooks[0].(map[string]any), "matchConditions")
	if expr := conditions[0].(map[string]any)["expression"]; !strings.Contains(expr.(string), "'my-slo-config'") {
		t.Errorf("webhook match condition %q does not name my-slo-config", expr)
	}
	service := objs["Service/koordinator-system/nodeslo-controller-webhook-service"]
	ports, _, _ := unstructured.NestedSlice(service.Object, "spec", "ports")
	if target := ports[0].(map[string]any)["targetPort"]; fmt.Sprint(target) != "9444" {
		t.Errorf("webhook Service targetPort %v, want 9444", target)
	}
	metrics := objs["Service/koordinator-system/nodeslo-controller-controller-manager-metrics-service"]
	ports, _, _ = unstructured.NestedSlice(metrics.Object, "spec", "ports")
	if name, port := ports[0].(map[string]any)["name"], ports[0].(map[string]any)["port"]; name != "http" ||
		fmt.Sprint(port) != "9090" {
		t.Errorf("metrics Service port %v %v, want http 9090", name, port)
	}
	if _, ok := objs["ClusterRole/nodeslo-controller-metrics-auth-role"]; ok {
		t.Error("the metrics auth ClusterRole is rendered for plain-HTTP metrics")
	}
}

func TestLeaderElection(t *testing.T) {
	timings := []string{"--leader-elect-lease-duration", "--leader-elect-renew-deadline", "--leader-elect-retry-period"}
	args := managerArgs(t, byKey(t, "the chart", helmTemplate(t)))
	for _, name := range timings {
		if slices.ContainsFunc(args, func(arg string) bool { return strings.HasPrefix(arg, name) }) {
			t.Errorf("%s is passed by default; it must be left to the manager's default", name)
		}
	}

	args = managerArgs(t, byKey(t, "the chart", helmTemplate(t, "leaderElection.leaseDuration=30s",
		"leaderElection.renewDeadline=20s", "leaderElection.retryPeriod=4s")))
	for i, value := range []string{"30s", "20s", "4s"} {
		if !slices.Contains(args, timings[i]+"="+value) {
			t.Errorf("%s=%s not among the arguments %q", timings[i], value, args)
		}
	}

	objs := byKey(t, "the chart", helmTemplate(t, "leaderElection.enabled=false"))
	if flags := containerFlags(t, managerContainer(t, objs)); flags["--leader-elect"] != off {
		t.Errorf("--leader-elect is %v with leader election off", flags["--leader-elect"])
	}
	for _, key := range []string{"Role/koordinator-system/nodeslo-controller-leader-election-role",
		"RoleBinding/koordinator-system/nodeslo-controller-leader-election-rolebinding"} {
		if _, ok := objs[key]; ok {
			t.Errorf("%s: rendered with leader election off", key)
		}
	}

	out, err := helmTemplateError(t, "leaderElection.enabled=false", "manager.replicas=2")
	if err == nil || !strings.Contains(out, "needs leaderElection.enabled") {
		t.Errorf("two replicas without leader election rendered (err %v): %s", err, out)
	}
}

// notValues are the flags of the README's table that the chart does not set,
// and why.
var notValues = map[string]string{
	"--webhook-host": "in a pod the webhook server binds every interface, the flag's default",
}

func TestEveryFlagOfTheReadmeIsAValue(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, found := strings.Cut(string(readme), "\n### Flags\n")
	if !found {
		t.Fatal("README.md has no ### Flags section")
	}
	table, _, _ = strings.Cut(table, "\n#")
	readmeFlags := regexp.MustCompile("(?m)^\\| `(--[a-z0-9-]+)`").FindAllStringSubmatch(table, -1)
	if len(readmeFlags) < 10 {
		t.Fatalf("found only %d flags in README.md's ### Flags table", len(readmeFlags))
	}
	// Every optional flag is set, so that all of them are rendered.
	args := managerArgs(t, byKey(t, "the chart", helmTemplate(t, "manager.pprofBindAddress=:6060",
		"leaderElection.leaseDuration=30s", "leaderElection.renewDeadline=20s", "leaderElection.retryPeriod=4s")))
	for _, match := range readmeFlags {
		name := match[1]
		rendered := slices.ContainsFunc(args, func(arg string) bool { return strings.HasPrefix(arg, name+"=") })
		if _, skipped := notValues[name]; !rendered && !skipped {
			t.Errorf("README.md's flag %s is not a value of the chart (or listed in notValues with a reason)", name)
		}
	}
}

// kindCounts counts objects by kind.
func kindCounts(objs []*unstructured.Unstructured) map[string]int {
	counts := map[string]int{}
	for _, obj := range objs {
		counts[obj.GetKind()]++
	}
	return counts
}

// deployment returns the chart's one Deployment.
func deployment(t *testing.T, objs map[string]*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	d, ok := objs["Deployment/koordinator-system/nodeslo-controller-controller-manager"]
	if !ok {
		t.Fatalf("no Deployment nodeslo-controller-controller-manager among %v", sortedKeys(objs))
	}
	return d
}

// managerContainer returns the Deployment's manager container.
func managerContainer(t *testing.T, objs map[string]*unstructured.Unstructured) map[string]any {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(deployment(t, objs).Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		if c.(map[string]any)["name"] == "manager" {
			return c.(map[string]any)
		}
	}
	t.Fatal("the Deployment has no container named manager")
	return nil
}

func managerArgs(t *testing.T, objs map[string]*unstructured.Unstructured) []string {
	t.Helper()
	args, _, _ := unstructured.NestedStringSlice(managerContainer(t, objs), "args")
	return args
}

// containerFlags parses the container's arguments with the manager's flags.
func containerFlags(t *testing.T, container map[string]any) map[string]any {
	t.Helper()
	args, _, _ := unstructured.NestedStringSlice(container, "args")
	flags, err := managerFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	return flags
}

func portNames(container map[string]any) []string {
	ports, _, _ := unstructured.NestedSlice(container, "ports")
	names := make([]string, 0, len(ports))
	for _, p := range ports {
		names = append(names, p.(map[string]any)["name"].(string))
	}
	return names
}

// values.schema.json turns a misspelt or mistyped value into an error: Helm
// would otherwise ignore an unknown key, and install with the webhook on.
func TestMisspeltAndInvalidValuesAreRejected(t *testing.T) {
	for set, message := range map[string]string{
		"webhook.enable=false":             "additional properties 'enable' not allowed",
		"manager.kubeAPIQPS=0":             "/manager/kubeAPIQPS",
		"leaderElection.retryPeriod=5 sec": "/leaderElection/retryPeriod",
		"config.namespace=Koordinator":     "/config/namespace",
	} {
		out, err := helmTemplateError(t, set)
		if err == nil || !strings.Contains(out, message) {
			t.Errorf("--set %s: want an error naming %q, got (err %v): %.300s", set, message, err, out)
		}
	}
}
