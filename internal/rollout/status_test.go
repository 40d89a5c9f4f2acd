package rollout

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// statusAfter runs the decisions of c at the given times (each after its
// change, if any) and returns the status the last one leaves, Updated
// cleared.
func statusAfter(t *testing.T, c *cluster, decisions []statusDecision) apiStatus {
	t.Helper()
	var s *apiStatus
	for _, dd := range decisions {
		if dd.change != nil {
			dd.change(c)
		}
		d, _ := c.decide(t, at(dd.at))
		s = statusOf(c.load(), d, "k1", at(dd.at))
	}
	if !s.Updated.Time.Equal(at(decisions[len(decisions)-1].at)) {
		t.Errorf("updated %v, want the time of the last decision", s.Updated)
	}
	s.Updated = nil
	return *s
}

type statusDecision struct {
	at     float64
	change func(*cluster)
}

func TestStatusOf(t *testing.T) {
	toB := func(c *cluster) { c.target = "B" }
	const pausedKey = `{"maxNodesPerStep": 10, "stepIntervalSeconds": 2, "paused": true,
		"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}, "soakSeconds": 3}}`
	tests := []struct {
		name      string
		key       string
		decisions []statusDecision
		want      apiStatus
	}{{
		name: "the canary step taken", key: acceptanceKey,
		decisions: []statusDecision{{0, toB}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhaseProgressing, Started: mt(at(0)),
			Step: 1, Steps: 5, StepSize: 10, Reached: 3, PendingAtStart: 40, Pending: 37, NextStep: mt(at(3))},
	}, {
		name: "the first batch taken", key: acceptanceKey,
		decisions: []statusDecision{{0, toB}, {3, nil}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhaseProgressing, Started: mt(at(0)),
			Step: 2, Steps: 5, StepSize: 10, Reached: 13, PendingAtStart: 40, Pending: 27, NextStep: mt(at(5))},
	}, {
		name: "paused before the first step: the canaries pending too", key: pausedKey,
		decisions: []statusDecision{{0, toB}, {10, nil}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhasePaused, Started: mt(at(0)),
			Steps: 5, StepSize: 10, PendingAtStart: 40, Pending: 40, CanariesPending: 3, Paused: true},
	}, {
		name: "an invalid key holds the rollout, with no schedule", key: invalidKey,
		decisions: []statusDecision{{0, toB}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhasePaused, Started: mt(at(0)),
			PendingAtStart: 40, Pending: 40, CanariesPending: 3, StrategyInvalid: true},
	}, {
		name: "a step cut short by a restart: the next step waits for its writes", key: acceptanceKey,
		decisions: []statusDecision{{0, toB}, {4, crashMidStep(at(3), 4)}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhaseProgressing, Started: mt(at(0)),
			Step: 2, Steps: 5, StepSize: 10, Reached: 13, PendingAtStart: 40, Pending: 27, AwaitingWrites: true},
	}, {
		name: "the last step taken, its writes not seen yet: no next step", key: acceptanceKey,
		decisions: []statusDecision{{0, toB}, {3, nil}, {5, nil}, {7, nil}, {9, nil}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhaseProgressing, Started: mt(at(0)),
			Step: 5, Steps: 5, StepSize: 10, Reached: 40, PendingAtStart: 40},
	}, {
		name: "completed, with the schedule it had", key: acceptanceKey,
		decisions: []statusDecision{{0, toB}, {3, nil}, {5, nil}, {7, nil}, {9, nil}, {10, nil}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhaseCompleted, Started: mt(at(0)),
			Completed: mt(at(10)),
			Step:      5, Steps: 5, StepSize: 10, Reached: 40, PendingAtStart: 40},
	}, {
		name: "a change that touches no node completes at once", key: acceptanceKey,
		decisions: []statusDecision{{0, func(c *cluster) {
			c.target = "B"
			c.resolve = func(string, string) string { return "A" }
		}}},
		want: apiStatus{Configuration: "B", RolloutKey: "k1", Phase: PhaseCompleted, Started: mt(at(0)), Completed: mt(at(0)),
			StepSize: 10},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := statusAfter(t, newCluster(40, 3, tt.key), tt.decisions)
			if encode(&got) != encode(&tt.want) {
				t.Errorf("status\n%s\nwant\n%s", encode(&got), encode(&tt.want))
			}
		})
	}
}

