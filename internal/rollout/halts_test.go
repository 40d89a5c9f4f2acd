package rollout

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

var haltT0 = time.Date(2026, 12, 2, 18, 36, 18, 0, time.UTC)

// haltedRecord is a rollout of target halted by its gate at haltT0.
func haltedRecord(target string, revert bool) Record {
	return Record{Target: target, Started: haltT0.Add(-time.Minute), Pending: 40, Canaries: 4, Steps: 1,
		Revision: 2, Health: &HealthRecord{Unhealthy: map[string]string{"canary-1": "Ready=False since 18:36:17"},
			HaltedAt: haltT0, HaltedKey: "k1", Revert: revert}}
}

// movedOn is a rollout of target that replaced the halted rollout of F.
func movedOn(target string, revert bool) Record {
	r := Record{Target: target, Started: haltT0.Add(time.Minute), Halts: haltedRecord("F", revert).haltsAfter(target)}
	if revert {
		r.RevertOf = "F"
	}
	return r
}

func TestStandingOf(t *testing.T) {
	retryF := Retry{Fingerprint: "F", HaltedAt: haltT0}
	older := Retry{Fingerprint: "F", HaltedAt: haltT0.Add(-time.Hour)}
	for _, tc := range []struct {
		name          string
		record        Record
		raw           string // a record value that is not a Record's encoding
		data          string
		retry         Retry
		hold          string
		revert, holds bool
	}{
		{name: "no record", data: "F"},
		{name: "an unreadable record withholds nothing", raw: "{", data: "F"},
		{name: "the rollout of the data, not halted", record: Record{Target: "F"}, data: "F"},
		{name: "the data halted under pause: in force, halted", record: haltedRecord("F", false), data: "F"},
		{name: "the data halted under revert: reverted", record: haltedRecord("F", true), data: "F", revert: true},
		{name: "a retry of the halt: rolled out", record: haltedRecord("F", true), data: "F", retry: retryF},
		{name: "a retry of an earlier halt retries nothing", record: haltedRecord("F", true), data: "F", retry: older,
			revert: true},
		{name: "a retry of the halt's configuration at another time retries nothing", record: haltedRecord("F", true),
			data: "F", retry: Retry{Fingerprint: "F", HaltedAt: haltT0.Add(time.Second)}, revert: true},
		{name: "after the revert: the configuration reverted to stays", record: movedOn("G", true), data: "F",
			hold: "G"},
		{name: "applied again after another change: that one stays", record: movedOn("H", false), data: "F",
			hold: "H"},
		{name: "applied again and retried", record: movedOn("H", false), data: "F", retry: retryF},
		{name: "other data rolls out", record: movedOn("H", false), data: "X"},
		{name: "other data rolls out after a halt in progress", record: haltedRecord("H", true), data: "F"},
		{name: "a retry of other data changes nothing", record: movedOn("H", false), data: "F",
			retry: Retry{Fingerprint: "X", HaltedAt: haltT0}, hold: "H"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			value := tc.raw
			if value == "" && !tc.record.IsZero() {
				value = tc.record.Encode()
			}
			s := StandingOf(value, tc.data, tc.retry)
			if s.Hold != tc.hold || s.Revert != tc.revert {
				t.Fatalf("standing %+v, want hold %q, revert %t", s, tc.hold, tc.revert)
			}
			if (s.Hold != "" || s.Revert) && (s.Halt.Target != tc.data || !s.Halt.HaltedAt.Equal(haltT0)) {
				t.Errorf("the halt named: %+v", s.Halt)
			}
		})
	}
}

// A new rollout remembers the halt of the one it replaces, and keeps the
// halts remembered before it; a rollout of a configuration forgets its own
// halt; the newest are kept.
func TestDecideRemembersHalts(t *testing.T) {
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): gatedKey})
	nodes := []Node{{Name: "a", Stored: true, Differs: true}, {Name: "b", Stored: true}}
	in := Input{Rollout: load, Target: "G", Record: haltedRecord("F", true), Nodes: nodes, Now: haltT0.Add(time.Minute),
		RolloutKey: "k1", RevertOf: "F"}
	d := Decide(in)
	if !d.Started || d.Record.RevertOf != "F" || d.Record.Health != nil || len(d.Record.Halts) != 1 {
		t.Fatalf("the revert's rollout: %+v", d.Record)
	}
	if h := d.Record.Halts[0]; h.Target != "F" || !h.Revert || h.Revision != 2 || !h.HaltedAt.Equal(haltT0) ||
		!strings.Contains(h.Summary, "canary-1 (Ready=False") {
		t.Errorf("the halt remembered: %+v", h)
	}

	in.Record, in.Target, in.RevertOf = d.Record, "H", ""
	d = Decide(in)
	if d.Record.RevertOf != "" || len(d.Record.Halts) != 1 || d.Record.Halts[0].Target != "F" {
		t.Errorf("a newer change keeps the halt and is no revert: %+v", d.Record)
	}
	in.Record, in.Target = d.Record, "F"
	if d = Decide(in); len(d.Record.Halts) != 0 || !d.Started {
		t.Errorf("the halted configuration rolled out again forgets its halt: %+v", d.Record)
	}

	many := Record{Target: "Z"}
	for i := range maxHaltsKept + 2 {
		many.Halts = append(many.Halts, Halt{Target: fmt.Sprint(i), HaltedAt: haltT0})
	}
	kept := many.haltsAfter("Y")
	if len(kept) != maxHaltsKept || kept[0].Target != "2" || kept[len(kept)-1].Target != fmt.Sprint(maxHaltsKept+1) {
		t.Errorf("bounded to the newest %d: %+v", maxHaltsKept, kept)
	}
}

