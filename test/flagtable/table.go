package flagtable

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Page is where the flag table lives, relative to the repository root.
const Page = "docs/deploy.md"

// Row is one row of the flag table.
type Row struct {
	// Name is the flag with its two dashes, e.g. --kube-api-qps.
	Name string
	// Default is the first code span of the default column, e.g. 100 or
	// "koordinator-system"; the rest of that column is prose.
	Default string
}

var (
	rowPattern   = regexp.MustCompile("(?m)^\\| `(--[a-z0-9-]+)` \\| ([^|]*)\\|")
	firstCodeRun = regexp.MustCompile("`([^`]*)`")
)

// ReadTable returns the rows of the "## Flags" table of Page under root.
func ReadTable(root string) ([]Row, error) {
	page, err := os.ReadFile(filepath.Join(root, Page))
	if err != nil {
		return nil, err
	}
	_, section, found := strings.Cut(string(page), "\n## Flags\n")
	if !found {
		return nil, fmt.Errorf("%s has no \"## Flags\" section", Page)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []Row
	for _, m := range rowPattern.FindAllStringSubmatch(section, -1) {
		def := firstCodeRun.FindStringSubmatch(m[2])
		if def == nil {
			return nil, fmt.Errorf("%s: flag %s: the default column must start with the default in backticks, e.g. `0`, got %q",
				Page, m[1], strings.TrimSpace(m[2]))
		}
		rows = append(rows, Row{Name: m[1], Default: def[1]})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows in the \"## Flags\" table", Page)
	}
	return rows, nil
}
