package rollout

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The regex matches exactly the names given, as Prometheus anchors it too,
// and holds no backslash; none given, it matches no name at all.
func TestNodesRegex(t *testing.T) {
	names := []string{"node-a", "node-b.zone1.example"}
	re := regexp.MustCompile("^(?:" + nodesRegex(names) + ")$")
	for _, n := range names {
		if !re.MatchString(n) {
			t.Errorf("%s not matched by %s", n, re)
		}
	}
	for _, n := range []string{"node-a1", "xnode-a", "node-bxzone1.example", "node-b", ""} {
		if re.MatchString(n) {
			t.Errorf("%q matched by %s", n, re)
		}
	}
	if strings.Contains(nodesRegex(names), `\`) {
		t.Errorf("a backslash in %s", nodesRegex(names))
	}
	none := regexp.MustCompile("^(?:" + nodesRegex(nil) + ")$")
	for _, n := range []string{"", "node-a"} {
		if none.MatchString(n) {
			t.Errorf("the empty set's regex %s matches %q", none, n)
		}
	}
}

// A check's consecutive failures count up to its failureLimit, a pass
// resets them, no data counts as a failure only beyond noDataLimit, an
// unreachable Prometheus counts as a failure, and a failed check's verdict
// stays.
// What a measurement without an answer says.
const (
	unreachable = "Prometheus unreachable"
	refused     = unreachable + ": connection refused"
)

func TestJudgeMetric(t *testing.T) {
	load := LoadKey(metricKey(latencyCheck + `, "failureLimit": 1, "noDataLimit": 1}`))
	c := &load.Policy.HealthGate.Metrics[0]
	const value2, noDataSeen = "value 2", "no data"
	bad, good := MetricSample{Value: 2}, MetricSample{Value: 0.1}
	noData, down := MetricSample{NoData: true}, MetricSample{Err: refused}
	for _, tc := range []struct {
		name    string
		samples []MetricSample
		want    MetricRecord // Seen compared as a prefix; At not compared
		kept    bool
	}{
		{"a pass keeps nothing", []MetricSample{good}, MetricRecord{}, false},
		{"one failure, within the limit", []MetricSample{bad},
			MetricRecord{Failures: 1, Seen: "value 2 outside <= 0.5"}, true},
		{"two consecutive failures fail", []MetricSample{bad, bad},
			MetricRecord{Failures: 2, Seen: value2, Failed: true}, true},
		{"a pass between resets", []MetricSample{bad, good, bad}, MetricRecord{Failures: 1, Seen: value2}, true},
		{"no data within its limit", []MetricSample{noData}, MetricRecord{NoData: 1, Seen: noDataSeen}, true},
		{"no data beyond its limit counts", []MetricSample{noData, noData},
			MetricRecord{NoData: 2, Failures: 1, Seen: noDataSeen}, true},
		{"no data then a failure", []MetricSample{noData, noData, bad},
			MetricRecord{Failures: 2, Seen: value2, Failed: true}, true},
		{"NaN is no data", []MetricSample{{Value: nan()}}, MetricRecord{NoData: 1, Seen: noDataSeen}, true},
		{"unreachable once, within the limit", []MetricSample{down},
			MetricRecord{Errors: 1, Seen: unreachable}, true},
		{"unreachable twice is inconclusive, never failed", []MetricSample{down, down},
			MetricRecord{Errors: 2, Seen: unreachable, Inconclusive: true}, true},
		{"an error leaves the failures counted", []MetricSample{bad, down, down},
			MetricRecord{Failures: 1, Errors: 2, Seen: unreachable, Inconclusive: true}, true},
		{"an answer ends the errors", []MetricSample{down, down, bad},
			MetricRecord{Failures: 1, Seen: value2}, true},
		{"a pass after errors keeps nothing", []MetricSample{down, down, good}, MetricRecord{}, false},
		{"a verdict stays", []MetricSample{bad, bad, good}, MetricRecord{Failures: 2, Seen: value2, Failed: true}, true},
	} {
		var r MetricRecord
		kept := false
		for _, s := range tc.samples {
			r, kept = judgeMetric(c, r, s, time.Time{})
		}
		if kept != tc.kept || r.Failures != tc.want.Failures || r.NoData != tc.want.NoData || r.Failed != tc.want.Failed ||
			r.Errors != tc.want.Errors || r.Inconclusive != tc.want.Inconclusive || !strings.HasPrefix(r.Seen, tc.want.Seen) {
			t.Errorf("%s: %+v kept %t, want %+v kept %t", tc.name, r, kept, tc.want, tc.kept)
		}
	}

	// A dry run counts as the check would, and is never failed nor inconclusive.
	dry := *c
	dry.DryRun = true
	var r MetricRecord
	for _, s := range []MetricSample{bad, bad, bad, down, down} {
		r, _ = judgeMetric(&dry, r, s, time.Time{})
	}
	if want := (MetricRecord{Failures: 3, Errors: 2, Seen: "Prometheus unreachable: connection refused",
		DryRun: true}); r != want {
		t.Errorf("dry run: %+v, want %+v", r, want)
	}
}

// Prometheus that cannot answer beyond the failure limit holds the rollout
// as inconclusive: no step, no halt, a RolloutInconclusive Event and an
// Inconclusive condition; its first answer lets the rollout go on. A dry
// run failing never halts nor holds.
func TestDecideMetricInconclusiveAndDryRun(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	check := func(name, extra string) string {
		return `{"name": "` + name + `", "address": "http://p:9090", "query": "max(x{node=~\"{{.NodesRegex}}\"})",
			"max": 0.5` + extra + `}`
	}
	key := strings.Replace(gatedKey, `"maxUnhealthyNodes": 0`, `"maxUnhealthyNodes": 0,
		"metrics": [`+check("latency", `, "failureLimit": 1`)+`, `+check("trial", `, "dryRun": true`)+`]`, 1)
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): key})
	if !load.Valid() {
		t.Fatal(load.Messages())
	}
	nodes := []Node{{Name: "a", Stored: true, Canary: true}, {Name: "b", Stored: true, Differs: true},
		{Name: "c", Stored: true, Differs: true}}
	rec := Record{Target: "B", Started: t0, Pending: 3, Canaries: 1, Steps: 1, StepAt: t0}
	in := Input{Rollout: load, Target: "B", Record: rec, Nodes: nodes, RolloutKey: "k1", Now: t0.Add(time.Hour)}
	down := MetricSample{Err: refused}
	measure := func(latency, trial MetricSample) Decision {
		in.Health = HealthInput{Judged: 1, Metrics: map[string]MetricSample{checkLatency: latency, checkTrial: trial}}
		d := Decide(in)
		in.Record, in.Now = d.Record, in.Now.Add(time.Second)
		return d
	}
	bad := MetricSample{Value: 9}
	d := measure(down, bad)
	if d.Halted || d.Inconclusive || !d.Stepped {
		t.Fatalf("one error within the limit, a dry run failing: %+v", d)
	}
	in.Record.StepAt = t0 // the next step is due
	d = measure(down, bad)
	if d.Halted || !d.Inconclusive || !d.Paused || d.Stepped || len(d.Write) != 0 || !d.NextStep.IsZero() {
		t.Fatalf("errors beyond the limit hold the rollout, no halt: %+v", d)
	}
	events, id := decisionEvents(load, d, "")
	if len(events) != 1 || events[0].Reason != ReasonInconclusive || !strings.Contains(events[0].Note,
		"metric check latency inconclusive: Prometheus unreachable: connection refused (2 consecutive errors)") {
		t.Errorf("events %+v", events)
	}
	if again, _ := decisionEvents(load, measure(down, bad), id); len(again) != 0 {
		t.Errorf("said again: %+v", again)
	}
	st := statusOf(load, d, "k1", in.Now)
	if got := standingOf(st); got.reason != ReasonMetricsInconclusive || got.stuck || got.halted {
		t.Errorf("standing %+v", got)
	}
	if m := d.Record.Health.Metrics["trial"]; !m.DryRun || m.Failed || m.Failures != 2 {
		t.Errorf("the dry run: %+v", m)
	}
	if d := measure(MetricSample{Value: 0.1}, bad); d.Inconclusive || d.Halted || d.Paused || len(d.Write) == 0 {
		t.Errorf("an answer lets the rollout go on: %+v", d)
	}
}

func nan() float64 {
	var zero float64
	return zero / zero
}

// A failing check halts the rollout as an unhealthy node does, says so in
// the Event, the status and the revert's summary; passes write nothing.
func TestDecideMetricGate(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	key := strings.Replace(gatedKey, `"maxUnhealthyNodes": 0`, `"maxUnhealthyNodes": 0, "onUnhealthy": "revert",
		"metrics": [{"name": "latency", "address": "http://p:9090", "query": "max(x{node=~\"{{.NodesRegex}}\"})",
		"max": 0.5, "failureLimit": 1}]`, 1)
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): key})
	if !load.Valid() {
		t.Fatal(load.Messages())
	}
	nodes := []Node{{Name: "a", Stored: true, Canary: true}, {Name: "b", Stored: true, Differs: true}}
	rec := Record{Target: "B", Started: t0, Pending: 2, Canaries: 1, Steps: 1, StepAt: t0}
	in := Input{Rollout: load, Target: "B", Record: rec, Nodes: nodes, RolloutKey: "k1", Now: t0.Add(time.Second)}
	measure := func(s MetricSample) Decision {
		in.Health = HealthInput{Judged: 1, Metrics: map[string]MetricSample{"latency": s}}
		d := Decide(in)
		in.Record, in.Now = d.Record, in.Now.Add(time.Second)
		return d
	}
	if d := measure(MetricSample{Value: 0.1}); !d.Record.Equal(rec) || d.Record.Health != nil {
		t.Fatalf("a pass wrote the record: %+v", d.Record.Health)
	}
	passed := in.Record
	if d := measure(MetricSample{Value: 3}); d.Halted || d.Record.Equal(passed) ||
		d.Record.Health.Metrics["latency"].Failures != 1 {
		t.Fatalf("one failure of a limit of 1 halts: %+v", d.Record.Health)
	}
	d := measure(MetricSample{Value: 2})
	if !d.HaltedNow || !d.Record.Health.MetricFailed() {
		t.Fatalf("a second failure halts: %+v", d.Record.Health)
	}
	events, _ := decisionEvents(load, d, "")
	const note = "halted by its health gate: metric check latency failed: value 2 outside <= 0.5 " +
		"(2 consecutive failures); reverting"
	if len(events) != 1 || !strings.Contains(events[0].Note, note) {
		t.Errorf("events %+v", events)
	}
	if h := d.Record.currentHalt(); !h.Revert || !strings.Contains(h.Summary, "metric check latency failed") {
		t.Errorf("the halt remembered: %+v", h)
	}
	st := statusOf(load, d, "k1", in.Now)
	if st.Health == nil || len(st.Health.Metrics) != 1 || !st.Health.Metrics[0].Failed ||
		!strings.Contains(st.Health.Gate, "metrics latency <= 0.5 every 60s") {
		t.Errorf("status health %+v", st.Health)
	}

	// A changed key resumes with fresh counts.
	in.RolloutKey = "k2"
	if d := measure(MetricSample{Value: 2}); d.Halted || d.Record.Health.Metrics["latency"].Failures != 1 {
		t.Errorf("resumed: %+v", d.Record.Health)
	}
}

// The queries are rendered over the nodes written since the rollout
// started, canaries apart, only while the gate judges the rollout and a
// check is due; the plan asks to decide again when the next one is (the
// rollout is paused, so that nothing else asks for a decision).
func TestMetricQueries(t *testing.T) {
	key := `{"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}}, "paused": true,
		"healthGate": {"metrics": [{"name": "latency", "address": "http://p:9090", "max": 0.5, "intervalSeconds": 30,
		"query": "max(x{node=~\"{{.NodesRegex}}\"}) + max(x{node=~\"{{.CanariesRegex}}\"}[{{.Interval}}])"}]}}`
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	observe := func(name string, canary bool, written time.Time) Observed {
		o := Observed{Node: sloconfig.Node{Name: name, Labels: map[string]string{}},
			Stored: &slov1alpha1.NodeSLOSpec{}, WrittenAt: written}
		if canary {
			o.Node.Labels["canary"] = "true"
		}
		return o
	}
	in := planInput(key, []Observed{
		observe("c1", true, t0.Add(time.Second)), observe("b", false, t0.Add(2*time.Second)),
		observe("c2", true, t0.Add(-time.Hour)), observe("u", false, t0.Add(-time.Hour)),
		{Node: sloconfig.Node{Name: "new"}},
		// Written since the start, from another configuration: by the
		// rollout before in the second this one started (t0 is half a
		// second in), and one held on an older configuration.
		observe("before", false, t0), observe("held", true, t0.Add(2*time.Second)),
	})
	for i := range in.Nodes {
		if in.Nodes[i].From = ShortTarget(in.Config.Fingerprint()); in.Nodes[i].Node.Name == "before" ||
			in.Nodes[i].Node.Name == "held" {
			in.Nodes[i].From = "0123456789ab"
		}
	}
	rec := Record{Target: in.Config.Fingerprint(), Started: t0.Add(time.Second / 2), Pending: 4, Canaries: 2,
		Steps: 1, StepAt: t0}
	in.Record, in.HasRecord, in.Now = rec.Encode(), true, t0.Add(3*time.Second)

	qs, err := Memory{}.MetricQueries(in)
	want := `max(x{node=~"^(?:b|c1)$"}) + max(x{node=~"^(?:c1)$"}[30s])`
	if err != nil || len(qs) != 1 || qs[0].Query != want {
		t.Fatalf("queries %+v (%v), want %s", qs, err, want)
	}
	in.MetricSamples = map[string]MetricSample{"latency": {Value: 0.1}}
	p := Memory{}.Plan(in)
	if !p.NextAt.Equal(in.Now.Add(30 * time.Second)) {
		t.Errorf("next decision at %s, want the check's next measurement %s", p.NextAt, in.Now.Add(30*time.Second))
	}
	later := in
	later.MetricSamples, later.Now = nil, in.Now.Add(29*time.Second)
	if qs, _ := p.Memory().MetricQueries(later); len(qs) != 0 {
		t.Errorf("measured again within its interval: %+v", qs)
	}
	later.Now = in.Now.Add(30 * time.Second)
	if qs, _ := p.Memory().MetricQueries(later); len(qs) != 1 {
		t.Errorf("not measured after its interval: %+v", qs)
	}

	halted := rec
	halted.Health = &HealthRecord{HaltedAt: t0, HaltedKey: in.RolloutKey}
	in.Record = halted.Encode()
	if qs, _ := (Memory{}).MetricQueries(in); len(qs) != 0 {
		t.Errorf("a halted rollout measured: %+v", qs)
	}
	other := rec
	other.Target = "another"
	in.Record = other.Encode()
	if qs, _ := (Memory{}).MetricQueries(in); len(qs) != 0 {
		t.Errorf("a rollout not started yet measured: %+v", qs)
	}
}

// The records of a rollout's metric checks are those of the strategy's
// checks only: a check renamed or removed mid-rollout leaves its record at
// the next measurement, so that the records stay within the 10 checks the
// CRD bounds them to however often the strategy is edited; the record of
// a check of the strategy not measured this time stays as it was.
func TestJudgeMetricsKeepsOnlyTheStrategysChecks(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	load := LoadKey(metricKey(latencyCheck + `}`))
	gate := load.Policy.HealthGate
	prior := map[string]MetricRecord{}
	for i := range 10 {
		prior[fmt.Sprintf("removed-%d", i)] = MetricRecord{Failures: 1, Seen: "value 2", At: now}
	}
	prior[checkLatency] = MetricRecord{Failures: 1, Seen: "value 2", At: now}
	out, changed := judgeMetrics(prior, gate, map[string]MetricSample{checkLatency: {Value: 2}}, now)
	if !changed || len(out) != 1 || out[checkLatency].Failures != 2 {
		t.Errorf("records %+v (changed %t), want latency's alone, its failures counted", out, changed)
	}
	unmeasured, _ := judgeMetrics(out, gate, map[string]MetricSample{"another": {Value: 2}}, now)
	if !maps.Equal(unmeasured, out) {
		t.Errorf("a check not measured this time lost its record: %+v", unmeasured)
	}
}
