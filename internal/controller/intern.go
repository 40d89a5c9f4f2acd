package controller

import "sync"

// internPoolSize bounds an intern pool: when it is full it starts afresh,
// so that values no cached object uses any more are held for a while only.
const internPoolSize = 4096

// internPool hands out one shared copy of equal values, so that the many
// cached Nodes and NodeSLOs that carry the same annotations hold one map
// of them instead of one each (see cache_transforms.go). Label strings
// have a table of their own, bounded per key (sloconfig.InternLabels).
// Values given out must never be written to; the manager's cache hands
// out deep copies, but to readers only (the reconciler's Node, the
// metric's list) uncopied ones, so nothing does.
type internPool[K comparable, V any] struct {
	mu     sync.Mutex
	shared map[K]V
}

// intern returns the shared value for key, making v that value if there is none.
func (p *internPool[K, V]) intern(key K, v V) V {
	p.mu.Lock()
	defer p.mu.Unlock()
	if shared, ok := p.shared[key]; ok {
		return shared
	}
	if p.shared == nil || len(p.shared) >= internPoolSize {
		p.shared = make(map[K]V, 64)
	}
	p.shared[key] = v
	return v
}
