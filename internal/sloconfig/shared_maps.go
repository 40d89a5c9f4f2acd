package sloconfig

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// sharedMapsSize bounds a SharedMaps: when it is full it starts afresh,
// so that maps no cached object uses any more are held for a while only.
const sharedMapsSize = 4096

// SharedMaps hands out one shared copy of equal string maps, so that the
// many cached Nodes and NodeSLOs that carry the same annotations hold one
// map of them instead of one each: a map of one entry costs about 100
// bytes, and a cluster's nodes carry a handful of distinct ones. Label
// strings have a table of their own, bounded per key (InternLabels). Maps
// handed out must never be written to. The zero value is ready to use.
type SharedMaps struct {
	mu     sync.Mutex
	shared map[string]map[string]string
}

// Share returns the shared map equal to m, making m that map if there is none.
func (s *SharedMaps) Share(m map[string]string) map[string]string {
	key := mapKey(m)
	s.mu.Lock()
	defer s.mu.Unlock()
	if shared, ok := s.shared[key]; ok {
		return shared
	}
	if s.shared == nil || len(s.shared) >= sharedMapsSize {
		s.shared = make(map[string]map[string]string, 64)
	}
	s.shared[key] = m
	return m
}

// mapKey is a string map as one comparable value.
func mapKey(m map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(m[k])
		b.WriteByte(0)
	}
	return b.String()
}
