package controller

import (
	"slices"
	"sync/atomic"
	"time"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Snapshot is everything the config-cache controller decided for the
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
	// Decided is when the config-cache controller decided it: no NodeSLO
	// written under it is stamped earlier (storedslo.Store.Write).
	Decided time.Time
}

// want resolves the configuration for node (stored: its stored spec, when
// the configuration reads it) and returns what its NodeSLO should hold.
func (s *Snapshot) want(
	node sloconfig.Node, stored *slov1alpha1.NodeSLOSpec,
) (sloconfig.Resolution, sloconfig.StoredForm) {
	res := resolve(s.Config, node, stored)
	return res, s.Config.StoredFormOf(&res, s.Dropped)
}

// sameFor reports whether s and other make every node's NodeSLO hold the
// same: the same configuration, and the same fields dropped by the CRD.
func (s *Snapshot) sameFor(other *Snapshot) bool {
	return other != nil && s.Config.Fingerprint() == other.Config.Fingerprint() &&
		slices.Equal(s.Dropped, other.Dropped)
}

// snapshots holds the Snapshot in force; the config-cache controller is
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
