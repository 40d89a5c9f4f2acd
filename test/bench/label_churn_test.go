package main

import (
	"testing"
	"time"
)

func TestChurnNodesAreDistinctAcrossTheTenChanges(t *testing.T) {
	seen := map[int]int{}
	for k := range 10 {
		nodes := churnNodes(10000, k)
		if len(nodes) != 100 {
			t.Fatalf("change %d: %d nodes, want 100 (1 %% of 10,000)", k, len(nodes))
		}
		for _, i := range nodes {
			if i < 0 || i >= 10000 {
				t.Fatalf("change %d: node %d outside the fleet", k, i)
			}
			if prev, ok := seen[i]; ok {
				t.Fatalf("node %d changes at changes %d and %d", i, prev, k)
			}
			seen[i] = k
		}
	}
	if got := churnNodes(50, 3); len(got) != 1 || got[0] != 3 {
		t.Errorf("50 nodes, change 3: got %v, want [3] (at least one node)", got)
	}
}

func TestChurnChanges(t *testing.T) {
	for steady, want := range map[time.Duration]int{
		20 * time.Second: 1, time.Minute: 1, 90 * time.Second: 2, 10 * time.Minute: 10,
	} {
		b := &bench{settings: settings{steady: steady}}
		if got := b.churnChanges(); got != want {
			t.Errorf("BENCH_STEADY=%s: %d changes, want %d", steady, got, want)
		}
	}
}

func TestOtherSize(t *testing.T) {
	if otherSize(bigSize) != "standard" || otherSize("standard") != bigSize {
		t.Errorf("otherSize does not swap big and standard")
	}
}
