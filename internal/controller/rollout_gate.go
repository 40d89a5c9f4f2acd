package controller

import (
	"hash/fnv"
	"maps"
	"slices"
	"strconv"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Gate is the set of pending nodes a staged rollout holds back
// (docs/rollout.md): the NodeSLO reconciler leaves their stored NodeSLO
// untouched. Each held node is held with the inputs it had when the
// decision was taken: a node whose labels or bandwidth annotation changed
// since, or whose NodeSLO was edited by hand (its generation moved), is no
// longer held, and is resolved against the new configuration at once.
// Every node not in the gate (a new node, a reached one) is written as
// without a rollout. A Gate is never written once published.
type Gate struct {
	held map[string]uint64
}

// Holds reports whether the node, with these inputs, keeps its stored NodeSLO.
func (g *Gate) Holds(name string, labels, annotations map[string]string, generation int64) bool {
	if g == nil {
		return false
	}
	key, ok := g.held[name]
	return ok && key == nodeInputs(labels, annotations, generation)
}

// Has reports whether the gate holds the node by name, whatever its inputs.
func (g *Gate) Has(name string) bool {
	if g == nil {
		return false
	}
	_, ok := g.held[name]
	return ok
}

// Len is the number of nodes held.
func (g *Gate) Len() int {
	if g == nil {
		return 0
	}
	return len(g.held)
}

// names returns the nodes held.
func (g *Gate) names() []string {
	if g == nil {
		return nil
	}
	return slices.Collect(maps.Keys(g.held))
}

// changed reports whether a node this gate holds now has different inputs:
// the next decision treats it as Immediate.
func (g *Gate) changed(name string, key uint64) bool {
	if g == nil {
		return false
	}
	old, ok := g.held[name]
	return ok && old != key
}

// nodeInputs hashes what, besides the configuration, decides a node's spec
// (its labels and bandwidth annotation) and its NodeSLO's generation (which
// moves on a hand edit of the spec, never on our own writes to a held node,
// as there are none).
func nodeInputs(labels, annotations map[string]string, generation int64) uint64 {
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		_, _ = h.Write([]byte(k + "\x00" + labels[k] + "\x00"))
	}
	bw, set := annotations[sloconfig.NetworkBandwidthAnnotation]
	_, _ = h.Write([]byte("\x01" + strconv.FormatBool(set) + bw + "\x01" + strconv.FormatInt(generation, 10)))
	return h.Sum64()
}
