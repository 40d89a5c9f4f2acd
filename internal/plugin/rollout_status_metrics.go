package plugin

import (
	"fmt"
	"io"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// The metric checks' part of `rollout status` (docs/rollout.md#metric-gates):
// the checks whose last measurement did not pass, or that failed, as the
// NodeSLORollout's status lists them.

// haltedByMetrics reports whether a halt came from a failed metric check
// rather than from the counted unhealthy nodes.
func haltedByMetrics(h *nodeslov1alpha1.RolloutHealth, counted int32) bool {
	failed := false
	for _, m := range h.Metrics {
		failed = failed || m.Failed
	}
	return failed && (counted == 0 || (h.Allowed >= 0 && counted <= h.Allowed))
}

// writeMetricChecks prints one line a check the status lists.
func writeMetricChecks(w io.Writer, h *nodeslov1alpha1.RolloutHealth) {
	for _, m := range h.Metrics {
		state := "not passing"
		switch {
		case m.Failed:
			state = "failed"
		case m.Inconclusive:
			state = "inconclusive, the rollout waits for Prometheus to answer"
		case m.DryRun:
			state = "not passing, dry run: never judged"
		}
		printLine(w, fmt.Sprintf("metric check %s: %s at %s: %s (%d consecutive failures, %d without data, "+
			"%d errors)", m.Name, state, timeText(m.At), m.Seen, m.Failures, m.NoData, m.Errors))
	}
}
