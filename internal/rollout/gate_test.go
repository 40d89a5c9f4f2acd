package rollout

import (
	"fmt"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

const poolLabel, zoneLabel, poolWeb, poolBatch = "pool", "zone", "web", "batch"

// thresholdConfig is a configuration whose cpu suppress threshold is
// cluster, and batch for the nodes of pool batch (a label a selector reads).
func thresholdConfig(cluster, batch int) *sloconfig.Config {
	return sloconfig.Load(map[string]string{string(sloconfig.KeyResourceThreshold): fmt.Sprintf(
		`{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": %d}, "nodeStrategies": [{"name": "batch", `+
			`"nodeSelector": {"matchLabels": {%q: "batch"}}, "cpuSuppressThresholdPercent": %d}]}`,
		cluster, poolLabel, batch)}, nil)
}

// threshold is the cpu suppress threshold of a spec (-1: none).
func threshold(spec *slov1alpha1.NodeSLOSpec) int64 {
	if spec == nil || spec.ResourceUsedThresholdWithBE == nil ||
		spec.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent == nil {
		return -1
	}
	return *spec.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent
}

// A node the gate holds stays on the configuration in force for it
// whatever its labels or its NodeSLO do; a label no selector reads changes
// nothing; a node the gate does not hold gets the target
// (docs/rollout.md#behaviour, the issue 54 defect).
func TestChooseNode(t *testing.T) {
	before, target := thresholdConfig(50, 30), thresholdConfig(40, 20)
	web := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolWeb}}
	stored := before.Resolve(web, nil).Spec
	held := Observed{Node: web, Stored: &stored}
	gate := &Gate{held: map[string]heldWith{"n1": heldWithOf(held, []*sloconfig.Config{before}, nil, nil, Memory{})}}
	unknown := &Gate{held: map[string]heldWith{"n1": heldWithOf(held, nil, nil, nil, Memory{})}}
	edited := *stored.DeepCopy()
	v := int64(77)
	edited.ResourceUsedThresholdWithBE.CPUSuppressThresholdPercent = &v

	cases := []struct {
		name   string
		gate   *Gate
		labels map[string]string
		spec   *slov1alpha1.NodeSLOSpec
		action NodeAction
		want   int64
	}{
		{"held, nothing changed", gate, web.Labels, &stored, NodeHeld, 50},
		{"held, a label no selector reads added", gate, map[string]string{poolLabel: poolWeb, zoneLabel: "b"},
			&stored, NodeHeld, 50},
		{"held, moved to the batch pool: the configuration in force for it", gate,
			map[string]string{poolLabel: poolBatch}, &stored, NodeWrite, 30},
		{"held, its NodeSLO edited by hand: put back to what the rollout holds", gate, web.Labels, &edited, NodeWrite, 50},
		{"held, its configuration in force not known: kept as it is", unknown,
			map[string]string{poolLabel: poolBatch}, &stored, NodeHeld, 40},
		{"not held: the target", nil, web.Labels, &stored, NodeWrite, 40},
		{"held but storing the target already", gate, web.Labels, new(target.Resolve(web, nil).Spec), NodeUpToDate, 40},
	}
	for _, c := range cases {
		node := sloconfig.Node{Name: "n1", Labels: c.labels}
		got := ChooseNode(target, nil, c.gate, node, StoredNode{Exists: true, Spec: c.spec})
		if got.Action != c.action || (got.Action == NodeWrite && threshold(&got.Resolution.Spec) != c.want) {
			t.Errorf("%s: action %d writing %d, want %d writing %d", c.name, got.Action,
				threshold(&got.Resolution.Spec), c.action, c.want)
		}
	}
	// Moved to the batch pool, where the target gives what the
	// configuration in force for it gives: still held, its stamp names
	// that configuration (Memory.stillHeld, heldSince).
	alike := thresholdConfig(40, 30)
	batch := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolBatch}}
	written := ChooseNode(alike, nil, gate, batch, StoredNode{Exists: true, Spec: &stored})
	if written.Action != NodeWrite || threshold(&written.Resolution.Spec) != 30 || written.From != before {
		t.Errorf("held, relabelled to what the target gives alike: action %d writing %d from %s, want a write of 30 from %s",
			written.Action, threshold(&written.Resolution.Spec), nameOf(written.From), nameOf(before))
	}
	got := ChooseNode(target, nil, gate, web, StoredNode{})
	if got.Action != NodeWrite || threshold(&got.Resolution.Spec) != 40 {
		t.Errorf("a held node whose NodeSLO is gone is created with the target: %+v", got.Action)
	}
	var none *Gate
	if none.Has("n1") || none.Len() != 0 || !gate.Has("n1") {
		t.Error("a nil gate (no rollout) holds nothing")
	}
}

