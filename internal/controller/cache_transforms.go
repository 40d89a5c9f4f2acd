package controller

import (
	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// keepNodeResolveInputs returns the Node cache's transform. It trims a Node
// to what the controller reads: name, UID and resourceVersion (for Events)
// and what the node contributes to its NodeSLO (sloconfig.TrimToInputs,
// which also interns the labels). ManagedFields and the other annotations,
// which on a real node are larger than all of that, are dropped; what is
// left of them (the bandwidth annotation, of a few values cluster-wide) is
// one shared map per value, as a map of one entry costs about 100 bytes a
// node. Nodes are cached as metadata only, so there is no status to drop.
func keepNodeResolveInputs() toolscache.TransformFunc {
	var annotations sloconfig.SharedMaps
	return func(in any) (any, error) {
		obj, err := meta.Accessor(in)
		if err != nil {
			return in, nil //nolint:nilerr // not an object (a tombstone): nothing to trim
		}
		obj.SetManagedFields(nil)
		sloconfig.TrimToInputs(obj)
		if kept := obj.GetAnnotations(); len(kept) > 0 {
			obj.SetAnnotations(annotations.Share(kept))
		}
		return in, nil
	}
}
