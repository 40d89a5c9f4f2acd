// Package grafana checks the Grafana dashboard of config/grafana against
// Grafana's own dashboard types (the Grafana Foundation SDK), that its
// variables narrow every query down to one cluster, namespace and job, and
// that it shows what every alert of config/prometheus watches, the webhook,
// and the memory the manager keeps under its soft limit. The queries' PromQL
// is parsed by promtool (make test-alerts), and their metrics checked
// against a live manager's /metrics by test/monitoring.
package grafana

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/statetimeline"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	"github.com/nodeslo/nodeslo-controller/test/alertrules"
	"github.com/nodeslo/nodeslo-controller/test/envtestharness"
)

// DashboardPath is the dashboard, the one source of the chart's copy too
// (dist/chart/files, checked equal by test/chart).
var DashboardPath = envtestharness.RepoPath("config", "grafana", "nodeslo-controller.json")

// panelTypes are the panel types the dashboard may use, each with the SDK
// package whose types its options decode into; rows have no options. A
// panel of another type is refused, so that its options are never decoded
// leniently: register its package here first.
var panelTypes = map[string]bool{rowType: true, "timeseries": true, "stat": true, "state-timeline": true}

// rowType is the type of a row, which holds panels and no query.
const rowType = "row"

// grafanaDashboard is Grafana's classic dashboard JSON model, the one the
// dashboard is written in and Grafana's sidecar and import load. The SDK
// marks it deprecated in favour of dashboardv2, the v2 resource of
// Grafana's new dashboard API, which is another format altogether.
type grafanaDashboard = dashboard.Dashboard //nolint:staticcheck // the format of config/grafana, above

func init() {
	runtime := cog.NewRuntime()
	runtime.RegisterPanelcfgVariant(timeseries.VariantConfig())
	runtime.RegisterPanelcfgVariant(stat.VariantConfig())
	runtime.RegisterPanelcfgVariant(statetimeline.VariantConfig())
	runtime.RegisterDataqueryVariant(prometheus.VariantConfig())
}

// decoded is the dashboard as Grafana's types hold it, and its panels
// (those of collapsed rows included, rows as panels of type "row").
type decoded struct {
	dashboard *grafanaDashboard
	panels    []dashboard.Panel
}

// decode reads the dashboard strictly: an unknown field, a field of the
// wrong type or a required field missing, at any depth, is an error that
// names its path. The SDK's PanelOrRowPanel drops a panel that decodes
// without error (v0.0.22: it takes the empty error list its Panel returns
// for a failure), so each panel is decoded here again, as its type says.
func decode(t *testing.T, raw []byte) decoded {
	t.Helper()
	var d grafanaDashboard
	if err := failure(d.UnmarshalJSONStrict(raw)); err != nil {
		t.Fatalf("%s does not decode strictly into Grafana's dashboard types:\n%v", DashboardPath, err)
	}
	if err := failure(d.Validate()); err != nil {
		t.Fatalf("%s: %v", DashboardPath, err)
	}
	var plain struct {
		Panels []json.RawMessage `json:"panels"`
	}
	if err := json.Unmarshal(raw, &plain); err != nil {
		t.Fatal(err)
	}
	out := decoded{dashboard: &d}
	for i, rawPanel := range plain.Panels {
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(rawPanel, &kind); err != nil {
			t.Fatalf("panels[%d]: %v", i, err)
		}
		if kind.Type != rowType {
			var p dashboard.Panel
			if err := failure(p.UnmarshalJSONStrict(rawPanel)); err != nil {
				t.Fatalf("panels[%d]: %v", i, err)
			}
			p.Targets = prometheusTargets(t, i, rawPanel)
			out.panels = append(out.panels, p)
			continue
		}
		var row dashboard.RowPanel
		if err := failure(row.UnmarshalJSONStrict(rawPanel)); err != nil {
			t.Fatalf("panels[%d]: %v", i, err)
		}
		id := row.Id
		out.panels = append(out.panels, dashboard.Panel{Type: rowType, Title: row.Title, Id: &id, GridPos: row.GridPos})
		out.panels = append(out.panels, row.Panels...)
	}
	if len(out.panels) == 0 {
		t.Fatalf("%s: no panel", DashboardPath)
	}
	return out
}

