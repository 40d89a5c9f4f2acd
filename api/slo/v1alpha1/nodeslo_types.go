package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeSLOSpec is what a node agent is told to enforce on one node. Every
// section is optional so that an agent can tell "not configured" from zero.
type NodeSLOSpec struct {
	// ResourceUsedThresholdWithBE sets when best-effort pods are suppressed or
	// evicted because the node is busy.
	// +optional
	ResourceUsedThresholdWithBE *ResourceThresholdStrategy `json:"resourceUsedThresholdWithBE,omitempty"`
	// ResourceQOSStrategy holds cgroup QoS settings per QoS class.
	// +optional
	ResourceQOSStrategy *ResourceQOSStrategy `json:"resourceQOSStrategy,omitempty"`
	// CPUBurstStrategy sets how latency-sensitive pods may burst above their CPU limit.
	// +optional
	CPUBurstStrategy *CPUBurstStrategy `json:"cpuBurstStrategy,omitempty"`
	// SystemStrategy holds node-wide kernel settings.
	// +optional
	SystemStrategy *SystemStrategy `json:"systemStrategy,omitempty"`
	// Extensions carries settings of third-party plugins; this controller writes it empty.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Extensions *ExtensionsMap `json:"extensions,omitempty"`
	// HostApplications gives QoS to processes that run on the host outside any pod.
	// +optional
	HostApplications []HostApplicationSpec `json:"hostApplications,omitempty"`
}

// NodeSLOStatus is empty: node agents report nothing back through it.
type NodeSLOStatus struct{}

// NodeSLO is the service-level configuration of one node; its name is the node's name.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=nslo
// +kubebuilder:printcolumn:name="BE-Enabled",type=boolean,JSONPath=`.spec.resourceUsedThresholdWithBE.enable`,description="Whether best-effort suppression and eviction are on"
// +kubebuilder:printcolumn:name="CPU-Suppress%",type=integer,JSONPath=`.spec.resourceUsedThresholdWithBE.cpuSuppressThresholdPercent`,description="Node CPU usage above which best-effort pods are suppressed"
// +kubebuilder:printcolumn:name="Mem-Evict%",type=integer,JSONPath=`.spec.resourceUsedThresholdWithBE.memoryEvictThresholdPercent`,description="Node memory usage above which best-effort pods are evicted"
// +kubebuilder:printcolumn:name="CPU-Burst",type=string,JSONPath=`.spec.cpuBurstStrategy.policy`,description="CPU burst policy"
// +kubebuilder:printcolumn:name="Suppress-Policy",type=string,JSONPath=`.spec.resourceUsedThresholdWithBE.cpuSuppressPolicy`,priority=1,description="How best-effort CPU is suppressed"
// +kubebuilder:printcolumn:name="CPU-Evict-Policy",type=string,JSONPath=`.spec.resourceUsedThresholdWithBE.cpuEvictPolicy`,priority=1,description="How best-effort CPU eviction is measured"
// +kubebuilder:printcolumn:name="Bandwidth",type=string,JSONPath=`.spec.systemStrategy.totalNetworkBandwidth`,priority=1,description="Total network bandwidth of the node (Mbps)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NodeSLO struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec NodeSLOSpec `json:"spec,omitempty"`
	// +optional
	Status NodeSLOStatus `json:"status,omitempty"`
}

// NodeSLOList is a list of NodeSLO.
// +kubebuilder:object:root=true
type NodeSLOList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeSLO `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(scheme *runtime.Scheme) error {
		scheme.AddKnownTypes(SchemeGroupVersion, &NodeSLO{}, &NodeSLOList{})
		return nil
	})
}
