package v1alpha1

// CPUBurstPolicy chooses which burst mechanisms an agent uses.
// +kubebuilder:validation:Enum=none;cpuBurstOnly;cfsQuotaBurstOnly;auto
type CPUBurstPolicy string

const (
	// CPUBurstNone disables CPU burst.
	CPUBurstNone CPUBurstPolicy = "none"
	// CPUBurstOnly uses the kernel's cpu.cfs_burst_us only.
	CPUBurstOnly CPUBurstPolicy = "cpuBurstOnly"
	// CFSQuotaBurstOnly raises the CFS quota only.
	CFSQuotaBurstOnly CPUBurstPolicy = "cfsQuotaBurstOnly"
	// CPUBurstAuto uses both.
	CPUBurstAuto CPUBurstPolicy = "auto"
)

// CPUBurstConfig is the per-pod part of CPU burst; agents also read it from pod annotations.
type CPUBurstConfig struct {
	// Policy chooses the burst mechanisms.
	// +optional
	Policy CPUBurstPolicy `json:"policy,omitempty"`
	// CPUBurstPercent is cfs_burst_us as a percentage of the CPU limit.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000
	// +optional
	CPUBurstPercent *int64 `json:"cpuBurstPercent,omitempty"`
	// CFSQuotaBurstPercent is the largest CFS quota as a percentage of the limit.
	// +kubebuilder:validation:Minimum=100
	// +optional
	CFSQuotaBurstPercent *int64 `json:"cfsQuotaBurstPercent,omitempty"`
	// CFSQuotaBurstPeriodSeconds is how long the quota may stay raised; -1 means without limit.
	// +kubebuilder:validation:Minimum=-1
	// +optional
	CFSQuotaBurstPeriodSeconds *int64 `json:"cfsQuotaBurstPeriodSeconds,omitempty"`
}

// CPUBurstStrategy is the node-level CPU burst configuration.
type CPUBurstStrategy struct {
	CPUBurstConfig `json:",inline"`
	// SharePoolThresholdPercent is the share-pool CPU usage above which bursting is scaled back.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	SharePoolThresholdPercent *int64 `json:"sharePoolThresholdPercent,omitempty"`
}
