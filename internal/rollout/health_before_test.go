package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// A gated fleet for plans: canaries c1 and c2, then n1 to n4, each storing
// the spec that configuration data resolves for it, written at a time.

var gatedFleetNames = []string{"c1", "c2", "n1", "n2", "n3", "n4"}

// gatedCanaryLabel is the label gatedKey's canary selector matches ("true").
const gatedCanaryLabel = "canary"

// gatedData is a configuration (threshold) under gatedKey.
func gatedData(threshold string) map[string]string {
	return map[string]string{
		string(sloconfig.KeyRollout): gatedKey,
		string(sloconfig.KeyResourceThreshold): `{"clusterStrategy": {"enable": true, "cpuSuppressThresholdPercent": ` +
			threshold + `}}`,
	}
}

type gatedFleet struct {
	t     *testing.T
	nodes []Observed
}

func newGatedFleet(t *testing.T, data map[string]string, writtenAt time.Time) *gatedFleet {
	f := &gatedFleet{t: t}
	for _, name := range gatedFleetNames {
		node := sloconfig.Node{Name: name, Labels: map[string]string{gatedCanaryLabel: "false"}}
		if strings.HasPrefix(name, "c") {
			node.Labels[gatedCanaryLabel] = "true"
		}
		f.nodes = append(f.nodes, Observed{Node: node})
		f.store(name, data, writtenAt)
	}
	return f
}

// store has node name store what data resolves for it, written at.
func (f *gatedFleet) store(name string, data map[string]string, at time.Time) {
	for i := range f.nodes {
		if f.nodes[i].Node.Name == name {
			spec := sloconfig.Load(data, nil).Resolve(f.nodes[i].Node, nil).Spec
			f.nodes[i].Stored, f.nodes[i].WrittenAt = &spec, at.Truncate(time.Millisecond)
			return
		}
	}
	f.t.Fatalf("no node %s", name)
}

// storeFrom is store, with the node's NodeSLO naming from's configuration
// as the one it was written from (storedslo.ConfigurationAnnotation).
func (f *gatedFleet) storeFrom(name string, data, from map[string]string, at time.Time) {
	f.store(name, data, at)
	for i := range f.nodes {
		if f.nodes[i].Node.Name == name {
			f.nodes[i].From = ShortTarget(sloconfig.Load(from, nil).Fingerprint())
		}
	}
}

// plan plans data's rollout at now over the fleet with health, after the
// record of the previous plan (nil: none).
func (f *gatedFleet) plan(m Memory, previous *Plan, data map[string]string, now time.Time,
	health map[string]NodeHealth) Plan {
	in := PlanInput{Rollout: LoadKey(data), Config: sloconfig.Load(data, nil), Nodes: f.nodes, Now: now,
		RolloutKey: "k1", Health: health}
	if previous != nil && previous.RecordChange != nil {
		in.Record, in.HasRecord = previous.RecordChange.Value, true
	} else if previous != nil {
		f.t.Fatal("the previous plan changed no record")
	}
	return m.Plan(in)
}

func notReadySince(at time.Time) NodeHealth {
	return NodeHealth{Conditions: []corev1.NodeCondition{
		{Type: corev1.NodeReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(at)}}}
}

