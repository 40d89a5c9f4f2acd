package chart

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// runbookOfKustomize is the runbook's address config/prometheus puts in
// front of every alert's anchor: the value of its runbook ConfigMap, the
// one place config/ names it.
func runbookOfKustomize(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "config", "prometheus", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		ConfigMapGenerator []struct {
			Name     string   `json:"name"`
			Literals []string `json:"literals"`
		} `json:"configMapGenerator"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	for _, g := range k.ConfigMapGenerator {
		for _, l := range g.Literals {
			if url, ok := strings.CutPrefix(l, "url="); ok && g.Name == "runbook" {
				return url
			}
		}
	}
	t.Fatal("config/prometheus/kustomization.yaml: no runbook ConfigMap with a url")
	return ""
}

// runbookURLs are the runbook_url of every alert the objects render, by alert.
func runbookURLs(t *testing.T, objs []*unstructured.Unstructured) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rule := range alertRules(t, objs) {
		url, _, _ := unstructured.NestedString(rule, "annotations", "runbook_url")
		name, _ := rule["alert"].(string)
		out[name] = url
	}
	return out
}

// dashboardJSON is the dashboard the ConfigMap among objs holds.
func dashboardJSON(t *testing.T, objs []*unstructured.Unstructured) string {
	t.Helper()
	data, _, _ := unstructured.NestedStringMap(dashboardOf(t, objs).Object, "data")
	return data["nodeslo-controller.json"]
}

// runbookLink is the dashboard's Runbook link: its first.
func runbookLink(t *testing.T, dashboard string) string {
	t.Helper()
	var d struct {
		Links []struct {
			Title, URL string
		} `json:"links"`
	}
	if err := json.Unmarshal([]byte(dashboard), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Links) == 0 || d.Links[0].Title != "Runbook" {
		t.Fatalf("the dashboard's first link is not the Runbook: %+v", d.Links)
	}
	return d.Links[0].URL
}

// The runbook's address has one default, config/prometheus's value: the
// chart's runbookURL and the dashboard's link, which a chart cannot read
// from config/, say the same (make release finds the chart's by it), and
// config/ renders every alert's runbook_url from it.
func TestTheRunbookHasOneDefaultAddress(t *testing.T) {
	want := runbookOfKustomize(t)
	var values struct {
		RunbookURL string `json:"runbookURL"`
	}
	raw, err := os.ReadFile(filepath.Join(root, "dist", "chart", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &values); err != nil {
		t.Fatal(err)
	}
	if values.RunbookURL != want {
		t.Errorf("dist/chart/values.yaml: runbookURL %q, config/prometheus's %q", values.RunbookURL, want)
	}
	source, err := os.ReadFile(filepath.Join(root, dashboardSource))
	if err != nil {
		t.Fatal(err)
	}
	if link := runbookLink(t, string(source)); link != want {
		t.Errorf("%s: the Runbook link is %q, config/prometheus's runbook %q", dashboardSource, link, want)
	}
	for alert, url := range runbookURLs(t, kustomizeBuild(t, "../prometheus")) {
		if url != want+"#"+strings.ToLower(alert) {
			t.Errorf("config/ renders alert %s with runbook_url %q, want %q", alert, url, want+"#"+strings.ToLower(alert))
		}
	}
}

// runbookURL, set, is where every alert and the dashboard's link point,
// and changes nothing else of the dashboard.
func TestRunbookURLMovesEveryRunbookLink(t *testing.T) {
	const elsewhere = "https://wiki.example.com/nodeslo-runbook"
	objs := helmTemplate(t, "prometheusRule.enabled=true", "grafanaDashboard.enabled=true", "runbookURL="+elsewhere)
	for alert, url := range runbookURLs(t, objs) {
		if want := elsewhere + "#" + strings.ToLower(alert); url != want {
			t.Errorf("alert %s: runbook_url %q, want %q", alert, url, want)
		}
	}
	dashboard := dashboardJSON(t, objs)
	if link := runbookLink(t, dashboard); link != elsewhere {
		t.Errorf("the dashboard's Runbook link is %q, want %q", link, elsewhere)
	}
	source, err := os.ReadFile(filepath.Join(root, dashboardSource))
	if err != nil {
		t.Fatal(err)
	}
	back := strings.ReplaceAll(dashboard, elsewhere, runbookOfKustomize(t))
	if strings.TrimSuffix(string(source), "\n") != strings.TrimSuffix(back, "\n") {
		t.Error("the dashboard differs from its source in more than the Runbook link")
	}

	out, err := helmTemplateError(t, "runbookURL=docs/runbook.md")
	if err == nil || !strings.Contains(out, "runbookURL") {
		t.Errorf("a runbookURL that is not an http(s) address rendered (err %v): %s", err, out)
	}
}
