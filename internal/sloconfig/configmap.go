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

// HoldsAnyKey reports whether data holds at least one of Keys. A ConfigMap
// whose data holds none configures nothing: every node gets the defaults,
// as when it is deleted. The retired rollout key is not one of them: it
// decided when a change reaches a node, never what the node gets.
func HoldsAnyKey(data map[string]string) bool {
	for _, k := range Keys {
		if _, ok := data[string(k)]; ok {
			return true
		}
	}
	return false
}
