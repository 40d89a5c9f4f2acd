package monitoring

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nodeslo/nodeslo-controller/test/alertrules"
)

// TestEveryAlertLinksItsRunbookSection: each alert of the PrometheusRule
// carries as runbook_url the anchor of the section of docs/runbook.md named
// after it, which kustomize prefixes with the runbook's address (the one
// value of config/prometheus/kustomization.yaml; test/chart checks what the
// chart renders), and that section exists (hack/check-doc-links.sh checks
// every other link).
func TestEveryAlertLinksItsRunbookSection(t *testing.T) {
	alerts, err := alertrules.Read()
	if err != nil {
		t.Fatal(err)
	}
	runbook, err := os.ReadFile(filepath.Join(repoRoot, "docs/runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if want := "#" + strings.ToLower(a.Name); a.Annotations["runbook_url"] != want {
			t.Errorf("alert %s: runbook_url %q, want %q", a.Name, a.Annotations["runbook_url"], want)
		}
		heading := regexp.MustCompile(`(?m)^#{2,4} ` + regexp.QuoteMeta(a.Name) + `$`)
		if !heading.Match(runbook) {
			t.Errorf("alert %s: docs/runbook.md has no section headed %q", a.Name, a.Name)
		}
	}
}
