package rollout

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// metricFleetKey has three checks, the most a strategy is likely to carry.
var metricFleetKey = `{"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}}, "paused": true,
	"healthGate": {"metrics": [` + strings.Join([]string{
	metricCheckJSON("p99", `histogram_quantile(0.99, sum by (le) `+
		`(rate(http_request_duration_seconds_bucket{node=~\"{{.NodesRegex}}\"}[2m])))`),
	metricCheckJSON("throttled", `max(rate(container_cpu_cfs_throttled_periods_total{node=~\"{{.CanariesRegex}}\"}[2m]))`),
	metricCheckJSON("evictions",
		`sum(increase(koordlet_pod_eviction{node=~\"{{.NodesRegex}}\"}[{{.Interval}}])) or vector(0)`),
}, ", ") + `]}}`

func metricCheckJSON(name, query string) string {
	return fmt.Sprintf(`{"name": %q, "address": "http://prometheus:9090", "max": 1, "intervalSeconds": 30,
		"failureLimit": 1, "query": "%s"}`, name, query)
}

// metricFleet is a plan input of n nodes (1% canaries), every one reached,
// mid-rollout under key.
func metricFleet(n int, key string) PlanInput {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	nodes := make([]Observed, n)
	for i := range nodes {
		nodes[i] = Observed{Node: sloconfig.Node{Name: fmt.Sprintf("node-%05d.zone-a.example", i),
			Labels: map[string]string{"canary": fmt.Sprint(i%100 == 0)}},
			Stored: &slov1alpha1.NodeSLOSpec{}, WrittenAt: t0.Add(time.Second)}
	}
	in := planInput(key, nodes)
	for i := range in.Nodes {
		in.Nodes[i].From = ShortTarget(in.Config.Fingerprint())
	}
	rec := Record{Target: in.Config.Fingerprint(), Started: t0, Pending: n, Canaries: n / 100, Steps: 2, StepAt: t0}
	in.Record, in.HasRecord, in.Now = rec.Encode(), true, t0.Add(time.Minute)
	return in
}

// At 10,000 nodes, what a plan with three metric checks keeps beyond one
// without them is per check, never per node: the regexes and queries are
// built for one measurement and dropped (docs/rollout.md#metric-gates).
func TestMetricGateKeepsNothingPerNode(t *testing.T) {
	const n = 10000
	const gateOnly = `{"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}}, "paused": true, "healthGate": {}}`
	with, without := metricFleet(n, metricFleetKey), metricFleet(n, gateOnly)
	queries, err := Memory{}.MetricQueries(with)
	if err != nil || len(queries) != 3 {
		t.Fatalf("queries %d, %v", len(queries), err)
	}
	size := 0
	with.MetricSamples = map[string]MetricSample{}
	for _, q := range queries {
		size += len(q.Query)
		with.MetricSamples[q.Check.Name] = MetricSample{Value: 2} // out of bounds: recorded
	}

	plain, plainKept := planKept(without)
	gated, gatedKept := planKept(with)
	kept := gatedKept - plainKept
	t.Logf("%d nodes: queries of %d bytes rendered per measurement; a plan keeps %d bytes without the checks, "+
		"%d more with three checks failing", n, size, plainKept, kept)
	if len(gated.Memory().metricsMeasured) != 3 || gated.Status.Health == nil || len(gated.Status.Health.Metrics) != 3 {
		t.Fatalf("the checks were not judged: %+v", gated.Status.Health)
	}
	// 64 KiB is under 7 bytes a node: per-node state would exceed it.
	if kept > 64<<10 {
		t.Errorf("a plan with metric checks keeps %d bytes more than one without, at %d nodes", kept, n)
	}
	runtime.KeepAlive(plain)
	runtime.KeepAlive(gated)
}

// planKept plans in twice (the first call fills the configuration's
// caches) and returns the second plan and the heap it keeps.
func planKept(in PlanInput) (Plan, int64) {
	Memory{}.Plan(in)
	before := testkit.HeapAfterGC()
	p := Memory{}.Plan(in)
	kept := int64(testkit.HeapAfterGC()) - int64(before)
	runtime.KeepAlive(in)
	return p, kept
}

// BenchmarkMetricQueries10000 renders three checks' queries over 10,000
// reached nodes: what one measurement round allocates, all of it garbage
// once the queries are sent.
func BenchmarkMetricQueries10000(b *testing.B) {
	in := metricFleet(10000, metricFleetKey)
	b.ReportAllocs()
	for b.Loop() {
		if qs, err := (Memory{}).MetricQueries(in); err != nil || len(qs) != 3 {
			b.Fatal(len(qs), err)
		}
	}
}