// The configuration in force for a held node is the newest before the
// target that resolves to its stored NodeSLO when it is first held, and
// stays the one found while it is held.
func TestHeldWithFindsTheConfigurationInForceForTheNode(t *testing.T) {
	older, newer := thresholdConfig(60, 30), thresholdConfig(50, 30)
	batch := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolBatch}}
	stored := older.Resolve(batch, nil).Spec // the same under newer: both give batch 30
	o := Observed{Node: batch, Stored: &stored}
	with := heldWithOf(o, []*sloconfig.Config{newer, older}, nil, nil, Memory{})
	if with.base != newer {
		t.Errorf("base %v, want the newer configuration, which the node was not pending for", with.base)
	}
	previous := &Gate{held: map[string]heldWith{"n1": {base: older}}}
	if again := heldWithOf(o, []*sloconfig.Config{newer}, nil, nil, Memory{gate: previous}); again.base != older {
		t.Error("an unchanged held node keeps the base found before")
	}
	unknown := &Gate{held: map[string]heldWith{"n1": {}}}
	if again := heldWithOf(o, []*sloconfig.Config{newer}, nil, nil, Memory{gate: unknown}); again.base != newer {
		t.Error("a held node whose base was not known (the history not yet listed) is looked at again")
	}
	if got := ConfigsBefore(newer, older, []*sloconfig.Config{newer, older, nil}); len(got) != 1 || got[0] != older {
		t.Errorf("ConfigsBefore: %v", got)
	}
}

// A held node relabelled is seen by a decision before the NodeSLO
// reconciler rewrites it: its new labels beside the NodeSLO written for
// its old ones, stamped with an older configuration that resolves alike
// for the old labels and gives the new ones what is stored. It stays on
// the configuration in force for it: found there, the older one would keep
// it for good on the spec of its old labels (the held-node spec of
// internal/controller, beside a CPU hog).
func TestHeldWithKeepsTheBaseOfANodeRelabelledBeforeItsWrite(t *testing.T) {
	first, inForce := thresholdConfig(50, 50), thresholdConfig(50, 30)
	web := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolWeb}}
	batch := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolBatch}}
	stored := first.Resolve(web, nil).Spec // 50, as inForce gives web nodes
	numbers := map[string]int64{first.Fingerprint(): 1, inForce.Fingerprint(): 2}
	o := Observed{Node: web, Stored: &stored, From: ShortTarget(first.Fingerprint()), Under: 1}
	before := []*sloconfig.Config{inForce, first}
	held := heldWithOf(o, before, numbers, nil, Memory{})
	if held.base != inForce {
		t.Fatalf("base %s, want the configuration put in force after the write, which resolves alike", nameOf(held.base))
	}
	previous := &Gate{held: map[string]heldWith{"n1": held}}
	if again := heldWithOf(relabelled(o, batch), before, numbers, nil, Memory{gate: previous}); again.base != inForce {
		t.Errorf("relabelled, not yet written: base %s, want the one in force for it (%s)",
			nameOf(again.base), nameOf(inForce))
	}
}

// nameOf is a configuration's short fingerprint ("none": nil).
func nameOf(cfg *sloconfig.Config) string {
	if cfg == nil {
		return "none"
	}
	return ShortTarget(cfg.Fingerprint())
}
