package v1alpha1

// CPUSuppressPolicy is how an agent takes CPU away from best-effort pods.
// +kubebuilder:validation:Enum=cpuset;cfsQuota
type CPUSuppressPolicy string

const (
	// CPUSetPolicy shrinks the cpuset best-effort pods may run on.
	CPUSetPolicy CPUSuppressPolicy = "cpuset"
	// CPUCfsQuotaPolicy lowers the CFS quota of best-effort pods.
	CPUCfsQuotaPolicy CPUSuppressPolicy = "cfsQuota"
)

// CPUEvictPolicy is what best-effort CPU satisfaction is measured against.
// +kubebuilder:validation:Enum=evictByRealLimit;evictByAllocatable
type CPUEvictPolicy string

const (
	// EvictByRealLimitPolicy measures against the CPU best-effort pods really get.
	EvictByRealLimitPolicy CPUEvictPolicy = "evictByRealLimit"
	// EvictByAllocatablePolicy measures against the node's allocatable best-effort CPU.
	EvictByAllocatablePolicy CPUEvictPolicy = "evictByAllocatable"
)

// ResourceThresholdStrategy sets the node usage levels at which best-effort
// pods are suppressed and evicted.
// +kubebuilder:validation:XValidation:rule="!has(self.memoryEvictThresholdPercent) || !has(self.memoryEvictLowerPercent) || self.memoryEvictThresholdPercent > self.memoryEvictLowerPercent",message="memoryEvictThresholdPercent must be greater than memoryEvictLowerPercent"
// +kubebuilder:validation:XValidation:rule="!has(self.memoryAllocatableEvictThresholdPercent) || !has(self.memoryAllocatableEvictLowerPercent) || self.memoryAllocatableEvictThresholdPercent > self.memoryAllocatableEvictLowerPercent",message="memoryAllocatableEvictThresholdPercent must be greater than memoryAllocatableEvictLowerPercent"
// +kubebuilder:validation:XValidation:rule="!has(self.cpuEvictBESatisfactionUpperPercent) || !has(self.cpuEvictBESatisfactionLowerPercent) || self.cpuEvictBESatisfactionUpperPercent > self.cpuEvictBESatisfactionLowerPercent",message="cpuEvictBESatisfactionUpperPercent must be greater than cpuEvictBESatisfactionLowerPercent"
// +kubebuilder:validation:XValidation:rule="!has(self.cpuEvictThresholdPercent) || !has(self.cpuEvictLowerPercent) || self.cpuEvictThresholdPercent > self.cpuEvictLowerPercent",message="cpuEvictThresholdPercent must be greater than cpuEvictLowerPercent"
// +kubebuilder:validation:XValidation:rule="!has(self.cpuAllocatableEvictThresholdPercent) || !has(self.cpuAllocatableEvictLowerPercent) || self.cpuAllocatableEvictThresholdPercent > self.cpuAllocatableEvictLowerPercent",message="cpuAllocatableEvictThresholdPercent must be greater than cpuAllocatableEvictLowerPercent"
type ResourceThresholdStrategy struct {
	// Enable turns best-effort suppression and eviction on.
	// +optional
	Enable *bool `json:"enable,omitempty"`

	// CPUSuppressThresholdPercent is the node CPU usage above which best-effort pods are suppressed.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUSuppressThresholdPercent *int64 `json:"cpuSuppressThresholdPercent,omitempty"`
	// CPUSuppressMinPercent is the least CPU best-effort pods keep while suppressed.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUSuppressMinPercent *int64 `json:"cpuSuppressMinPercent,omitempty"`
	// CPUSuppressPolicy is how CPU is taken away.
	// +optional
	CPUSuppressPolicy CPUSuppressPolicy `json:"cpuSuppressPolicy,omitempty"`

	// MemoryEvictThresholdPercent is the node memory usage above which best-effort pods are evicted.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MemoryEvictThresholdPercent *int64 `json:"memoryEvictThresholdPercent,omitempty"`
	// MemoryEvictLowerPercent is the usage eviction brings memory back down to.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MemoryEvictLowerPercent *int64 `json:"memoryEvictLowerPercent,omitempty"`
	// MemoryAllocatableEvictThresholdPercent is the best-effort share of allocatable memory above which they are evicted.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MemoryAllocatableEvictThresholdPercent *int64 `json:"memoryAllocatableEvictThresholdPercent,omitempty"`
	// MemoryAllocatableEvictLowerPercent is the share eviction brings it back down to.
	// +kubebuilder:validation:Minimum=0
	// +optional
	MemoryAllocatableEvictLowerPercent *int64 `json:"memoryAllocatableEvictLowerPercent,omitempty"`

	// CPUEvictBESatisfactionUpperPercent is the best-effort CPU satisfaction above which eviction stops.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUEvictBESatisfactionUpperPercent *int64 `json:"cpuEvictBESatisfactionUpperPercent,omitempty"`
	// CPUEvictBESatisfactionLowerPercent is the best-effort CPU satisfaction below which eviction starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUEvictBESatisfactionLowerPercent *int64 `json:"cpuEvictBESatisfactionLowerPercent,omitempty"`
	// CPUEvictBEUsageThresholdPercent is the best-effort CPU usage that must be reached before eviction.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUEvictBEUsageThresholdPercent *int64 `json:"cpuEvictBEUsageThresholdPercent,omitempty"`
	// CPUEvictTimeWindowSeconds is the window over which CPU usage is averaged.
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +kubebuilder:validation:Minimum=0
	// +optional
	CPUEvictTimeWindowSeconds *int64 `json:"cpuEvictTimeWindowSeconds,omitempty"`
	// CPUEvictThresholdPercent is the node CPU usage above which best-effort pods are evicted.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUEvictThresholdPercent *int64 `json:"cpuEvictThresholdPercent,omitempty"`
	// CPUEvictLowerPercent is the usage CPU eviction brings the node back down to.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CPUEvictLowerPercent *int64 `json:"cpuEvictLowerPercent,omitempty"`
	// CPUAllocatableEvictThresholdPercent is the best-effort share of allocatable CPU above which they are evicted.
	// +kubebuilder:validation:Minimum=0
	// +optional
	CPUAllocatableEvictThresholdPercent *int64 `json:"cpuAllocatableEvictThresholdPercent,omitempty"`
	// CPUAllocatableEvictLowerPercent is the share CPU eviction brings it back down to.
	// +kubebuilder:validation:Minimum=0
	// +optional
	CPUAllocatableEvictLowerPercent *int64 `json:"cpuAllocatableEvictLowerPercent,omitempty"`
	// CPUEvictPolicy is what CPU satisfaction is measured against.
	// +optional
	CPUEvictPolicy CPUEvictPolicy `json:"cpuEvictPolicy,omitempty"`

	// EvictEnabledPriorityThreshold: only pods with a priority below it are evicted.
	// +optional
	EvictEnabledPriorityThreshold *int32 `json:"evictEnabledPriorityThreshold,omitempty"`
	// AllocatableEvictPriorityThreshold: only pods with a priority below it count for allocatable eviction.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=7999
	// +optional
	AllocatableEvictPriorityThreshold *int32 `json:"allocatableEvictPriorityThreshold,omitempty"`
}
