package rollout

import (
	"maps"
	"slices"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Gate is the set of pending nodes a staged rollout holds back
// (docs/rollout.md#behaviour), each with the configuration in force for
// it: the one its stored NodeSLO was resolved from, before the rollout
// (or before the halted one). A held node keeps that configuration
// whatever happens to it: when its inputs change, or its NodeSLO is edited
// by hand, it is resolved against that configuration again, with its
// inputs as they are (ChooseNode), never against the one rolled out. Every
// node not in the gate (a new node, a reached one) is written as without a
// rollout. A Gate is never written once published.
type Gate struct {
	held map[string]heldWith
	// restamp are nodes not held whose NodeSLO already holds what the
	// target resolves for them but names the configuration a gate held
	// them with: a step reached them without a write. ChooseNode writes
	// each once with the target's stamps, so that the reach is in the
	// cluster and a plan after a restart does not hold them again
	// (heldSince).
	restamp map[string]bool
}

// heldWith is what a node is held with: base, the configuration in force
// for it (nil: none of those known resolves to its stored NodeSLO; it is
// then kept as it is).
type heldWith struct {
	base *sloconfig.Config
}

// Has reports whether the gate holds the node by name, whatever its inputs.
func (g *Gate) Has(name string) bool {
	_, ok := g.heldWith(name)
	return ok
}

// restamps reports whether the node by name is to be written with the
// target's stamps although its NodeSLO holds what the target resolves.
func (g *Gate) restamps(name string) bool { return g != nil && g.restamp[name] }

// heldWith is what the gate holds name with; ok is false when it does not.
func (g *Gate) heldWith(name string) (with heldWith, ok bool) {
	if g == nil {
		return heldWith{}, false
	}
	with, ok = g.held[name]
	return with, ok
}

// Len is the number of nodes held.
func (g *Gate) Len() int {
	if g == nil {
		return 0
	}
	return len(g.held)
}

// Bases returns the fingerprints of the configurations in force for the
// nodes held, each once (InForce.Held).
func (g *Gate) Bases() []string {
	if g == nil {
		return nil
	}
	var out []string
	for _, with := range g.held {
		if with.base != nil && !slices.Contains(out, with.base.Fingerprint()) {
			out = append(out, with.base.Fingerprint())
		}
	}
	slices.Sort(out)
	return out
}

// notHolding is the set of names that g does not hold, for
// Gate.restamp.
func (g *Gate) notHolding(names []string) map[string]bool {
	out := map[string]bool{}
	for _, name := range names {
		if !g.Has(name) {
			out[name] = true
		}
	}
	return out
}

// Restamped returns the nodes to write with the target's stamps alone
// (Gate.restamp), sorted: the NodeSLO controller is asked to reconcile
// them as it is the nodes a plan releases.
func (g *Gate) Restamped() []string {
	if g == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(g.restamp))
}

// names returns the nodes held.
func (g *Gate) names() []string {
	if g == nil {
		return nil
	}
	return slices.Collect(maps.Keys(g.held))
}

// heldWithOf is what o would be held with, its base found when it is
// first held: the target of the last plan (m) if that plan had it in
// force for the node and it resolves to the stored NodeSLO (a node done by
// the last rollout, whose NodeSLO stamp names the configuration before
// it), else by baseOf among before (the configurations in force before
// the target, newest first; numbers, their revisions' numbers). A node the
// last plan held keeps the base found then, whatever its inputs and
// NodeSLO show now: a decision may see its new labels before the NodeSLO
// reconciler rewrote it (or, a moment after the write, the NodeSLO as it
// was), and what is stored then may resolve alike under another
// configuration, which would keep the node on the spec of its old labels
// for good. A base not known then (the history not yet listed after a
// restart) is looked for again.
func heldWithOf(o Observed, before []*sloconfig.Config, numbers map[string]int64, dropped []string, m Memory) heldWith {
	if old, ok := m.gate.heldWith(o.Node.Name); ok && old.base != nil {
		return old
	}
	if done := m.inForceFor(o.Node.Name); done != nil && !o.differs(done, dropped) {
		return heldWith{base: done}
	}
	return heldWith{base: baseOf(o, before, numbers, dropped)}
}
