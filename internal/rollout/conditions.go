package rollout

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
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
)

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
// operator can move it (a halt, data withheld, an invalid key).
func standingOf(s Status) standing {
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
			ShortTarget(w.Fingerprint), w.AtRevision(), what, ShortTarget(s.Fingerprint))}
	case s.Halted():
		return standing{reason: string(PhaseHalted), stuck: true, halted: true, message: fmt.Sprintf(
			"the health gate halted the rollout of configuration %s: %s (kubectl nodeslo rollout resume or undo)",
			ShortTarget(s.Fingerprint), s.unhealthyText())}
	case s.Phase == PhasePaused && !s.Paused && !s.StrategyInvalid && s.Health.Inconclusive():
		return standing{reason: ReasonMetricsInconclusive, message: fmt.Sprintf(
			"the rollout of configuration %s waits for Prometheus, neither halted nor going on: %s; %s",
			ShortTarget(s.Fingerprint), s.Health.inconclusiveText(), s.progressText())}
	case s.Phase == PhasePaused && s.StrategyInvalid:
		return standing{reason: ReasonStrategyInvalid, stuck: true, message: fmt.Sprintf(
			"spec.strategy is invalid, which holds the rollout of configuration %s: %s (its InvalidStrategy Events say why)",
			ShortTarget(s.Fingerprint), s.progressText())}
	case s.Phase == PhasePaused:
		return standing{reason: string(PhasePaused), message: fmt.Sprintf(
			"the rollout of configuration %s is paused: %s", ShortTarget(s.Fingerprint), s.progressText())}
	case s.Phase == PhaseProgressing && s.AwaitingWrites:
		return standing{reason: ReasonAwaitingWrites, moving: true, message: fmt.Sprintf(
			"rolling out configuration %s: %s; the step taken waits for its nodes' writes",
			ShortTarget(s.Fingerprint), s.progressText())}
	case s.Phase == PhaseProgressing:
		return standing{reason: string(PhaseProgressing), moving: true, message: fmt.Sprintf(
			"rolling out configuration %s: %s", ShortTarget(s.Fingerprint), s.progressText())}
	case s.Phase == PhaseAllAtOnce:
		return standing{reason: string(PhaseAllAtOnce), done: true, message: fmt.Sprintf(
			"configuration %s is in force on every node (no spec.strategy: every change goes at once)",
			ShortTarget(s.Fingerprint))}
	}
	return standing{reason: string(PhaseCompleted), done: true, message: fmt.Sprintf(
		"configuration %s is in force on every node: %s", ShortTarget(s.Fingerprint), s.progressText())}
}

// progressText says the steps and the nodes of s in a few words. Without a
// valid key there is no plan, so no count of steps (Steps is zero): only
// the steps taken, as kubectl nodeslo rollout status says them.
func (s Status) progressText() string {
	steps := fmt.Sprintf("step %d of %d", s.Step, s.Steps)
	if s.StrategyInvalid {
		steps = fmt.Sprintf("%d steps taken", s.Step)
	}
	return fmt.Sprintf("%s, %d of %d nodes reached, %d pending", steps, s.Reached, s.PendingAtStart, s.Pending)
}

// unhealthyText says what the gate judged at its halt.
func (s Status) unhealthyText() string {
	h := s.Health
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
func SetConditions(conditions *[]metav1.Condition, s Status, generation int64, now time.Time) {
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
