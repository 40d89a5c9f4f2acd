package rollout

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Event reasons of a staged rollout, on the ConfigMap (docs/rollout.md).
const (
	ReasonStarted   = "RolloutStarted"
	ReasonStep      = "RolloutStep"
	ReasonPaused    = "RolloutPaused"
	ReasonCompleted = "RolloutCompleted"
	// ReasonHalted: the health gate halted the rollout (docs/rollout.md#health-gates).
	ReasonHalted = "RolloutHalted"
	// ReasonReverted: the health gate put the previous revision's
	// configuration in force in place of the ConfigMap's halted data.
	ReasonReverted = "RolloutReverted"
	// ReasonWithheld: the ConfigMap's data is a configuration the health
	// gate halted, not in force until a retry (docs/rollout.md#gitops-argo-cd-flux).
	ReasonWithheld = "RolloutWithheld"
	// ReasonInconclusive: Prometheus could not answer a metric check
	// beyond its failureLimit; the rollout waits for an answer, not halted.
	ReasonInconclusive = "RolloutInconclusive"
	// ReasonUnhealthyBeforeWrite: nodes were unhealthy before the rollout
	// wrote them; the gate does not count it, and they are no canaries.
	ReasonUnhealthyBeforeWrite = "RolloutUnhealthyBeforeWrite"
)

// Event is one Event to record on the ConfigMap. Each Event of a rollout
// has its own action (target and step): the recorder folds Events that
// share object, reason and action into one series that keeps only the
// first note.
type Event struct {
	Type, Reason, Action, Note string
}

// decisionEvents says what decision d did, as Events. A RolloutPaused Event
// is said once until what it says changes: pausedReported identifies the
// last one, and the identity to remember is returned.
func decisionEvents(load Key, d Decision, pausedReported string) ([]Event, string) {
	var out []Event
	target := ShortTarget(d.Record.Target)
	if d.Started {
		steps := fmt.Sprintf("step size %d, %d steps", d.StepSize, d.Steps)
		if load.Policy == nil {
			steps = "steps counted once spec.strategy is valid"
		}
		out = append(out, Event{corev1.EventTypeNormal, ReasonStarted, "Roll out " + target,
			fmt.Sprintf("rollout of configuration %s started: %d nodes pending (%d canaries), %s",
				target, d.Record.Pending, d.Record.Canaries, steps)})
	}
	if d.Stepped {
		out = append(out, Event{corev1.EventTypeNormal, ReasonStep, fmt.Sprintf("Step %d of %s", d.Step, target),
			fmt.Sprintf("step %d of %d: %d of %d nodes reached, %d pending",
				d.Step, d.Steps, d.Reached, d.Record.Pending, len(d.Held))})
	}
	if d.Completed {
		out = append(out, Event{corev1.EventTypeNormal, ReasonCompleted, "Complete " + target,
			fmt.Sprintf("rollout of configuration %s completed: %d nodes reached in %d steps",
				target, d.Record.Pending, d.Record.Steps)})
	}
	if len(d.SeenBefore) > 0 {
		seen := slices.Sorted(slices.Values(d.SeenBefore))
		// The action counts the nodes recorded, so that no two such Events fold into one series.
		action := fmt.Sprintf("Note %d unhealthy before %s", len(d.Record.Health.before()), target)
		out = append(out, Event{corev1.EventTypeWarning, ReasonUnhealthyBeforeWrite, action,
			sloconfig.Shorten(fmt.Sprintf("rollout of configuration %s: %d nodes unhealthy before it wrote them, "+
				"not held against the change and not used as canaries: %s", target, len(seen),
				summarize(seen, d.Record.Health.before())), sloconfig.MaxEventNote)})
	}
	if d.HaltedNow {
		h := d.Record.Health
		then := "paused: resume with kubectl nodeslo rollout resume, or undo with kubectl nodeslo rollout undo"
		if h.Revert {
			then = "reverting: the reached nodes get the previous revision's configuration back, " +
				"and the ConfigMap's data stays as it is, not in force"
		}
		out = append(out, Event{corev1.EventTypeWarning, ReasonHalted, "Halt " + target,
			sloconfig.Shorten(fmt.Sprintf("rollout of configuration %s halted by its health gate: %s; %s",
				target, haltReason(h, d.MaxUnhealthy), then),
				sloconfig.MaxEventNote)})
	}
	if !d.Paused || d.Halted {
		// A halt said so itself, once.
		return out, ""
	}
	if d.Inconclusive && !Paused(load) {
		events, id := inconclusiveEvent(target, d, pausedReported)
		return append(out, events...), id
	}
	eventType, why := corev1.EventTypeNormal, "\"paused\": true"
	if load.Policy == nil {
		eventType = corev1.EventTypeWarning
		why = "the NodeSLORollout's spec.strategy is invalid: " + sloconfig.EventNote(load.Messages(), "")
	}
	id := target + "\x00" + eventType + "\x00" + why
	if id == pausedReported {
		return out, pausedReported
	}
	return append(out, Event{eventType, ReasonPaused, "Pause " + target,
		sloconfig.Shorten(fmt.Sprintf("rollout of configuration %s paused: %d nodes pending keep their NodeSLO (%s)",
			target, len(d.Held), why), sloconfig.MaxEventNote)}), id
}

// inconclusiveEvent says once, for each set of inconclusive checks, that
// the rollout waits for Prometheus to answer them.
func inconclusiveEvent(target string, d Decision, reported string) ([]Event, string) {
	h := d.Record.Health
	var names []string
	for name, r := range h.metrics() {
		if r.Inconclusive {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	id := fmt.Sprintf("%s\x00%s\x00%v", target, ReasonInconclusive, names)
	if id == reported {
		return nil, reported
	}
	return []Event{{corev1.EventTypeWarning, ReasonInconclusive, "Wait " + target,
		sloconfig.Shorten(fmt.Sprintf("rollout of configuration %s waits, neither halted nor going on: %s; "+
			"%d nodes pending keep their NodeSLO until Prometheus answers",
			target, h.inconclusiveSummary(), len(d.Held)), sloconfig.MaxEventNote)}}, id
}
