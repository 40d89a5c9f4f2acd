package plugin

import (
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// RolloutStatusOutput is `rollout status -o json|yaml`, printed once, when
// the wait ends (docs/kubectl-nodeslo.md#machine-readable-output).
type RolloutStatusOutput struct {
	ConfigMap       string `json:"configMap"`
	ConfigMapExists bool   `json:"configMapExists"`
	// Configuration is the fingerprint of the ConfigMap's data as the
	// controller loads it (its first 12 characters, as the text names it).
	Configuration string `json:"configuration"`
	// RevisionInForce is the number of the newest revision (0: none yet).
	RevisionInForce int64 `json:"revisionInForce,omitempty"`
	// TakenUp: the status is about the ConfigMap's data; Done: its rollout
	// completed (or went to every node at once); Halted: the health gate
	// holds it, or withholds the data.
	TakenUp bool `json:"takenUp"`
	Done    bool `json:"done"`
	Halted  bool `json:"halted"`
	// RolloutKeyErrors are the errors of nodeslo-rollout-config as written now.
	RolloutKeyErrors []string `json:"rolloutKeyErrors,omitempty"`
	// Status is the controller's status on the revision in force, as it
	// publishes it in the annotation nodeslo.koordinator.sh/rollout-status
	// (absent: none yet).
	Status *rollout.Status `json:"status,omitempty"`
}

// Output is the status as -o prints it.
func (s RolloutStatus) Output() RolloutStatusOutput {
	out := RolloutStatusOutput{ConfigMap: s.ConfigMap.String(), ConfigMapExists: s.Exists,
		Configuration: rollout.ShortTarget(s.Fingerprint), TakenUp: s.TakenUp(), Done: s.Done(),
		Halted: s.HaltedByTheGate(), RolloutKeyErrors: s.Key.Messages(), Status: s.Status}
	if s.InForce != nil {
		out.RevisionInForce = s.InForce.Number
	}
	return out
}
