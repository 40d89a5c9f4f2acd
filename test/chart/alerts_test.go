package chart

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// alertRules are the alerting rules of the one PrometheusRule among objs.
func alertRules(t *testing.T, objs []*unstructured.Unstructured) []map[string]any {
	t.Helper()
	var out []map[string]any
	rules := 0
	for _, obj := range objs {
		if obj.GetKind() != "PrometheusRule" {
			continue
		}
		rules++
		groups, _, _ := unstructured.NestedSlice(obj.Object, "spec", "groups")
		for _, g := range groups {
			group, _ := g.(map[string]any)
			list, _, _ := unstructured.NestedSlice(group, "rules")
			for _, r := range list {
				if rule, ok := r.(map[string]any); ok && rule["alert"] != nil {
					out = append(out, rule)
				}
			}
		}
	}
	if rules != 1 || len(out) == 0 {
		t.Fatalf("%d PrometheusRules rendered with %d alerts, want one with alerts", rules, len(out))
	}
	return out
}

// alertsOf are the names of the alerts of the one PrometheusRule among objs.
func alertsOf(t *testing.T, objs []*unstructured.Unstructured) []string {
	t.Helper()
	rules := alertRules(t, objs)
	names := make([]string, 0, len(rules))
	for _, rule := range rules {
		name, _ := rule["alert"].(string)
		names = append(names, name)
	}
	return names
}

// The alerts on what a turned-off part would report are left out with it:
// no webhook, no NodeSLOWebhookFailing (its series would never exist, and
// kube-apiserver's count would name no webhook of this release); the
// others stay.
func TestAlertsOfATurnedOffPartAreLeftOut(t *testing.T) {
	with := alertsOf(t, helmTemplate(t, "prometheusRule.enabled=true"))
	without := alertsOf(t, helmTemplate(t, "prometheusRule.enabled=true", "webhook.enabled=false"))
	const webhookAlert = "NodeSLOWebhookFailing"
	if !slices.Contains(with, webhookAlert) {
		t.Fatalf("%s not rendered with the webhook on: %v", webhookAlert, with)
	}
	want := slices.DeleteFunc(slices.Clone(with), func(name string) bool { return name == webhookAlert })
	if !slices.Equal(without, want) {
		t.Errorf("with the webhook off the alerts are %v, want %v", without, want)
	}
}
