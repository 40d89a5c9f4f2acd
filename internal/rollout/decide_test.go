package rollout

import (
	"slices"
	"testing"
	"time"
)

// invalidKey is a strategy the controller refuses (the schema lets an
// unknown selector operator through).
const invalidKey = `{"canary": {"nodeSelector": {"matchExpressions": [{"key": "canary", "operator": "Sometimes"}]}}}`

// step is one decision of a scenario: at a time, after an optional change
// to the cluster, how many nodes it writes and what it reports.
type step struct {
	at     float64
	change func(c *cluster)
	writes int
	// canaries, when not -1, is how many of the writes are canaries.
	canaries  int
	started   bool
	stepped   bool
	completed bool
	paused    bool
	// next is the NextStep expected, in seconds after t0; -1 for none.
	next float64
}

func TestDecide(t *testing.T) {
	change := func(to string) func(*cluster) { return func(c *cluster) { c.target = to } }
	setKey := func(key string) func(*cluster) { return func(c *cluster) { c.key = key } }
	const pausedKey = `{"maxNodesPerStep": 10, "stepIntervalSeconds": 2, "paused": true,
		"canary": {"nodeSelector": {"matchLabels": {"canary": "true"}}, "soakSeconds": 3}}`
	tests := []struct {
		name   string
		nodes  int
		canary int
		key    string
		steps  []step
		// finally, when set, checks the cluster after the last step.
		finally func(t *testing.T, c *cluster)
	}{{
		name: "no key: every node at once", nodes: 40, canary: 3, key: "",
		steps: []step{{at: 0, change: change("B"), writes: 40, canaries: -1, next: -1}},
	}, {
		// A node whose NodeSLO appeared, from the older configuration, after
		// the rollout counted its nodes: a plan of canaries only has no
		// batch to reach it in, and would have held it for ever.
		name: "a node the plan did not count is reached past the last step", nodes: 2, canary: 2, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 2, canaries: 2, started: true, stepped: true, next: 1},
			{at: 0.5, change: func(c *cluster) { c.stored["late"] = "A" }, writes: 1, canaries: 0, next: 1.5},
			{at: 1.5, writes: 0, completed: true, next: -1},
		},
		finally: func(t *testing.T, c *cluster) {
			if c.onTarget() != 3 {
				t.Errorf("%d nodes on target, want 3", c.onTarget())
			}
		},
	}, {
		name: "canary first, soak, then batches of 10 every interval", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 1, writes: 0, next: 3},
			{at: 2.999, writes: 0, next: 3},
			{at: 3, writes: 10, canaries: 0, stepped: true, next: 5},
			{at: 4.5, writes: 0, next: 5},
			{at: 5, writes: 10, stepped: true, next: 7},
			{at: 7, writes: 10, stepped: true, next: 9},
			{at: 9, writes: 7, stepped: true, next: 10}, // the last step: recheck for completion
			{at: 10, writes: 0, completed: true, next: -1},
			{at: 60, writes: 0, next: -1},
		},
		finally: func(t *testing.T, c *cluster) {
			if c.onTarget() != 40 {
				t.Errorf("%d nodes on target, want 40", c.onTarget())
			}
		},
	}, {
		name: "late decisions take one step each, never a catch-up burst", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 100, writes: 10, stepped: true, next: 102},
			{at: 101, writes: 0, next: 102},
			{at: 500, writes: 10, stepped: true, next: 502},
		},
	}, {
		name:  "percent of the nodes pending at the start, rounded up",
		nodes: 41, key: `{"maxNodesPerStep": "10%", "stepIntervalSeconds": 60}`,
		steps: []step{
			{at: 0, change: change("B"), writes: 5, canaries: -1, started: true, stepped: true, next: 60},
			{at: 60, writes: 5, canaries: -1, stepped: true, next: 120},
		},
		finally: func(t *testing.T, c *cluster) {
			if c.record.Pending != 41 || c.record.Steps != 2 {
				t.Errorf("record %+v", c.record)
			}
		},
	}, {
		name:  "interval 0: the next step as soon as the previous one is written",
		nodes: 10, key: `{"maxNodesPerStep": 4, "stepIntervalSeconds": 0}`,
		steps: []step{
			{at: 0, change: change("B"), writes: 4, canaries: -1, started: true, stepped: true, next: 0},
			{at: 0, writes: 4, canaries: -1, stepped: true, next: 0},
			{at: 0, writes: 2, canaries: -1, stepped: true, next: 1},
			{at: 0.5, writes: 0, completed: true, next: -1},
		},
	}, {
		name:  "pause holds every pending node; resume takes one step, then waits the interval",
		nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 1, change: setKey(pausedKey), writes: 0, paused: true, next: -1},
			{at: 3, writes: 0, paused: true, next: -1},
			{at: 11, writes: 0, paused: true, next: -1},
			{at: 500, change: setKey(acceptanceKey), writes: 10, stepped: true, next: 502},
			{at: 501, writes: 0, next: 502},
			{at: 502, writes: 10, stepped: true, next: 504},
		},
	}, {
		name: "paused from the start: nothing is written, not even canaries", nodes: 40, canary: 3, key: pausedKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 0, started: true, paused: true, next: -1},
			{at: 10, change: setKey(acceptanceKey), writes: 3, canaries: 3, stepped: true, next: 13},
		},
	}, {
		name: "restart mid-step: the rest of the step, then a full interval", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 3, writes: 10, stepped: true, next: 5},
			// At 5 s the manager persists step 3 and writes only 4 of its 10
			// nodes before it stops. The new manager, long after, writes the 6
			// others of step 3, takes no new step, and waits a full interval.
			{at: 100, change: crashMidStep(at(5), 4), writes: 6, next: 101},
			{at: 101, writes: 0, next: 102},
			{at: 101.9, writes: 0, next: 102},
			{at: 102, writes: 10, stepped: true, next: 104},
		},
	}, {
		name: "restart between steps: the record continues it", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 3, writes: 10, stepped: true, next: 5},
			// A new manager reads the record and the NodeSLOs: nothing new before 5 s.
			{at: 4, change: func(c *cluster) { c.record = roundTrip(c.record) }, writes: 0, next: 5},
			{at: 5, writes: 10, stepped: true, next: 7},
		},
	}, {
		name: "a second change mid-rollout: towards the newest, canary first again", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 3, writes: 10, stepped: true, next: 5},
			{at: 4, change: change("C"), writes: 3, canaries: 3, started: true, stepped: true, next: 7},
			{at: 6, writes: 0, next: 7},
			{at: 7, writes: 10, stepped: true, next: 9},
		},
		finally: func(t *testing.T, c *cluster) {
			if c.record.Target != "C" || c.record.Pending != 40 || c.onTarget() != 13 {
				t.Errorf("record %+v, %d on target", c.record, c.onTarget())
			}
		},
	}, {
		name:  "a second change with no canary pending: its first batch waits an interval after the last step",
		nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 3, writes: 10, stepped: true, next: 5},
			{at: 4, change: func(c *cluster) {
				// C gives the canaries what B gave them.
				c.target = "C"
				c.resolve = func(node, config string) string {
					if config == "C" && c.canary[node] {
						return "B"
					}
					return config
				}
			}, writes: 0, started: true, next: 5},
			{at: 5, writes: 10, canaries: 0, stepped: true, next: 7},
		},
	}, {
		name: "revert mid-rollout: only the reached nodes are pending", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 3, writes: 10, stepped: true, next: 5},
			{at: 4, change: change("A"), writes: 3, canaries: 3, started: true, stepped: true, next: 7},
			{at: 7, writes: 10, canaries: 0, stepped: true, next: 8},
			{at: 8, writes: 0, completed: true, next: -1},
		},
		finally: func(t *testing.T, c *cluster) {
			if c.record.Pending != 13 || c.onTarget() != 40 {
				t.Errorf("record %+v, %d on target", c.record, c.onTarget())
			}
			// 13 written for B, the same 13 back to A: no other node was touched.
			if len(c.writes) != 26 {
				t.Errorf("%d writes, want 26", len(c.writes))
			}
		},
	}, {
		name:  "a node created during the rollout gets the target at once, paused or not",
		nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 1, change: addNode("new-1"), writes: 1, next: 3},
			{at: 2, change: func(c *cluster) { c.key = pausedKey; addNode("new-2")(c) }, writes: 1, paused: true, next: -1},
		},
		finally: func(t *testing.T, c *cluster) {
			if c.record.Pending != 40 {
				t.Errorf("a new node counts as pending: %+v", c.record)
			}
		},
	}, {
		// A pending node whose labels changed stays pending, on the
		// configuration in force for it (ChooseNode, TestChooseNode).
		name:  "a pending node whose labels changed stays pending until its step",
		nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 1, writes: 0, next: 3},
			{at: 3, writes: 10, stepped: true, next: 5},
		},
	}, {
		name:  "a change that does not touch every node: only the differing ones are pending",
		nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: func(c *cluster) {
				c.target = "B"
				c.resolve = func(node, config string) string {
					if node >= "n30" {
						return config
					}
					return "A"
				}
			}, writes: 10, canaries: 0, started: true, stepped: true, next: 1},
			{at: 1, writes: 0, completed: true, next: -1},
		},
	}, {
		name:  "an invalid key pauses instead of applying at once; fixing it resumes with the canaries",
		nodes: 40, canary: 3, key: invalidKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 0, started: true, paused: true, next: -1},
			{at: 30, writes: 0, paused: true, next: -1},
			{at: 60, change: setKey(acceptanceKey), writes: 3, canaries: 3, stepped: true, next: 63},
		},
	}, {
		name: "a key turning invalid mid-rollout pauses it", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 1, change: setKey(invalidKey), writes: 0, paused: true, next: -1},
			{at: 9, writes: 0, paused: true, next: -1},
		},
	}, {
		name: "the key removed mid-rollout: every pending node at once", nodes: 40, canary: 3, key: acceptanceKey,
		steps: []step{
			{at: 0, change: change("B"), writes: 3, canaries: 3, started: true, stepped: true, next: 3},
			{at: 1, change: setKey(""), writes: 37, canaries: 0, next: -1},
		},
		finally: func(t *testing.T, c *cluster) {
			if !c.record.IsZero() {
				t.Errorf("record left behind: %+v", c.record)
			}
		},
	}, {
		name: "no node differs: nothing to roll out", nodes: 5, canary: 1, key: acceptanceKey,
		steps: []step{{at: 0, writes: 0, next: -1}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(tt.nodes, tt.canary, tt.key)
			for i, s := range tt.steps {
				if s.change != nil {
					s.change(c)
				}
				d, written := c.decide(t, at(s.at))
				if len(written) != s.writes {
					t.Fatalf("decision %d (%gs): wrote %d nodes %v, want %d", i, s.at, len(written), written, s.writes)
				}
				if s.canaries >= 0 && c.canaries(written) != s.canaries {
					t.Errorf("decision %d (%gs): %d canaries written, want %d", i, s.at, c.canaries(written), s.canaries)
				}
				got := [4]bool{d.Started, d.Stepped, d.Completed, d.Paused}
				if want := [4]bool{s.started, s.stepped, s.completed, s.paused}; got != want {
					t.Errorf("decision %d (%gs): started, stepped, completed, paused = %v, want %v", i, s.at, got, want)
				}
				wantNext := time.Time{}
				if s.next >= 0 {
					wantNext = at(s.next)
				}
				if !d.NextStep.Equal(wantNext) {
					t.Errorf("decision %d (%gs): next step %v, want %v", i, s.at, d.NextStep, wantNext)
				}
			}
			if tt.finally != nil {
				tt.finally(t, c)
			}
		})
	}
}

