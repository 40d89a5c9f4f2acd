package plugin

import (
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// ExplanationList is `explain -o json|yaml`: one item per node explained,
// by name, even for one node, so that a script reads one shape.
type ExplanationList struct {
	Items []ExplanationOutput `json:"items"`
}

// ExplanationOutput is one node's Explanation as -o prints it.
type ExplanationOutput struct {
	Node            string `json:"node"`
	ConfigMap       string `json:"configMap"`
	ConfigMapExists bool   `json:"configMapExists"`
	// Keys has one entry per ConfigMap key the controller reads.
	Keys         []KeyExplanation    `json:"keys"`
	NodeWarnings []NodeWarningOutput `json:"nodeWarnings,omitempty"`
	// BandwidthAnnotation and Bandwidth: the node's network-bandwidth
	// annotation and the totalNetworkBandwidth resolved with it.
	BandwidthAnnotation string       `json:"bandwidthAnnotation,omitempty"`
	Bandwidth           string       `json:"bandwidth,omitempty"`
	NodeSLO             NodeSLOState `json:"nodeSLO"`
	CRD                 CRDCheck     `json:"crd"`
}

// KeyExplanation is one key: whether it is valid, and what applies to the node.
type KeyExplanation struct {
	KeyValidity
	Applied
}

// KeyValidity is a key of the ConfigMap as -o prints it, in explain and
// summary: whether it is valid, and its messages, each naming the key.
type KeyValidity struct {
	Key string `json:"key"`
	// Validity is "absent", "valid" or "invalid".
	Validity string   `json:"validity"`
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Applied is what of a key applies to a node, as -o prints it in explain
// and summary.
type Applied struct {
	// Applies is "defaults", "clusterStrategy", "nodeStrategy" (Strategy
	// and Index name it) or "kept" (the value in force stays: the key is
	// invalid).
	Applies  string `json:"applies"`
	Strategy string `json:"strategy,omitempty"`
	Index    *int   `json:"index,omitempty"`
}

// NodeWarningOutput is a warning about the node, with its Event reason.
type NodeWarningOutput struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// NodeSLOState says whether the node's NodeSLO exists and is up to date.
type NodeSLOState struct {
	Found    bool `json:"found"`
	UpToDate bool `json:"upToDate"`
	// DifferingSections are the spec's top-level fields that differ.
	DifferingSections []string `json:"differingSections,omitempty"`
	// Revision is the newest revision the NodeSLO matches (0: none kept,
	// or the history could not be read); RevisionInForce the newest kept.
	Revision        int64 `json:"revision,omitempty"`
	RevisionInForce int64 `json:"revisionInForce,omitempty"`
}

// CRDCheck is the check of the configured values against the installed CRD.
type CRDCheck struct {
	Checked bool `json:"checked"`
	// Problem says why it could not be made.
	Problem string         `json:"problem,omitempty"`
	Dropped []DroppedValue `json:"dropped,omitempty"`
}

// Output is the explanation as -o prints it.
func (e Explanation) Output() ExplanationOutput {
	out := ExplanationOutput{
		Node: e.Node, ConfigMap: e.ConfigMapRef, ConfigMapExists: e.ConfigMapSet,
		BandwidthAnnotation: e.BandwidthAnnotation, Bandwidth: e.Bandwidth,
		NodeSLO: NodeSLOState{Found: e.NodeSLOFound, UpToDate: e.InSync(), DifferingSections: e.DifferingSections,
			Revision: e.Revision},
		CRD: CRDCheck{Checked: e.CRDChecked, Problem: e.CRDCheckProblem, Dropped: e.DroppedByCRD},
	}
	if e.History != nil {
		if r := e.History.InForce(); r != nil {
			out.NodeSLO.RevisionInForce = r.Number
		}
	}
	for i, report := range e.Reports {
		out.Keys = append(out.Keys, KeyExplanation{KeyValidity: keyValidityOf(report), Applied: appliedOf(e.matchAt(i))})
	}
	for _, w := range e.NodeWarnings {
		out.NodeWarnings = append(out.NodeWarnings, NodeWarningOutput{Reason: w.Reason, Message: w.Message})
	}
	return out
}

// A key's validity as -o names it.
const (
	validityAbsent  = "absent"
	validityValid   = "valid"
	validityInvalid = "invalid"
)

// keyValidityOf is a key's report as -o prints it.
func keyValidityOf(r sloconfig.SectionReport) KeyValidity {
	k := KeyValidity{Key: string(r.Key), Validity: validityValid, Errors: r.Messages(), Warnings: r.WarningMessages()}
	switch {
	case r.State == sloconfig.StateDefault:
		k.Validity = validityAbsent
	case !r.Valid():
		k.Validity = validityInvalid
	}
	return k
}

// appliedOf names what applies to a node as -o does (Applied.Applies).
func appliedOf(m *sloconfig.SectionMatch) Applied {
	switch {
	case m == nil:
		return Applied{Applies: "unknown"}
	case m.State == sloconfig.StateFrozen || m.State == sloconfig.StateLastGood:
		return Applied{Applies: "kept"}
	case m.State == sloconfig.StateDefault:
		return Applied{Applies: "defaults"}
	case m.Index < 0:
		return Applied{Applies: "clusterStrategy"}
	}
	i := m.Index
	return Applied{Applies: "nodeStrategy", Strategy: m.Strategy, Index: &i}
}

// printable is the list as -o prints it: its items are the nodes explained.
func (l ExplanationList) printable() printable {
	p := printable{value: l, rows: listItems}
	for _, e := range l.Items {
		p.names = append(p.names, objectName(nodeKind, e.Node))
	}
	return p
}
