package sloconfig

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// labelSets yields the labels of nodes.
func labelSets(nodes []Node) func(func(map[string]string) bool) {
	return func(yield func(map[string]string) bool) {
		for _, n := range nodes {
			if !yield(n.Labels) {
				return
			}
		}
	}
}

// nodesWith returns n nodes with labels (shared).
func nodesWith(n int, labels map[string]string) []Node {
	out := make([]Node, n)
	for i := range out {
		out[i] = Node{Name: fmt.Sprintf("node-%d", i), Labels: labels}
	}
	return out
}

// reachConfig has entries in two keys: threshold's second entry overlaps
// the first, its third matches no node of reachNodes; host applications
// count too.
var reachConfig = map[string]string{
	string(KeyResourceThreshold): `{"nodeStrategies": [
		{"name": "pool-a", "nodeSelector": {"matchLabels": {"pool": "a"}}, "cpuSuppressThresholdPercent": 50},
		{"nodeSelector": {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a", "b"]}]},
		 "cpuSuppressThresholdPercent": 40},
		{"name": "pool-c", "nodeSelector": {"matchLabels": {"pool": "c"}}, "cpuSuppressThresholdPercent": 30}]}`,
	string(KeyHostApplication): `{"nodeConfigs": [
		{"name": "no-pool", "nodeSelector": {"matchExpressions": [{"key": "pool", "operator": "DoesNotExist"}]},
		 "applications": [{"name": "redis"}]}]}`,
}

// reachNodes: 3 in pool a, 2 in pool b, 1 without a pool; hostnames differ.
func reachNodes() []Node {
	pools := []string{"a", "a", "a", "b", "b", ""}
	nodes := make([]Node, 0, len(pools))
	for i, pool := range pools {
		labels := map[string]string{"kubernetes.io/hostname": fmt.Sprintf("h%d", i)}
		if pool != "" {
			labels[poolLabel] = pool
		}
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), Labels: labels})
	}
	return nodes
}

func TestReachCountsTheNodesEachEntryMatchesAndAppliesTo(t *testing.T) {
	cfg := Load(reachConfig, nil)
	if !cfg.Valid() {
		t.Fatalf("invalid test configuration: %v", cfg.Reports())
	}
	reach, nodes := cfg.Reach(labelSets(reachNodes()))
	if nodes != 6 {
		t.Errorf("nodes = %d, want 6", nodes)
	}
	want := []StrategyReach{
		{Key: KeyResourceThreshold, Index: 0, Name: "pool-a", Label: "pool-a", Selector: "pool=a", Matched: 3, Applied: 3},
		// Matches all five pooled nodes, applies only where pool-a does not.
		{Key: KeyResourceThreshold, Index: 1, Label: "1", Selector: "pool in (a,b)", Matched: 5, Applied: 2},
		{Key: KeyResourceThreshold, Index: 2, Name: "pool-c", Label: "pool-c", Selector: "pool=c"},
		{Key: KeyHostApplication, Index: 0, Name: "no-pool", Label: "no-pool", Selector: "!pool", Matched: 1, Applied: 1},
	}
	if !slices.Equal(reach, want) {
		t.Errorf("reach:\n got %+v\nwant %+v", reach, want)
	}
}

// Reach groups nodes by the labels selectors read; the counts must be
// those of resolving every node on its own.
func TestReachAgreesWithResolve(t *testing.T) {
	cfg := Load(benchData(), nil)
	if !cfg.Valid() {
		t.Fatalf("invalid benchmark configuration: %v", cfg.Reports())
	}
	nodes := benchNodes(997, false)
	applied := map[string]int{}
	for _, n := range nodes {
		for _, m := range cfg.Resolve(n, nil).Matches {
			if m.Index >= 0 {
				applied[fmt.Sprintf("%s/%d", m.Key, m.Index)]++
			}
		}
	}
	reach, count := cfg.Reach(labelSets(nodes))
	if count != len(nodes) {
		t.Errorf("nodes = %d, want %d", count, len(nodes))
	}
	got := map[string]int{}
	for _, r := range reach {
		if r.Applied > 0 {
			got[fmt.Sprintf("%s/%d", r.Key, r.Index)] = r.Applied
		}
		if r.Matched < r.Applied {
			t.Errorf("%s[%d]: matched %d < applied %d", r.Key, r.Index, r.Matched, r.Applied)
		}
	}
	if len(applied) == 0 || !maps.Equal(got, applied) {
		t.Errorf("applied per entry:\n got %v\nwant %v", got, applied)
	}
}

