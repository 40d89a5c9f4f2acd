package rollout

import (
	"testing"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The configuration in force for a held node is told by what its NodeSLO
// stores (docs/rollout-design.md#where-the-decision-runs): the
// configuration it was written from, or a newer one put in force after the
// write that resolves to it (simulator seed 2290).
func TestBaseOfTakesTheConfigurationWrittenOrANewerOneNotPendingFor(t *testing.T) {
	written, paused, later := thresholdConfig(60, 30), thresholdConfig(50, 30), thresholdConfig(55, 30)
	batch := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolBatch}}
	web := sloconfig.Node{Name: "n1", Labels: map[string]string{poolLabel: poolWeb}}
	stored := written.Resolve(batch, nil).Spec // batch 30, as under paused and later
	// Written from the first under the second's revision (3), a held node.
	o := Observed{Node: batch, Stored: &stored, From: ShortTarget(written.Fingerprint()), Under: 3}
	numbers := map[string]int64{written.Fingerprint(): 1, paused.Fingerprint(): 3, later.Fingerprint(): 4}
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
		if got := baseOf(c.o, c.before, numbers, nil); got != c.want {
			t.Errorf("%s: base %v, want %v", c.name, got, c.want)
		}
	}
	o.Under = 0
	if got := baseOf(o, []*sloconfig.Config{later, paused, written}, numbers, nil); got != written {
		t.Errorf("the revision of the write not known: base %v, want the one written", got)
	}
}

func relabelled(o Observed, node sloconfig.Node) Observed { o.Node = node; return o }

func unstamped(o Observed) Observed { o.From = ""; return o }