// prometheusTargets decodes the queries of panels[i] strictly as
// Prometheus queries: the SDK's Panel drops every query that decodes
// without error, for the reason above.
func prometheusTargets(t *testing.T, i int, rawPanel []byte) []variants.Dataquery {
	t.Helper()
	var plain struct {
		Targets []json.RawMessage `json:"targets"`
	}
	if err := json.Unmarshal(rawPanel, &plain); err != nil {
		t.Fatalf("panels[%d]: %v", i, err)
	}
	out := make([]variants.Dataquery, 0, len(plain.Targets))
	for j, raw := range plain.Targets {
		q := &prometheus.Dataquery{}
		if err := failure(q.UnmarshalJSONStrict(raw)); err != nil {
			t.Fatalf("panels[%d].targets[%d]: not a Prometheus query of Grafana's types: %v", i, j, err)
		}
		out = append(out, q)
	}
	return out
}

func TestDashboardDecodesStrictlyIntoGrafanasTypes(t *testing.T) {
	raw, err := os.ReadFile(DashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, raw)
	if d.dashboard.Uid == nil || *d.dashboard.Uid != "nodeslo-controller" {
		t.Errorf("uid: %v, want nodeslo-controller (the links to the dashboard use it)", d.dashboard.Uid)
	}

	ids := map[uint32]string{}
	var problems []string
	queries := 0
	for _, p := range d.panels {
		title := deref(p.Title)
		if !panelTypes[p.Type] {
			problems = append(problems, fmt.Sprintf("panel %q: type %q is not one this test decodes strictly", title, p.Type))
		}
		if p.Id == nil {
			problems = append(problems, fmt.Sprintf("panel %q: no id", title))
		} else if other, ok := ids[*p.Id]; ok {
			problems = append(problems, fmt.Sprintf("panels %q and %q: both have id %d", other, title, *p.Id))
		} else {
			ids[*p.Id] = title
		}
		if p.Type == rowType {
			continue
		}
		if p.Description == nil || *p.Description == "" {
			problems = append(problems,
				fmt.Sprintf("panel %q: no description (it says what the series mean, and which alert)", title))
		}
		if len(p.Targets) == 0 {
			problems = append(problems, fmt.Sprintf("panel %q: no query", title))
		}
		for i, target := range p.Targets {
			q, ok := target.(*prometheus.Dataquery)
			if !ok {
				problems = append(problems,
					fmt.Sprintf("panel %q, targets[%d]: a %T, not a Prometheus query", title, i, target))
				continue
			}
			queries++
			if q.Datasource == nil || deref(q.Datasource.Type) != "prometheus" ||
				deref(q.Datasource.Uid) != "${datasource}" {
				problems = append(problems,
					fmt.Sprintf("panel %q, targets[%d]: datasource is not the Prometheus ${datasource} variable", title, i))
			}
			if want := selection(q.Expr); !strings.Contains(q.Expr, want) {
				problems = append(problems,
					fmt.Sprintf("panel %q, targets[%d]: %s does not select %s", title, i, q.Expr, want))
			}
		}
	}
	if queries == 0 {
		problems = append(problems, "no panel has a query")
	}
	problems = append(problems, overlaps(d)...)
	if len(problems) > 0 {
		t.Errorf("%s:\n%s", DashboardPath, strings.Join(problems, "\n"))
	}
}

// failure is err, or nil when it is an empty list of the SDK's errors: its
// decoder and validator return their list as an error even when it is empty.
func failure(err error) error {
	var list cog.BuildErrors
	if errors.As(err, &list) && len(list) == 0 {
		return nil
	}
	return err
}

// And the strict decoding does refuse what Grafana's types do not have.
func TestStrictDecodingRefusesWhatGrafanaDoesNotKnow(t *testing.T) {
	for name, mutate := range map[string]func(d map[string]any){
		"a misspelt dashboard field": func(d map[string]any) { d["refesh"] = "30s" },
		"a misspelt option of a time series panel": func(d map[string]any) {
			panel(d, "timeseries")["options"].(map[string]any)["legend"].(map[string]any)["showLegnd"] = true
		},
		"a misspelt field of a Prometheus query": func(d map[string]any) {
			panel(d, "timeseries")["targets"].([]any)[0].(map[string]any)["legendFromat"] = "{{key}}"
		},
		"a grid position of the wrong type": func(d map[string]any) {
			panel(d, "stat")["gridPos"].(map[string]any)["w"] = "4"
		},
	} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(DashboardPath)
			if err != nil {
				t.Fatal(err)
			}
			var generic map[string]any
			if err := json.Unmarshal(raw, &generic); err != nil {
				t.Fatal(err)
			}
			mutate(generic)
			changed, err := json.Marshal(generic)
			if err != nil {
				t.Fatal(err)
			}
			var d grafanaDashboard
			if err := failure(d.UnmarshalJSONStrict(changed)); err == nil {
				t.Errorf("decoded without error")
			} else {
				t.Logf("refused: %v", err)
			}
		})
	}
}

