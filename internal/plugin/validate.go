package plugin

import (
	"fmt"
	"io"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Validate loads data as the controller would at start-up and reports:
// one error per line on out, warnings on errOut. It returns whether every
// key is valid.
func Validate(data map[string]string, out, errOut io.Writer) bool {
	cfg := sloconfig.Load(data, nil)
	printReports(cfg, out, errOut)
	return cfg.Valid()
}

// printReports writes errors to errs and warnings to warnings, key by key.
func printReports(cfg *sloconfig.Config, errs, warnings io.Writer) {
	for _, r := range cfg.Reports() {
		for _, line := range r.Messages() {
			_, _ = fmt.Fprintln(errs, line)
		}
		for _, line := range r.WarningMessages() {
			_, _ = fmt.Fprintln(warnings, "warning: "+line)
		}
	}
}
