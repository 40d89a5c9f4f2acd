package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// What comes after a halt (docs/rollout.md#after-a-halt): a revert reaches
// every node the halted configuration reached, at once and unjudged; a
// change over a halted rollout (an undo, a new change) reaches the nodes
// the halted one wrote at once, before its canaries.

// revertKey is gatedKey with onUnhealthy revert.
var revertKey = strings.Replace(gatedKey, `"maxUnhealthyNodes": 0`,
	`"maxUnhealthyNodes": 0, "onUnhealthy": "revert"`, 1)

// keyed is data holding key, a strategy's JSON, under the retired rollout
// key, where LoadKey reads it.
func keyed(data map[string]string, key string) map[string]string {
	data[string(sloconfig.KeyRollout)] = key
	return data
}

// haltedRolloutRecord is the record of halted's rollout, started at started, its
// canary step and a batch taken, the batch 2 s and the halt (by c1 and c2)
// a second before now.
func haltedRolloutRecord(halted map[string]string, started, now time.Time, revert bool) string {
	return Record{Target: sloconfig.Load(halted, nil).Fingerprint(), Started: started, Pending: 4, Canaries: 2,
		Steps: 2, StepAt: now.Add(-2 * time.Second), Health: &HealthRecord{
			Unhealthy: map[string]string{"c1": "Ready=False", "c2": "Ready=False"},
			HaltedAt:  now.Add(-time.Second), HaltedKey: "k1", Revert: revert, Judged: 3,
		}}.Encode()
}

// planAfter plans data's rollout at now, in force in place of the ConfigMap's
// data when revertOf is set, after the record value given.
func (f *gatedFleet) planAfter(m Memory, record string, data map[string]string, revertOf string,
	now time.Time, health map[string]NodeHealth) Plan {
	return m.Plan(PlanInput{Rollout: LoadKey(data), Config: sloconfig.Load(data, nil), Nodes: f.nodes, Now: now,
		RolloutKey: "k1", Health: health, Record: record, HasRecord: record != "", RevertOf: revertOf})
}

func sorted(names []string) []string { return slices.Sorted(slices.Values(names)) }

func TestARevertReachesEveryNodeTheHaltReachedAtOnce(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 10, 49, 300e6, time.UTC)
	halted, back := keyed(gatedData("55"), revertKey), keyed(gatedData("60"), revertKey)
	haltedTarget := sloconfig.Load(halted, nil).Fingerprint()
	f := newGatedFleet(t, back, t0.Add(-time.Hour))
	// The halted rollout reached both canaries and n1; n1 was written in
	// the second of the revert's first write, the canaries turned NotReady
	// in it (c1) and a second before (c2), n1 evicts pods in it.
	f.store("c1", halted, t0.Add(-20*time.Second))
	f.store("c2", halted, t0.Add(-20*time.Second))
	f.store("n1", halted, t0.Add(-8*time.Second))
	health := map[string]NodeHealth{
		"c2": notReadySince(t0.Add(-time.Second)), "c1": notReadySince(t0),
		"n1": {Evictions: slices.Repeat([]Eviction{{At: t0}}, 10)},
	}
	rec := haltedRolloutRecord(halted, t0.Add(-30*time.Second), t0, true)

	for _, key := range []string{revertKey, `{"paused": true, "healthGate": {"onUnhealthy": "revert"}}`} {
		data := keyed(gatedData("60"), key)
		p := f.planAfter(Memory{}, rec, data, haltedTarget, t0, health)
		r := recordOf(t, p)
		if got := sorted(p.Release); !slices.Equal(got, []string{"c1", "c2", "n1"}) || len(p.Gate.names()) != 0 {
			t.Fatalf("key %s: the revert released %v and held %v, want every node the halt reached at once",
				key, got, p.Gate.names())
		}
		if !slices.Equal(sorted(p.Release[:2]), []string{"c1", "c2"}) {
			t.Errorf("key %s: the revert wrote %v, the unhealthy nodes not first", key, p.Release)
		}
		if r.RevertOf != haltedTarget || r.Steps != 1 || p.Status.Steps != 1 || p.Status.Reached != 3 ||
			p.Figures.Pending != 0 {
			t.Errorf("key %s: revert record %+v, status step %d of %d, reached %d, figures %+v",
				key, r, p.Status.Step, p.Status.Steps, p.Status.Reached, p.Figures)
		}

		// Written back in the second of the sickness: nothing the halted
		// configuration caused holds the revert against it.
		for _, n := range []string{"c1", "c2", "n1"} {
			f.store(n, back, t0)
		}
		done := f.planAfter(p.Memory(), p.RecordChange.Value, data, haltedTarget, t0.Add(800*time.Millisecond), health)
		if done.Figures.Halted || done.Figures.Unhealthy != 0 || done.Status.Phase != PhaseCompleted ||
			len(eventsOf(done, ReasonHalted)) != 0 {
			t.Errorf("key %s: the revert judged on the sickness it cures: %+v, phase %s", key, done.Figures, done.Status.Phase)
		}
		if s := StandingOf(done.RecordChange.Value, haltedTarget, Retry{}); s.Hold == "" && !s.Revert {
			t.Errorf("key %s: the halted data is no longer withheld after the revert: %+v", key, s)
		}
		for _, n := range []string{"c1", "c2", "n1"} {
			f.store(n, halted, t0.Add(-20*time.Second))
		}
	}
}

