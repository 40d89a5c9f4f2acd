package plugin

import (
	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// RolloutStatusOutput is `rollout status -o json|yaml`, printed once, when
// the wait ends (docs/kubectl-nodeslo.md#machine-readable-output).
type RolloutStatusOutput struct {
	ConfigMap       string `json:"configMap"`
	ConfigMapExists bool   `json:"configMapExists"`
	// ConfigMapResourceVersion is the ConfigMap's resourceVersion as read
	// (absent: it does not exist).
	ConfigMapResourceVersion string `json:"configMapResourceVersion,omitempty"`
	// Configuration is the fingerprint of the ConfigMap's data as the
	// controller decided on it (its first 12 characters, as the text names
	// it): the configuration in force, or the data withheld; "" while the
	// controller has not taken the ConfigMap up.
	Configuration string `json:"configuration"`
	// RevisionInForce is the number of the revision in force, as the
	// status says (0: none yet).
	RevisionInForce int64 `json:"revisionInForce,omitempty"`
	// NodeSLORolloutExists says whether the NodeSLORollout exists;
	// Generation is its metadata.generation, ObservedGeneration and
	// ObservedConfigMapVersion what its status was decided on.
	NodeSLORolloutExists     bool   `json:"nodeSLORolloutExists"`
	Generation               int64  `json:"generation,omitempty"`
	ObservedGeneration       int64  `json:"observedGeneration,omitempty"`
	ObservedConfigMapVersion string `json:"observedConfigMapVersion,omitempty"`
	// TakenUp: the status was decided on the ConfigMap and the spec as
	// they stand; Done: its rollout completed (or went to every node at
	// once); Halted: the health gate holds it, or withholds the data.
	TakenUp bool `json:"takenUp"`
	Done    bool `json:"done"`
	Halted  bool `json:"halted"`
	// RolloutKeyErrors are the errors of spec.strategy as written now (the
	// name is from when the policy was the retired rollout key).
	RolloutKeyErrors []string `json:"rolloutKeyErrors,omitempty"`
	// Status is the controller's status on the NodeSLORollout as it is
	// (absent: none yet).
	Status *nodeslov1alpha1.NodeSLORolloutStatus `json:"status,omitempty"`
}

// Output is the status as -o prints it.
func (s RolloutStatus) Output() RolloutStatusOutput {
	out := RolloutStatusOutput{ConfigMap: s.ConfigMap.String(), ConfigMapExists: s.Exists,
		ConfigMapResourceVersion: s.ResourceVersion, Configuration: rollout.ShortTarget(s.Configuration()),
		RevisionInForce: s.Revision(), TakenUp: s.TakenUp(), Done: s.Done(), Halted: s.HaltedByTheGate(),
		RolloutKeyErrors: s.Key.Messages(), Status: s.Status}
	if o := s.Object; o != nil {
		out.NodeSLORolloutExists, out.Generation = true, o.Generation
		out.ObservedGeneration, out.ObservedConfigMapVersion = o.Status.ObservedGeneration, o.Status.ObservedConfigMapVersion
	}
	return out
}

// printable is the status as -o prints it: the status of the NodeSLORollout.
func (s RolloutStatus) printable() printable {
	return printable{value: s.Output(), names: []string{objectName(nodeSLORolloutKind, s.ConfigMap.Name)}}
}