func TestReachOfKeysNotInForceAsWritten(t *testing.T) {
	good := reachConfig[string(KeyResourceThreshold)]
	bad := strings.Replace(good, "50}", "150}", 1)

	// Invalid with no previous value (Frozen): nothing of the key is in force.
	frozen := Load(map[string]string{string(KeyResourceThreshold): bad}, nil)
	if reach, _ := frozen.Reach(labelSets(reachNodes())); len(reach) != 0 {
		t.Errorf("a Frozen key reaches %+v, want nothing", reach)
	}
	// Invalid after a good value (LastGood): the good value's entries count.
	previous := Load(map[string]string{string(KeyResourceThreshold): good}, nil)
	lastGood := Load(map[string]string{string(KeyResourceThreshold): bad}, previous)
	if lastGood.State(KeyResourceThreshold) != StateLastGood {
		t.Fatalf("state %s, want LastGood", lastGood.State(KeyResourceThreshold))
	}
	reach, _ := lastGood.Reach(labelSets(reachNodes()))
	if len(reach) != 3 || reach[0].Applied != 3 {
		t.Errorf("a LastGood key reaches %+v, want its last good value's three entries", reach)
	}
	// No node: every entry is there, at zero.
	reach, nodes := Load(reachConfig, nil).Reach(labelSets(nil))
	if nodes != 0 || len(reach) != 4 || reach[0].Matched != 0 {
		t.Errorf("with no node: %d nodes, %+v", nodes, reach)
	}
}

// A scrape fails on two series with the same labels: labels stay unique
// within a key whatever the names.
func TestReachLabelsAreUniqueWithinAKey(t *testing.T) {
	long := strings.Repeat("x", 300)
	cfg := Load(map[string]string{string(KeyCPUBurst): fmt.Sprintf(`{"nodeStrategies": [
		{"name": "1", "nodeSelector": {}},
		{"nodeSelector": {"matchLabels": {"pool": "a"}}},
		{"name": "dup", "nodeSelector": {"matchLabels": {"pool": "b"}}},
		{"name": "dup", "nodeSelector": {"matchLabels": {"pool": "c"}}},
		{"name": %q, "nodeSelector": {"matchLabels": {"pool": "d"}}}]}`, long)}, nil)
	if !cfg.Valid() {
		t.Fatalf("invalid test configuration: %v", cfg.Reports())
	}
	reach, _ := cfg.Reach(labelSets(nil))
	got := make([]string, 0, len(reach))
	for _, r := range reach {
		got = append(got, r.Label)
	}
	want := []string{"1", "1[1]", "dup", "dup[3]", strings.Repeat("x", 100) + "…(300 bytes)"}
	if !slices.Equal(got, want) {
		t.Errorf("labels %q, want %q", got, want)
	}
}

func TestUnmatchedWarningsNameKeyEntryAndSelector(t *testing.T) {
	cfg := Load(map[string]string{
		string(KeyResourceThreshold): `{"nodeStrategies": [
			{"name": "pool-a", "nodeSelector": {"matchLabels": {"pool": "a"}}},
			{"nodeSelector": {"matchLabels": {"pool": "typo"}}}]}`,
		string(KeyHostApplication): `{"nodeConfigs": [
			{"name": "gpu", "nodeSelector": {"matchLabels": {"gpu": "true"}}, "applications": [{"name": "x"}]}]}`,
	}, nil)
	reach, nodes := cfg.Reach(labelSets(nodesWith(3, map[string]string{poolLabel: "a"})))
	got := UnmatchedWarnings(reach, nodes, "in the cluster")
	want := []string{
		"resource-threshold-config: nodeStrategies[1].nodeSelector: the node strategy matches none of the 3 nodes " +
			"in the cluster, so it applies to no node (selector: pool=typo)",
		`host-application-config: nodeConfigs[0].nodeSelector: node config "gpu" matches none of the 3 nodes ` +
			"in the cluster, so it applies to no node (selector: gpu=true)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}

	reach, nodes = cfg.Reach(labelSets(nodesWith(1, nil)))
	got = UnmatchedWarnings(reach, nodes, "in the nodes file")
	if len(got) != 3 || !strings.Contains(got[0],
		`node strategy "pool-a" does not match the one node in the nodes file, so it applies to no node (selector: pool=a)`) {
		t.Errorf("with one node: %q", got)
	}

	reach, nodes = cfg.Reach(labelSets(nil))
	if got := UnmatchedWarnings(reach, nodes, "in the cluster"); got != nil {
		t.Errorf("with no node at all: %q, want no warning", got)
	}
}
