package v1alpha1

// PriorityClass is a Koordinator priority band.
// +kubebuilder:validation:Enum=koord-prod;koord-mid;koord-batch;koord-free
type PriorityClass string

// QoSClass is a Koordinator QoS class.
// +kubebuilder:validation:Enum=LSE;LSR;LS;BE;SYSTEM
type QoSClass string

// CgroupBaseType names the cgroup directory a host application's path is relative to.
// +kubebuilder:validation:Enum=CgroupRoot;Kubepods;KubepodsBurstable;KubepodsBesteffort
type CgroupBaseType string

const (
	// CgroupBaseTypeRoot is the cgroup root.
	CgroupBaseTypeRoot CgroupBaseType = "CgroupRoot"
	// CgroupBaseTypeKubepods is the kubepods cgroup.
	CgroupBaseTypeKubepods CgroupBaseType = "Kubepods"
	// CgroupBaseTypeKubeBurstable is the burstable pods' cgroup.
	CgroupBaseTypeKubeBurstable CgroupBaseType = "KubepodsBurstable"
	// CgroupBaseTypeKubeBesteffort is the best-effort pods' cgroup.
	CgroupBaseTypeKubeBesteffort CgroupBaseType = "KubepodsBesteffort"
)

// HostApplicationSpec describes a process that runs on the host outside any
// pod, so that the agent can give it a QoS class.
type HostApplicationSpec struct {
	// Name identifies the application.
	// +optional
	Name string `json:"name,omitempty"`
	// Priority is the application's priority band.
	// +optional
	Priority PriorityClass `json:"priority,omitempty"`
	// QoS is the application's QoS class.
	// +optional
	QoS QoSClass `json:"qos,omitempty"`
	// CgroupPath is where the application's cgroup lives.
	// +optional
	CgroupPath *CgroupPath `json:"cgroupPath,omitempty"`
	// Strategy is reserved for per-application settings.
	// +optional
	Strategy *HostApplicationStrategy `json:"strategy,omitempty"`
}

// CgroupPath locates a cgroup as base/parentDir/relativePath.
type CgroupPath struct {
	// Base is the cgroup directory the path starts from.
	// +optional
	Base CgroupBaseType `json:"base,omitempty"`
	// ParentDir is the directory below Base.
	// +optional
	ParentDir string `json:"parentDir,omitempty"`
	// RelativePath is the application's directory below ParentDir.
	// +optional
	RelativePath string `json:"relativePath,omitempty"`
}

// HostApplicationStrategy is reserved and has no fields yet.
type HostApplicationStrategy struct{}