// A manager restarted in the middle of a revert (no memory, the revert's
// record) writes every node still carrying the halted configuration at once.
func TestARevertGoesOnAtOnceAfterARestart(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	halted, back := keyed(gatedData("55"), revertKey), keyed(gatedData("60"), revertKey)
	haltedTarget := sloconfig.Load(halted, nil).Fingerprint()
	f := newGatedFleet(t, back, t0.Add(-time.Hour))
	for _, n := range []string{"c1", "c2", "n1", "n2"} {
		f.store(n, halted, t0.Add(-20*time.Second))
	}
	record := haltedRolloutRecord(halted, t0.Add(-30*time.Second), t0, true)
	first := f.planAfter(Memory{}, record, back, haltedTarget, t0, nil)
	f.store("c1", back, t0)
	again := f.planAfter(Memory{}, first.RecordChange.Value, back, haltedTarget, t0.Add(3*time.Second), nil)
	if got := sorted(again.Release); !slices.Equal(got, []string{"c2", "n1", "n2"}) || len(again.Gate.names()) != 0 {
		t.Errorf("after a restart the revert released %v and held %v", got, again.Gate.names())
	}
}

// An undo or a new change over a halted rollout writes the nodes the
// halted rollout wrote at once, whatever they show, and rolls out to the
// others in steps; a restart keeps that, a pause holds them, and a retry
// of the halt does not take its own nodes for rejected.
func TestAChangeOverAHaltedRolloutReachesTheNodesItWroteAtOnce(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 500e6, time.UTC)
	halted, before, next := gatedData("55"), gatedData("60"), gatedData("70")
	f := newGatedFleet(t, before, t0.Add(-time.Hour))
	started := t0.Add(-30 * time.Second)
	f.store("c1", halted, started) // in the millisecond the halted rollout started
	f.store("c2", halted, t0.Add(-25*time.Second))
	f.store("n1", halted, t0.Add(-10*time.Second))
	// Written by the configuration before, in the second the halted
	// rollout started but before it: not carrying the halted one.
	f.store("n2", before, started.Add(-100*time.Millisecond))
	record := haltedRolloutRecord(halted, started, t0, false)
	sick := map[string]NodeHealth{"c1": notReadySince(t0.Add(-20 * time.Second)), "c2": notReadySince(t0)}

	for _, c := range []struct {
		name string
		to   map[string]string
		held []string
	}{
		{name: "an undo", to: before},
		{name: "a new change", to: next, held: []string{"n2", "n3", "n4"}},
	} {
		p := f.planAfter(Memory{}, record, c.to, "", t0, sick)
		if got := sorted(p.Release); !slices.Equal(got, []string{"c1", "c2", "n1"}) {
			t.Errorf("%s: released %v, want the nodes the halted rollout wrote", c.name, got)
		}
		if got := sorted(p.Gate.names()); !slices.Equal(got, c.held) {
			t.Errorf("%s: held %v, want %v", c.name, got, c.held)
		}
		r := recordOf(t, p)
		if !r.RejectedSince.Equal(started) || r.Health.before()["c2"] == "" {
			t.Errorf("%s: record %+v: the halted rollout's start, and c2 unhealthy before its write", c.name, r)
		}
		// Restarted before the writes: the same nodes, at once again.
		again := f.planAfter(Memory{}, p.RecordChange.Value, c.to, "", t0.Add(time.Second), sick)
		if got := sorted(again.Release); !slices.Equal(got, []string{"c1", "c2", "n1"}) {
			t.Errorf("%s: after a restart released %v", c.name, got)
		}
	}

	// Paused, the strategy holds them, as the operator asked.
	paused := keyed(gatedData("70"), strings.Replace(gatedKey, "{", `{"paused": true, `, 1))
	p := f.planAfter(Memory{}, record, paused, "", t0, sick)
	if len(p.Release) != 0 || !slices.Equal(sorted(p.Gate.names()), []string{"c1", "c2", "n1", "n2", "n3", "n4"}) {
		t.Errorf("paused: released %v, held %v", p.Release, p.Gate.names())
	}

	retry := Retry{Fingerprint: sloconfig.Load(halted, nil).Fingerprint(), HaltedAt: t0.Add(-time.Second)}
	in := PlanInput{Rollout: LoadKey(halted), Config: sloconfig.Load(halted, nil), Nodes: f.nodes, Now: t0,
		RolloutKey: "k1", Record: record, HasRecord: true, Retry: retry}
	if r := recordOf(t, Memory{}.Plan(in)); !r.RejectedSince.IsZero() {
		t.Errorf("a retry of the halt took its own nodes for rejected: %+v", r)
	}
}

