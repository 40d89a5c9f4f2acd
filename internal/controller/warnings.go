package controller

import (
	"strings"
	"sync"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// warningMemory remembers, per node, the warnings last recorded as Events,
// so that they are recorded again only when they change.
type warningMemory struct {
	mu     sync.Mutex
	byNode map[string]string
}

// remember stores the node's current warnings and reports whether there
// are any and they differ from the ones stored before.
func (m *warningMemory) remember(node string, warnings []sloconfig.NodeWarning) bool {
	var b strings.Builder
	for _, w := range warnings {
		b.WriteString(w.Reason)
		b.WriteByte(0)
		b.WriteString(w.Message)
		b.WriteByte(0)
	}
	digest := b.String()

	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.byNode[node]
	if digest == "" {
		delete(m.byNode, node)
		return false
	}
	if m.byNode == nil {
		m.byNode = map[string]string{}
	}
	m.byNode[node] = digest
	return old != digest
}

// forget drops what is remembered of a node that is gone.
func (m *warningMemory) forget(node string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byNode, node)
}
