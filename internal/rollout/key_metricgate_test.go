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

func TestMetricCheckErrors(t *testing.T) {
	const p, noDefine = "healthGate.metrics[0].", "must not define templates"
	for _, c := range []struct{ check, want string }{
		{`{"address": "http://p:9090", "query": "up", "max": 1}`, p + "name: Required value"},
		{`{"name": "P99", "address": "http://p:9090", "query": "up", "max": 1}`, p + `name: Invalid value: "P99"`},
		{`{"name": "a", "query": "up", "max": 1}`, p + "address: Required value"},
		{`{"name": "a", "address": "prometheus:9090", "query": "up", "max": 1}`,
			p + `address: Invalid value: "prometheus:9090": must be an http or https URL`},
		{`{"name": "a", "address": "http://u:pw@p:9090", "query": "up", "max": 1}`, p + "address: Invalid value"},
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
		{`{"name": "a", "address": "http://p:9090", "query": "up"}`,
			p + "max: Required value: a check needs min, max or both"},
		{`{"name": "a", "address": "http://p:9090", "query": "up", "min": 2, "max": 1}`,
			p + "min: Invalid value: 2: must not be greater than max (1)"},
		{`{"name": "a", "address": "http://p:9090", "query": "up", "max": 1, "intervalSeconds": 0}`,
			p + "intervalSeconds: Invalid value: 0: must be between 1 and 3600, inclusive"},
		{`{"name": "a", "address": "http://p:9090", "query": "up", "max": 1, "failureLimit": -1}`,
			p + "failureLimit: Invalid value: -1: must be between 0 and 100, inclusive"},
		{`{"name": "a", "address": "http://p:9090", "query": "up", "max": 1, "noDataLimit": 101}`,
			p + "noDataLimit: Invalid value: 101"},
		{`{"name": "a", "address": "http://p:9090", "query": "up", "max": 1},
			{"name": "a", "address": "http://p:9090", "query": "up", "max": 1}`,
			`healthGate.metrics[1].name: Duplicate value: "a"`},
	} {
		load := LoadKey(metricKey(c.check))
		msgs := strings.Join(load.Messages(), "\n")
		if load.Valid() || !strings.Contains(msgs, c.want) {
			t.Errorf("%s:\nerrors %s\nwant one containing %s", c.check, msgs, c.want)
		}
	}
	many := strings.Repeat(`{"name": "a", "address": "http://p:9090", "query": "up", "max": 1}, `, 11)
	if msgs := strings.Join(LoadKey(metricKey(strings.TrimSuffix(many, ", "))).Messages(), "\n"); !strings.Contains(msgs,
		"healthGate.metrics: Too many: 11: must have at most 10 items") {
		t.Errorf("eleven checks: %s", msgs)
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
