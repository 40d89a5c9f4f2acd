package rollout

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// BenchmarkDecide10000 is one decision over a 10,000-node fleet mid-rollout
// (100 canaries, 3,000 nodes reached): the cost the controller pays per
// step and per ConfigMap change, not per node reconcile.
func BenchmarkDecide10000(b *testing.B) {
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): acceptanceKey})
	nodes := make([]Node, 10000)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("node-%05d", i), Stored: true, Differs: i >= 3000, Canary: i < 100}
	}
	rec := Record{Target: "B", Started: t0, Pending: 10000, Canaries: 100, Steps: 3, StepAt: t0}
	now := t0.Add(time.Hour)
	b.ReportAllocs()
	for b.Loop() {
		Decide(Input{Rollout: load, Target: "B", Record: rec, Nodes: nodes, Now: now})
	}
}
