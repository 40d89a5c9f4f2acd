package rollout

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// StatusMetric is a metric check of the health gate whose last measurement
// did not pass, or that failed (docs/rollout.md#metric-gates): the record's
// MetricRecord, under its name.
type StatusMetric struct {
	Name     string    `json:"name"`
	Failures int       `json:"failures,omitempty"`
	NoData   int       `json:"noData,omitempty"`
	Seen     string    `json:"seen"`
	At       time.Time `json:"at"`
	Failed   bool      `json:"failed,omitempty"`
	// Errors, Inconclusive and DryRun are the record's (MetricRecord).
	Errors       int  `json:"errors,omitempty"`
	Inconclusive bool `json:"inconclusive,omitempty"`
	DryRun       bool `json:"dryRun,omitempty"`
}

// Inconclusive reports whether a metric check Prometheus cannot answer
// holds the rollout.
func (h *StatusHealth) Inconclusive() bool {
	if h == nil {
		return false
	}
	for _, m := range h.Metrics {
		if m.Inconclusive {
			return true
		}
	}
	return false
}

// inconclusiveText names the inconclusive checks and what each saw last.
func (h *StatusHealth) inconclusiveText() string {
	var parts []string
	for _, m := range h.Metrics {
		if m.Inconclusive {
			parts = append(parts, fmt.Sprintf("metric check %s: %s (%s)", m.Name, m.Seen, consecutiveErrors(m.Errors)))
		}
	}
	return strings.Join(parts, ", ")
}

// metricStatus lists the metric records of h by name; the record holds at
// most one per check, so the list is bounded as the checks are.
func metricStatus(h *HealthRecord) []StatusMetric {
	if len(h.Metrics) == 0 {
		return nil
	}
	out := make([]StatusMetric, 0, len(h.Metrics))
	for _, name := range slices.Sorted(maps.Keys(h.Metrics)) {
		r := h.Metrics[name]
		out = append(out, StatusMetric{Name: name, Failures: r.Failures, NoData: r.NoData, Seen: r.Seen,
			At: r.At.UTC(), Failed: r.Failed, Errors: r.Errors, Inconclusive: r.Inconclusive, DryRun: r.DryRun})
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
