package v1alpha1

import "k8s.io/apimachinery/pkg/util/intstr"

// CPUQOSPolicy chooses the kernel mechanism for CPU QoS.
// +kubebuilder:validation:Enum=groupIdentity;coreSched
type CPUQOSPolicy string

const (
	// CPUQOSPolicyGroupIdentity uses Alibaba Cloud Linux group identity.
	CPUQOSPolicyGroupIdentity CPUQOSPolicy = "groupIdentity"
	// CPUQOSPolicyCoreSched uses Linux core scheduling.
	CPUQOSPolicyCoreSched CPUQOSPolicy = "coreSched"
)

// NETQOSPolicy chooses the mechanism for network QoS.
// +kubebuilder:validation:Enum=tc;terway-qos
type NETQOSPolicy string

const (
	// NETQOSPolicyTC uses Linux traffic control.
	NETQOSPolicyTC NETQOSPolicy = "tc"
	// NETQOSPolicyTerwayQos uses the Terway QoS plugin.
	NETQOSPolicyTerwayQos NETQOSPolicy = "terway-qos"
)

// ResourceQOSPolicies chooses mechanisms shared by all QoS classes.
type ResourceQOSPolicies struct {
	// CPUPolicy chooses the CPU QoS mechanism.
	// +optional
	CPUPolicy *CPUQOSPolicy `json:"cpuPolicy,omitempty"`
	// NETQOSPolicy chooses the network QoS mechanism.
	// +optional
	NETQOSPolicy *NETQOSPolicy `json:"netQOSPolicy,omitempty"`
}

// ResourceQOSStrategy holds cgroup QoS settings for each QoS class.
type ResourceQOSStrategy struct {
	// Policies chooses the mechanisms shared by all classes.
	// +optional
	Policies *ResourceQOSPolicies `json:"policies,omitempty"`
	// LSRClass applies to latency-sensitive reserved pods.
	// +optional
	LSRClass *ResourceQOS `json:"lsrClass,omitempty"`
	// LSClass applies to latency-sensitive pods.
	// +optional
	LSClass *ResourceQOS `json:"lsClass,omitempty"`
	// BEClass applies to best-effort pods.
	// +optional
	BEClass *ResourceQOS `json:"beClass,omitempty"`
	// SystemClass applies to system daemons.
	// +optional
	SystemClass *ResourceQOS `json:"systemClass,omitempty"`
	// CgroupRoot applies to the root cgroup.
	// +optional
	CgroupRoot *ResourceQOS `json:"cgroupRoot,omitempty"`
}

// ResourceQOS is the QoS of one class, one section per resource.
type ResourceQOS struct {
	// +optional
	CPUQOS *CPUQOSCfg `json:"cpuQOS,omitempty"`
	// +optional
	MemoryQOS *MemoryQOSCfg `json:"memoryQOS,omitempty"`
	// +optional
	BlkIOQOS *BlkIOQOSCfg `json:"blkioQOS,omitempty"`
	// +optional
	ResctrlQOS *ResctrlQOSCfg `json:"resctrlQOS,omitempty"`
	// +optional
	NetworkQOS *NetworkQOSCfg `json:"networkQOS,omitempty"`
}

// CPUQOSCfg switches CPU QoS on and sets it.
type CPUQOSCfg struct {
	// +optional
	Enable *bool `json:"enable,omitempty"`
	CPUQOS `json:",inline"`
}

// CPUQOS sets the scheduler's treatment of a class.
type CPUQOS struct {
	// GroupIdentity is the cpu.bvt_warp_ns of the class: -1 lowest, 2 highest.
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=2
	// +optional
	GroupIdentity *int64 `json:"groupIdentity,omitempty"`
	// SchedIdle marks the class SCHED_IDLE (1) or not (0).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	SchedIdle *int64 `json:"schedIdle,omitempty"`
	// CoreExpeller lets the class expel lower classes from sibling hyperthreads.
	// +optional
	CoreExpeller *bool `json:"coreExpeller,omitempty"`
}

