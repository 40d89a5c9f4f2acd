package plugin

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Render resolves each group of nodes alike in what the selectors read
// once; every node must still get exactly what resolving it alone gives,
// warnings included.
func TestNodeResolverGivesWhatResolvingAloneGives(t *testing.T) {
	cfg := sloconfig.Load(map[string]string{
		string(sloconfig.KeyCPUBurst): `{"nodeStrategies": [
			{"name": "a", "nodeSelector": {"matchLabels": {"pool": "a"}}, "policy": "auto"},
			{"name": "b", "nodeSelector": {"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]},
			 "policy": "cpuBurstOnly"},
			{"name": "c", "nodeSelector": {"matchLabels": {"pool": "a", "zone": ""}}, "policy": "cfsQuotaBurstOnly"}]}`,
		string(sloconfig.KeySystem): `{"clusterStrategy": {"totalNetworkBandwidth": "1G"}}`,
	}, nil)
	if got := fmt.Sprint(cfg.SelectorLabelKeys()); got != "[pool zone]" {
		t.Fatalf("SelectorLabelKeys() = %s, want [pool zone]", got)
	}
	nodes := make([]sloconfig.Node, 0, 200)
	for i := range 200 {
		labels := map[string]string{"unrelated": fmt.Sprint(i)}
		switch i % 4 {
		case 0:
			labels["pool"] = "a"
		case 1:
			labels["pool"], labels["zone"] = "a", ""
		case 2:
			labels["zone"] = "z"
		}
		annotations := map[string]string{}
		switch i % 5 {
		case 0:
			annotations[sloconfig.NetworkBandwidthAnnotation] = "2G"
		case 1:
			annotations[sloconfig.NetworkBandwidthAnnotation] = "lots"
		}
		nodes = append(nodes, sloconfig.Node{Name: fmt.Sprint("n", i), Labels: labels, Annotations: annotations})
	}
	got := make([]sloconfig.Resolution, len(nodes))
	newNodeResolver(cfg).resolveAll(nodes, got)
	for i, node := range nodes {
		want := cfg.Resolve(node, nil)
		if g, w := mustJSON(t, got[i]), mustJSON(t, want); g != w {
			t.Errorf("node %d (%v, %v):\n got %s\nwant %s", i, node.Labels, node.Annotations, g, w)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
