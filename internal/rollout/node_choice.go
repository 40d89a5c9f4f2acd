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
	// the digest its annotation vouches for ("": none), Generation its
	// metadata.generation.
	Spec       *slov1alpha1.NodeSLOSpec
	Digest     string
	Generation int64
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
// the node resolves to (its spec, warnings and stored form).
type NodeChoice struct {
	Action     NodeAction
	Resolution sloconfig.Resolution
	Want       sloconfig.StoredForm
}

// ChooseNode decides what the NodeSLO of node, stored as it is, should
// hold under cfg (whose fields dropped the installed CRD drops) and the
// rollout's gate published with it (nil: none).
func ChooseNode(
	cfg *sloconfig.Config, dropped []string, gate *Gate, node sloconfig.Node, stored StoredNode,
) NodeChoice {
	res := cfg.Resolve(node, stored.Spec)
	want := cfg.StoredFormOf(&res, dropped)
	switch {
	case stored.Exists && want.HeldBy(stored.Digest, stored.Spec):
		return NodeChoice{Action: NodeUpToDate, Resolution: res, Want: want}
	case stored.Exists && gate.Holds(node, stored.Generation):
		return NodeChoice{Action: NodeHeld, Resolution: res, Want: want}
	}
	return NodeChoice{Action: NodeWrite, Resolution: res, Want: want}
}
