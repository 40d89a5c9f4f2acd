package sloconfig

// Where the configuration lives by default: Koordinator's namespace and
// name, so that an existing ConfigMap is found without a flag. The
// controller's flags and the kubectl plugin both default to these.
const (
	DefaultConfigMapNamespace = "koordinator-system"
	DefaultConfigMapName      = "slo-controller-config"
)

// AllowDeleteAnnotation, set to "true" on the ConfigMap, lets the admission
// webhook admit its deletion, which resets every node to the defaults
// (docs/behaviour.md, "Deleting the ConfigMap").
const AllowDeleteAnnotation = "nodeslo.koordinator.sh/allow-delete"
