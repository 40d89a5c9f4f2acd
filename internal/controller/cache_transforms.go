package controller

import (
	"encoding/json"
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
// which on a real node are larger than all of that, are dropped. Nodes are
// cached as metadata only, so there is no status to drop.
func keepNodeResolveInputs() toolscache.TransformFunc {
	return func(in any) (any, error) {
		obj, err := meta.Accessor(in)
		if err != nil {
			return in, nil //nolint:nilerr // not an object (a tombstone): nothing to trim
		}
		obj.SetManagedFields(nil)
		sloconfig.TrimToInputs(obj)
		return in, nil
	}
}

// shareNodeSLOSections returns the NodeSLO cache's transform. The controller
// reads all of a NodeSLO but its managedFields, which go. Its spec's sections
// are interned: most nodes share a handful of distinct sections, so the cache
// holds one decoded copy of each instead of one per node. Sections are
// equal when their JSON is; reads from the cache are deep copies, so no
// reconcile writes into a shared section. Its annotations are shared the
// same way: most hold only the time of the controller's write
// (docs/behaviour.md#one-nodeslo-reconcile), the same for the nodes of one
// step, and a map of one entry costs about 300 bytes a node.
func shareNodeSLOSections() toolscache.TransformFunc {
	var (
		thresholds internPool[string, *slov1alpha1.ResourceThresholdStrategy]
		qos        internPool[string, *slov1alpha1.ResourceQOSStrategy]
		bursts     internPool[string, *slov1alpha1.CPUBurstStrategy]
		systems    internPool[string, *slov1alpha1.SystemStrategy]
		extensions internPool[string, *slov1alpha1.ExtensionsMap]
		hostApps   internPool[string, []slov1alpha1.HostApplicationSpec]
		annots     internPool[string, map[string]string]
	)
	return func(in any) (any, error) {
		slo, ok := in.(*slov1alpha1.NodeSLO)
		if !ok {
			return in, nil // a tombstone
		}
		slo.ManagedFields = nil
		shareTypeMeta(&slo.TypeMeta)
		if len(slo.Annotations) > 0 {
			slo.Annotations = annots.intern(annotationsKey(slo.Annotations), slo.Annotations)
		}
		s := &slo.Spec
		s.ResourceUsedThresholdWithBE = internSection(&thresholds, s.ResourceUsedThresholdWithBE)
		s.ResourceQOSStrategy = internSection(&qos, s.ResourceQOSStrategy)
		s.CPUBurstStrategy = internSection(&bursts, s.CPUBurstStrategy)
		s.SystemStrategy = internSection(&systems, s.SystemStrategy)
		s.Extensions = internSection(&extensions, s.Extensions)
		if s.HostApplications != nil {
			s.HostApplications = internSection(&hostApps, s.HostApplications)
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

// internSection returns the shared copy of section, keyed by its JSON.
func internSection[V any](pool *internPool[string, V], section V) V {
	key, err := json.Marshal(section)
	if err != nil {
		return section
	}
	return pool.intern(string(key), section)
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
