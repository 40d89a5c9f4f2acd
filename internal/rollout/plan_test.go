package rollout

import (
	"slices"
	"testing"
	"time"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// planFleet is three nodes whose stored NodeSLO (empty) differs from what
// the defaults resolve, so that all three are pending.
func planFleet() []Observed {
	names := []string{"a", "b", "c"}
	out := make([]Observed, 0, len(names))
	for _, name := range names {
		out = append(out, Observed{
			Node:   sloconfig.Node{Name: name, Labels: map[string]string{poolLabel: poolWeb}},
			Stored: &slov1alpha1.NodeSLOSpec{},
		})
	}
	return out
}

func planInput(key string, nodes []Observed) PlanInput {
	data := map[string]string{}
	if key != "" {
		data[string(sloconfig.KeyRollout)] = key
	}
	return PlanInput{
		Rollout: LoadKey(data), Config: sloconfig.Load(data, nil), Nodes: nodes, Now: time.Now(),
	}
}

// A paused rollout holds every pending node, persists a new record first,
// and, when the record cannot be persisted, still holds them all and
// remembers nothing of the plan.
func TestPlanHoldsPendingNodesUntilTheRecordIsPersisted(t *testing.T) {
	p := Memory{}.Plan(planInput(`{"paused": true}`, planFleet()))
	if p.RecordChange == nil || p.RecordChange.Value == "" {
		t.Fatalf("a new rollout persists its record first: %+v", p.RecordChange)
	}
	if p.Gate.Len() != 3 || len(p.Release) != 0 || p.Figures == nil || !p.Figures.Paused || p.Figures.Pending != 3 {
		t.Errorf("gate %d, release %v, figures %+v", p.Gate.Len(), p.Release, p.Figures)
	}
	if len(p.Events) == 0 || p.Events[0].Reason != ReasonStarted {
		t.Errorf("events %+v", p.Events)
	}
	failed := p.Unpersisted()
	if failed.Gate.Len() != 3 || failed.Release != nil || failed.Figures != nil || failed.Events != nil {
		t.Errorf("unpersisted plan: gate %d, release %v, figures %+v, events %v",
			failed.Gate.Len(), failed.Release, failed.Figures, failed.Events)
	}
	if failed.Memory().HoldsNodes() {
		t.Error("an unpersisted plan must leave the memory as it was")
	}
	if !p.Memory().HoldsNodes() {
		t.Error("a plan carried out remembers its gate")
	}
}

// A node held whose inputs changed stays held, paused or not (the halt or
// pause wins, docs/rollout.md#behaviour); a gate left when the strategy and its
// record are gone is released whole.
func TestPlanReleases(t *testing.T) {
	nodes := planFleet()
	p := Memory{}.Plan(planInput(`{"paused": true}`, nodes))
	mem := p.Memory()

	nodes[1].Node.Labels = map[string]string{poolLabel: poolBatch}
	again := mem.Plan(planInput(`{"paused": true}`, nodes))
	if len(again.Release) != 0 || !again.Gate.Has("b") || again.Gate.Len() != 3 {
		t.Errorf("release %v, gate holds b %t, gate %d", again.Release, again.Gate.Has("b"), again.Gate.Len())
	}

	in := planInput("", nil)
	in.Record, in.HasRecord = p.RecordChange.Value, true
	removed := mem.Plan(in)
	if removed.RecordChange == nil || removed.RecordChange.Value != "" || removed.Gate != nil ||
		len(removed.Release) != 3 || removed.Figures == nil || *removed.Figures != (Figures{}) {
		t.Errorf("the key gone: %+v", removed)
	}
	gone := mem.Plan(planInput("", nil))
	if gone.RecordChange != nil || len(gone.Release) != 3 || gone.Memory().HoldsNodes() {
		t.Errorf("no rollout with a gate left: %+v", gone)
	}
	if none := (Memory{}).Plan(planInput("", nil)); none.Figures != nil || none.Release != nil {
		t.Errorf("no rollout and no gate changes nothing: %+v", none)
	}
}

// A node whose NodeSLO lacks only fields the installed CRD drops has the
// configuration in force: the rollout counts it reached, not pending
// (docs/behaviour.md#crd-version-skew).
func TestPlanCountsANodeLackingOnlyDroppedFieldsAsReached(t *testing.T) {
	data := map[string]string{
		string(sloconfig.KeyRollout): `{"paused": true}`,
		string(sloconfig.KeyResourceQOS): `{"clusterStrategy": {"lsClass": {"memoryQOS":
			{"enable": true, "pageCacheLimitPercent": 50}}}}`,
	}
	cfg := sloconfig.Load(data, nil)
	node := sloconfig.Node{Name: "a"}
	resolved := cfg.Resolve(node, nil).Spec
	const path = "resourceQOSStrategy.lsClass.memoryQOS.pageCacheLimitPercent"
	pruned := sloconfig.WithoutPaths(&resolved, []string{path})
	in := PlanInput{
		Rollout: LoadKey(data), Config: cfg, Now: time.Now(),
		Nodes: []Observed{{Node: node, Stored: &pruned}},
	}
	if p := (Memory{}).Plan(in); p.Figures == nil || p.Figures.Pending != 1 {
		t.Fatalf("without knowing the field is dropped, the node is pending: %+v", p.Figures)
	}
	in.Dropped = []string{path}
	if p := (Memory{}).Plan(in); p.Figures == nil || p.Figures.Pending != 0 || p.Gate.Len() != 0 {
		t.Errorf("lacking only a dropped field, the node is reached: figures %+v, gate %d", p.Figures, p.Gate.Len())
	}

	// The status the controller publishes (which rollout status prints and
	// exits on) counts it so too: pending at the start, then written by a
	// step and stored without the dropped field, it is reached and the
	// rollout completed.
	data[string(sloconfig.KeyRollout)] = `{"maxNodesPerStep": 1}`
	in.Rollout, in.Nodes[0].Stored = LoadKey(data), &slov1alpha1.NodeSLOSpec{}
	started := (Memory{}).Plan(in)
	if len(started.Release) != 1 || started.RecordChange == nil {
		t.Fatalf("the step released %v", started.Release)
	}
	in.Nodes[0].Stored, in.Record, in.HasRecord = &pruned, started.RecordChange.Value, true
	s := started.Memory().Plan(in).Status
	if s == nil || s.Phase != PhaseCompleted || s.Reached != 1 || s.PendingAtStart != 1 || s.Pending != 0 ||
		!StatusDone(s) {
		t.Errorf("status %+v", s)
	}
}

// A NodeSLO read as metadata only stands for its spec by digest: the node
// is at the target when the digest is that of what the configuration
// resolves, pending otherwise, exactly as when the spec itself is read.
func TestNodesCompareAStoredDigestAsTheSpecItStandsFor(t *testing.T) {
	cfg := sloconfig.Load(nil, nil)
	node := sloconfig.Node{Name: "a", Labels: map[string]string{poolLabel: poolWeb}}
	target := cfg.Resolve(node, nil).Spec
	other := sloconfig.SpecDigest(&slov1alpha1.NodeSLOSpec{})
	for name, tt := range map[string]struct {
		observed Observed
		stored   bool
		differs  bool
	}{
		"digest of the target":   {Observed{Node: node, StoredDigest: sloconfig.SpecDigest(&target)}, true, false},
		"digest of another spec": {Observed{Node: node, StoredDigest: other}, true, true},
		"spec of the target":     {Observed{Node: node, Stored: &target}, true, false},
		"no NodeSLO":             {Observed{Node: node}, false, false},
	} {
		t.Run(name, func(t *testing.T) {
			got := nodesOf(cfg, nil, []Observed{tt.observed}, nil)[0]
			if got.Stored != tt.stored || got.Differs != tt.differs {
				t.Errorf("stored %v differs %v, want %v %v", got.Stored, got.Differs, tt.stored, tt.differs)
			}
		})
	}
}

// A node that was done (it matched the target) or reached, whose NodeSLO
// is then edited or whose labels change, gets the target at once: it is
// not pending again, whether a decision or the NodeSLO reconciler sees
// the change first, paused or not, and after the rollout completed even
// across a restart (docs/rollout.md#behaviour; simulator seeds 3, 6, 16).
func TestPlanReleasesAReachedNodeThatDiffersAgain(t *testing.T) {
	nodes := planFleet()
	in := planInput(`{"paused": true}`, nodes)
	done := in.Config.Resolve(nodes[0].Node, nil).Spec
	nodes[0].Stored = &done
	p := Memory{}.Plan(in)
	if p.Gate.Has("a") || p.Gate.Len() != 2 {
		t.Fatalf("a matches the target: gate holds a %t, gate %d", p.Gate.Has("a"), p.Gate.Len())
	}
	edited := slov1alpha1.NodeSLOSpec{}
	nodes[0].Stored = &edited
	again := planInput(`{"paused": true}`, nodes)
	again.Record, again.HasRecord = p.RecordChange.Value, true
	p2 := p.Memory().Plan(again)
	if !slices.Equal(p2.Release, []string{"a"}) || p2.Gate.Has("a") || p2.Figures.Pending != 2 {
		t.Errorf("edited after it was done: release %v, gate holds a %t, pending %d",
			p2.Release, p2.Gate.Has("a"), p2.Figures.Pending)
	}

	for i := range nodes {
		nodes[i].Stored = &done
	}
	all := planInput(`{}`, nodes)
	completed := Memory{}.Plan(all)
	nodes[1].Stored = &edited
	restarted := planInput(`{"paused": true}`, nodes) // paused since: nothing is pending

	restarted.Record, restarted.HasRecord = completed.RecordChange.Value, true
	p3 := Memory{}.Plan(restarted)
	if !slices.Equal(p3.Release, []string{"b"}) || p3.Gate.Len() != 0 || p3.Figures.Pending != 0 {
		t.Errorf("edited after completion, seen first by a new manager, paused: release %v, gate %d, pending %d",
			p3.Release, p3.Gate.Len(), p3.Figures.Pending)
	}
}

// A pending node whose new labels make the target give it what it stores
// is not reached by that: it stays pending, held, until its step, so
// that its next labels are still resolved against the configuration in
// force for it; a new manager knows it by its NodeSLO's stamp, written
// since the rollout started from an older configuration than the one in
// force (docs/rollout.md#behaviour; simulator seeds 84465 and 1078).
func TestPlanKeepsHoldingAPendingNodeThatMatchesTheTarget(t *testing.T) {
	nodes := planFleet()
	first := Memory{}.Plan(planInput(`{"paused": true}`, nodes))
	matching := planInput(`{"paused": true}`, nodes).Config.Resolve(nodes[0].Node, nil).Spec
	nodes[0].Stored = &matching
	again := planInput(`{"paused": true}`, nodes)
	again.Record, again.HasRecord = first.RecordChange.Value, true
	p := first.Memory().Plan(again)
	if !p.Gate.Has("a") || p.Gate.Len() != 3 || len(p.Release) != 0 || p.Figures.Pending != 3 {
		t.Errorf("a matches after a relabel: gate holds a %t, gate %d, release %v, pending %d",
			p.Gate.Has("a"), p.Gate.Len(), p.Release, p.Figures.Pending)
	}
	if !p.Unpersisted().Gate.Has("a") {
		t.Errorf("the gate of a record not persisted lets a go")
	}

	rec, err := ParseRecord(first.RecordChange.Value)
	if err != nil {
		t.Fatal(err)
	}
	// Written by the gate from the configuration before (revision 1)
	// while the target (revision 2) was in force.
	older := thresholdConfig(60, 30)
	again.Before, again.Numbers = []*sloconfig.Config{older}, map[string]int64{older.Fingerprint(): 1}
	nodes[0].From, nodes[0].Under, nodes[0].WrittenAt = ShortTarget(older.Fingerprint()), 2, rec.Started
	restarted := Memory{}.Plan(again)
	if !restarted.Gate.Has("a") || restarted.Figures.Pending != 3 {
		t.Errorf("after a restart, a written by the gate since the start: gate holds a %t, pending %d",
			restarted.Gate.Has("a"), restarted.Figures.Pending)
	}
	// The target's revision known (3): a written under revision 2 in the
	// instant the rollout started carried out a decision of the rollout
	// before (simulator seeds 79646 and 81905); under 3, of this one.
	again.Numbers[again.Config.Fingerprint()] = 3
	if done := (Memory{}).Plan(again); done.Gate.Has("a") {
		t.Errorf("after a restart, a written under a revision older than the target's is held")
	}
	nodes[0].Under = 3
	if held := (Memory{}).Plan(again); !held.Gate.Has("a") {
		t.Errorf("after a restart, a written by the gate under the target's revision is not held")
	}
	delete(again.Numbers, again.Config.Fingerprint())
	nodes[0].Under = 1
	if done := (Memory{}).Plan(again); done.Gate.Has("a") {
		t.Errorf("after a restart, a written while its configuration was in force (not by a gate) is done, yet held")
	}
	nodes[0].Under, nodes[0].WrittenAt = 2, rec.Started.Add(-time.Millisecond)
	if done := (Memory{}).Plan(again); done.Gate.Has("a") {
		t.Errorf("after a restart, a written before the start is done, yet held")
	}
	nodes[0].From, nodes[0].WrittenAt = ShortTarget(again.Config.Fingerprint()), rec.Started
	if done := (Memory{}).Plan(again); done.Gate.Has("a") {
		t.Errorf("after a restart, a written from the target is done, yet held")
	}
}

// A step that reaches a pending node the target leaves as it is, whose
// NodeSLO the gate wrote from the configuration before, writes the node's
// stamps alone, once: nothing else in the cluster says it was reached,
// and a manager after a restart would hold it again on the configuration
// before (docs/rollout.md#behaviour; simulator seed 80368).
func TestAStepThatReachesANodeWithoutAWriteRestampsIt(t *testing.T) {
	nodes := planFleet()
	paused := planInput(`{"paused": true}`, nodes)
	first := Memory{}.Plan(paused)
	rec, err := ParseRecord(first.RecordChange.Value)
	if err != nil {
		t.Fatal(err)
	}
	older, target := thresholdConfig(60, 30), paused.Config
	matching := target.Resolve(nodes[0].Node, nil).Spec
	nodes[0].Stored = &matching
	nodes[0].From, nodes[0].Under, nodes[0].WrittenAt = ShortTarget(older.Fingerprint()), 2, rec.Started
	with := func(in PlanInput) PlanInput {
		in.Record, in.HasRecord = first.RecordChange.Value, true
		in.Before = []*sloconfig.Config{older}
		in.Numbers = map[string]int64{older.Fingerprint(): 1, target.Fingerprint(): 2}
		return in
	}
	held := first.Memory().Plan(with(planInput(`{"paused": true}`, nodes)))
	if !held.Gate.Has("a") || held.Gate.Restamped() != nil {
		t.Errorf("a held: gate holds a %t, restamped %v", held.Gate.Has("a"), held.Gate.Restamped())
	}
	reached := held.Memory().Plan(with(planInput(`{"maxNodesPerStep": 3}`, nodes)))
	if !slices.Contains(reached.Release, "a") || !slices.Equal(reached.Gate.Restamped(), []string{"a"}) ||
		!slices.Equal(reached.Unpersisted().Gate.Restamped(), nil) {
		t.Fatalf("a reached: release %v, restamped %v, restamped unpersisted %v",
			reached.Release, reached.Gate.Restamped(), reached.Unpersisted().Gate.Restamped())
	}
	stored := StoredNode{Exists: true, Spec: &matching, From: nodes[0].From}
	if c := ChooseNode(target, nil, reached.Gate, nodes[0].Node, stored); c.Action != NodeWrite || c.From != target {
		t.Errorf("a restamped, stamped from the configuration before: %v from %v", c.Action, c.From)
	}
	if other := ChooseNode(target, nil, reached.Gate, nodes[1].Node, stored); other.Action != NodeUpToDate {
		t.Errorf("b, not restamped, storing the target: %v", other.Action)
	}
	stored.From = ShortTarget(target.Fingerprint())
	if c := ChooseNode(target, nil, reached.Gate, nodes[0].Node, stored); c.Action != NodeUpToDate {
		t.Errorf("a restamped already: %v", c.Action)
	}

	// Until its stamps are written, every plan restamps it, a plan whose
	// record was not persisted too; once they are, none does.
	next := reached.Memory().Plan(with(planInput(`{"maxNodesPerStep": 3}`, nodes)))
	if !slices.Equal(next.Gate.Restamped(), []string{"a"}) ||
		!slices.Equal(next.Unpersisted().Gate.Restamped(), []string{"a"}) {
		t.Errorf("not yet written: restamped %v, unpersisted %v", next.Gate.Restamped(), next.Unpersisted().Gate.Restamped())
	}
	nodes[0].From, nodes[0].WrittenAt = ShortTarget(target.Fingerprint()), rec.Started.Add(time.Second)
	if done := next.Memory().Plan(with(planInput(`{"maxNodesPerStep": 3}`, nodes))); done.Gate.Restamped() != nil {
		t.Errorf("written: restamped %v", done.Gate.Restamped())
	}
	if restarted := (Memory{}).Plan(with(planInput(`{"paused": true}`, nodes))); restarted.Gate.Has("a") {
		t.Errorf("after a restart, a restamped is held again")
	}
}