// crashMidStep simulates a manager that persisted the record of the next
// step and wrote only the first written of its nodes before it stopped.
func crashMidStep(now time.Time, written int) func(*cluster) {
	return func(c *cluster) {
		in := Input{Rollout: c.load(), Target: c.target, Record: c.record, Now: now}
		for _, name := range sortedNames(c) {
			in.Nodes = append(in.Nodes, storedNode(c, name))
		}
		d := Decide(in)
		if !d.Stepped || len(d.Write) <= written {
			panic("the crash is meant to cut a step short")
		}
		for _, name := range d.Write[:written] {
			c.stored[name] = c.target
		}
		c.writes = append(c.writes, d.Write[:written]...)
		c.record = roundTrip(d.Record)
	}
}

func addNode(name string) func(*cluster) {
	return func(c *cluster) { c.stored[name] = "" }
}

// storedNode is a node of c that has a NodeSLO, as the decision sees it.
func storedNode(c *cluster, name string) Node {
	return Node{Name: name, Stored: true, Differs: c.stored[name] != c.target, Canary: c.canary[name]}
}

func sortedNames(c *cluster) []string {
	names := make([]string, 0, len(c.stored))
	for name := range c.stored {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// roundTrip is the record as a new manager reads it back from the annotation.
func roundTrip(r Record) Record {
	back, err := ParseRecord(r.Encode())
	if err != nil {
		panic(err)
	}
	return back
}