// A retry naming the halt in progress starts a new rollout of the same
// configuration, with no verdicts; one naming another halt does nothing.
func TestDecideRetry(t *testing.T) {
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): gatedKey})
	nodes := []Node{{Name: "a", Stored: true, Differs: true, Canary: true}, {Name: "b", Stored: true, Differs: true}}
	in := Input{Rollout: load, Target: "F", Record: haltedRecord("F", false), Nodes: nodes, Now: haltT0.Add(time.Minute),
		RolloutKey: "k1", Retry: Retry{Fingerprint: "F", HaltedAt: haltT0.Add(time.Second)}}
	if d := Decide(in); !d.Halted || len(d.Write) != 0 || d.Started {
		t.Fatalf("a retry of another halt: %+v", d)
	}
	in.Retry.HaltedAt = haltT0
	d := Decide(in)
	if !d.Started || d.Halted || d.Record.Health != nil || len(d.Record.Halts) != 0 || !d.Record.Started.Equal(in.Now) {
		t.Fatalf("a retry starts a new rollout without verdicts: %+v", d.Record)
	}
	if len(d.Write) != 1 || d.Write[0] != "a" {
		t.Errorf("canaries first: writes %v", d.Write)
	}
}

// The gate's halt notes the revision of the configuration halted.
func TestDecideNotesTheRevisionHalted(t *testing.T) {
	load := LoadKey(map[string]string{string(sloconfig.KeyRollout): gatedKey})
	in := Input{Rollout: load, Target: "F", Nodes: []Node{{Name: "a", Stored: true}}, Now: haltT0, RolloutKey: "k1",
		Record:   Record{Target: "F", Started: haltT0.Add(-time.Minute), Pending: 1, Steps: 1},
		Health:   HealthInput{Judged: 1, Unhealthy: map[string]string{"a": "Ready=False since 18:36:17"}},
		Revision: 7}
	if d := Decide(in); !d.HaltedNow || d.Record.Revision != 7 {
		t.Errorf("halted %t at revision %d", d.HaltedNow, d.Record.Revision)
	}
}

// While the ConfigMap's data is withheld, the plan says so in the status
// and the figures, and once in an Event until another halt is withheld.
func TestPlanWithheld(t *testing.T) {
	in := planInput(gatedKey, planFleet())
	held := in.Config.Fingerprint()
	rec := movedOn(held, true)
	in.Record, in.HasRecord, in.Data = rec.Encode(), true, "F"
	p := Memory{}.Plan(in)
	w := p.Status.Withheld
	if w == nil || w.Configuration != "F" || w.Revision != 2 || !w.Reverted || !w.HaltedAt.Time.Equal(haltT0) {
		t.Fatalf("status withheld: %+v", w)
	}
	if !p.Figures.Withheld || StatusDone(p.Status) || p.Status.Configuration != held {
		t.Errorf("figures %+v, status %+v", p.Figures, p.Status)
	}
	said := withheldNotes(p.Events)
	if len(said) != 1 || !strings.Contains(said[0], "at revision 2") ||
		!strings.Contains(said[0], "kubectl nodeslo rollout retry") {
		t.Fatalf("events %+v", p.Events)
	}
	if again := p.Memory().Plan(in); len(withheldNotes(again.Events)) != 0 {
		t.Errorf("said twice: %+v", again.Events)
	}
	in.Data = held
	if p := (Memory{}).Plan(in); p.Status.Withheld != nil || p.Figures.Withheld || len(withheldNotes(p.Events)) != 0 {
		t.Errorf("the data in force is withheld: %+v", p.Status.Withheld)
	}
}

func withheldNotes(events []Event) []string {
	var out []string
	for _, e := range events {
		if e.Reason == ReasonWithheld {
			out = append(out, e.Note)
		}
	}
	return out
}
