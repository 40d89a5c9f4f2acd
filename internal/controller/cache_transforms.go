package controller

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// keepNodeResolveInputs trims a Node before the manager's cache stores it
// to what the controller reads: name, UID and resourceVersion (for Events),
// the labels and the bandwidth annotation (for resolving; see
// docs/behaviour.md, "Triggers"). ManagedFields and the other annotations,
// which on a real node are larger than all of that, are dropped. Nodes are
// cached as metadata only, so there is no status to drop.
//
// It must stay in step with nodeInputsChanged, which compares the same two
// inputs, and with every read of a Node in this package.
func keepNodeResolveInputs(in any) (any, error) {
	obj, err := meta.Accessor(in)
	if err != nil {
		return in, nil //nolint:nilerr // not an object (a tombstone): nothing to trim
	}
	obj.SetManagedFields(nil)
	annotations := obj.GetAnnotations()
	bandwidth, ok := annotations[sloconfig.NetworkBandwidthAnnotation]
	switch {
	case !ok && annotations != nil:
		obj.SetAnnotations(nil)
	case ok && len(annotations) > 1:
		obj.SetAnnotations(map[string]string{sloconfig.NetworkBandwidthAnnotation: bandwidth})
	}
	return in, nil
}
