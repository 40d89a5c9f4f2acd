package v1alpha1

// RolloutRecord is what the controller needs of the rollout across
// restarts, beside the NodeSLOs themselves: the configuration rolled out,
// its steps, what the health gate judged and the halts it remembers
// (docs/rollout.md#status). Only the controller writes it; removing it
// starts the rollout again, canaries first.
//
// Its times are RFC 3339 with nanoseconds, on the apiserver's clock: the
// gate orders them against the NodeSLOs' nanosecond
// nodeslo.koordinator.sh/spec-written-at stamps, which metav1.Time's
// seconds (or MicroTime's microseconds) would blur.
type RolloutRecord struct {
	// Target is the fingerprint of the configuration rolled out.
	// +kubebuilder:validation:MaxLength=128
	Target string `json:"target"`
	// Started is when the rollout of Target started.
	// +kubebuilder:validation:Format=date-time
	Started string `json:"started"`
	// Pending counts the nodes pending when the rollout started (the base
	// of a percent step size), Canaries the canaries among them.
	// +kubebuilder:validation:Minimum=0
	Pending int32 `json:"pending"`
	// +kubebuilder:validation:Minimum=0
	Canaries int32 `json:"canaries"`
	// Steps counts the steps taken, the canary step included.
	// +kubebuilder:validation:Minimum=0
	Steps int32 `json:"steps"`
	// Batched counts the nodes beyond the canaries the steps taken reach.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Batched int32 `json:"batched,omitempty"`
	// StepAt is when the current step was taken (or last found
	// incomplete): the wait for the next one counts from it.
	// +optional
	// +kubebuilder:validation:Format=date-time
	StepAt string `json:"stepAt,omitempty"`
	// Done is set once no node is pending, at DoneAt.
	// +optional
	Done bool `json:"done,omitempty"`
	// +optional
	// +kubebuilder:validation:Format=date-time
	DoneAt string `json:"doneAt,omitempty"`
	// Health is what the health gate judged.
	// +optional
	Health *HealthRecord `json:"health,omitempty"`
	// Revision is the number of Target's revision when the gate halted it.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Revision int64 `json:"revision,omitempty"`
	// RevertOf is, on a revert, the fingerprint of the configuration
	// halted whose place Target took.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	RevertOf string `json:"revertOf,omitempty"`
	// RejectedSince is, on a rollout that replaced a halted one, when the
	// halted one started: the nodes written since carry what was halted.
	// +optional
	// +kubebuilder:validation:Format=date-time
	RejectedSince string `json:"rejectedSince,omitempty"`
	// Halts are the configurations the gate halted before Target's
	// rollout, newest last: applied again, they stay halted until a retry.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	Halts []HaltRecord `json:"halts,omitempty"`
}

// HealthRecord is what the health gate judged of the rollout in progress.
type HealthRecord struct {
	// Unhealthy has each node judged unhealthy (at most 200) and the
	// signal that made it so; a verdict stays for the whole rollout.
	// +optional
	// +kubebuilder:validation:MaxProperties=200
	Unhealthy map[string]string `json:"unhealthy,omitempty"`
	// Tolerated counts the verdicts a resume after a halt accepted.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Tolerated int32 `json:"tolerated,omitempty"`
	// HaltedAt is when the gate halted the rollout (none: not halted),
	// HaltedKey a fingerprint of the strategy then, Revert whether
	// onUnhealthy was revert.
	// +optional
	// +kubebuilder:validation:Format=date-time
	HaltedAt string `json:"haltedAt,omitempty"`
	// +optional
	// +kubebuilder:validation:MaxLength=128
	HaltedKey string `json:"haltedKey,omitempty"`
	// +optional
	Revert bool `json:"revert,omitempty"`
	// Judged counts the reached nodes judged at the halt, Allowed the
	// unhealthy ones the gate allowed of them.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Judged int32 `json:"judged,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	Allowed int32 `json:"allowed,omitempty"`
	// Metrics has, by check name, the metric checks not passing or failed
	// (of the strategy's 10 at most).
	// +optional
	// +kubebuilder:validation:MaxProperties=10
	Metrics map[string]MetricRecord `json:"metrics,omitempty"`
	// Before has the nodes seen unhealthy before this rollout wrote them
	// (at most 100), with the bad conditions they showed: reported, never
	// counted.
	// +optional
	// +kubebuilder:validation:MaxProperties=100
	Before map[string]string `json:"before,omitempty"`
}

// MetricRecord is a metric check's consecutive measurements that did not
// pass, and its verdict.
type MetricRecord struct {
	// Failures, NoData and Errors count the consecutive measurements out
	// of bounds (or without data beyond noDataLimit), without data, and
	// that Prometheus could not answer.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Failures int32 `json:"failures,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	NoData int32 `json:"noData,omitempty"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	Errors int32 `json:"errors,omitempty"`
	// Inconclusive: more consecutive errors than failureLimit; it holds
	// the rollout and never halts it.
	// +optional
	Inconclusive bool `json:"inconclusive,omitempty"`
	// DryRun: measured and shown, never judged.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`
	// Seen is what the last measurement saw, At when.
	// +kubebuilder:validation:MaxLength=512
	Seen string `json:"seen"`
	// +kubebuilder:validation:Format=date-time
	At string `json:"at"`
	// Failed: more consecutive failures than failureLimit.
	// +optional
	Failed bool `json:"failed,omitempty"`
}

// HaltRecord is a configuration the health gate halted, remembered after
// a newer rollout replaced its own.
type HaltRecord struct {
	// Target is the fingerprint of the configuration halted, Revision the
	// number of its revision (0: not known).
	// +kubebuilder:validation:MaxLength=128
	Target string `json:"target"`
	// +optional
	// +kubebuilder:validation:Minimum=0
	Revision int64 `json:"revision,omitempty"`
	// HaltedAt is when the gate halted it; a retry names it.
	// +kubebuilder:validation:Format=date-time
	HaltedAt string `json:"haltedAt"`
	// Revert: onUnhealthy was revert.
	// +optional
	Revert bool `json:"revert,omitempty"`
	// Summary names the unhealthy nodes then, shortened.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Summary string `json:"summary,omitempty"`
}
