package rollout

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Reasons of the NodeSLORollout's conditions besides the phases' names
// (docs/rollout.md#conditions).
const (
	// ReasonWithheldData: the ConfigMap's data was halted by the health gate
	// and is not in force.
	ReasonWithheldData = "Withheld"
	// ReasonStrategyInvalid: spec.strategy is invalid, which holds every rollout.
	ReasonStrategyInvalid = "StrategyInvalid"
	// ReasonAwaitingWrites: the step taken last waits for its nodes' writes.
	ReasonAwaitingWrites = "AwaitingWrites"
	// ReasonMetricsInconclusive: a metric check Prometheus cannot answer
	// holds the rollout until it answers; nothing is halted.
	ReasonMetricsInconclusive = "Inconclusive"
	// ReasonNotHalted: no halt holds the rollout.
	ReasonNotHalted = "NotHalted"
	// ReasonPlanFailed: the controller could not plan the rollout (a read
	// it needs failed); it tries again.
	ReasonPlanFailed = "PlanFailed"
)

// maxPlanError bounds the error a failed plan's conditions repeat: it may
// quote an apiserver's answer, which no one here chose.
const maxPlanError = 1024

// standing is what a status says, in the terms of the conditions.
type standing struct {
	// reason is the one word for where the rollout stands, message the
	// sentence; done, moving, stuck are what Ready, Progressing and
	// Halted/Stalled say.
	reason, message     string
	done, moving, stuck bool
	halted              bool
}

// standingOf reads s in the terms of the conditions: done when the
// ConfigMap's data is in force everywhere it goes; stuck when only an
// operator can move it (a halt, data withheld, an invalid strategy).
func standingOf(s *nodeslov1alpha1.NodeSLORolloutStatus) standing {
	switch {
	case s.Withheld != nil:
		w := s.Withheld
		what := "kept out of force"
		if w.Reverted {
			what = "reverted"
		}
		return standing{reason: ReasonWithheldData, stuck: true, halted: true, message: fmt.Sprintf(
			"the ConfigMap's data, configuration %s, was halted by the health gate%s and is %s: configuration %s "+
				"is in force (kubectl nodeslo rollout retry rolls the data out again)",
			ShortTarget(w.Configuration), AtRevision(w.Revision), what, ShortTarget(s.Configuration))}
	case s.Phase == PhaseHalted:
		return standing{reason: string(PhaseHalted), stuck: true, halted: true, message: fmt.Sprintf(
			"the health gate halted the rollout of configuration %s: %s (kubectl nodeslo rollout resume or undo)",
			ShortTarget(s.Configuration), unhealthyText(s.Health))}
	case s.Phase == PhasePaused && !s.Paused && !s.StrategyInvalid && HealthInconclusive(s.Health):
		return standing{reason: ReasonMetricsInconclusive, message: fmt.Sprintf(
			"the rollout of configuration %s waits for Prometheus, neither halted nor going on: %s; %s",
			ShortTarget(s.Configuration), inconclusiveText(s.Health), progressText(s))}
	case s.Phase == PhasePaused && s.StrategyInvalid:
		return standing{reason: ReasonStrategyInvalid, stuck: true, message: fmt.Sprintf(
			"spec.strategy is invalid, which holds the rollout of configuration %s: %s (its InvalidStrategy Events say why)",
			ShortTarget(s.Configuration), progressText(s))}
	case s.Phase == PhasePaused:
		return standing{reason: string(PhasePaused), message: fmt.Sprintf(
			"the rollout of configuration %s is paused: %s", ShortTarget(s.Configuration), progressText(s))}
	case s.Phase == PhaseProgressing && s.AwaitingWrites:
		return standing{reason: ReasonAwaitingWrites, moving: true, message: fmt.Sprintf(
			"rolling out configuration %s: %s; the step taken waits for its nodes' writes",
			ShortTarget(s.Configuration), progressText(s))}
	case s.Phase == PhaseProgressing:
		return standing{reason: string(PhaseProgressing), moving: true, message: fmt.Sprintf(
			"rolling out configuration %s: %s", ShortTarget(s.Configuration), progressText(s))}
	case s.Phase == PhaseAllAtOnce:
		return standing{reason: string(PhaseAllAtOnce), done: true, message: fmt.Sprintf(
			"configuration %s is in force on every node (no spec.strategy: every change goes at once)",
			ShortTarget(s.Configuration))}
	}
	return standing{reason: string(PhaseCompleted), done: true, message: fmt.Sprintf(
		"configuration %s is in force on every node: %s", ShortTarget(s.Configuration), progressText(s))}
}

