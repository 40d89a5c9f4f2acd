package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// RolloutStrategy is how a change of the ConfigMap's data reaches the
// nodes (docs/rollout.md#the-strategy): the canaries first, then batches
// at an interval, judged by a health gate. The apiserver checks what a
// schema can (bounds, enums, names, https with credentials); the
// NodeSLORollout's webhook and the controller check the rest against the
// manager's flags (the hosts and credentials a metric check may use). A
// strategy the controller refuses pauses every rollout and is reported in
// an InvalidStrategy Event on the NodeSLORollout. Unset fields take the
// defaults the field docs give.
type RolloutStrategy struct {
	// MaxNodesPerStep is how many pending nodes a step reaches: a count of
	// at least 1, or a percent ("1%" to "100%") of the nodes pending when
	// the rollout started, rounded up. Default "10%".
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 1 : self.matches('^([1-9][0-9]?|100)%$')",message="must be an integer >= 1 or a percent from \"1%\" to \"100%\""
	MaxNodesPerStep *intstr.IntOrString `json:"maxNodesPerStep,omitempty"`
	// StepIntervalSeconds is the wait between two steps. Default 60.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	StepIntervalSeconds *int32 `json:"stepIntervalSeconds,omitempty"`
	// Canary selects the nodes reached first, all in one step.
	// +optional
	Canary *CanaryStrategy `json:"canary,omitempty"`
	// RevisionHistoryLimit is how many configurations put in force the
	// revision history keeps, the one in force included. Default 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// HealthGate halts the rollout when reached nodes turn unhealthy or a
	// metric check fails.
	// +optional
	HealthGate *HealthGateStrategy `json:"healthGate,omitempty"`
}

// CanaryStrategy is the canary step: the nodes reached first, and how long
// they soak before the first batch.
type CanaryStrategy struct {
	// NodeSelector selects the canaries.
	NodeSelector metav1.LabelSelector `json:"nodeSelector"`
	// SoakSeconds is the wait after the canary step. Default 300.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	SoakSeconds *int32 `json:"soakSeconds,omitempty"`
}

// OnUnhealthy is what a halt does.
// +kubebuilder:validation:Enum=pause;revert
type OnUnhealthy string

// HealthGateStrategy is the health gate (docs/rollout.md#health-gates).
type HealthGateStrategy struct {
	// MaxUnhealthyNodes is how many reached nodes may be unhealthy before
	// the rollout halts: a count, or a percent ("0%" to "100%") of the
	// nodes reached, rounded down. Default "10%".
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^([0-9]|[1-9][0-9]|100)%$')",message="must be an integer >= 0 or a percent from \"0%\" to \"100%\""
	MaxUnhealthyNodes *intstr.IntOrString `json:"maxUnhealthyNodes,omitempty"`
	// NodeConditions are the Node condition types watched: Ready is bad
	// when not True, any other when True. Default Ready, MemoryPressure,
	// DiskPressure, PIDPressure.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=316
	// +kubebuilder:validation:items:Pattern=`^[^\s,]+$`
	NodeConditions []string `json:"nodeConditions,omitempty"`
	// Evictions counts the evictions of Pods on reached nodes, in the
	// namespaces the manager's administrator lists
	// (--health-gate-pod-namespaces).
	// +optional
	Evictions *EvictionGate `json:"evictions,omitempty"`
	// OnUnhealthy is what a halt does: pause (hold the pending nodes) or
	// revert (also write the previous configuration back to the nodes
	// reached). Default pause.
	// +optional
	OnUnhealthy OnUnhealthy `json:"onUnhealthy,omitempty"`
	// Metrics are checks on Prometheus; a failed one halts the rollout.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=10
	Metrics []MetricCheck `json:"metrics,omitempty"`
}

// EvictionGate is the evictions a reached node may show.
type EvictionGate struct {
	// PodSelector selects the Pods counted. Default koordinator.sh/qosClass=BE.
	// +optional
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty"`
	// MaxPerNode is how many evictions a reached node may show. Default 3.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000
	MaxPerNode *int32 `json:"maxPerNode,omitempty"`
}

// MetricCheck is one PromQL query over the nodes reached, which must
// return one number within [min, max] (docs/rollout.md#metric-gates).
// +kubebuilder:validation:XValidation:rule="has(self.min) || has(self.max)",message="a check needs min, max or both"
// +kubebuilder:validation:XValidation:rule="!has(self.min) || !has(self.max) || self.min <= self.max",message="min must not be greater than max"
// +kubebuilder:validation:XValidation:rule="!has(self.credentials) || self.address.startsWith('https://')",message="address must be https when credentials is set: a credential never travels in clear text"
// +kubebuilder:validation:XValidation:rule="!has(self.credentials) || !has(self.insecureSkipVerify) || !self.insecureSkipVerify",message="insecureSkipVerify must not be set with credentials"
// +kubebuilder:validation:XValidation:rule="!has(self.insecureSkipVerify) || !self.insecureSkipVerify || self.address.startsWith('https://')",message="address must be https when insecureSkipVerify is set"
type MetricCheck struct {
	// Name names the check in Events and the status.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Address is the Prometheus server's URL, http or https, with no
	// query, fragment or user.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^https?://[^/?#@\s]+(/[^?#\s]*)?$`
	Address string `json:"address"`
	// Credentials names an entry of the manager's
	// --metric-gate-credentials-dir (a token, a CA, the addresses it may
	// be sent to); without it, the address must be among the manager's
	// --metric-gate-allowed-hosts.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Credentials string `json:"credentials,omitempty"`
	// InsecureSkipVerify skips the verification of an https server's
	// certificate (never with credentials).
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
	// Query is a PromQL query returning one number; {{.NodesRegex}},
	// {{.CanariesRegex}} and {{.Interval}} are replaced.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Query string `json:"query"`
	// Min and Max bound the number the query returns.
	// +optional
	Min *float64 `json:"min,omitempty"`
	// +optional
	Max *float64 `json:"max,omitempty"`
	// IntervalSeconds is how often the check is measured. Default 60.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	IntervalSeconds *int32 `json:"intervalSeconds,omitempty"`
	// FailureLimit is how many consecutive failed measurements are
	// tolerated, and how many consecutive ones Prometheus could not answer
	// (unreachable, refused, an answer too large) before the check is
	// inconclusive, which holds the rollout without halting it;
	// NoDataLimit how many without data before each further one counts as
	// failed. Default 0.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	FailureLimit *int32 `json:"failureLimit,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	NoDataLimit *int32 `json:"noDataLimit,omitempty"`
	// DryRun measures the check and shows what it sees in
	// status.health.metrics, and never halts nor holds the rollout: a
	// check being tried out before it is trusted.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`
}