// panel is the first panel of type typ of a dashboard decoded as plain JSON.
func panel(d map[string]any, typ string) map[string]any {
	for _, p := range d["panels"].([]any) {
		if p := p.(map[string]any); p["type"] == typ {
			return p
		}
	}
	panic("no panel of type " + typ)
}

// metricName is a metric of this manager, of controller-runtime, of
// client-go or of kube-apiserver, as alerts name them.
var metricName = regexp.MustCompile(
	`\b(?:nodeslo|controller_runtime|workqueue|leader_election|rest_client|apiserver)_[a-z_]+\b`)

// webhookName is the ConfigMap's webhook as kube-apiserver's metrics name it
// (config/webhook/manifests.yaml).
const webhookName = "slo-controller-config.nodeslo.koordinator.sh"

// selection is the matchers a query must hold, in this order: the
// cluster, namespace and job chosen on the dashboard for the manager's
// metrics; for kube-apiserver's, which another job scrapes in another
// namespace, the cluster and the ConfigMap's webhook by name.
func selection(expr string) string {
	if strings.Contains(expr, "apiserver_") {
		return `cluster=~"$cluster", name="` + webhookName + `"`
	}
	return `cluster=~"$cluster", namespace=~"$namespace", job=~"$job"`
}

// variable is a dashboard variable as the JSON holds it.
type variable struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Query      json.RawMessage `json:"query"`
	IncludeAll bool            `json:"includeAll"`
	AllValue   string          `json:"allValue"`
	Multi      bool            `json:"multi"`
}

