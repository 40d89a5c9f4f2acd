package rollout

import (
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The NodeSLO reconciler's choice for one node under the configuration
// published with its gate (docs/rollout-design.md#where-the-decision-runs):
// a pure function, so that the simulator (simulation_test.go) drives the
// very code the controller runs.

// StoredNode is what the NodeSLO reconciler read of a node's NodeSLO.
type StoredNode struct {
	// Exists: the node has a NodeSLO.
	Exists bool
	// Spec is its spec when read (nil: only its digest was read), Digest
	// the digest its annotation vouches for ("": none).
	Spec   *slov1alpha1.NodeSLOSpec
	Digest string
	// From is the short fingerprint its stamp names
	// (storedslo.ConfigurationAnnotation; "": none).
	From string
}

// NodeAction is what the NodeSLO reconciler does with a node's NodeSLO.
type NodeAction int

const (
	// NodeUpToDate: the NodeSLO holds what it should; nothing is written.
	NodeUpToDate NodeAction = iota
	// NodeHeld: the rollout holds the node on its stored NodeSLO.
	NodeHeld
	// NodeWrite: the NodeSLO is written with NodeChoice.Resolution.
	NodeWrite
)

// NodeChoice is the reconciler's choice for one node: the action, and what
// the node resolves to (its spec, warnings and stored form) under the
// configuration that applies to it.
type NodeChoice struct {
	Action     NodeAction
	Resolution sloconfig.Resolution
	Want       sloconfig.StoredForm
	// From is the configuration Resolution comes from: a write stamps it on
	// the NodeSLO (storedslo.ConfigurationAnnotation), so that the one in
	// force for a held node is known after a restart (baseOf).
	From *sloconfig.Config
}

// ChooseNode decides what the NodeSLO of node, stored as it is, should
// hold under cfg (whose fields dropped the installed CRD drops) and the
// rollout's gate published with it (nil: none). A node the gate holds
// stays on the configuration in force for it (docs/rollout.md#behaviour):
// its NodeSLO is left alone while it holds what that configuration
// resolves for the node now, and written with that otherwise (its labels
// or bandwidth annotation changed what it resolves to, or its NodeSLO was
// edited by hand); a label no selector reads changes nothing. A held node
// whose configuration in force is not known keeps its NodeSLO as it is. A
// node the gate restamps that holds what cfg resolves is written all the
// same, once, for its stamps to name cfg (Gate.restamp).
func ChooseNode(
	cfg *sloconfig.Config, dropped []string, gate *Gate, node sloconfig.Node, stored StoredNode,
) NodeChoice {
	res := cfg.Resolve(node, stored.Spec)
	want := cfg.StoredFormOf(&res, dropped)
	if stored.Exists && want.HeldBy(stored.Digest, stored.Spec) {
		if gate.restamps(node.Name) && stored.From != ShortTarget(cfg.Fingerprint()) {
			// Reached without a write: the stamps alone record it (Gate.restamp).
			return NodeChoice{Action: NodeWrite, Resolution: res, Want: want, From: cfg}
		}
		return NodeChoice{Action: NodeUpToDate, Resolution: res, Want: want, From: cfg}
	}
	with, held := gate.heldWith(node.Name)
	base := with.base
	switch {
	case !stored.Exists || !held:
		return NodeChoice{Action: NodeWrite, Resolution: res, Want: want, From: cfg}
	case base == nil:
		return NodeChoice{Action: NodeHeld, Resolution: res, Want: want, From: cfg}
	}
	res = base.Resolve(node, stored.Spec)
	want = base.StoredFormOf(&res, dropped)
	if want.HeldBy(stored.Digest, stored.Spec) {
		return NodeChoice{Action: NodeHeld, Resolution: res, Want: want, From: base}
	}
	// Stamped with base even when target resolves alike for the node: it
	// stays held (Memory.stillHeld), and after a restart its stamp is how
	// the plan knows (heldSince).
	return NodeChoice{Action: NodeWrite, Resolution: res, Want: want, From: base}
}
