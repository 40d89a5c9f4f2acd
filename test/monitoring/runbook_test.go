package monitoring

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// runbookBase is where every alert's runbook_url points: a section of
// docs/runbook.md on the repository's default branch.
const runbookBase = "https://github.com/nodeslo/nodeslo-controller/blob/main/docs/runbook.md#"

// TestEveryAlertLinksItsRunbookSection: each alert of the PrometheusRule
// carries a runbook_url to the section of docs/runbook.md named after it,
// and that section exists (hack/check-doc-links.sh checks every other link).
func TestEveryAlertLinksItsRunbookSection(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "config", "prometheus", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert       string            `json:"alert"`
					Annotations map[string]string `json:"annotations"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &rule); err != nil {
		t.Fatal(err)
	}
	runbook, err := os.ReadFile(filepath.Join(repoRoot, "docs/runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	alerts := 0
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			if want := runbookBase + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
				t.Errorf("alert %s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
			}
			heading := regexp.MustCompile(`(?m)^#{2,4} ` + regexp.QuoteMeta(r.Alert) + `$`)
			if !heading.Match(runbook) {
				t.Errorf("alert %s: docs/runbook.md has no section headed %q", r.Alert, r.Alert)
			}
		}
	}
	if alerts == 0 {
		t.Fatal("no alert found in config/prometheus/prometheusrule.yaml")
	}
}
