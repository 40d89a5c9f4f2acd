package rollout

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The metric checks of a health gate (docs/rollout.md#metric-gates), as
// pure code: which checks are due and their queries over the nodes reached
// (MetricQueries), and the judgement of what Prometheus answered. The
// controller runs the queries beside its decisions
// (internal/controller/metric_measurer.go) and hands the samples to the
// next Plan after they end. Nothing per node is kept: the
// regex of names is built for one measurement and dropped.

// MetricQuery is one due check with its query rendered for the nodes reached.
type MetricQuery struct {
	Check *MetricCheck
	Query string
}

// MetricSample is what one measurement of a check found: Err when
// Prometheus could not be asked or refused the query, else NoData when it
// returned no number, else Value.
type MetricSample struct {
	Value  float64
	NoData bool
	Err    string
}

// MetricRecord is what the gate keeps of one check during a rollout, in
// the HealthRecord: only while its last measurement did not pass, or once
// it failed, so that a passing check writes nothing.
type MetricRecord struct {
	// Failures counts the consecutive failed measurements (out of bounds,
	// or no data beyond noDataLimit), NoData the consecutive ones without
	// data, Errors the consecutive ones Prometheus could not answer. An
	// error says nothing of the change: it leaves Failures and NoData as
	// they are.
	Failures int `json:"failures,omitempty"`
	NoData   int `json:"noData,omitempty"`
	Errors   int `json:"errors,omitempty"`
	// Inconclusive: more consecutive errors than failureLimit. The check
	// holds the rollout, no step is taken, until Prometheus answers again;
	// it never halts it (docs/rollout.md#metric-gates).
	Inconclusive bool `json:"inconclusive,omitempty"`
	// DryRun: the check is measured and shown, never Failed nor
	// Inconclusive.
	DryRun bool `json:"dryRun,omitempty"`
	// Seen is what the last of them saw (a value, no data, or the error),
	// At when.
	Seen string    `json:"seen"`
	At   time.Time `json:"at"`
	// Failed: more consecutive failures than failureLimit; the check's
	// verdict for the rest of the rollout, as a node's is.
	Failed bool `json:"failed,omitempty"`
}

// maxMetricSeen bounds what a record keeps of a measurement.
const maxMetricSeen = 200

// matchNoName is a regex that matches no name: the canaries' regex when
// no canary is reached. It holds no backslash, like every regex rendered.
const matchNoName = "$.^"

// nodesRegex is an anchored regex matching exactly names. Node names are
// DNS subdomains, so "." is their only metacharacter: it is written "[.]",
// which needs no backslash whatever quotes the query puts around it.
func nodesRegex(names []string) string {
	if len(names) == 0 {
		return matchNoName
	}
	size := len("^(?:)$") + len(names)
	for _, n := range names {
		size += len(n) + 2*strings.Count(n, ".") // "[.]" for "."
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString("^(?:")
	for i, n := range names {
		if i > 0 {
			b.WriteByte('|')
		}
		for _, r := range n {
			switch {
			case r == '.':
				b.WriteString("[.]")
			case strings.ContainsRune(`\+*?()|[]{}^$`, r):
				// Not in a node name; escaped all the same.
				b.WriteString(`\`)
				b.WriteRune(r)
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteString(")$")
	return b.String()
}

// promDuration renders d as a PromQL duration in seconds ("60s").
func promDuration(d time.Duration) string {
	return strconv.FormatInt(int64(d/time.Second), 10) + "s"
}

// MetricQueries are the checks due now with their queries, over the nodes
// this rollout reached (its NodeSLO written this change since the rollout
// started: wroteTarget) and the canaries among them. None while the gate
// does not judge the rollout of in's configuration, while it is halted, or
// before any node is reached.
func (m Memory) MetricQueries(in PlanInput) ([]MetricQuery, error) {
	policy := in.Rollout.Policy
	if policy == nil || policy.HealthGate == nil || len(policy.HealthGate.Metrics) == 0 || in.Config == nil {
		return nil, nil
	}
	rec, err := ParseRecord(in.Record)
	if err != nil || rec.Target != in.Config.Fingerprint() || !gateWatches(policy, rec, in.Now) ||
		(rec.Health.Halted() && !rec.Health.resumed(policy, in.RolloutKey, in.Resume)) {
		return nil, nil //nolint:nilerr // an unreadable record starts a new rollout, which nothing reached yet
	}
	var due []*MetricCheck
	for i := range policy.HealthGate.Metrics {
		c := &policy.HealthGate.Metrics[i]
		if last, ok := m.metricsMeasured[c.Name]; !ok || !in.Now.Before(last.Add(c.Interval)) {
			due = append(due, c)
		}
	}
	if len(due) == 0 {
		return nil, nil
	}
	since := rec.Started.Truncate(time.Second) // the annotation has seconds
	var reached, canaries []string
	for _, o := range in.Nodes {
		if !o.hasNodeSLO() || !wroteTarget(o, rec.Target, since, false) {
			continue // not written this change: unreached, held on an older one, or written by the rollout before
		}
		reached = append(reached, o.Node.Name)
		if policy.IsCanary(o.Node.Labels) {
			canaries = append(canaries, o.Node.Name)
		}
	}
	if len(reached) == 0 {
		return nil, nil
	}
	slices.Sort(reached)
	slices.Sort(canaries)
	nodes, canaryNodes := nodesRegex(reached), nodesRegex(canaries)
	out := make([]MetricQuery, 0, len(due))
	for _, c := range due {
		q, err := c.Render(MetricQueryData{NodesRegex: nodes, CanariesRegex: canaryNodes, Interval: promDuration(c.Interval)})
		if err != nil {
			return nil, err
		}
		out = append(out, MetricQuery{Check: c, Query: q})
	}
	return out, nil
}

// measured notes the checks measured now, and returns when the next check
// is due (zero: none is measured any more). A check is measured now when
// in has its sample, and also when it is due now: the controller then
// starts its query, whose sample a later plan takes (the queries run
// beside the decision, internal/controller/metric_measurer.go), so that
// the next is due an interval later, not at once while this one runs.
func (m *Memory) measured(in PlanInput, d Decision) time.Time {
	policy := in.Rollout.Policy
	if policy == nil || policy.HealthGate == nil || len(policy.HealthGate.Metrics) == 0 ||
		d.Halted || !gateWatches(policy, d.Record, in.Now) {
		m.metricsMeasured = nil
		return time.Time{}
	}
	next := make(map[string]time.Time, len(policy.HealthGate.Metrics))
	var due time.Time
	for _, c := range policy.HealthGate.Metrics {
		last, ok := m.metricsMeasured[c.Name]
		if _, now := in.MetricSamples[c.Name]; now || !ok || !in.Now.Before(last.Add(c.Interval)) {
			last = in.Now
		}
		next[c.Name] = last
		due = Earliest(due, last.Add(c.Interval))
	}
	m.metricsMeasured = next
	return due
}

// Earliest is the earlier of two times, zero standing for "never": when
// to decide again, of two reasons to.
func Earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// judgeMetrics merges the samples of gate's checks into prior, the
// records of a rollout; it returns the records and whether they changed.
// It keeps the records of gate's checks only: a check the strategy no
// longer has is not shown, so that the records stay within the gate's 10
// checks however often the strategy is edited (the CRD bounds both the
// record's and status.health's at 10).
func judgeMetrics(
	prior map[string]MetricRecord, gate *HealthGate, samples map[string]MetricSample, now time.Time,
) (map[string]MetricRecord, bool) {
	if gate == nil || len(samples) == 0 {
		return prior, false
	}
	out := make(map[string]MetricRecord, len(gate.Metrics))
	for i := range gate.Metrics {
		c := &gate.Metrics[i]
		r, had := prior[c.Name]
		s, ok := samples[c.Name]
		if !ok {
			if had {
				out[c.Name] = r
			}
			continue
		}
		if r, keep := judgeMetric(c, r, s, now); keep {
			out[c.Name] = r
		}
	}
	changed := !maps.Equal(out, prior)
	if len(out) == 0 {
		out = nil
	}
	return out, changed
}

// judgeMetric counts one sample of check c into its record r; keep is
// false when there is nothing to keep (it passed, and had not failed).
func judgeMetric(c *MetricCheck, r MetricRecord, s MetricSample, now time.Time) (MetricRecord, bool) {
	if r.Failed {
		return r, true // a verdict stands for the rest of the rollout
	}
	if s.Err != "" {
		r.Errors++
		r.Seen = s.Err
	} else {
		r.Errors = 0
		switch {
		case s.NoData || math.IsNaN(s.Value):
			r.NoData++
			r.Seen = "no data"
			if r.NoData > c.NoDataLimit {
				r.Failures++
			}
		case !c.Pass(s.Value):
			r.Failures++
			r.NoData = 0
			r.Seen = "value " + FormatMetricValue(s.Value) + " outside " + c.Bounds()
		default:
			return MetricRecord{}, false
		}
	}
	r.Seen, r.At = sloconfig.Shorten(r.Seen, maxMetricSeen), now
	r.DryRun = c.DryRun
	r.Failed = !c.DryRun && r.Failures > c.FailureLimit
	r.Inconclusive = !c.DryRun && !r.Failed && r.Errors > c.FailureLimit
	return r, true
}

// inconclusiveUnder reports whether a check of gate (nil: any check) that
// gates is inconclusive: a check removed from the strategy, or turned into
// a dry run, holds nothing any more.
func (h *HealthRecord) inconclusiveUnder(gate *HealthGate) bool {
	if h == nil {
		return false
	}
	for name, r := range h.Metrics {
		if r.Inconclusive && (gate == nil || gate.gates(name)) {
			return true
		}
	}
	return false
}

// gates reports whether g has a check of that name that is no dry run.
func (g *HealthGate) gates(name string) bool {
	if g == nil {
		return false
	}
	for i := range g.Metrics {
		if g.Metrics[i].Name == name {
			return !g.Metrics[i].DryRun
		}
	}
	return false
}

// inconclusiveSummary names the inconclusive checks and what each saw last.
func (h *HealthRecord) inconclusiveSummary() string {
	return h.metricLines("inconclusive", func(r MetricRecord) (bool, string) {
		return r.Inconclusive, consecutive(r.Errors, "error")
	})
}

// metricLines names, sorted, the checks of which of says they have the
// verdict, each with what it saw last and the count of says.
func (h *HealthRecord) metricLines(verdict string, of func(MetricRecord) (bool, string)) string {
	if h == nil {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(h.Metrics)) {
		r := h.Metrics[name]
		if has, count := of(r); has {
			parts = append(parts, fmt.Sprintf("metric check %s %s: %s (%s)", name, verdict, r.Seen, count))
		}
	}
	return strings.Join(parts, ", ")
}

// consecutive is "1 consecutive noun" or "N consecutive nouns".
func consecutive(n int, noun string) string {
	if n == 1 {
		return "1 consecutive " + noun
	}
	return fmt.Sprintf("%d consecutive %ss", n, noun)
}

// FormatMetricValue renders a value as Prometheus does.
func FormatMetricValue(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// MetricFailed reports whether a metric check failed during the rollout.
func (h *HealthRecord) MetricFailed() bool {
	if h == nil {
		return false
	}
	for _, r := range h.Metrics {
		if r.Failed {
			return true
		}
	}
	return false
}

// metricSummary names the failed checks and what each saw last.
func (h *HealthRecord) metricSummary() string {
	return h.metricLines("failed", func(r MetricRecord) (bool, string) {
		return r.Failed, consecutive(r.Failures, "failure")
	})
}

// HaltSummary says what halted the rollout: the unhealthy nodes with
// their signals, the failed metric checks with what they saw.
func (h *HealthRecord) HaltSummary() string {
	return joinNonEmpty("; ", h.Summary(), h.metricSummary())
}

// haltReason is the body of a RolloutHalted Event: the nodes beyond those
// allowed, and the metric checks that failed.
func haltReason(h *HealthRecord, allowed int) string {
	nodes := ""
	if n := len(h.Unhealthy) - h.Tolerated; n > allowed {
		nodes = fmt.Sprintf("%d reached nodes unhealthy, more than the %d allowed: %s", n, allowed, h.Summary())
	}
	return joinNonEmpty("; ", nodes, h.metricSummary())
}

func joinNonEmpty(sep string, parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), sep)
}

// metrics is the metric records of h (nil: none).
func (h *HealthRecord) metrics() map[string]MetricRecord {
	if h == nil {
		return nil
	}
	return h.Metrics
}