// The variables choose one manager among several: the data source, then
// the cluster (All by default, which matches series without a cluster
// label too, as a single Prometheus has), the namespace among that
// cluster's, the job among that namespace's. Each lists what the one
// before leaves, from nodeslo_build_info, which every replica exports.
func TestTheVariablesNarrowDownClusterNamespaceAndJob(t *testing.T) {
	raw, err := os.ReadFile(DashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	decode(t, raw) // strictly, first
	var d struct {
		Templating struct {
			List []variable `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, query string }{
		{"datasource", `"prometheus"`},
		{"cluster", `label_values(nodeslo_build_info, cluster)`},
		{"namespace", `label_values(nodeslo_build_info{cluster=~"$cluster"}, namespace)`},
		{"job", `label_values(nodeslo_build_info{cluster=~"$cluster", namespace=~"$namespace"}, job)`},
	}
	list := d.Templating.List
	if len(list) != len(want) {
		t.Fatalf("%d variables, want %d: %+v", len(list), len(want), list)
	}
	for i, w := range want {
		v := list[i]
		query := string(v.Query)
		if v.Type == "query" {
			var q struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(v.Query, &q); err != nil {
				t.Fatalf("variable %s: %v", v.Name, err)
			}
			query = q.Query
		}
		if v.Name != w.name || query != w.query || v.Multi {
			t.Errorf("variable %d: %s %q (multi %v), want %s %q, one value", i, v.Name, query, v.Multi, w.name, w.query)
		}
	}
	if cluster := list[1]; !cluster.IncludeAll || cluster.AllValue != ".*" {
		t.Errorf("cluster: includeAll %v, allValue %q; want All as .*, which a series without the label matches",
			cluster.IncludeAll, cluster.AllValue)
	}
}

// shownMetric names a metric the dashboard must show, and why.
type shownMetric struct{ name, why string }

// Beyond the alerts' metrics, the dashboard shows how the webhook answers
// and the memory the manager keeps under the GOMEMLIMIT it sets from the
// container's limit (internal/manager/memory_limit.go).
var mustShow = []shownMetric{
	{"controller_runtime_webhook_requests_total", "the webhook's answers by code"},
	{"controller_runtime_webhook_latency_seconds_bucket", "the webhook's latency, against the apiserver's 5 s"},
	{"process_resident_memory_bytes", "what the container's memory limit counts"},
	{"go_gc_gomemlimit_bytes", "the soft limit the manager sets"},
	{"go_gc_heap_live_bytes", "the live heap under it"},
	{"go_gc_cycles_total_gc_cycles_total", "garbage collections, which grow near the soft limit"},
	{"go_cpu_classes_gc_total_cpu_seconds_total", "the collector's share of the CPU"},
}

func TestTheDashboardShowsTheWebhookAndTheMemoryTheManagerTunes(t *testing.T) {
	raw, err := os.ReadFile(DashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, p := range decode(t, raw).panels {
		for _, target := range p.Targets {
			if q, ok := target.(*prometheus.Dataquery); ok {
				exprs = append(exprs, q.Expr)
			}
		}
	}
	for _, m := range mustShow {
		name := regexp.MustCompile(`\b` + regexp.QuoteMeta(m.name) + `\b`)
		if !slices.ContainsFunc(exprs, name.MatchString) {
			t.Errorf("no panel queries %s (%s)", m.name, m.why)
		}
	}
}

// Every metric an alert watches has a panel: an operator paged by an alert
// finds its series on the dashboard.
func TestEveryAlertsMetricHasAPanel(t *testing.T) {
	raw, err := os.ReadFile(DashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	d := decode(t, raw)
	shown := map[string]bool{}
	for _, p := range d.panels {
		for _, target := range p.Targets {
			if q, ok := target.(*prometheus.Dataquery); ok {
				for _, m := range metricName.FindAllString(q.Expr, -1) {
					shown[m] = true
				}
			}
		}
	}
	alerts, err := alertrules.Read()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, a := range alerts {
		names := metricName.FindAllString(a.Expr, -1)
		if len(names) == 0 {
			t.Errorf("alert %s: %q names no metric this test recognises", a.Name, a.Expr)
		}
		for _, m := range names {
			if !shown[m] {
				missing = append(missing, fmt.Sprintf("alert %s watches %s", a.Name, m))
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("%s has no panel for:\n%s", DashboardPath, strings.Join(slices.Compact(missing), "\n"))
	}
}

// overlaps names the panels whose grid positions overlap: Grafana would
// move them, and the layout would not be the one written.
func overlaps(d decoded) []string {
	var out []string
	for i, a := range d.panels {
		if a.GridPos == nil {
			out = append(out, fmt.Sprintf("panel %q: no gridPos", deref(a.Title)))
			continue
		}
		if a.GridPos.X+a.GridPos.W > 24 {
			out = append(out, fmt.Sprintf("panel %q: x %d + w %d is wider than Grafana's 24 columns",
				deref(a.Title), a.GridPos.X, a.GridPos.W))
		}
		for _, b := range d.panels[i+1:] {
			if b.GridPos == nil {
				continue
			}
			g, h := a.GridPos, b.GridPos
			if g.X < h.X+h.W && h.X < g.X+g.W && g.Y < h.Y+h.H && h.Y < g.Y+g.H {
				out = append(out, fmt.Sprintf("panels %q and %q overlap", deref(a.Title), deref(b.Title)))
			}
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// And the layout check does find panels that overlap or leave the grid.
func TestOverlapsAreFound(t *testing.T) {
	title := func(s string) *string { return &s }
	d := decoded{panels: []dashboard.Panel{
		{Title: title("a"), GridPos: &dashboard.GridPos{X: 0, Y: 0, W: 12, H: 8}},
		{Title: title("b"), GridPos: &dashboard.GridPos{X: 8, Y: 4, W: 12, H: 8}},
		{Title: title("c"), GridPos: &dashboard.GridPos{X: 12, Y: 2, W: 12, H: 4}},
		{Title: title("d"), GridPos: &dashboard.GridPos{X: 20, Y: 20, W: 8, H: 2}},
	}}
	want := []string{
		`panels "a" and "b" overlap`,
		`panels "b" and "c" overlap`,
		`panel "d": x 20 + w 8 is wider than Grafana's 24 columns`,
	}
	if got := overlaps(d); !slices.Equal(got, want) {
		t.Errorf("overlaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
