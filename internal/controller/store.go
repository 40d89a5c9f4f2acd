package controller

import (
	"sync/atomic"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Store holds the configuration in force and, during a staged rollout, the
// Gate that holds the pending nodes back. The config-cache controller
// replaces both together; NodeSLO reconciles read them concurrently without
// locks or copies, which is safe because neither is written once published.
// Publishing them as one pair means no reconcile ever sees a new
// configuration without the gate that goes with it.
type Store struct {
	current atomic.Pointer[published]
}

// published is one configuration and its gate (nil: nothing held).
type published struct {
	cfg  *sloconfig.Config
	gate *rollout.Gate
}

// Current returns the configuration in force, or nil before the first load.
func (s *Store) Current() *sloconfig.Config {
	cfg, _ := s.Snapshot()
	return cfg
}

// Snapshot returns the configuration in force and its gate (nil when no
// node is held).
func (s *Store) Snapshot() (*sloconfig.Config, *rollout.Gate) {
	p := s.current.Load()
	if p == nil {
		return nil, nil
	}
	return p.cfg, p.gate
}

// Publish makes cfg the configuration in force with gate holding the
// pending nodes of a rollout, and returns the configuration it replaced.
func (s *Store) Publish(cfg *sloconfig.Config, gate *rollout.Gate) *sloconfig.Config {
	old := s.current.Swap(&published{cfg: cfg, gate: gate})
	if old == nil {
		return nil
	}
	return old.cfg
}
