package controller

import (
	"sync/atomic"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Store holds the configuration in force. The config-cache controller
// replaces it whole; NodeSLO reconciles read it concurrently without locks
// or copies, which is safe because a sloconfig.Config is immutable.
type Store struct {
	current atomic.Pointer[sloconfig.Config]
}

// Current returns the configuration in force, or nil before the first load.
func (s *Store) Current() *sloconfig.Config { return s.current.Load() }

// Publish makes cfg the configuration in force and returns the one it replaced.
func (s *Store) Publish(cfg *sloconfig.Config) *sloconfig.Config { return s.current.Swap(cfg) }
