package controller

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The NodeSLO CRD's metadata is watched, by its name, so that a CRD
// replaced under a running manager (a downgrade to Koordinator's, which
// drops memoryQOS.pageCache*; an upgrade) is dry-run again at once
// instead of when the configuration next changes or, for an upgrade, at
// the next recheck (docs/behaviour.md#crd-version-skew). Its metadata
// only: the CRD's schema is large, and its generation says that it changed.
//
// The cache lists and watches it with a metadata.name field selector,
// which the apiserver authorises against resourceNames, so no other CRD is
// in reach.
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=nodeslos.slo.koordinator.sh,verbs=list;watch

// nodeSLOCRD is the NodeSLO CRD as the cache and the watch name it: its
// metadata only.
func nodeSLOCRD() *metav1.PartialObjectMetadata {
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(schema.GroupVersionKind{
		Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition",
	})
	return obj
}

// crdCacheEntry restricts the cache's CRD informer to the NodeSLO CRD
// (the entry applies to the metadata informer, as the cache picks entries
// by kind).
func crdCacheEntry() (client.Object, cache.ByObject) {
	return nodeSLOCRD(), cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", sloconfig.NodeSLOCRDName)}
}

// watchesNodeSLOCRD has the rollout controller woken, with a dry run of
// the configuration due, when the NodeSLO CRD is created, deleted or its
// spec (its schema) changes: a metadata-only update (labels, annotations,
// the status the apiserver keeps) leaves the generation as it was and
// wakes nothing.
func (r *NodeSLORolloutReconciler) watchesNodeSLOCRD(b *builder.Builder) *builder.Builder {
	changed := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		r.skew.crdChanged()
		return []reconcile.Request{{NamespacedName: r.key}}
	})
	return b.WatchesMetadata(nodeSLOCRD(), changed, builder.WithPredicates(
		named(client.ObjectKey{Name: sloconfig.NodeSLOCRDName}), predicate.GenerationChangedPredicate{}))
}
