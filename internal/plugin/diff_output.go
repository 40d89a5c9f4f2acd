package plugin

// DiffOutput is `diff -o json|yaml`: the file's verdict and, per node
// whose NodeSLO would change, the fields (docs/kubectl-nodeslo.md#machine-readable-output).
type DiffOutput struct {
	// Valid: every key of the file is valid, and it holds no retired
	// rollout key (which never is); Errors and Warnings are their
	// messages, each naming the key.
	Valid    bool     `json:"valid"`
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Nodes counts the nodes compared, of which Updated would have their
	// NodeSLO changed, Created get their first one, and Unchanged neither.
	Nodes     int `json:"nodes"`
	Updated   int `json:"updated"`
	Created   int `json:"created"`
	Unchanged int `json:"unchanged"`
	// Changes lists the nodes that would change, by name.
	Changes []NodeDiffOutput `json:"changes"`
}

// NodeDiffOutput is one node whose NodeSLO would change.
type NodeDiffOutput struct {
	Node string `json:"node"`
	// Created: the node has no NodeSLO yet; Fields is then empty.
	Created bool                `json:"created,omitempty"`
	Fields  []FieldChangeOutput `json:"fields,omitempty"`
}

// Output is the diff as -o prints it.
func (r DiffResult) Output() DiffOutput {
	out := DiffOutput{Valid: r.Valid(), Nodes: r.Nodes, Changes: []NodeDiffOutput{}}
	for _, rep := range r.Reports {
		out.Errors = append(out.Errors, rep.Messages()...)
		out.Warnings = append(out.Warnings, rep.WarningMessages()...)
	}
	out.Errors = append(out.Errors, r.Retired.Errors...)
	for _, n := range r.Changed {
		if n.Created {
			out.Created++
		} else {
			out.Updated++
		}
		out.Changes = append(out.Changes,
			NodeDiffOutput{Node: n.Node, Created: n.Created, Fields: fieldChangesOutput(n.Changes)})
	}
	out.Unchanged = r.Nodes - len(r.Changed)
	return out
}

// printable is the diff as -o prints it: its changes are the NodeSLOs that
// would change (or be created).
func (o DiffOutput) printable() printable {
	p := printable{value: o, rows: "changes"}
	for _, c := range o.Changes {
		p.names = append(p.names, objectName(nodeSLOKind, c.Node))
	}
	return p
}
