package manager

import (
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/controller"
)

// cacheOptions keep the cache to what the controllers read: the per-kind
// restrictions and trims of controller.Options.CacheByObject, no
// managedFields on anything (nothing reads them, and on a Node they are
// larger than everything the controller reads), and no namespace index
// where there are no namespaces (newInformer). Writes stay correct without
// managedFields: an update that carries none leaves the stored ones as
// they are.
//
// make bench measures the effect: heap per node above an empty manager.
func cacheOptions(c controller.Options) cache.Options {
	return cache.Options{
		ByObject:         c.CacheByObject(),
		DefaultTransform: cache.TransformStripManagedFields(),
		NewInformer:      newInformer,
	}
}

// nodeKind is the Node's group and kind: with nodeSLOKind, the kinds of
// the fleet the cache holds, one object per node, neither with a namespace.
var nodeKind = schema.GroupKind{Group: corev1.GroupName, Kind: "Node"}

// newInformer is client-go's informer, without the namespace index that
// controller-runtime asks of every informer when the kind has no
// namespace: there it files every object under the one key "", an entry
// per object (about 50 bytes a node for each of the Node and NodeSLO
// caches) that nothing reads, as the controllers list these kinds whole.
// A List of them by namespace fails instead of answering from the index.
func newInformer(
	lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers,
) toolscache.SharedIndexInformer {
	if kind := groupKindOf(obj); kind == nodeKind || kind == nodeSLOKind {
		indexers = maps.Clone(indexers)
		delete(indexers, toolscache.NamespaceIndex)
	}
	return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
}

// groupKindOf is the kind of the object an informer is asked for: the
// kind a metadata-only object carries, or the type of a typed one.
func groupKindOf(obj runtime.Object) schema.GroupKind {
	switch obj.(type) {
	case *metav1.PartialObjectMetadata:
		return obj.GetObjectKind().GroupVersionKind().GroupKind()
	case *corev1.Node:
		return nodeKind
	case *slov1alpha1.NodeSLO:
		return nodeSLOKind
	}
	return schema.GroupKind{}
}
