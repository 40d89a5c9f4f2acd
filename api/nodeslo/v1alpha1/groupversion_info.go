// Package v1alpha1 is the nodeslo.koordinator.sh/v1alpha1 API: this
// project's own objects, as opposed to the NodeSLO it writes for node
// agents (api/slo/v1alpha1, Koordinator's group). It holds the
// NodeSLORollout: where the rollout of one configuration ConfigMap stands,
// and the operator's controls of it (docs/rollout.md#the-nodeslorollout).
// +kubebuilder:object:generate=true
// +groupName=nodeslo.koordinator.sh
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of these objects.
	GroupVersion = schema.GroupVersion{Group: "nodeslo.koordinator.sh", Version: "v1alpha1"}

	// SchemeBuilder adds these types to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(GroupVersion, &NodeSLORollout{}, &NodeSLORolloutList{})
		metav1.AddToGroupVersion(scheme, GroupVersion)
		return nil
	})

	// AddToScheme adds the types of this group and version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