// A retry starts a new rollout of the halted configuration with no
// verdicts (docs/rollout.md#after-a-halt): the canaries the halted one
// wrote, still NotReady, are judged by the nodes' state after the new
// rollout writes them, not by the halted one's writes, so the retry is not
// halted again in its first decision.
func TestARetryIsNotJudgedOnTheHaltedRolloutsWrites(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 500e6, time.UTC)
	halted, before := gatedData("55"), gatedData("60")
	f := newGatedFleet(t, before, t0.Add(-time.Hour))
	f.storeFrom("c1", halted, halted, t0.Add(-25*time.Second))
	f.storeFrom("c2", halted, halted, t0.Add(-25*time.Second))
	sick := map[string]NodeHealth{"c1": notReadySince(t0.Add(-20 * time.Second)),
		"c2": notReadySince(t0.Add(-20 * time.Second))}
	record := haltedRolloutRecord(halted, t0.Add(-30*time.Second), t0, false)
	retry := Retry{Fingerprint: sloconfig.Load(halted, nil).Fingerprint(), HaltedAt: t0.Add(-time.Second)}
	p := Memory{}.Plan(PlanInput{Rollout: LoadKey(halted), Config: sloconfig.Load(halted, nil), Nodes: f.nodes,
		Now: t0, RolloutKey: "k1", Health: sick, Record: record, HasRecord: true, Retry: retry})
	r := recordOf(t, p)
	if !r.Started.Equal(t0) || r.Health != nil {
		t.Errorf("the retry's rollout started %v, health %+v: want a new one at %v, nothing judged", r.Started, r.Health, t0)
	}
}
