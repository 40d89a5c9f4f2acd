package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a NodeSLORollout (docs/rollout.md#conditions). Ready,
// Progressing and Halted say it in the project's words; Reconciling and
// Stalled say the same in the words kstatus (Flux, kpt, cli-utils) reads.
const (
	// ConditionReady is True when the ConfigMap's data is in force on every
	// node it is meant for: the rollout completed, or went at once.
	ConditionReady = "Ready"
	// ConditionProgressing is True while steps reach pending nodes.
	ConditionProgressing = "Progressing"
	// ConditionHalted is True when the health gate halted the rollout, or
	// holds the ConfigMap's data out of force after a halt.
	ConditionHalted = "Halted"
	// ConditionReconciling is True while the rollout is not done and not
	// stuck: progressing, or paused by an operator.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the rollout waits for an operator: the
	// health gate halted it, or the controller refuses spec.strategy.
	ConditionStalled = "Stalled"
)

// NodeSLORolloutSpec is how and when the ConfigMap's configuration
// reaches the nodes: the strategy, and the operator's controls. Whoever
// may edit the ConfigMap decides what the configuration is, never how it
// rolls out; a GitOps tool may own the strategy while the plugin owns the
// controls (server-side apply keeps each field's manager).
type NodeSLORolloutSpec struct {
	// Strategy is how a change reaches the nodes. Without it every change
	// reaches every node at once.
	// +optional
	Strategy *RolloutStrategy `json:"strategy,omitempty"`
	// Paused holds the rollout's pending nodes where they are.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// Resume resumes the rollout the health gate halted at resume.haltedAt
	// (status.health.haltedAt), tolerating the nodes it judged unhealthy then.
	// A later halt is not resumed by it.
	// +optional
	Resume *HaltReference `json:"resume,omitempty"`
	// Retry rolls the configuration of the ConfigMap's data out again, as a
	// new rollout, canaries first, after the health gate halted it at
	// retry.haltedAt and kept it out of force. A later halt is not retried
	// by it.
	// +optional
	Retry *HaltReference `json:"retry,omitempty"`
}

// HaltReference names one halt of the health gate.
type HaltReference struct {
	// Configuration is the fingerprint of the configuration halted
	// (status.configuration, or status.withheld.configuration); empty for a
	// resume, which is of the rollout in progress.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Configuration string `json:"configuration,omitempty"`
	// HaltedAt is when the health gate halted it.
	HaltedAt metav1.Time `json:"haltedAt"`
}

// RolloutPhase is where a rollout stands, in one word.
// +kubebuilder:validation:Enum=Progressing;Paused;Halted;Completed;AllAtOnce
type RolloutPhase string

// NodeSLORolloutStatus is where the rollout of the configuration in force
// stands, as the controller's last decision left it. Every count is the
// decision's; nothing in it is estimated by its reader.
type NodeSLORolloutStatus struct {
	// ObservedGeneration is the spec's generation the status was decided on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ObservedConfigMapVersion is the ConfigMap's resourceVersion the status
	// was decided on ("": the ConfigMap does not exist).
	// +optional
	ObservedConfigMapVersion string `json:"observedConfigMapVersion,omitempty"`
	// Conditions: Ready, Progressing, Halted, Reconciling, Stalled.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Revision is the number of the revision in force (kubectl nodeslo
	// rollout history; 0: not recorded).
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// Configuration is the fingerprint of the configuration in force.
	// +optional
	Configuration string `json:"configuration,omitempty"`
	// RolloutKey is a fingerprint of the spec.strategy the decision was
	// taken under; empty without a strategy.
	// +optional
	RolloutKey string `json:"rolloutKey,omitempty"`
	// +optional
	Phase RolloutPhase `json:"phase,omitempty"`
	// Started is when the rollout started, Completed when no node was
	// pending any more.
	// +optional
	Started *metav1.Time `json:"started,omitempty"`
	// +optional
	Completed *metav1.Time `json:"completed,omitempty"`
	// Step is the number of steps taken (the canary step included), of
	// Steps, each reaching StepSize nodes.
	// +optional
	Step int32 `json:"step,omitempty"`
	// +optional
	Steps int32 `json:"steps,omitempty"`
	// +optional
	StepSize int32 `json:"stepSize,omitempty"`
	// Reached counts the nodes reached of PendingAtStart, the nodes pending
	// when the rollout started.
	// +optional
	Reached int32 `json:"reached,omitempty"`
	// +optional
	PendingAtStart int32 `json:"pendingAtStart,omitempty"`
	// Pending counts the nodes held on their stored NodeSLO now,
	// CanariesPending the canaries among them.
	// +optional
	Pending int32 `json:"pending,omitempty"`
	// +optional
	CanariesPending int32 `json:"canariesPending,omitempty"`
	// Paused: spec.paused pauses the rollout.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// StrategyInvalid: the controller refuses spec.strategy, which holds every
	// rollout.
	// +optional
	StrategyInvalid bool `json:"strategyInvalid,omitempty"`
	// NextStep is when the next step is due (none: paused, halted,
	// complete, the last step taken, or awaiting writes).
	// +optional
	NextStep *metav1.Time `json:"nextStep,omitempty"`
	// AwaitingWrites: some nodes of the last step do not store the
	// configuration yet; the next step waits an interval after they all do.
	// +optional
	AwaitingWrites bool `json:"awaitingWrites,omitempty"`
	// Health is what the health gate judged.
	// +optional
	Health *RolloutHealth `json:"health,omitempty"`
	// Withheld is set when the ConfigMap's data is not in force: the health
	// gate halted it and it was not retried; Configuration is then what is
	// in force instead.
	// +optional
	Withheld *WithheldConfiguration `json:"withheld,omitempty"`
	// Updated is when the controller last changed this status.
	// +optional
	Updated *metav1.Time `json:"updated,omitempty"`
	// RolloutRecord is what the controller needs of the rollout across
	// restarts; the fields above say the same for people. Removing it
	// starts the rollout again, canaries first.
	// +optional
	RolloutRecord *RolloutRecord `json:"rolloutRecord,omitempty"`
}

// RolloutHealth is what the health gate of spec.strategy judged.
type RolloutHealth struct {
	// Gate is the gate's settings on one line.
	// +optional
	Gate string `json:"gate,omitempty"`
	// MaxUnhealthyNodes is the gate's setting as written.
	// +optional
	MaxUnhealthyNodes string `json:"maxUnhealthyNodes,omitempty"`
	// Allowed is how many unhealthy nodes the gate allows of AllowedOf
	// reached nodes; -1 when not known.
	Allowed int32 `json:"allowed"`
	// +optional
	AllowedOf int32 `json:"allowedOf,omitempty"`
	// Unhealthy counts the reached nodes judged unhealthy, Tolerated those
	// of them a resume accepted; Nodes lists the first 50, Omitted counts
	// the rest.
	// +optional
	Unhealthy int32 `json:"unhealthy,omitempty"`
	// +optional
	Tolerated int32 `json:"tolerated,omitempty"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	Nodes []NodeVerdict `json:"nodes,omitempty"`
	// +optional
	Omitted int32 `json:"omitted,omitempty"`
	// HaltedAt is when the gate halted the rollout; HaltedKey a fingerprint
	// of spec.strategy then (a change of it that leaves the rollout
	// unpaused resumes the halt); Revert: onUnhealthy is revert.
	// +optional
	HaltedAt *metav1.Time `json:"haltedAt,omitempty"`
	// +optional
	HaltedKey string `json:"haltedKey,omitempty"`
	// +optional
	Revert bool `json:"revert,omitempty"`
	// Metrics are the metric checks whose last measurement did not pass, or
	// that failed.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	Metrics []MetricVerdict `json:"metrics,omitempty"`
	// Before counts the nodes seen unhealthy before the rollout wrote them;
	// BeforeNodes lists the first 10.
	// +optional
	Before int32 `json:"before,omitempty"`
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	BeforeNodes []NodeVerdict `json:"beforeNodes,omitempty"`
}

// NodeVerdict is a node the gate judged unhealthy, and why.
type NodeVerdict struct {
	Name string `json:"name"`
	// +optional
	Signal string `json:"signal,omitempty"`
}

// MetricVerdict is a metric check's last measurement that did not pass.
type MetricVerdict struct {
	Name string `json:"name"`
	// +optional
	Failures int32 `json:"failures,omitempty"`
	// +optional
	NoData int32 `json:"noData,omitempty"`
	// +optional
	Seen string `json:"seen,omitempty"`
	// +optional
	At *metav1.Time `json:"at,omitempty"`
	// +optional
	Failed bool `json:"failed,omitempty"`
	// Errors counts the consecutive measurements Prometheus could not
	// answer; beyond the check's failureLimit it is Inconclusive, which
	// holds the rollout (no step is taken) until Prometheus answers again,
	// and never halts it: nothing says the change hurt.
	// +optional
	Errors int32 `json:"errors,omitempty"`
	// +optional
	Inconclusive bool `json:"inconclusive,omitempty"`
	// DryRun: the check is measured and shown, never judged.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`
}

// WithheldConfiguration is the ConfigMap's data the health gate halted and
// keeps out of force.
type WithheldConfiguration struct {
	// Configuration is the fingerprint of the ConfigMap's data.
	Configuration string `json:"configuration"`
	// Revision is the revision it was halted at (0: not known).
	// +optional
	Revision int64 `json:"revision,omitempty"`
	// HaltedAt is when, Summary the unhealthy nodes then.
	// +optional
	HaltedAt *metav1.Time `json:"haltedAt,omitempty"`
	// +optional
	Summary string `json:"summary,omitempty"`
	// Reverted: the configuration in force is the previous revision's, put
	// back by the gate in its place.
	// +optional
	Reverted bool `json:"reverted,omitempty"`
}

// NodeSLORollout is the rollout of the configuration ConfigMap of the same
// namespace and name: its spec holds the strategy and the operator's
// controls, its status where the rollout stands. Its operator creates it
// (the controller never does); without it every change reaches every node
// at once. The configuration stays in the ConfigMap, its history in
// ControllerRevisions.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=nslor
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Revision",type=integer,JSONPath=`.status.revision`
// +kubebuilder:printcolumn:name="Step",type=integer,JSONPath=`.status.step`
// +kubebuilder:printcolumn:name="Steps",type=integer,JSONPath=`.status.steps`
// +kubebuilder:printcolumn:name="Reached",type=integer,JSONPath=`.status.reached`
// +kubebuilder:printcolumn:name="Pending",type=integer,JSONPath=`.status.pending`
// +kubebuilder:printcolumn:name="Unhealthy",type=integer,JSONPath=`.status.health.unhealthy`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NodeSLORollout struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec NodeSLORolloutSpec `json:"spec,omitempty"`
	// +optional
	Status NodeSLORolloutStatus `json:"status,omitempty"`
}

// NodeSLORolloutList is a list of NodeSLORollouts.
// +kubebuilder:object:root=true
type NodeSLORolloutList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeSLORollout `json:"items"`
}