// The status changes when the rollout moves (a step, the counts), never
// because time passed: decisions between two steps, and the rechecks of a
// step whose writes do not land, leave a status that does not differ from
// the one written.
func TestStatusDiffersOnlyWhenTheRolloutMoves(t *testing.T) {
	c := newCluster(40, 3, acceptanceKey)
	c.target = "B"
	written := ""
	wrote := 0
	for _, now := range []float64{0, 1, 2, 2.999, 3, 4, 4.5, 5} {
		d, _ := c.decide(t, at(now))
		s := statusOf(c.load(), d, "k1", at(now))
		if differs(*s, written) {
			written = encode(s)
			wrote++
		}
	}
	if wrote != 3 {
		t.Errorf("the status was written %d times over three steps, want 3", wrote)
	}

	// A step whose writes never land: the controller rechecks every second.
	in := Input{Rollout: c.load(), Target: c.target, Record: c.record, RolloutKey: "k1"}
	for _, name := range sortedNames(c) {
		in.Nodes = append(in.Nodes, storedNode(c, name))
	}
	in.Now = at(7)
	d := Decide(in)
	if !d.Stepped {
		t.Fatalf("the fourth step is due at 7 s: %+v", d)
	}
	written = encode(statusOf(c.load(), d, "k1", in.Now))
	for i := range 5 {
		in.Record, in.Now = d.Record, at(8+float64(i))
		d = Decide(in)
		s := statusOf(c.load(), d, "k1", in.Now)
		if !s.AwaitingWrites {
			t.Errorf("recheck %d: the step's writes have not landed: %+v", i, s)
		}
		if i > 0 && differs(*s, written) {
			t.Errorf("recheck %d: the status changed while nothing did:\n%s\n%s", i, encode(s), written)
		}
		written = encode(s)
	}
}

func TestStatusOfAHalt(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): gatedKey})
	nodes := make([]Node, 10)
	for i := range nodes {
		nodes[i] = Node{Name: string(rune('a' + i)), Stored: true, Differs: true, Canary: i < 2}
	}
	in := Input{Rollout: load, Target: "B", Nodes: nodes, Now: t0, RolloutKey: "k1"}
	d := Decide(in)
	for i := range 2 {
		nodes[i].Differs = false
	}
	in.Record, in.Now = d.Record, t0.Add(5*time.Second)
	const signal = "Ready=False since 12:00:04"
	in.Health = HealthInput{Judged: 2, Unhealthy: map[string]string{"a": signal}}
	d = Decide(in)
	s := statusOf(load, d, "k1", in.Now)
	want := &nodeslov1alpha1.RolloutHealth{
		Gate: "maxUnhealthyNodes 0; nodeConditions Ready, MemoryPressure, DiskPressure, PIDPressure; " +
			"no Pod evictions counted (the manager lists no namespace); onUnhealthy pause",
		MaxUnhealthyNodes: "0", Allowed: 0, AllowedOf: 2, Unhealthy: 1,
		Nodes:    []nodeslov1alpha1.NodeVerdict{{Name: "a", Signal: signal}},
		HaltedAt: apiTime(in.Now), HaltedKey: "k1",
	}
	if s.Phase != PhaseHalted || s.Pending != 8 || s.NextStep != nil || encode(s.Health) != encode(want) {
		t.Errorf("status %s\nwant health %s", encode(s), encode(want))
	}

	// After a restart, with node a Ready again: the same status, so no write.
	in.Record, in.Now, in.Health = roundTrip(d.Record), t0.Add(20*time.Second), HealthInput{Judged: 2}
	if again := statusOf(load, Decide(in), "k1", in.Now); differs(*again, encode(s)) {
		t.Errorf("the halt's status changed with nothing new:\n%s\n%s", encode(again), encode(s))
	}

	// A halt recorded before the gate's count was kept: not known.
	old := roundTrip(d.Record)
	old.Health.Judged, old.Health.Allowed = 0, 0
	in.Record = old
	if h := statusOf(load, Decide(in), "k1", in.Now).Health; h.Allowed != -1 {
		t.Errorf("allowed %d of %d, want -1 (not known)", h.Allowed, h.AllowedOf)
	}

	// A resume (the strategy changed): the halt and its counts go, the verdict
	// stays, tolerated; the gate's allowance is over the nodes reached.
	in.Record, in.RolloutKey = d.Record, "k2"
	resumed := Decide(in)
	if h := resumed.Record.Health; h.Halted() || h.Judged != 0 || h.Allowed != 0 || h.Tolerated != 1 {
		t.Errorf("resumed record %+v", h)
	}
	r := statusOf(load, resumed, "k2", in.Now)
	if r.Phase != PhaseProgressing || r.Health.Allowed != 0 || r.Health.AllowedOf != r.Reached ||
		r.Health.Tolerated != 1 || r.Health.HaltedAt != nil || r.RolloutKey != "k2" {
		t.Errorf("resumed status %s", encode(r))
	}
}

