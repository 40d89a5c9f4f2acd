package controller

import (
	"hash/maphash"
	"sync"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// warningMemory remembers, per node, the warnings last recorded as Events,
// so that they are recorded again only when they change. It keeps a 64-bit
// digest of them, not their text: telling a change needs no more, and the
// memory then stays at one map entry per node with warnings, however long
// the configuration makes them (docs/performance.md#memory). Two different
// warning lists share a digest with a chance of 2^-64, and the seed, chosen
// at random per process, keeps a ConfigMap author from making them collide
// on purpose; a collision only skips one Event.
type warningMemory struct {
	mu     sync.Mutex
	seed   maphash.Seed
	byNode map[string]uint64
}

// remember stores the node's current warnings and reports whether there
// are any and they differ from the ones stored before.
func (m *warningMemory) remember(node string, warnings []sloconfig.NodeWarning) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(warnings) == 0 {
		delete(m.byNode, node)
		return false
	}
	if m.byNode == nil {
		m.seed, m.byNode = maphash.MakeSeed(), map[string]uint64{}
	}
	var h maphash.Hash
	h.SetSeed(m.seed)
	for _, w := range warnings {
		h.WriteString(w.Reason)
		h.WriteByte(0)
		h.WriteString(w.Message)
		h.WriteByte(0)
	}
	digest := h.Sum64()
	old, known := m.byNode[node]
	m.byNode[node] = digest
	return !known || old != digest
}

// forget drops what is remembered of a node that is gone.
func (m *warningMemory) forget(node string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byNode, node)
}
