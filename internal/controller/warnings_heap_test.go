package controller

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

// overlappingConfig is the ConfigMap data of keys × perKey node strategies,
// each named with nameBytes bytes, that all match every node labelled
// pool=all: the configuration that issue 39 sized at half a MiB.
func overlappingConfig(keys []sloconfig.Key, perKey, nameBytes int) map[string]string {
	data := map[string]string{}
	for _, k := range keys {
		strategies := make([]string, perKey)
		for i := range strategies {
			name := fmt.Sprintf("%s-%04d-", k, i)
			name += strings.Repeat("x", nameBytes-len(name))
			strategies[i] = fmt.Sprintf(`{"name": %q, "nodeSelector": {"matchLabels": {%q: "all"}}}`, name, poolLabel)
		}
		data[string(k)] = `{"nodeStrategies": [` + strings.Join(strategies, ", ") + `]}`
	}
	return data
}

// What the NodeSLO reconciler keeps of the warnings of 300 nodes, each
// matched by every one of 4 × 500 overlapping, long-named node strategies,
// is bounded by the configuration, not by its product with the fleet:
// within a few MiB of the heap before, where a warning listing every
// strategy, kept whole per node, took some 80 MiB (docs/performance.md#memory).
func TestWarningsKeptPerNodeAreBounded(t *testing.T) {
	const nodes, perKey, nameBytes = 300, 500, 250
	keys := []sloconfig.Key{
		sloconfig.KeyResourceThreshold, sloconfig.KeyResourceQOS, sloconfig.KeyCPUBurst, sloconfig.KeySystem,
	}
	data := overlappingConfig(keys, perKey, nameBytes)
	size := 0
	for _, v := range data {
		size += len(v)
	}
	empty := testkit.HeapAfterGC()
	cfg := sloconfig.Load(data, nil)
	for _, r := range cfg.Reports() {
		if !r.Valid() {
			t.Fatalf("%s: %v", r.Key, r.Messages())
		}
	}
	loaded := testkit.HeapAfterGC()

	r := &NodeSLOReconciler{recorder: &events.FakeRecorder{}}
	longest, warned := 0, 0
	for i := range nodes {
		node := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("node-%05d.zone-a.example", i), Labels: map[string]string{poolLabel: "all"},
		}}
		res := cfg.Resolve(sloconfig.NodeOf(node), nil)
		for _, w := range res.Warnings {
			longest = max(longest, len(w.Message))
		}
		warned += len(res.Warnings)
		r.warnNode(node, res.Warnings, true)
	}
	kept := testkit.HeapAfterGC()
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(r)

	grown := int64(kept) - int64(loaded)
	t.Logf("%d KiB of ConfigMap data (%d × %d strategies, names of %d bytes): %.1f MiB loaded; "+
		"%d nodes, %d warnings of at most %d bytes: %.2f MiB more kept (%d bytes a node)",
		size>>10, len(keys), perKey, nameBytes, float64(int64(loaded)-int64(empty))/(1<<20),
		nodes, warned, longest, float64(grown)/(1<<20), grown/nodes)
	if warned != nodes*len(keys) {
		t.Fatalf("%d warnings, want one per key and node: %d", warned, nodes*len(keys))
	}
	// One warning names a few strategies and counts the rest.
	if longest > 1<<10 {
		t.Errorf("a warning of %d bytes: it grows with the strategies", longest)
	}
	// The bound is tens of MiB; 8 MiB leaves room for the heap's
	// noise around the few KiB these nodes need.
	if grown > 8<<20 {
		t.Errorf("the warnings of %d nodes keep %.1f MiB: they grow with the fleet times the configuration",
			nodes, float64(grown)/(1<<20))
	}
}