// MemoryQOSCfg switches memory QoS on and sets it.
type MemoryQOSCfg struct {
	// +optional
	Enable    *bool `json:"enable,omitempty"`
	MemoryQOS `json:",inline"`
}

// MemoryQOS sets memcg protection, throttling and reclaim for a class.
type MemoryQOS struct {
	// MinLimitPercent is memory.min as a percentage of the memory request.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MinLimitPercent *int64 `json:"minLimitPercent,omitempty"`
	// LowLimitPercent is memory.low as a percentage of the memory request.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	LowLimitPercent *int64 `json:"lowLimitPercent,omitempty"`
	// ThrottlingPercent is memory.high as a percentage of the memory limit.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ThrottlingPercent *int64 `json:"throttlingPercent,omitempty"`
	// WmarkRatio is memory.wmark_ratio, where async reclaim starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	WmarkRatio *int64 `json:"wmarkRatio,omitempty"`
	// WmarkScalePermill is memory.wmark_scale_factor, where async reclaim stops.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	WmarkScalePermill *int64 `json:"wmarkScalePermill,omitempty"`
	// WmarkMinAdj is memory.wmark_min_adj, the global min watermark adjustment.
	// +kubebuilder:validation:Minimum=-25
	// +kubebuilder:validation:Maximum=50
	// +optional
	WmarkMinAdj *int64 `json:"wmarkMinAdj,omitempty"`
	// PriorityEnable turns memcg OOM priority on (1) or off (0).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	PriorityEnable *int64 `json:"priorityEnable,omitempty"`
	// Priority is the memcg OOM priority.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=12
	// +optional
	Priority *int64 `json:"priority,omitempty"`
	// OomKillGroup kills the whole cgroup on OOM (1) or not (0).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	OomKillGroup *int64 `json:"oomKillGroup,omitempty"`
	// PageCacheEnable turns the page cache limit on.
	// +optional
	PageCacheEnable *bool `json:"pageCacheEnable,omitempty"`
	// PageCacheLimitPercent is the page cache limit as a percentage of the memory limit.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	PageCacheLimitPercent *int64 `json:"pageCacheLimitPercent,omitempty"`
	// PageCacheLimitSize is the page cache limit in bytes.
	// +optional
	PageCacheLimitSize *int64 `json:"pageCacheLimitSize,omitempty"`
	// PageCacheReclaimSync reclaims page cache synchronously.
	// +optional
	PageCacheReclaimSync *bool `json:"pageCacheReclaimSync,omitempty"`
}

// BlkIOQOSCfg switches block IO QoS on and sets it.
type BlkIOQOSCfg struct {
	// +optional
	Enable   *bool `json:"enable,omitempty"`
	BlkIOQOS `json:",inline"`
}

// BlkIOQOS sets IO limits per block device.
type BlkIOQOS struct {
	// +optional
	Blocks []*BlockCfg `json:"blocks,omitempty"`
}

// BlockType says how a BlockCfg's name is to be read.
// +kubebuilder:validation:Enum=device;volumegroup;podvolume
type BlockType string

const (
	// BlockTypeDevice names a block device.
	BlockTypeDevice BlockType = "device"
	// BlockTypeVolumeGroup names an LVM volume group.
	BlockTypeVolumeGroup BlockType = "volumegroup"
	// BlockTypePodVolume names a pod volume.
	BlockTypePodVolume BlockType = "podvolume"
)

// BlockCfg sets the IO limits of one block device.
type BlockCfg struct {
	// +optional
	Name string `json:"name,omitempty"`
	// +optional
	BlockType BlockType `json:"type,omitempty"`
	// +optional
	IOCfg IOCfg `json:"ioCfg,omitempty"`
}

