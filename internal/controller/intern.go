package controller

import "sync"

// internPoolSize bounds an intern pool: when it is full it starts afresh,
// so that values no cached object uses any more (an old configuration's
// section) are held for a while only.
const internPoolSize = 4096

// internPool hands out one shared copy of equal values, so that the many
// cached NodeSLOs that carry the same section hold one copy of it instead of
// one each. (Strings are interned with the standard library's unique
// package, see sloconfig.InternLabels; a section holds maps and slices, so
// it is not comparable and unique cannot serve.) Values given out must never be written
// to; the manager's cache hands out deep copies, so nothing does.
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
