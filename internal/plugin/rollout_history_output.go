package plugin

import (
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// HistoryOutput is `rollout history -o json|yaml`: the revisions kept,
// oldest first (docs/kubectl-nodeslo.md#machine-readable-output).
type HistoryOutput struct {
	ConfigMap string           `json:"configMap"`
	Revisions []RevisionOutput `json:"revisions"`
}

// RevisionOutput is one revision, as the listing shows it.
type RevisionOutput struct {
	Revision int64     `json:"revision"`
	Created  time.Time `json:"created"`
	// Configuration is the configuration's fingerprint, as rollout status
	// names it (its first 12 characters).
	Configuration string `json:"configuration"`
	ChangedBy     string `json:"changedBy,omitempty"`
	ChangeCause   string `json:"changeCause,omitempty"`
	// KeysChanged are the keys changed from the revision before (absent
	// for the first kept).
	KeysChanged []string `json:"keysChanged,omitempty"`
	// Reached counts the nodes the rollout reached (absent: all at once).
	Reached *int   `json:"reached,omitempty"`
	Outcome string `json:"outcome"`
	InForce bool   `json:"inForce"`
}

// RevisionDetailOutput is `rollout history --revision N -o json|yaml`:
// the revision, its data, and what putting it back would change from the
// configuration in force.
type RevisionDetailOutput struct {
	ConfigMap string `json:"configMap"`
	RevisionOutput
	ConfigMapResourceVersion string            `json:"configMapResourceVersion,omitempty"`
	Data                     map[string]string `json:"data"`
	// ChangesFromInForce: the fields, per key, that putting it back would
	// change (empty when it is the configuration in force).
	ChangesFromInForce []FieldChangeOutput `json:"changesFromInForce"`
}

// Output is the history as -o prints it.
func (h History) Output() HistoryOutput {
	out := HistoryOutput{ConfigMap: h.ConfigMap.String(), Revisions: []RevisionOutput{}}
	for i := range h.Revisions {
		out.Revisions = append(out.Revisions, h.revisionOutput(i))
	}
	return out
}

func (h History) revisionOutput(i int) RevisionOutput {
	r := h.Revisions[i]
	o := RevisionOutput{Revision: r.Number, Created: r.Created.UTC(), Configuration: rollout.ShortTarget(r.Fingerprint),
		ChangedBy: r.ChangedBy, ChangeCause: r.ChangeCause, Outcome: string(r.Outcome), InForce: i == len(h.Revisions)-1}
	if i > 0 {
		o.KeysChanged = rollout.ChangedKeys(h.Revisions[i-1].Data, r.Data)
	}
	if r.Reached >= 0 {
		reached := r.Reached
		o.Reached = &reached
	}
	return o
}

// RevisionOutput is revision r (one of h's) as -o prints it.
func (h History) RevisionOutput(r rollout.Revision) RevisionDetailOutput {
	out := RevisionDetailOutput{ConfigMap: h.ConfigMap.String(), ConfigMapResourceVersion: r.ConfigMapVersion,
		Data: r.Data, ChangesFromInForce: []FieldChangeOutput{}}
	for i := range h.Revisions {
		if h.Revisions[i].Number == r.Number {
			out.RevisionOutput = h.revisionOutput(i)
		}
	}
	if now := h.InForce(); now != nil && now.Number != r.Number && now.Fingerprint != r.Fingerprint {
		out.ChangesFromInForce = fieldChangesOutput(DataChanges(now.Data, r.Data))
	}
	return out
}

// printable is the history as -o prints it: its revisions are the
// ControllerRevisions the controller keeps.
func (h History) printable() printable {
	p := printable{value: h.Output(), rows: "revisions"}
	for _, r := range h.Revisions {
		p.names = append(p.names, objectName(controllerRevisionKind, r.Name))
	}
	return p
}

// revisionPrintable is revision r (one of h's) as -o prints it.
func (h History) revisionPrintable(r rollout.Revision) printable {
	return printable{value: h.RevisionOutput(r), names: []string{objectName(controllerRevisionKind, r.Name)}}
}
