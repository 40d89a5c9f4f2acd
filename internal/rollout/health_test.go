package rollout

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

func gateOf(t *testing.T, gate string) *HealthGate {
	t.Helper()
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"healthGate": ` + gate + `}`})
	if !load.Valid() {
		t.Fatalf("%s: %v", gate, load.Messages())
	}
	return load.Policy.HealthGate
}

// inTheSecondOfTheWrite is the signal of a node NotReady since the second
// of its write at 12:00:00.
const inTheSecondOfTheWrite = "Ready=False since 12:00:00 (the second of its write)"

func TestJudge(t *testing.T) {
	reached := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	started := reached.Add(-time.Hour)
	before, after := metav1.NewTime(reached.Add(-time.Minute)), metav1.NewTime(reached.Add(time.Minute))
	sameSecond := metav1.NewTime(reached)
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, at metav1.Time) []corev1.NodeCondition {
		return []corev1.NodeCondition{{Type: t, Status: s, LastTransitionTime: at}}
	}
	// evictions are n container terminations at at, and disrupted
	// DisruptionTarget conditions set then.
	evictions := func(at time.Time, n, disrupted int) []Eviction {
		out := make([]Eviction, 0, n+disrupted)
		for i := range n + disrupted {
			out = append(out, Eviction{At: at, Disruption: i >= n})
		}
		return out
	}
	gate := gateOf(t, `{"evictions": {"maxPerNode": 3}}`)
	readyFalse := func(at metav1.Time) NodeHealth { return NodeHealth{Conditions: cond("Ready", "False", at)} }
	unknownWrite := func(h NodeHealth) NodeHealth { h.WrittenAt = time.Time{}; return h }
	seen := func(h NodeHealth, signal string) NodeHealth { h.SeenBefore = signal; return h }
	evictedAfter := func(n, disrupted int) NodeHealth {
		return NodeHealth{Evictions: evictions(after.Time, n, disrupted)}
	}
	const readyFalseBefore = "Ready=False since 2026-12-01T11:59:00Z"
	const fourEvicted = "4 Pod evictions (4 containers terminated non-zero), at most 3 allowed"
	for _, c := range []struct {
		name    string
		h       NodeHealth
		want    string // substring of the unhealthy signal; "" healthy
		noWrite bool   // the write time unknown
		before  string // the signal reported as before the write
	}{
		{name: "no signal", h: NodeHealth{}},
		{name: "Ready turned False after the write", h: readyFalse(after), want: "Ready=False since 12:01:00"},
		{name: "Ready turned False in the second of the write: the order cannot be told",
			h: readyFalse(sameSecond), want: inTheSecondOfTheWrite},
		{name: "Ready False with no transition time", h: readyFalse(metav1.Time{}),
			want: "Ready=False with no transition time"},
		{name: "Ready False before the write: reported, not counted", h: readyFalse(before), before: readyFalseBefore},
		{name: "Ready turned False 2 s before the write's second: a node's clock may be behind",
			h:    readyFalse(metav1.NewTime(reached.Add(-NodeClockSkew))),
			want: "Ready=False since 11:59:58 (within 2s before its write, as far as a node's clock may be behind)"},
		{name: "Ready turned False 3 s before the write's second: reported, not counted",
			h:      readyFalse(metav1.NewTime(reached.Add(-NodeClockSkew - time.Second))),
			before: "Ready=False since 2026-12-01T11:59:57Z"},
		{name: "the same transition seen before the write, in its second (a revert)",
			h: seen(readyFalse(sameSecond), "MemoryPressure=True since 2026-12-01T11:00:00Z; "+
				"Ready=False since 2026-12-01T12:00:00Z"), before: "Ready=False since 2026-12-01T12:00:00Z"},
		{name: "another transition than the one seen before the write", h: seen(readyFalse(sameSecond),
			"Ready=False since 2026-12-01T11:59:59Z"), want: "(the second of its write)"},
		{name: "a transition with no time is never the one seen", h: seen(readyFalse(metav1.Time{}),
			"Ready=False since 0001-01-01T00:00:00Z"), want: "with no transition time"},
		{name: "write time unknown, bad since the rollout started", h: unknownWrite(readyFalse(before)),
			want: "Ready=False since 11:59:00 (no readable spec-written-at)", noWrite: true},
		{name: "write time unknown, bad in the second the rollout started",
			h: unknownWrite(readyFalse(metav1.NewTime(started))), want: "(no readable", noWrite: true},
		{name: "write time unknown, bad 2 s before the rollout started: a node's clock may be behind",
			h: unknownWrite(readyFalse(metav1.NewTime(started.Add(-NodeClockSkew)))), want: "(no readable",
			noWrite: true},
		{name: "write time unknown, bad 3 s before the rollout started: not its doing",
			h: unknownWrite(readyFalse(metav1.NewTime(started.Add(-NodeClockSkew - time.Second)))), noWrite: true},
		{name: "Ready Unknown", h: NodeHealth{Conditions: cond("Ready", "Unknown", after)}, want: "Ready=Unknown"},
		{name: "MemoryPressure True", h: NodeHealth{Conditions: cond("MemoryPressure", "True", after)},
			want: "MemoryPressure=True"},
		{name: "MemoryPressure False", h: NodeHealth{Conditions: cond("MemoryPressure", "False", after)}},
		{name: "a condition not watched", h: NodeHealth{Conditions: cond("NetworkUnavailable", "True", after)}},
		{name: "3 terminations: at the limit", h: evictedAfter(3, 0)},
		{name: "4 terminations", h: evictedAfter(4, 0), want: fourEvicted},
		{name: "4 DisruptionTarget conditions", h: evictedAfter(0, 4),
			want: "4 Pod evictions (4 DisruptionTarget), at most 3 allowed"},
		{name: "terminations and DisruptionTarget add up", h: evictedAfter(2, 2),
			want: "4 Pod evictions (2 containers terminated non-zero, 2 DisruptionTarget), at most 3 allowed"},
		{name: "evictions before the write", h: NodeHealth{Evictions: evictions(before.Time, 2, 2)}},
		{name: "evictions in the second of the write count, as a condition does",
			h: NodeHealth{Evictions: evictions(reached, 4, 0)}, want: fourEvicted},
		{name: "evictions within 2 s before the write's second count: a node's clock may be behind",
			h: NodeHealth{Evictions: evictions(reached.Add(-NodeClockSkew), 4, 0)}, want: fourEvicted},
		{name: "evictions more than 2 s before the write's second do not",
			h: NodeHealth{Evictions: evictions(reached.Add(-NodeClockSkew-time.Millisecond), 4, 0)}},
		{name: "write time unknown: evictions since the rollout started count",
			h: NodeHealth{Evictions: evictions(started, 4, 0)}, want: fourEvicted, noWrite: true},
		{name: "write time unknown: evictions within 2 s before the rollout started count",
			h: NodeHealth{Evictions: evictions(started.Add(-NodeClockSkew), 4, 0)}, want: fourEvicted, noWrite: true},
		{name: "write time unknown: evictions more than 2 s before the rollout started do not",
			h: NodeHealth{Evictions: evictions(started.Add(-NodeClockSkew-time.Millisecond), 4, 0)}, noWrite: true},
	} {
		c.h.Started = started
		if !c.noWrite {
			c.h.WrittenAt = reached
		}
		got := Judge(gate, c.h)
		if (c.want == "") != (got.Unhealthy == "") || !strings.Contains(got.Unhealthy, c.want) {
			t.Errorf("%s: signal %q, want %q", c.name, got.Unhealthy, c.want)
		}
		if got.Before != c.before {
			t.Errorf("%s: before the write %q, want %q", c.name, got.Before, c.before)
		}
	}
}

// gatedKey has two canaries' worth of soak, batches of 4, and a gate that
// allows no unhealthy node.
const gatedKey = `{"maxNodesPerStep": 4, "stepIntervalSeconds": 10,
	"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}, "soakSeconds": 100},
	"healthGate": {"maxUnhealthyNodes": 0}}`

// A gated rollout halts on the first unhealthy canary, stays halted past
// the soak (nothing more is written, the verdict stays when the node
// recovers), resumes on a change of the strategy that tolerates the verdicts
// known, and halts again on one more unhealthy node.
func TestDecideHealthGate(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): gatedKey})
	nodes := make([]Node, 10)
	for i := range nodes {
		nodes[i] = Node{Name: string(rune('a' + i)), Stored: true, Differs: true, Canary: i < 2}
	}
	in := Input{Rollout: load, Target: "B", Nodes: nodes, Now: t0, RolloutKey: "k1"}
	d := Decide(in)
	if len(d.Write) != 2 || d.Halted {
		t.Fatalf("the canary step writes the 2 canaries: %+v", d)
	}
	reach := func(written []string) {
		for _, name := range written {
			for i := range nodes {
				if nodes[i].Name == name {
					nodes[i].Differs = false
				}
			}
		}
	}
	reach(d.Write)

	in.Record, in.Now = d.Record, t0.Add(5*time.Second)
	in.Health = HealthInput{Judged: 2, Unhealthy: map[string]string{"a": "Ready=False since 12:00:04"}}
	d = Decide(in)
	if !d.Halted || !d.HaltedNow || !d.Paused || len(d.Write) != 0 || d.Record.Equal(in.Record) {
		t.Fatalf("one unhealthy canary of a gate allowing 0 halts: %+v", d)
	}
	if h := d.Record.Health; h.HaltedKey != "k1" || h.Unhealthy["a"] == "" || h.Revert {
		t.Errorf("halt record %+v", h)
	}
	events, _ := decisionEvents(load, d, "")
	if len(events) != 1 || events[0].Reason != ReasonHalted ||
		!strings.Contains(events[0].Note, "a (Ready=False since 12:00:04)") ||
		!strings.Contains(events[0].Note, "more than the 0 allowed") {
		t.Errorf("events %+v", events)
	}

	// Past the soak, with node a Ready again: still halted, nothing written.
	in.Record, in.Now, in.Health = d.Record, t0.Add(200*time.Second), HealthInput{Judged: 2}
	d = Decide(in)
	if !d.Halted || d.HaltedNow || len(d.Write) != 0 || d.Record.Health.Unhealthy["a"] == "" {
		t.Fatalf("a halt holds past the soak and keeps its verdicts: %+v", d)
	}
	if events, _ := decisionEvents(load, d, ""); len(events) != 0 {
		t.Errorf("a halt is said once: %+v", events)
	}

	// The same key again does not resume; a changed key does.
	in.Record = d.Record
	in.RolloutKey = "k2"
	d = Decide(in)
	if d.Halted || len(d.Write) != 4 || d.Record.Health.Tolerated != 1 {
		t.Fatalf("a change of the key resumes, tolerating the verdict known: %+v", d)
	}
	reach(d.Write)

	// One more unhealthy node is one more than the gate allows beyond those tolerated.
	in.Record, in.Now = d.Record, in.Now.Add(time.Second)
	in.Health = HealthInput{Judged: 6, Unhealthy: map[string]string{d.Write[0]: "MemoryPressure=True since 12:03:21"}}
	d = Decide(in)
	if !d.HaltedNow || len(d.Record.Health.Unhealthy) != 2 {
		t.Fatalf("a second unhealthy node halts again: %+v", d)
	}
}

// A paused strategy does not resume a halt; revert is recorded for the
// controller; a completed rollout is judged for the soak, then no more.
func TestDecideHealthGateRevertAndSoak(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	key := strings.Replace(gatedKey, `"maxUnhealthyNodes": 0`, `"maxUnhealthyNodes": 0, "onUnhealthy": "revert"`, 1)
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): key})
	done := Record{Target: "B", Started: t0, Pending: 2, Steps: 1, Done: true, DoneAt: t0.Add(10 * time.Second)}
	nodes := []Node{{Name: "a", Stored: true}, {Name: "b", Stored: true}}
	in := Input{Rollout: load, Target: "B", Record: done, Nodes: nodes, RolloutKey: "k1",
		Health: HealthInput{Judged: 2, Unhealthy: map[string]string{"b": "Ready=False since 12:00:50"}}}

	in.Now = t0.Add(200 * time.Second) // past DoneAt + soak: not judged
	if d := Decide(in); d.Halted || d.Record.Health != nil {
		t.Errorf("judged after the soak: %+v", d.Record.Health)
	}
	in.Now = t0.Add(60 * time.Second) // within the soak
	d := Decide(in)
	if s := StandingOf(d.Record.Encode(), "B", Retry{}); !d.HaltedNow || !s.Revert ||
		!strings.Contains(s.Halt.Summary, "b (Ready=False") {
		t.Fatalf("halt within the soak under revert: %+v", d.Record.Health)
	}
	paused := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"paused": true, "healthGate": {}}`})
	in.Record, in.Rollout, in.RolloutKey = d.Record, paused, "k2"
	if d := Decide(in); !d.Halted {
		t.Error("a key changed to paused resumed the halt")
	}
}
