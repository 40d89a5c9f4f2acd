package rollout

import (
	"maps"
	"slices"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Gate is the set of pending nodes a staged rollout holds back
// (docs/rollout.md): the NodeSLO reconciler leaves their stored NodeSLO
// untouched. Each held node is held with the inputs it had when the
// decision was taken: a node whose inputs (sloconfig.Node.SameInputs)
// changed since, or whose NodeSLO was edited by hand (its generation
// moved), is no longer held, and is resolved against the new configuration
// at once. Every node not in the gate (a new node, a reached one) is
// written as without a rollout. A Gate is never written once published.
type Gate struct {
	held map[string]heldWith
}

// heldWith is what a node was held with: the hash of its inputs and its
// NodeSLO's generation (which moves on a hand edit of the spec, never on
// our own writes to a held node, as there are none).
type heldWith struct {
	inputs     uint64
	generation int64
}

func heldWithOf(node sloconfig.Node, generation int64) heldWith {
	return heldWith{inputs: node.InputsHash(), generation: generation}
}

// Holds reports whether node, with its NodeSLO at generation, keeps its
// stored NodeSLO.
func (g *Gate) Holds(node sloconfig.Node, generation int64) bool {
	if g == nil {
		return false
	}
	with, ok := g.held[node.Name]
	return ok && with == heldWithOf(node, generation)
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
func (g *Gate) changed(name string, now heldWith) bool {
	if g == nil {
		return false
	}
	old, ok := g.held[name]
	return ok && old != now
}
