package v1alpha1

import "k8s.io/apimachinery/pkg/api/resource"

// SystemStrategy holds node-wide kernel settings.
type SystemStrategy struct {
	// MinFreeKbytesFactor scales vm.min_free_kbytes (per ten thousand of total memory).
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Minimum=0
	// +optional
	MinFreeKbytesFactor *int64 `json:"minFreeKbytesFactor,omitempty"`
	// WatermarkScaleFactor is vm.watermark_scale_factor.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=400
	// +optional
	WatermarkScaleFactor *int64 `json:"watermarkScaleFactor,omitempty"`
	// MemcgReapBackGround enables background memcg reaping (0 or 1).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	MemcgReapBackGround *int64 `json:"memcgReapBackGround,omitempty"`
	// SchedGroupIdentityEnabled is kernel.sched_group_identity_enabled.
	// +optional
	SchedGroupIdentityEnabled *int64 `json:"schedGroupIdentityEnabled,omitempty"`
	// SchedIdleSaverWmark is kernel.sched_idle_saver_wmark.
	// +optional
	SchedIdleSaverWmark *int64 `json:"schedIdleSaverWmark,omitempty"`
	// SchedFeatures switches entries of the kernel's sched_features on or off.
	// +optional
	SchedFeatures map[string]bool `json:"schedFeatures,omitempty"`
	// PageCacheLimitEnabled turns the kernel's page cache limit on (0 or 1).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	PageCacheLimitEnabled *int64 `json:"pageCacheLimitEnabled,omitempty"`
	// TotalNetworkBandwidth is the node's total network bandwidth in Mbps.
	// +optional
	TotalNetworkBandwidth resource.Quantity `json:"totalNetworkBandwidth,omitempty"`
}
