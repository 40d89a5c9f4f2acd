package faults

import (
	"strings"
	"testing"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// TestNoWriteDoubled pins the definition the fault tests share: per node,
// writes stored (generation increases less foreign edits) and successful
// requests against the changes that reached it.
func TestNoWriteDoubled(t *testing.T) {
	gen := func(g int64) State { return State{"n": {Generation: g}} }
	cases := []struct {
		name             string
		after            State
		changes, foreign int
		requests         int // -1: not counted
		exact            bool
		wantErr          string
	}{
		{name: "one change written once", after: gen(2), changes: 1, requests: 1, exact: true},
		{name: "an answer lost: stored, not counted as a request", after: gen(2), changes: 1, requests: 0, exact: true},
		{name: "one change written twice", after: gen(3), changes: 1, requests: 2, wantErr: "2 spec writes stored for 1"},
		{name: "a redundant request", after: gen(2), changes: 2, requests: 2, wantErr: "only 1 changed the spec"},
		{name: "a change not written", after: gen(1), changes: 1, requests: 0, exact: true, wantErr: "want exactly 1"},
		{name: "superseded versions need not be written", after: gen(2), changes: 5, requests: 1},
		{name: "a foreign edit undone", after: gen(3), changes: 1, foreign: 1, requests: 1},
		{name: "a foreign edit undone twice", after: gen(4), foreign: 1, requests: 3, wantErr: "stored for 1"},
		{name: "requests not counted", after: gen(2), changes: 1, requests: -1, exact: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var requests func(string) int
			if c.requests >= 0 {
				requests = func(string) int { return c.requests }
			}
			_, err := NoWriteDoubled(gen(1), c.after, map[string]int{"n": c.changes}, map[string]int{"n": c.foreign},
				requests, c.exact)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

func TestNothingLost(t *testing.T) {
	enabled := &slov1alpha1.NodeSLOSpec{ResourceUsedThresholdWithBE: &slov1alpha1.ResourceThresholdStrategy{
		Enable: new(true)}}
	want := Specs{"a": enabled, "b": enabled}
	if err := (State{"a": {Spec: *enabled}, "b": {Spec: *enabled}}).NothingLost(want); err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	err := State{"a": {}, "c": {Spec: *enabled}}.NothingLost(want)
	for _, part := range []string{
		"3 NodeSLOs missing, extra or not as resolved", "a (spec differs)", "b (missing)", "c (no such node)",
	} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("error %v, want one containing %q", err, part)
		}
	}
}