// A halt of 10,000 nodes with long names and signals stays a small
// annotation: 50 nodes listed, the rest counted.
func TestStatusIsBounded(t *testing.T) {
	unhealthy := make(map[string]string, 10000)
	for i := range 10000 {
		unhealthy[fmt.Sprintf("%0253d", i)] = strings.Repeat("x", 1000)
	}
	before := make(map[string]string, maxBeforeKept)
	for i := range maxBeforeKept {
		before[fmt.Sprintf("%0253d", i)] = strings.Repeat("y", 1000)
	}
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): gatedKey})
	d := Decision{Halted: true, Paused: true, Record: Record{Target: "B", Pending: 10000, Health: &HealthRecord{
		Unhealthy: unhealthy, HaltedAt: time.Now(), Judged: 10000, Allowed: 1000, Before: before}}}
	s := statusOf(load, d, "k1", time.Now())
	h := s.Health
	if len(h.Nodes) != 50 || h.Omitted != 9950 || h.Unhealthy != 10000 || h.Allowed != 1000 || h.AllowedOf != 10000 {
		t.Errorf("listed %d, omitted %d, unhealthy %d, allowed %d of %d",
			len(h.Nodes), h.Omitted, h.Unhealthy, h.Allowed, h.AllowedOf)
	}
	byName := func(a, b nodeslov1alpha1.NodeVerdict) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(h.Nodes, byName) ||
		h.Nodes[0].Name != fmt.Sprintf("%0253d", 0) {
		t.Errorf("the first nodes by name are listed: %s...", h.Nodes[0].Name)
	}
	if h.Before != maxBeforeKept || len(h.BeforeNodes) != 10 {
		t.Errorf("before the write: %d, listed %d", h.Before, len(h.BeforeNodes))
	}
	for _, n := range slices.Concat(h.Nodes, h.BeforeNodes) {
		if len(n.Signal) > 200 {
			t.Fatalf("signal of %d bytes", len(n.Signal))
		}
	}
	if size := len(encode(s)); size > 32<<10 {
		t.Errorf("the status is %d bytes", size)
	}
}

// Without a strategy, the plan's status says the configuration went to
// every node at once; a plan whose record could not be persisted has none.
func TestPlanStatus(t *testing.T) {
	p := Memory{}.Plan(planInput("", planFleet()))
	if p.Status == nil || p.Status.Phase != PhaseAllAtOnce ||
		p.Status.Configuration != sloconfig.Load(map[string]string{}, nil).Fingerprint() {
		t.Errorf("no key: %+v", p.Status)
	}
	p = Memory{}.Plan(planInput(`{"paused": true}`, planFleet()))
	if s := p.Status; s == nil || s.Phase != PhasePaused || s.Pending != 3 || !s.Paused || s.Step != 0 {
		t.Errorf("paused: %+v", s)
	}
	if p.Unpersisted().Status != nil {
		t.Error("a plan whose record was not persisted publishes no status")
	}
}

// differs reports whether s says something the status written (its JSON;
// "": none) does not, time passing aside: what makes the controller write
// the NodeSLORollout's status again.
func differs(s apiStatus, written string) bool {
	if written == "" {
		return true
	}
	var old apiStatus
	if err := json.Unmarshal([]byte(written), &old); err != nil {
		return true
	}
	old.Updated, s.Updated = nil, nil
	return encode(&old) != encode(&s)
}

// encode is v's JSON, as the apiserver stores it.
func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
