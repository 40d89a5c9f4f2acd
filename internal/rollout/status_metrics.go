package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// HealthInconclusive reports whether a metric check Prometheus cannot
// answer holds the rollout, as the status's health h says (nil: no gate).
func HealthInconclusive(h *nodeslov1alpha1.RolloutHealth) bool {
	return h != nil && slices.ContainsFunc(h.Metrics, func(m nodeslov1alpha1.MetricVerdict) bool { return m.Inconclusive })
}

// inconclusiveText names the inconclusive checks of h and what each saw last.
func inconclusiveText(h *nodeslov1alpha1.RolloutHealth) string {
	var parts []string
	for _, m := range h.Metrics {
		if m.Inconclusive {
			parts = append(parts, fmt.Sprintf("metric check %s: %s (%s)", m.Name, m.Seen, consecutive(int(m.Errors), "error")))
		}
	}
	return strings.Join(parts, ", ")
}

// metricStatus lists the metric records of h by name, as the status shows
// them (status.health.metrics): the record holds at most one per check,
// so the list is bounded as the checks are.
func metricStatus(h *HealthRecord) []nodeslov1alpha1.MetricVerdict {
	if len(h.Metrics) == 0 {
		return nil
	}
	out := make([]nodeslov1alpha1.MetricVerdict, 0, len(h.Metrics))
	for _, name := range slices.Sorted(maps.Keys(h.Metrics)) {
		r := h.Metrics[name]
		out = append(out, nodeslov1alpha1.MetricVerdict{Name: name, Failures: int32(r.Failures),
			NoData: int32(r.NoData), Seen: r.Seen, At: apiTime(r.At), Failed: r.Failed, Errors: int32(r.Errors),
			Inconclusive: r.Inconclusive, DryRun: r.DryRun})
	}
	return out
}

// metricSettings renders a gate's metric checks for its settings line
// ("" without any): each name, bounds and interval.
func metricSettings(g *HealthGate) string {
	if len(g.Metrics) == 0 {
		return ""
	}
	parts := make([]string, len(g.Metrics))
	for i := range g.Metrics {
		c := &g.Metrics[i]
		parts[i] = fmt.Sprintf("%s %s every %s", c.Name, c.Bounds(), promDuration(c.Interval))
	}
	return "; metrics " + strings.Join(parts, ", ")
}
