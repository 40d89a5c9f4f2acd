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

func TestJudge(t *testing.T) {
	reached := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	before, after := metav1.NewTime(reached.Add(-time.Minute)), metav1.NewTime(reached.Add(time.Minute))
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, at metav1.Time) []corev1.NodeCondition {
		return []corev1.NodeCondition{{Type: t, Status: s, LastTransitionTime: at}}
	}
	evictions := func(reason string, at time.Time, counts ...int) []Eviction {
		out := make([]Eviction, 0, len(counts))
		for _, c := range counts {
			out = append(out, Eviction{Reason: reason, At: at, Count: c})
		}
		return out
	}
	gate := gateOf(t, `{"evictions": {"maxPerNode": 3}}`)
	const evicted = "evictPodSuccess"
	readyFalse := func(at metav1.Time) NodeHealth { return NodeHealth{Conditions: cond("Ready", "False", at)} }
	evictedAfter := func(counts ...int) NodeHealth {
		return NodeHealth{Evictions: evictions(evicted, after.Time, counts...)}
	}
	for _, c := range []struct {
		name string
		h    NodeHealth
		want string // substring of the signal; "" healthy
	}{
		{"no signal", NodeHealth{}, ""},
		{"Ready turned False after the write", readyFalse(after), "Ready=False since 12:01:00"},
		{"Ready turned False in the second of the write", readyFalse(metav1.NewTime(reached)), ""},
		{"Ready False before the write: not the change's doing", readyFalse(before), ""},
		{"Ready Unknown", NodeHealth{Conditions: cond("Ready", "Unknown", after)}, "Ready=Unknown"},
		{"MemoryPressure True", NodeHealth{Conditions: cond("MemoryPressure", "True", after)}, "MemoryPressure=True"},
		{"MemoryPressure False", NodeHealth{Conditions: cond("MemoryPressure", "False", after)}, ""},
		{"a condition not watched", NodeHealth{Conditions: cond("NetworkUnavailable", "True", after)}, ""},
		{"3 evictions: at the limit", evictedAfter(1, 1, 1), ""},
		{"4 evictions", evictedAfter(1, 1, 1, 1), "4 evictPodSuccess Events, at most 3 allowed"},
		{"an aggregated Event counts its count", evictedAfter(4), "4 evictPodSuccess"},
		{"evictions before the write", NodeHealth{Evictions: evictions(evicted, before.Time, 1, 1, 1, 1)}, ""},
		{"another reason", NodeHealth{Evictions: evictions("Evicted", after.Time, 1, 1, 1, 1)}, ""},
	} {
		c.h.WrittenAt = reached
		got := Judge(gate, c.h)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: signal %q, want %q", c.name, got, c.want)
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
// recovers), resumes on a change of the key that tolerates the verdicts
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
	if !d.Halted || !d.HaltedNow || !d.Paused || len(d.Write) != 0 || !d.RecordChanged {
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

// A key that pauses does not resume a halt; revert is recorded for the
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
	if s := StandingOf(d.Record.Encode(), "B", ""); !d.HaltedNow || !s.Revert ||
		!strings.Contains(s.Halt.Summary, "b (Ready=False") {
		t.Fatalf("halt within the soak under revert: %+v", d.Record.Health)
	}
	paused := LoadKey(map[string]string{string(sloconfig.KeyRollout): `{"paused": true, "healthGate": {}}`})
	in.Record, in.Rollout, in.RolloutKey = d.Record, paused, "k2"
	if d := Decide(in); !d.Halted {
		t.Error("a key changed to paused resumed the halt")
	}
}
