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
	errLines, warningLines := ReportLines(cfg)
	for _, line := range errLines {
		_, _ = fmt.Fprintln(errs, line)
	}
	for _, line := range warningLines {
		_, _ = fmt.Fprintln(warnings, "warning: "+line)
	}
}

// ReportLines renders cfg's reports as validate prints them, key by key:
// one line per error, one per warning (without validate's "warning: "
// prefix). The admission webhook (internal/webhook) answers with the same
// lines, so that a person sees the same text from both.
func ReportLines(cfg *sloconfig.Config) (errs, warnings []string) {
	for _, r := range cfg.Reports() {
		for _, line := range r.Messages() {
			errs = append(errs, clipLine(line))
		}
		for _, line := range r.WarningMessages() {
			warnings = append(warnings, clipLine(line))
		}
	}
	return errs, warnings
}

// DataKeyWarningLines renders the warnings about keys the controller will
// not read (a misspelt key, a key under binaryData) as validate prints them,
// without the "warning: " prefix.
func DataKeyWarningLines(data map[string]string, binaryData map[string][]byte) []string {
	warnings := sloconfig.DataKeyWarnings(data, binaryData)
	for i, w := range warnings {
		warnings[i] = clipLine(w)
	}
	return warnings
}

// printInputWarnings writes the warnings about the ConfigMap as a whole:
// which one was picked, and keys the controller will not read.
func printInputWarnings(cm *ConfigMapInput, errOut io.Writer) {
	for _, w := range cm.Warnings {
		printLine(errOut, "warning: "+w)
	}
	for _, w := range DataKeyWarningLines(cm.Data, cm.BinaryData) {
		_, _ = fmt.Fprintln(errOut, "warning: "+w)
	}
}

// printLine prints a message line, clipping any long value it repeats.
func printLine(w io.Writer, line string) {
	_, _ = fmt.Fprintln(w, clipLine(line))
}
