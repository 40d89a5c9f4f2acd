package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// requestFigure is one row of a phase's request table: what kube-apiserver
// served of one verb on one resource, or the watch events it sent of one
// resource, by its own counters.
type requestFigure struct {
	// Count is the requests, or for a watch-event row the events sent.
	Count float64 `json:"count"`
	// Failed counts the requests answered with 400 or above (409: a
	// conflict; 404: a read of what is not there).
	Failed float64 `json:"failed,omitempty"`
	// DryRun counts the dry runs among them.
	DryRun float64 `json:"dry_run,omitempty"`
	// Bytes is what kube-apiserver sent in answer, or the events' sizes.
	Bytes float64 `json:"bytes"`
}

// requestTable holds a phase's rows by "VERB resource" (the resource with
// its group, "nodeslos.slo.koordinator.sh", and subresource,
// "nodes/status"); watch events are the rows "EVENTS resource".
type requestTable map[string]requestFigure

// watchEventsVerb is the verb of the rows that count watch events.
const watchEventsVerb = "EVENTS"

// The counters read, from kube-apiserver's /metrics.
const (
	metricRequests         = "apiserver_request_total"
	metricResponseSizes    = "apiserver_response_sizes"
	metricWatchEvents      = "apiserver_watch_events_total"
	metricWatchEventsSizes = "apiserver_watch_events_sizes"
)

// readAPIServerRequests reads kube-apiserver's counters of what it served
// so far. The read itself (a GET of /metrics) is no resource's request,
// so it is in no row.
func readAPIServerRequests(ctx context.Context, admin *rest.Config) (requestTable, error) {
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading kube-apiserver's metrics: %w", err)
	}
	return parseAPIServerRequests(raw)
}

// parseAPIServerRequests makes a request table of kube-apiserver's
// metrics in the text format.
func parseAPIServerRequests(raw []byte) (requestTable, error) {
	families, err := parseMetrics(raw, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	t := requestTable{}
	t.addEach(families[metricRequests], "", func(f *requestFigure, m *dto.Metric) {
		n := m.GetCounter().GetValue()
		f.Count += n
		if code := labelValue(m, "code"); code >= "400" {
			f.Failed += n
		}
		if labelValue(m, "dry_run") != "" {
			f.DryRun += n
		}
	})
	t.addEach(families[metricResponseSizes], "", func(f *requestFigure, m *dto.Metric) {
		f.Bytes += m.GetHistogram().GetSampleSum()
	})
	t.addEach(families[metricWatchEvents], watchEventsVerb, func(f *requestFigure, m *dto.Metric) {
		f.Count += m.GetCounter().GetValue()
	})
	t.addEach(families[metricWatchEventsSizes], watchEventsVerb, func(f *requestFigure, m *dto.Metric) {
		f.Bytes += m.GetHistogram().GetSampleSum()
	})
	return t, nil
}

// addEach adds what add takes of each sample of family to the sample's
// row, under verb, or under the sample's own "verb" label when verb is "".
func (t requestTable) addEach(family *dto.MetricFamily, verb string, add func(*requestFigure, *dto.Metric)) {
	for _, m := range family.GetMetric() {
		v := verb
		if v == "" {
			v = labelValue(m, "verb")
		}
		if key, ok := requestKey(m, v); ok {
			f := t[key]
			add(&f, m)
			t[key] = f
		}
	}
}

// requestKey is the row of a sample: verb, then the resource with its
// group and subresource; false for requests of no resource (/metrics,
// /healthz, discovery). The watch-event counters name the resource by
// "resource" or, in older releases, by "kind".
func requestKey(m *dto.Metric, verb string) (string, bool) {
	resource := labelValue(m, "resource")
	if resource == "" {
		resource = labelValue(m, "kind")
	}
	if resource == "" {
		return "", false
	}
	if group := labelValue(m, "group"); group != "" {
		resource += "." + group
	}
	if sub := labelValue(m, "subresource"); sub != "" {
		resource += "/" + sub
	}
	return verb + " " + resource, true
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// since is what was served between before and t; rows that did not move are left out.
func (t requestTable) since(before requestTable) requestTable {
	out := requestTable{}
	for key, after := range t {
		b := before[key]
		d := requestFigure{Count: after.Count - b.Count, Failed: after.Failed - b.Failed,
			DryRun: after.DryRun - b.DryRun, Bytes: after.Bytes - b.Bytes}
		if d.Count != 0 || d.Bytes != 0 {
			out[key] = d
		}
	}
	return out
}

// printRequestTables writes, for each phase of the last repetition held
// against the floor, kube-apiserver's requests under the manager beside
// those under the floor and, with BENCH_KOORDINATOR, under koord-manager.
// Each holds the bench's own (its observer's watch and the phase's
// ConfigMap write), the manager's and koord-manager's their start too.
func printRequestTables(out io.Writer, phases []phaseResult, repeat int) {
	for _, p := range phases {
		if p.Repetition != repeat || p.APIServerRequests == nil || p.FloorAPIServerRequests == nil {
			continue
		}
		sides := []requestSide{{sideManager, p.APIServerRequests}, {sideFloor, p.FloorAPIServerRequests}}
		title := "manager and floor"
		if k := p.Koordinator; k != nil && k.APIServerRequests != nil {
			sides = append(sides, requestSide{sideKoordinator, k.APIServerRequests})
			title = "manager, floor and koord-manager"
		}
		_, _ = fmt.Fprintf(out, "\nkube-apiserver's requests in %s/%s (run %d), %s:\n",
			p.Regime, p.Phase, p.Repetition, title)
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		_, _ = fmt.Fprint(w, "request\t")
		for _, side := range sides {
			_, _ = fmt.Fprint(w, side.name+"\tfailed\tdry run\tKiB\t")
		}
		_, _ = fmt.Fprintln(w)
		for _, key := range requestRows(sides) {
			_, _ = fmt.Fprint(w, key+"\t")
			for _, side := range sides {
				f := side.table[key]
				_, _ = fmt.Fprintf(w, "%.0f\t%.0f\t%.0f\t%.1f\t", f.Count, f.Failed, f.DryRun, f.Bytes/1024)
			}
			_, _ = fmt.Fprintln(w)
		}
		_ = w.Flush()
	}
}

// requestSide is one side's request table of a phase, for printing.
type requestSide struct {
	name  string
	table requestTable
}

// requestRows are the rows of the first side's table, sorted, then those
// only a later side has, sorted, side after side.
func requestRows(sides []requestSide) []string {
	var rows []string
	seen := map[string]bool{}
	for _, side := range sides {
		for _, key := range slices.Sorted(maps.Keys(side.table)) {
			if !seen[key] {
				seen[key] = true
				rows = append(rows, key)
			}
		}
	}
	return rows
}
