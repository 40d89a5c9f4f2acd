package main

import "testing"

func TestExtraNodesAreATenthCanaries(t *testing.T) {
	for _, tc := range []struct{ n, canaries int }{{0, 0}, {1, 1}, {9, 1}, {40, 4}, {45, 4}} {
		nodes := extraNodes(tc.n)
		if len(nodes) != tc.n {
			t.Errorf("extraNodes(%d): %d nodes", tc.n, len(nodes))
		}
		canaries := 0
		seen := map[string]bool{}
		for _, n := range nodes {
			if seen[n.Name] {
				t.Errorf("extraNodes(%d): %s twice", tc.n, n.Name)
			}
			seen[n.Name] = true
			if n.Labels[canaryLabel] == "true" {
				canaries++
			}
		}
		if canaries != tc.canaries {
			t.Errorf("extraNodes(%d): %d canaries, want %d", tc.n, canaries, tc.canaries)
		}
	}
	if nodes := extraNodes(40); nodes[0].Name != "canary-1" || nodes[4].Name != "node-1" || nodes[39].Name != "node-36" {
		t.Errorf("extraNodes(40) names: %s, %s, %s", nodes[0].Name, nodes[4].Name, nodes[39].Name)
	}
}
