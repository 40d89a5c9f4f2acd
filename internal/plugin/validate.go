package plugin

import (
	"context"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/crdprobe"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Validate loads data as the controller would at start-up and reports:
// one error per line on out, warnings on errOut. It returns whether every
// key is valid (the retired rollout key never is).
func Validate(data map[string]string, out, errOut io.Writer) bool {
	cfg := sloconfig.Load(data, nil)
	printReports(cfg, data, out, errOut)
	return cfg.Valid() && len(rollout.RetiredKeyLines(data).Errors) == 0
}

// printUnmatched warns on errOut about every node strategy in data that
// matches none of nodes (the keys as Validate loads them: an invalid key
// has no strategy in force).
func printUnmatched(data map[string]string, nodes []sloconfig.Node, errOut io.Writer) {
	reach, count := sloconfig.Load(data, nil).Reach(func(yield func(map[string]string) bool) {
		for _, n := range nodes {
			if !yield(n.Labels) {
				return
			}
		}
	})
	for _, w := range sloconfig.UnmatchedWarnings(reach, count, "in the nodes file") {
		printLine(errOut, "warning: "+w)
	}
}

// ValidateAgainstCRD warns on errOut of every field data sets that the
// NodeSLO CRD installed in c's cluster would drop, as the admission webhook
// does (docs/behaviour.md#crd-version-skew): one server-side dry run.
func ValidateAgainstCRD(ctx context.Context, c client.Client, data map[string]string, errOut io.Writer) error {
	dropped, err := crdprobe.ConfigDropped(ctx, c, sloconfig.Load(data, nil))
	if err != nil {
		return err
	}
	for _, line := range sloconfig.DroppedFieldWarnings(dropped) {
		printLine(errOut, "warning: "+line)
	}
	return nil
}

// printReports writes errors to errs and warnings to warnings, key by
// key, of cfg loaded from data.
func printReports(cfg *sloconfig.Config, data map[string]string, errs, warnings io.Writer) {
	errLines, warningLines := sloconfig.ReportLines(cfg, rollout.RetiredKeyLines(data))
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

// printInputWarnings writes the warnings about the ConfigMap as a whole:
// which one was picked, and keys the controller will not read.
func printInputWarnings(cm *ConfigMapInput, errOut io.Writer) {
	for _, w := range cm.Warnings {
		printLine(errOut, "warning: "+w)
	}
	for _, w := range sloconfig.DataKeyWarningLines(cm.Data, cm.BinaryData) {
		printLine(errOut, "warning: "+w)
	}
}

// printLine prints a message line, clipping any long value it repeats and
// showing what a terminal would act on as escapes (inert): a line may
// repeat text from the cluster.
func printLine(w io.Writer, line string) {
	_, _ = fmt.Fprintln(w, inert(sloconfig.ClipLine(line)))
}
