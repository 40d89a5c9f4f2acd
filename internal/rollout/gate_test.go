package rollout

import (
	"testing"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// A held node stays held only while the inputs it was held with stand:
// labels, the bandwidth annotation and its NodeSLO's generation
// (docs/rollout-design.md#where-the-decision-runs).
const poolLabel, zoneLabel, poolWeb = "pool", "zone", "web"

func TestGateHoldsANodeWhileItsInputsStand(t *testing.T) {
	labels := map[string]string{poolLabel: poolWeb, zoneLabel: "a"}
	annotations := map[string]string{sloconfig.NetworkBandwidthAnnotation: "10G", "other": "x"}
	node := func(name string, labels, annotations map[string]string) sloconfig.Node {
		return sloconfig.Node{Name: name, Labels: labels, Annotations: annotations}
	}
	gate := &Gate{held: map[string]heldWith{"n1": heldWithOf(node("n1", labels, annotations), 3)}}

	cases := []struct {
		name        string
		node        string
		labels      map[string]string
		annotations map[string]string
		generation  int64
		held        bool
	}{
		{"unchanged", "n1", labels, annotations, 3, true},
		{"an unrelated annotation changed", "n1", labels,
			map[string]string{sloconfig.NetworkBandwidthAnnotation: "10G", "other": "y"}, 3, true},
		{"a label changed", "n1", map[string]string{poolLabel: poolWeb, zoneLabel: "b"}, annotations, 3, false},
		{"a label added", "n1", map[string]string{poolLabel: poolWeb, zoneLabel: "a", "x": ""}, annotations, 3, false},
		{"the bandwidth changed", "n1", labels, map[string]string{sloconfig.NetworkBandwidthAnnotation: "1G"}, 3, false},
		{"the bandwidth removed", "n1", labels, nil, 3, false},
		{"the NodeSLO edited by hand", "n1", labels, annotations, 4, false},
		{"a node the gate does not hold", "n2", labels, annotations, 3, false},
	}
	for _, c := range cases {
		if got := gate.Holds(node(c.node, c.labels, c.annotations), c.generation); got != c.held {
			t.Errorf("%s: held %t, want %t", c.name, got, c.held)
		}
	}
	var none *Gate
	if none.Holds(node("n1", labels, annotations), 3) || none.Has("n1") || none.Len() != 0 {
		t.Error("a nil gate (no rollout) holds nothing")
	}
	if !gate.Has("n1") || gate.changed("n1", heldWithOf(node("n1", labels, annotations), 3)) ||
		!gate.changed("n1", heldWithOf(node("n1", labels, annotations), 4)) {
		t.Error("Has/changed disagree with the inputs held")
	}
}
