package plugin

import (
	"fmt"
	"io"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Validate loads data as the controller would at start-up and reports:
// one error per line on out, warnings on errOut. It returns whether every
// key, the rollout key included, is valid.
func Validate(data map[string]string, out, errOut io.Writer) bool {
	cfg, rollout := sloconfig.Load(data, nil), sloconfig.LoadRollout(data)
	printReports(cfg, rollout, out, errOut)
	return cfg.Valid() && rollout.Valid()
}

// printReports writes errors to errs and warnings to warnings, key by key.
func printReports(cfg *sloconfig.Config, rollout sloconfig.RolloutLoad, errs, warnings io.Writer) {
	errLines, warningLines := ReportLines(cfg, rollout)
	printMessages(errLines, warningLines, errs, warnings)
}

// printMessages writes error lines to errs and warnings to warnings.
func printMessages(errorLines, warningLines []string, errs, warnings io.Writer) {
	for _, line := range errorLines {
		printLine(errs, line)
	}
	for _, line := range warningLines {
		printLine(warnings, "warning: "+line)
	}
}

// ReportLines renders the reports of every key, the rollout key last, as
// validate prints them: one line per error, one per warning (without
// validate's "warning: " prefix). The admission webhook (internal/webhook)
// answers with the same lines, so that a person sees the same text from both.
func ReportLines(cfg *sloconfig.Config, rollout sloconfig.RolloutLoad) (errs, warnings []string) {
	for _, r := range cfg.Reports() {
		errs = append(errs, r.Messages()...)
		warnings = append(warnings, r.WarningMessages()...)
	}
	errs = append(errs, rollout.Messages()...)
	warnings = append(warnings, rollout.WarningMessages()...)
	for i := range errs {
		errs[i] = clipLine(errs[i])
	}
	for i := range warnings {
		warnings[i] = clipLine(warnings[i])
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
		printLine(errOut, "warning: "+w)
	}
}

// printLine prints a message line, clipping any long value it repeats.
func printLine(w io.Writer, line string) {
	_, _ = fmt.Fprintln(w, clipLine(line))
}
