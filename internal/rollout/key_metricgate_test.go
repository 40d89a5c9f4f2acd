package rollout

import (
	"strings"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// metricKey is data holding, for LoadKey, a strategy whose gate has the
// one metric check given.
func metricKey(check string) map[string]string {
	return map[string]string{string(sloconfig.KeyRollout): `{
		"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}},
		"healthGate": {"metrics": [` + check + `]}}`}
}

const latencyCheck = `{"name": "latency", "address": "http://prometheus.monitoring:9090",
	"query": "max(node_latency_seconds{node=~\"{{.NodesRegex}}\"})", "max": 0.5`

func TestMetricCheckDefaults(t *testing.T) {
	load := LoadKey(metricKey(latencyCheck + `}`))
	if !load.Valid() || len(load.Warnings) > 0 {
		t.Fatalf("errors %v, warnings %v", load.Messages(), load.WarningMessages())
	}
	c := load.Policy.HealthGate.Metrics[0]
	if c.Interval != time.Minute || c.FailureLimit != 0 || c.NoDataLimit != 0 || c.Min != nil || *c.Max != 0.5 ||
		c.InsecureSkipVerify || c.Bounds() != "<= 0.5" {
		t.Errorf("defaults: %+v", c)
	}
	q, err := c.Render(MetricQueryData{NodesRegex: "^(?:a)$"})
	if err != nil || q != `max(node_latency_seconds{node=~"^(?:a)$"})` {
		t.Errorf("render: %q, %v", q, err)
	}
	if !c.Pass(0.5) || c.Pass(0.51) {
		t.Error("max is inclusive")
	}
}

// What the CRD's schema checks of a check (its name, address, bounds,
// limits, unique names) is test/crd/strategy_test.go's; the query
// template is the controller's.
func TestMetricCheckErrors(t *testing.T) {
	const p, noDefine = "healthGate.metrics[0].", "must not define templates"
	for _, c := range []struct{ check, want string }{
		{`{"name": "a", "address": "http://p:9090", "max": 1}`, p + "query: Required value"},
		{`{"name": "a", "address": "http://p:9090", "query": "max(x{node=~\"{{.NodesRegex}\"})", "max": 1}`,
			p + "query: Invalid value: \"max(x{node=~\\\"{{.NodesRegex}\\\"})\": does not parse as a template"},
		{`{"name": "a", "address": "http://p:9090", "query": "x{node=~\"{{.NodeRegex}}\"}", "max": 1}`,
			`does not execute: template: healthGate.metrics[0].query:1:11: ` +
				`executing "healthGate.metrics[0].query" at <.NodeRegex>: ` +
				`can't evaluate field NodeRegex in type rollout.MetricQueryData (did you mean {{.NodesRegex}}?)`},
		{`{"name": "a", "address": "http://p:9090", "query": "{{printf \"%999999999d\" 1}}", "max": 1}`,
			`{{printf "%999999999d" 1}}: only the fields {{.NodesRegex}}, {{.CanariesRegex}}, {{.Interval}} may be used`},
		{`{"name": "a", "address": "http://p:9090", "query": "{{range 1000000000}}x{{end}}", "max": 1}`,
			"{{range 1000000000}}x{{end}}: only the fields"},
		{`{"name": "a", "address": "http://p:9090", "query": "{{define \"a\"}}{{template \"a\"}}{{end}}up", "max": 1}`,
			noDefine},
		{`{"name": "a", "address": "http://p:9090", "query": "{{define \"a\"}}up{{end}}", "max": 1}`,
			noDefine},
		{`{"name": "a", "address": "http://p:9090", "query": "{{block \"a\" .}}up{{end}}", "max": 1}`,
			noDefine},
		{`{"name": "a", "address": "http://p:9090", "query": "{{if .Interval}}up{{end}}", "max": 1}`,
			"without conditions or loops"},
	} {
		load := LoadKey(metricKey(c.check))
		msgs := strings.Join(load.Messages(), "\n")
		if load.Valid() || !strings.Contains(msgs, c.want) {
			t.Errorf("%s:\nerrors %s\nwant one containing %s", c.check, msgs, c.want)
		}
	}
}

func TestMetricCheckWarnings(t *testing.T) {
	load := LoadKey(metricKey(latencyCheck + `, "failureLimt": 2, "intervalSecond": 5}`))
	warnings := strings.Join(load.WarningMessages(), "\n")
	for _, want := range []string{`did you mean "failureLimit"`, `did you mean "intervalSeconds"`} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings %q lack %q", warnings, want)
		}
	}
	noCanary := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"healthGate": {"metrics": [{"name": "a",
		"address": "http://p:9090", "query": "max(x{node=~\"{{.CanariesRegex}}\"})", "max": 1}]}}`})
	if w := strings.Join(noCanary.WarningMessages(), "\n"); !noCanary.Valid() ||
		!strings.Contains(w, "healthGate.metrics[0].query: uses {{.CanariesRegex}} but the strategy selects no canary") {
		t.Errorf("a canaries' query without canaries: %q %v", w, noCanary.Messages())
	}
}
