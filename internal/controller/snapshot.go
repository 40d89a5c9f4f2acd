package controller

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// Snapshot is everything the rollout controller decided for the
// configuration in force, published as one value: the NodeSLO reconciler
// reads it without locks or copies, which is safe because nothing in it
// is written once published, and never sees a configuration without the
// gate or the CRD's dropped fields that go with it.
type Snapshot struct {
	Config *sloconfig.Config
	// Gate holds the pending nodes of a staged rollout (nil: none held).
	Gate *rollout.Gate
	// Dropped are the fields of Config the installed NodeSLO CRD drops,
	// sorted (nil: none, or not known yet; docs/behaviour.md#crd-version-skew).
	Dropped []string
	// Decided is when the rollout controller decided it: no NodeSLO
	// written under it is stamped earlier (storedslo.Store.Write).
	Decided time.Time
	// Revision is the number of the revision in force (0: not known), which
	// every write stamps (storedslo.ConfigurationAnnotation).
	Revision int64
}

// choose decides what node's NodeSLO, stored as it is, should hold under
// s (rollout.ChooseNode, the choice the simulator drives too), and
// records how long the resolution took.
func (s *Snapshot) choose(node sloconfig.Node, stored *storedslo.NodeSLO) rollout.NodeChoice {
	start := time.Now()
	from, _ := stored.From()
	choice := rollout.ChooseNode(s.Config, s.Dropped, s.Gate, node, rollout.StoredNode{
		Exists: stored.Exists(), Spec: stored.Spec(), Digest: stored.Digest(),
		From: from,
	})
	resolveSeconds.Observe(time.Since(start).Seconds())
	return choice
}

// sameFor reports whether s and other make every node's NodeSLO hold the
// same: the same configuration, and the same fields dropped by the CRD.
func (s *Snapshot) sameFor(other *Snapshot) bool {
	return other != nil && s.Config.Fingerprint() == other.Config.Fingerprint() &&
		slices.Equal(s.Dropped, other.Dropped)
}

// snapshots holds the Snapshot in force; the rollout controller is
// its only writer.
type snapshots struct {
	current atomic.Pointer[Snapshot]
}

// load returns the Snapshot in force, or nil before the first load.
func (p *snapshots) load() *Snapshot { return p.current.Load() }

// config returns the configuration in force, or nil before the first load.
func (p *snapshots) config() *sloconfig.Config {
	if s := p.current.Load(); s != nil {
		return s.Config
	}
	return nil
}

// publish makes s the Snapshot in force.
func (p *snapshots) publish(s *Snapshot) { p.current.Store(s) }
