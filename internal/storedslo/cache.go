package storedslo

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// apiVersion and kind are the one copy of the TypeMeta strings every
// cached NodeSLO points to.
var (
	apiVersion = slov1alpha1.GroupVersion.String()
	kind       = "NodeSLO"
)

// CacheTransform returns the NodeSLO cache's transform. NodeSLOs are
// cached as metadata only; of that the controller reads all but
// managedFields, which go. The annotations are shared: most hold only the
// time of the controller's write (the same for the nodes written in one
// second under one decision, writtenAt) and the digest of the spec written
// (the same for the nodes of one strategy), and a map costs about 300
// bytes a node. Reads from the cache are deep
// copies, so nothing writes into a shared map.
func CacheTransform() toolscache.TransformFunc {
	var annotations sloconfig.SharedMaps
	return func(in any) (any, error) {
		slo, ok := in.(*metav1.PartialObjectMetadata)
		if !ok {
			return in, nil // a tombstone
		}
		slo.ManagedFields = nil
		shareTypeMeta(&slo.TypeMeta)
		if len(slo.Annotations) > 0 {
			slo.Annotations = annotations.Share(slo.Annotations)
		}
		return in, nil
	}
}

// shareTypeMeta points a decoded NodeSLO's apiVersion and kind at one shared
// copy: the decoder allocates both strings for every object, about 40 bytes
// a node in the cache.
func shareTypeMeta(t *metav1.TypeMeta) {
	if t.APIVersion == apiVersion {
		t.APIVersion = apiVersion
	}
	if t.Kind == kind {
		t.Kind = kind
	}
}
