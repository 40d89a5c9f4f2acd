package v1alpha1

import "k8s.io/apimachinery/pkg/runtime"

// ExtensionsMap carries settings of third-party plugins, keyed by plugin name.
//
// The wire form keeps the map under the key "Object"
// ({"Object": {"<plugin>": {...}}}): that is how Koordinator's agents decode
// it, so the field carries that JSON name explicitly.
type ExtensionsMap struct {
	// Object is always written, as {} when empty, since agents expect the key.
	Object map[string]any `json:"Object"`
}

// DeepCopyInto copies the map with runtime.DeepCopyJSONValue, since
// controller-gen cannot generate a copy for values of type any.
func (in *ExtensionsMap) DeepCopyInto(out *ExtensionsMap) {
	*out = *in
	if in.Object != nil {
		out.Object = runtime.DeepCopyJSON(in.Object)
	}
}

// DeepCopy returns a deep copy of the map.
func (in *ExtensionsMap) DeepCopy() *ExtensionsMap {
	if in == nil {
		return nil
	}
	out := new(ExtensionsMap)
	in.DeepCopyInto(out)
	return out
}
