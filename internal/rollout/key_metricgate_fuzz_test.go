package rollout

import (
	"encoding/json"
	"testing"
)

// FuzzMetricCheckQuery feeds query templates to the strategy's parser, as the
// webhook does with whatever an operator writes: it must never panic, and
// a template it accepts renders without error and, with values shorter
// than the actions naming them, to no more than its own text.
func FuzzMetricCheckQuery(f *testing.F) {
	for _, seed := range []string{
		`max(node_latency_seconds{node=~"{{.NodesRegex}}"})`, `{{- .CanariesRegex -}}[{{.Interval}}]`,
		`{{range 1000}}x{{end}}`, `{{define "a"}}{{template "a"}}{{end}}`, `{{.NodeRegex}}`, `{{`, `{{/* c */}}up`,
		`{{printf "%9999d" 1}}`, `{{$x := .Interval}}{{$x}}`, `{{.Interval.Foo}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		quoted, err := json.Marshal(query)
		if err != nil {
			return
		}
		load := LoadKey(metricKey(`{"name": "a", "address": "http://p:9090", "max": 1, "query": ` + string(quoted) + `}`))
		if !load.Valid() {
			return
		}
		c := &load.Policy.HealthGate.Metrics[0]
		q, err := c.Render(MetricQueryData{NodesRegex: nodesRegex([]string{"n"}), CanariesRegex: matchNoName, Interval: "1s"})
		if err != nil || len(q) > len(c.Query) {
			t.Errorf("query %q accepted, rendered %q (%v)", c.Query, q, err)
		}
	})
}