// IOCfg holds the IO limits and weights of one device.
type IOCfg struct {
	// +kubebuilder:validation:Minimum=0
	// +optional
	ReadIOPS *int64 `json:"readIOPS,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	WriteIOPS *int64 `json:"writeIOPS,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	ReadBPS *int64 `json:"readBPS,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +optional
	WriteBPS *int64 `json:"writeBPS,omitempty"`
	// IOWeightPercent is the relative IO weight.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	IOWeightPercent *int64 `json:"ioWeightPercent,omitempty"`
	// ReadLatency is the target read latency in microseconds.
	// +optional
	ReadLatency *int64 `json:"readLatency,omitempty"`
	// WriteLatency is the target write latency in microseconds.
	// +optional
	WriteLatency *int64 `json:"writeLatency,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	ReadLatencyPercent *int64 `json:"readLatencyPercent,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	WriteLatencyPercent *int64 `json:"writeLatencyPercent,omitempty"`
	// EnableUserModel uses the model figures below instead of the kernel's.
	// +optional
	EnableUserModel *bool `json:"enableUserModel,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	ModelReadBPS *int64 `json:"modelReadBPS,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	ModelWriteBPS *int64 `json:"modelWriteBPS,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	ModelReadSeqIOPS *int64 `json:"modelReadSeqIOPS,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	ModelWriteSeqIOPS *int64 `json:"modelWriteSeqIOPS,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	ModelReadRandIOPS *int64 `json:"modelReadRandIOPS,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +optional
	ModelWriteRandIOPS *int64 `json:"modelWriteRandIOPS,omitempty"`
}

// ResctrlQOSCfg switches resctrl (cache and memory bandwidth) QoS on and sets it.
type ResctrlQOSCfg struct {
	// +optional
	Enable     *bool `json:"enable,omitempty"`
	ResctrlQOS `json:",inline"`
}

// ResctrlQOS sets last-level cache ways and memory bandwidth of a class.
// +kubebuilder:validation:XValidation:rule="!has(self.catRangeStartPercent) || !has(self.catRangeEndPercent) || self.catRangeStartPercent < self.catRangeEndPercent",message="catRangeStartPercent must be less than catRangeEndPercent"
type ResctrlQOS struct {
	// CATRangeStartPercent is where the class's share of cache ways starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CATRangeStartPercent *int64 `json:"catRangeStartPercent,omitempty"`
	// CATRangeEndPercent is where it ends.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	CATRangeEndPercent *int64 `json:"catRangeEndPercent,omitempty"`
	// MBAPercent is the class's share of memory bandwidth.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	MBAPercent *int64 `json:"mbaPercent,omitempty"`
}

// NetworkQOSCfg switches network QoS on and sets it.
type NetworkQOSCfg struct {
	// +optional
	Enable     *bool `json:"enable,omitempty"`
	NetworkQOS `json:",inline"`
}

// NetworkQOS sets guaranteed and maximum bandwidth of a class. An integer is
// a percentage of the node's total bandwidth, a string a quantity such as 50M.
//
// The defaults are schema defaults, as in Koordinator's CRD since v1.4.0:
// the apiserver fills a field left out of a networkQOS object that is
// present, when the object is written and when it is read from storage.
// It adds no networkQOS object where there is none.
type NetworkQOS struct {
	// IngressRequest is the bandwidth guaranteed to the class on ingress.
	// +kubebuilder:default=0
	// +optional
	IngressRequest *intstr.IntOrString `json:"ingressRequest,omitempty"`
	// IngressLimit is the most bandwidth the class may use on ingress.
	// +kubebuilder:default=100
	// +optional
	IngressLimit *intstr.IntOrString `json:"ingressLimit,omitempty"`
	// EgressRequest is the bandwidth guaranteed to the class on egress.
	// +kubebuilder:default=0
	// +optional
	EgressRequest *intstr.IntOrString `json:"egressRequest,omitempty"`
	// EgressLimit is the most bandwidth the class may use on egress.
	// +kubebuilder:default=100
	// +optional
	EgressLimit *intstr.IntOrString `json:"egressLimit,omitempty"`
}
