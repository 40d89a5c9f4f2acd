package controller

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
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
	var annotations internPool[string, map[string]string]
	return func(in any) (any, error) {
		obj, err := meta.Accessor(in)
		if err != nil {
			return in, nil //nolint:nilerr // not an object (a tombstone): nothing to trim
		}
		obj.SetManagedFields(nil)
		sloconfig.TrimToInputs(obj)
		if kept := obj.GetAnnotations(); len(kept) > 0 {
			obj.SetAnnotations(annotations.intern(annotationsKey(kept), kept))
		}
		return in, nil
	}
}

// shareNodeSLOMetadata returns the NodeSLO cache's transform. NodeSLOs are
// cached as metadata only (docs/behaviour.md#what-the-controller-caches);
// of that the controller reads all but managedFields, which go. The
// annotations are shared: most hold only the time of the controller's write
// (the same for the nodes of one step) and the digest of the spec written
// (the same for the nodes of one strategy), and a map costs about 300 bytes
// a node. Reads from the cache are deep copies, so nothing writes into a
// shared map.
func shareNodeSLOMetadata() toolscache.TransformFunc {
	var annotations internPool[string, map[string]string]
	return func(in any) (any, error) {
		slo, ok := in.(*metav1.PartialObjectMetadata)
		if !ok {
			return in, nil // a tombstone
		}
		slo.ManagedFields = nil
		shareTypeMeta(&slo.TypeMeta)
		if len(slo.Annotations) > 0 {
			slo.Annotations = annotations.intern(annotationsKey(slo.Annotations), slo.Annotations)
		}
		return in, nil
	}
}

// nodeSLOAPIVersion and nodeSLOKind are the one copy of the TypeMeta strings
// every cached NodeSLO points to.
var (
	nodeSLOAPIVersion = slov1alpha1.GroupVersion.String()
	nodeSLOKind       = "NodeSLO"
)

// shareTypeMeta points a decoded NodeSLO's apiVersion and kind at one shared
// copy: the decoder allocates both strings for every object, about 40 bytes
// a node in the cache.
func shareTypeMeta(t *metav1.TypeMeta) {
	if t.APIVersion == nodeSLOAPIVersion {
		t.APIVersion = nodeSLOAPIVersion
	}
	if t.Kind == nodeSLOKind {
		t.Kind = nodeSLOKind
	}
}

// annotationsKey is a map of annotations as one comparable value.
func annotationsKey(annotations map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(annotations[k])
		b.WriteByte(0)
	}
	return b.String()
}
