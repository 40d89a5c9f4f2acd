package rollout

import (
	"testing"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The configuration in force for a held node is told by what its NodeSLO
// stores (docs/rollout-design.md#where-the-decision-runs): the
// configuration it was written from, or a newer one put in force after the
// write that resolves to it (simulator seed 2290).
func TestBaseOfTakesTheConfigurationWrittenOrANewerOneNotPendingFor(t *testing.T) {
	written, paused, later := thresholdConfig(60, 30), thresholdConfig(50, 30), thresholdConfig(55, 30)
	batch := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: "batch"}}
	web := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: "web"}}
	stored := written.Resolve(batch, nil).Spec // batch 30, as under paused and later
	at := time.Date(2026, 12, 2, 18, 1, 26, 280e6, time.UTC)
	o := Observed{Node: batch, Stored: &stored, Generation: 2, WrittenAt: at, From: ShortTarget(written.Fingerprint())}
	since := map[string]time.Time{
		written.Fingerprint(): at.Add(-10 * time.Minute).Truncate(time.Second),
		paused.Fingerprint():  at.Add(-time.Minute).Truncate(time.Second),
		later.Fingerprint():   at.Add(time.Minute).Truncate(time.Second),
	}
	cases := []struct {
		name   string
		o      Observed
		before []*sloconfig.Config
		want   *sloconfig.Config
	}{
		{"a newer configuration in force at the write held the node: passed over", o,
			[]*sloconfig.Config{paused, written}, written},
		{"one put in force after the write that resolves alike: the node was never pending for it", o,
			[]*sloconfig.Config{later, paused, written}, later},
		{"relabelled since the write: the configuration written", relabelled(o, web),
			[]*sloconfig.Config{later, paused, written}, written},
		{"no stamp (an earlier version): the newest that resolves alike", unstamped(o),
			[]*sloconfig.Config{later, paused, written}, later},
		{"the configuration written is gone from the history: none", relabelled(o, web),
			[]*sloconfig.Config{later, paused}, nil},
	}
	for _, c := range cases {
		if got := baseOf(c.o, c.before, since, nil); got != c.want {
			t.Errorf("%s: base %v, want %v", c.name, got, c.want)
		}
	}
	// In the second of the write, a configuration counts as before it.
	since[later.Fingerprint()] = at.Truncate(time.Second)
	if got := baseOf(o, []*sloconfig.Config{later, written}, since, nil); got != written {
		t.Errorf("a configuration put in force in the second of the write: base %v, want the one written", got)
	}
}

func relabelled(o Observed, node sloconfig.Node) Observed { o.Node = node; return o }

func unstamped(o Observed) Observed { o.From = ""; return o }