// progressText says the steps and the nodes of s in a few words. Without a
// valid strategy there is no plan, so no count of steps (Steps is zero): only
// the steps taken, as kubectl nodeslo rollout status says them.
func progressText(s *nodeslov1alpha1.NodeSLORolloutStatus) string {
	steps := fmt.Sprintf("step %d of %d", s.Step, s.Steps)
	if s.StrategyInvalid {
		steps = fmt.Sprintf("%d steps taken", s.Step)
	}
	return fmt.Sprintf("%s, %d of %d nodes reached, %d pending", steps, s.Reached, s.PendingAtStart, s.Pending)
}

// unhealthyText says what the gate judged at its halt (h: the status's health).
func unhealthyText(h *nodeslov1alpha1.RolloutHealth) string {
	if h == nil {
		return "no verdict recorded"
	}
	text := fmt.Sprintf("%d reached nodes unhealthy", h.Unhealthy)
	if h.Allowed >= 0 {
		text += fmt.Sprintf(", %d allowed of %d judged", h.Allowed, h.AllowedOf)
	}
	if n := len(h.Metrics); n > 0 {
		text += fmt.Sprintf(", %d metric checks not passing", n)
	}
	return text
}

// SetConditions sets the NodeSLORollout's conditions for s, decided on the
// spec of generation at now: Ready, Progressing and Halted, and kstatus's
// Reconciling and Stalled. A condition whose status does not change keeps
// its lastTransitionTime (meta.SetStatusCondition).
func SetConditions(
	conditions *[]metav1.Condition, s *nodeslov1alpha1.NodeSLORolloutStatus, generation int64, now time.Time,
) {
	st := standingOf(s)
	set := func(kind string, value bool, reasonIfFalse string) {
		status, reason := metav1.ConditionFalse, reasonIfFalse
		if value {
			status, reason = metav1.ConditionTrue, st.reason
		}
		if reasonIfFalse == "" {
			reason = st.reason
		}
		meta.SetStatusCondition(conditions, metav1.Condition{Type: kind, Status: status, Reason: reason,
			Message: st.message, ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(now)})
	}
	set(nodeslov1alpha1.ConditionReady, st.done, "")
	set(nodeslov1alpha1.ConditionProgressing, st.moving, "")
	set(nodeslov1alpha1.ConditionHalted, st.halted, ReasonNotHalted)
	set(nodeslov1alpha1.ConditionReconciling, !st.done && !st.stuck, "")
	set(nodeslov1alpha1.ConditionStalled, st.stuck, "")
}

// SetPlanFailedConditions sets the conditions of a rollout whose plan
// failed with err, the rest of its status as decided last: not Ready, not
// Progressing, Reconciling (the controller tries again, as its error
// backoff allows) and not Stalled, each with reason PlanFailed and the
// error in its message; Halted keeps what the last decision said, which
// nothing contradicts. configuration is the fingerprint that was being
// planned.
func SetPlanFailedConditions(
	conditions *[]metav1.Condition, configuration string, err error, generation int64, now time.Time,
) {
	message := fmt.Sprintf("cannot plan the rollout of configuration %s; trying again: %s",
		ShortTarget(configuration), sloconfig.CutAt(err.Error(), maxPlanError))
	for kind, value := range map[string]metav1.ConditionStatus{
		nodeslov1alpha1.ConditionReady:       metav1.ConditionFalse,
		nodeslov1alpha1.ConditionProgressing: metav1.ConditionFalse,
		nodeslov1alpha1.ConditionReconciling: metav1.ConditionTrue,
		nodeslov1alpha1.ConditionStalled:     metav1.ConditionFalse,
	} {
		meta.SetStatusCondition(conditions, metav1.Condition{Type: kind, Status: value, Reason: ReasonPlanFailed,
			Message: message, ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(now)})
	}
}