func recordOf(t *testing.T, p Plan) Record {
	t.Helper()
	rec, err := ParseRecord(p.RecordChange.Value)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func eventsOf(p Plan, reason string) []string {
	var out []string
	for _, e := range p.Events {
		if e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

// A canary NotReady before the rollout is no canary: the canary step
// reaches the other one; the node is recorded with what it showed, said in
// an Event once and in the status. Reached later in a batch, it is not
// held against the change.
func TestAHealthyCanaryOnlyIsUsed(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old, data := gatedData("60"), gatedData("55")
	f := newGatedFleet(t, old, t0.Add(-time.Hour))
	sick := map[string]NodeHealth{"c1": notReadySince(t0.Add(-10 * time.Minute))}
	const signal = "Ready=False since 2026-12-01T11:50:00Z"

	p := f.plan(Memory{}, nil, data, t0, sick)
	if !slices.Equal(p.Release, []string{"c2"}) || !p.Gate.Has("c1") {
		t.Fatalf("the canary step released %v; c1 held %t", p.Release, p.Gate.Has("c1"))
	}
	rec := recordOf(t, p)
	if rec.Canaries != 1 || rec.Health.Before["c1"] != signal {
		t.Errorf("record: %d canaries, before the write %v", rec.Canaries, rec.Health.before())
	}
	if notes := eventsOf(p, ReasonUnhealthyBeforeWrite); len(notes) != 1 ||
		!strings.Contains(notes[0], "1 nodes unhealthy before it wrote them") ||
		!strings.Contains(notes[0], "c1 ("+signal+")") {
		t.Errorf("events %v", notes)
	}
	if h := p.Status.Health; h == nil || h.Before != 1 || len(h.BeforeNodes) != 1 ||
		h.BeforeNodes[0] != (nodeslov1alpha1.NodeVerdict{Name: "c1", Signal: signal}) || h.Unhealthy != 0 {
		t.Errorf("status %+v", p.Status.Health)
	}

	f.store("c2", data, t0)
	next := f.plan(p.Memory(), &p, data, t0.Add(2*time.Second), sick)
	if len(next.Release) != 0 || len(eventsOf(next, ReasonUnhealthyBeforeWrite)) != 0 || next.Figures.Halted {
		t.Errorf("within the soak: released %v, events %v", next.Release, next.Events)
	}
	if next.RecordChange != nil {
		p = next // the record did not change otherwise
	}

	// Past the soak the batches reach c1, which is still NotReady: not counted.
	m, now := next.Memory(), t0.Add(101*time.Second)
	for range 2 {
		batch := f.plan(m, &p, data, now, sick)
		for _, name := range batch.Release {
			f.store(name, data, now)
		}
		m, p, now = batch.Memory(), batch, now.Add(11*time.Second)
	}
	if f.nodes[0].WrittenAt.IsZero() || f.nodes[0].WrittenAt.Before(t0) {
		t.Fatal("the batches did not reach c1")
	}
	after := f.plan(m, &p, data, now, sick)
	if after.Figures.Halted || after.Figures.Unhealthy != 0 || after.Status.Health.Before != 1 {
		t.Errorf("c1, unhealthy before its write, was held against the change: %+v %+v",
			after.Figures, after.Status.Health)
	}
}

// The user's case: both canaries NotReady within the second of their
// write. The gate cannot tell the order, and halts before any other node
// is reached, also when the caches show the write late.
func TestACanaryUnhealthyInTheSecondOfItsWriteHalts(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 300e6, time.UTC)
	old, data := gatedData("60"), gatedData("55")
	f := newGatedFleet(t, old, t0.Add(-time.Hour))
	p := f.plan(Memory{}, nil, data, t0, nil)
	if !slices.Equal(slices.Sorted(slices.Values(p.Release)), []string{"c1", "c2"}) {
		t.Fatalf("the canary step released %v", p.Release)
	}
	sick := map[string]NodeHealth{"c1": notReadySince(t0.Add(400 * time.Millisecond))}

	// c1 is written, but the cache still shows its old NodeSLO: released,
	// not held, so what it shows is not taken for before its write.
	f.store("c2", data, t0)
	lagging := f.plan(p.Memory(), &p, data, t0.Add(500*time.Millisecond), sick)
	if lagging.RecordChange != nil && recordOf(t, lagging).Health.before()["c1"] != "" {
		t.Fatal("a released node the cache shows unwritten was recorded unhealthy before its write")
	}
	if lagging.RecordChange != nil {
		p = lagging
	}

	f.store("c1", data, t0)
	halt := f.plan(lagging.Memory(), &p, data, t0.Add(600*time.Millisecond), sick)
	if !halt.Figures.Halted || halt.Figures.Unhealthy != 1 || len(halt.Release) != 0 {
		t.Fatalf("not halted: %+v, released %v", halt.Figures, halt.Release)
	}
	if got := recordOf(t, halt).Health.Unhealthy["c1"]; got != inTheSecondOfTheWrite {
		t.Errorf("signal %q", got)
	}
	if notes := eventsOf(halt, ReasonHalted); len(notes) != 1 {
		t.Errorf("RolloutHalted events %v", notes)
	}
}

// A revert (any change back) reaches nodes that the change it undoes made
// unhealthy, often in the very second they turned bad. The rollout saw them
// unhealthy while they were pending, so the same transition after its
// write is not held against it; a node turning bad anew in that second is.
func TestARevertIsNotJudgedOnWhatItsNodesShowedWhenWritten(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 100e6, time.UTC)
	halted, back := gatedData("55"), gatedData("60")
	f := newGatedFleet(t, back, t0.Add(-time.Hour))
	f.store("c1", halted, t0.Add(-20*time.Second))
	f.store("c2", halted, t0.Add(-20*time.Second))
	sick := map[string]NodeHealth{"c1": notReadySince(t0), "c2": notReadySince(t0.Add(-2 * time.Second))}

	p := f.plan(Memory{}, nil, back, t0.Add(200*time.Millisecond), sick)
	rec := recordOf(t, p)
	if rec.Canaries != 0 || len(rec.Health.before()) != 2 {
		t.Fatalf("the unhealthy canaries: %d canaries, before the write %v", rec.Canaries, rec.Health.before())
	}
	if !slices.Equal(slices.Sorted(slices.Values(p.Release)), []string{"c1", "c2"}) {
		t.Fatalf("the first batch released %v", p.Release)
	}
	f.store("c1", back, t0)
	f.store("c2", back, t0)
	done := f.plan(p.Memory(), &p, back, t0.Add(700*time.Millisecond), sick)
	if done.Figures.Halted || done.Figures.Unhealthy != 0 || done.Status.Phase != PhaseCompleted {
		t.Errorf("the revert was judged on what its nodes showed when written: %+v, phase %s",
			done.Figures, done.Status.Phase)
	}

	// Had c2 recovered and turned NotReady again in the second of its
	// write, that transition is not the one seen: it counts.
	sick["c2"] = notReadySince(t0)
	again := f.plan(p.Memory(), &p, back, t0.Add(700*time.Millisecond), sick)
	if again.Figures.Unhealthy != 1 ||
		recordOf(t, again).Health.Unhealthy["c2"] != inTheSecondOfTheWrite {
		t.Errorf("a new transition in the second of the write: %+v", again.Figures)
	}
}

// A node the change leaves as it is was not reached by it, even when the
// rollout before wrote it in the very second this one started (the start
// is compared in seconds): its NodeSLO names that other configuration, so
// its turning NotReady is not held against the change
// (docs/rollout.md#which-nodes-are-judged-and-when).
func TestANodeWrittenAnotherConfigurationInTheStartSecondIsNotJudged(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 600e6, time.UTC)
	old, data := gatedData("60"), gatedData("55")
	f := newGatedFleet(t, old, t0.Add(-time.Hour))
	// n1 stores what data resolves for it, written 400 ms before the
	// rollout starts, from the configuration before.
	f.storeFrom("n1", data, old, t0.Add(-400*time.Millisecond))
	p := f.plan(Memory{}, nil, data, t0, nil)
	sick := map[string]NodeHealth{"n1": notReadySince(t0.Add(200 * time.Millisecond))}
	later := f.plan(p.Memory(), &p, data, t0.Add(time.Second), sick)
	if later.Figures.Halted || later.Figures.Unhealthy != 0 {
		t.Fatalf("judged a node this rollout did not reach: %+v", later.Figures)
	}
}
