package monitoring

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nodeslo/nodeslo-controller/test/alertrules"
)

// runbookBase is where every alert's runbook_url points: a section of
// docs/runbook.md on the repository's default branch.
const runbookBase = "https://github.com/nodeslo/nodeslo-controller/blob/main/docs/runbook.md#"

// TestEveryAlertLinksItsRunbookSection: each alert of the PrometheusRule
// carries a runbook_url to the section of docs/runbook.md named after it,
// and that section exists (hack/check-doc-links.sh checks every other link).
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
		if want := runbookBase + strings.ToLower(a.Name); a.Annotations["runbook_url"] != want {
			t.Errorf("alert %s: runbook_url %q, want %q", a.Name, a.Annotations["runbook_url"], want)
		}
		heading := regexp.MustCompile(`(?m)^#{2,4} ` + regexp.QuoteMeta(a.Name) + `$`)
		if !heading.Match(runbook) {
			t.Errorf("alert %s: docs/runbook.md has no section headed %q", a.Name, a.Name)
		}
	}
}
