package chart

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The dashboard's source and the chart's copy of it (a chart cannot read
// outside its directory).
const (
	dashboardSource = "config/grafana/nodeslo-controller.json"
	dashboardCopy   = "dist/chart/files/nodeslo-controller.json"
)

const dashboardConfigMap = "ConfigMap/koordinator-system/nodeslo-controller-grafana-dashboard"

func TestTheChartsDashboardIsConfigGrafanas(t *testing.T) {
	source, err := os.ReadFile(filepath.Join(root, dashboardSource))
	if err != nil {
		t.Fatal(err)
	}
	copied, err := os.ReadFile(filepath.Join(root, dashboardCopy))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(source, copied) {
		t.Fatalf("%s differs from %s, its source: cp %s %s", dashboardCopy, dashboardSource, dashboardSource, dashboardCopy)
	}

	if _, ok := byKey(t, "the chart", helmTemplate(t))[dashboardConfigMap]; ok {
		t.Errorf("the defaults render %s; it is rendered only with grafanaDashboard.enabled", dashboardConfigMap)
	}

	cm := dashboardOf(t, helmTemplate(t, "grafanaDashboard.enabled=true"))
	if got := cm.GetLabels()["grafana_dashboard"]; got != "1" {
		t.Errorf("label grafana_dashboard: %q, want \"1\" (the grafana chart's sidecar looks for it by default)", got)
	}
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if len(data) != 1 || data["nodeslo-controller.json"] != string(source) {
		t.Errorf("data: want only nodeslo-controller.json holding %s byte for byte, got keys %d (equal: %v)",
			dashboardSource, len(data), data["nodeslo-controller.json"] == string(source))
	}
}

func TestTheDashboardsLabelNamespaceAndAnnotationsAreValues(t *testing.T) {
	cm := dashboardOf(t, helmTemplate(t, "grafanaDashboard.enabled=true", "grafanaDashboard.namespace=monitoring",
		"grafanaDashboard.label=dashboards", "grafanaDashboard.labelValue=nodeslo",
		"grafanaDashboard.annotations.grafana_folder=Koordinator"))
	if cm.GetNamespace() != "monitoring" {
		t.Errorf("namespace %q, want monitoring", cm.GetNamespace())
	}
	if got := cm.GetLabels()["dashboards"]; got != "nodeslo" {
		t.Errorf("label dashboards: %q, want nodeslo", got)
	}
	if _, ok := cm.GetLabels()["grafana_dashboard"]; ok {
		t.Errorf("label grafana_dashboard still set beside the one chosen: %v", cm.GetLabels())
	}
	if got := cm.GetAnnotations()["grafana_folder"]; got != "Koordinator" {
		t.Errorf("annotation grafana_folder: %q, want Koordinator", got)
	}

}

// dashboardOf is the one dashboard ConfigMap among objs.
func dashboardOf(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, obj := range objs {
		if obj.GetKind() == "ConfigMap" && obj.GetName() == "nodeslo-controller-grafana-dashboard" {
			found = append(found, obj)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one ConfigMap nodeslo-controller-grafana-dashboard, got %d", len(found))
	}
	return found[0]
}
