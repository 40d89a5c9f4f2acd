package rollout

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestNoBurst drives the acceptance scenario (40 nodes, 3 canaries, steps of
// 10 every 2 s after a 3 s soak) through decisions at random times, with
// managers that stop after writing part of a step and pauses, and checks
// what the spec promises whatever the timing: no window of one interval
// sees more than one step's nodes written; the canaries are written before
// any other node; every pending node is written exactly once; all end on
// target.
func TestNoBurst(t *testing.T) {
	const stepSize, interval = 10, 2 * time.Second
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 1))
		c := newCluster(40, 3, acceptanceKey)
		c.target = "B"
		type write struct {
			at   time.Time
			node string
		}
		var writes []write
		now := t0
		for range 400 {
			if c.onTarget() == 40 {
				break
			}
			now = now.Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
			switch rng.IntN(10) {
			case 0:
				c.key = `{"maxNodesPerStep": 10, "stepIntervalSeconds": 2, "paused": true,
					"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}, "soakSeconds": 3}}`
			case 1:
				c.key = acceptanceKey
			}
			in := Input{Rollout: c.load(), Target: c.target, Record: c.record, Now: now}
			for _, name := range sortedNames(c) {
				in.Nodes = append(in.Nodes, storedNode(c, name))
			}
			d := Decide(in)
			c.record = roundTrip(d.Record)
			written := d.Write
			if rng.IntN(4) == 0 { // the manager stops part way through its writes
				written = written[:rng.IntN(len(written)+1)]
			}
			for _, name := range written {
				c.stored[name] = c.target
				writes = append(writes, write{now, name})
			}
		}
		c.key = acceptanceKey
		for i := 0; c.onTarget() < 40 && i < 100; i++ {
			now = now.Add(time.Second)
			_, w := c.decide(t, now)
			for _, name := range w {
				writes = append(writes, write{now, name})
			}
		}
		if c.onTarget() != 40 {
			t.Fatalf("seed %d: %d nodes on target at the end", seed, c.onTarget())
		}
		names := make([]string, len(writes))
		for i, w := range writes {
			names[i] = w.node
		}
		if slices.Sort(names); len(slices.Compact(names)) != 40 || len(writes) != 40 {
			t.Fatalf("seed %d: %d writes of %d nodes, want each of the 40 once", seed, len(writes), len(slices.Compact(names)))
		}
		for i, w := range writes {
			if i < 3 && !c.canary[w.node] || i >= 3 && c.canary[w.node] {
				t.Fatalf("seed %d: write %d is %s: the 3 canaries must come first", seed, i, w.node)
			}
			inWindow := 0
			for _, other := range writes[i:] {
				if other.at.Sub(w.at) < interval {
					inWindow++
				}
			}
			if inWindow > stepSize {
				t.Fatalf("seed %d: %d nodes written within %v from %v", seed, inWindow, interval, w.at.Sub(t0))
			}
		}
	}
}

func TestOrderIsStable(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	reversed := slices.Clone(names)
	slices.Reverse(reversed)
	first := order(names, "target-1")
	if !slices.Equal(first, order(reversed, "target-1")) {
		t.Error("the order depends on the input order")
	}
	if slices.Equal(first, order(names, "target-2")) {
		t.Error("two targets order the nodes the same way: every change would start on the same nodes")
	}
}

func TestSchedule(t *testing.T) {
	s := Schedule{Pending: 40, Canaries: 3, StepSize: 10, Soak: 3 * time.Second, Interval: 2 * time.Second}
	quotas := make([]int, 0, s.Steps()+2)
	for k := range s.Steps() + 2 {
		quotas = append(quotas, quota(s, k))
	}
	if want := []int{0, 3, 13, 23, 33, 40, 40}; s.Steps() != 5 || !slices.Equal(quotas, want) {
		t.Errorf("steps %d, quotas %v, want 5 and %v", s.Steps(), quotas, want)
	}
	if s.Wait(0) != 0 || s.Wait(1) != 3*time.Second || s.Wait(2) != 2*time.Second {
		t.Errorf("waits %v %v %v", s.Wait(0), s.Wait(1), s.Wait(2))
	}
	noCanary := Schedule{Pending: 25, StepSize: 10, Interval: time.Minute}
	if noCanary.Steps() != 3 || quota(noCanary, 1) != 10 || noCanary.Wait(1) != time.Minute {
		t.Errorf("without canary: %d steps, quota(1) %d, wait(1) %v", noCanary.Steps(), quota(noCanary, 1), noCanary.Wait(1))
	}
}

// The record's JSON (status.rolloutRecord as the core encodes it) reads
// back as the record, and an empty one as none.
func TestRecordRoundTrip(t *testing.T) {
	r := Record{Target: "abc", Started: t0, Pending: 40, Canaries: 3, Steps: 2, StepAt: t0.Add(3 * time.Second)}
	back, err := ParseRecord(r.Encode())
	if err != nil || !back.Equal(r) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if r, err := ParseRecord(""); err != nil || !r.IsZero() {
		t.Errorf("empty record: %+v, %v", r, err)
	}
	if _, err := ParseRecord("{"); err == nil {
		t.Error("a broken record parsed")
	}
}

// quota is how many of the nodes pending at the start are reached once
// steps steps have been taken: never more than one step beyond
// quota(steps-1).
func quota(s Schedule, steps int) int {
	if steps <= 0 {
		return 0
	}
	return s.Canaries + s.BatchQuota(steps)
}
