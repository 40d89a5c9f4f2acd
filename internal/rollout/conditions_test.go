package rollout

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// The configurations of the conditions' statuses: the one rolled out, and
// the ConfigMap's data withheld in its place.
const (
	condTarget   = "53c4325a5468a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a"
	condWithheld = "d9d070e0d54f0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796"
)

var condStart = time.Date(2026, 12, 2, 18, 30, 0, 0, time.UTC)

// The kinds of status SetConditions reads (conditionStatuses).
const (
	kindProgressing     = "progressing"
	kindAwaiting        = "awaiting writes"
	kindPaused          = "paused"
	kindStrategyInvalid = "strategy invalid"
	kindInconclusive    = "inconclusive"
	kindHalted          = "halted"
	kindCompleted       = "completed"
	kindAllAtOnce       = "all at once"
	kindWithheld        = "withheld"
	kindReverted        = "withheld reverted"
)

// condSummary is the unhealthy nodes at the halt of the data withheld.
const condSummary = "canary-1 (Ready=False since 17:30:00)"

// conditionStatuses are the kinds of status SetConditions reads, by name.
func conditionStatuses() map[string]apiStatus {
	progressing := apiStatus{Configuration: condTarget, RolloutKey: "k1", Phase: PhaseProgressing, Started: mt(condStart),
		Step: 2, Steps: 5, StepSize: 10, Reached: 13, PendingAtStart: 40, Pending: 27,
		NextStep: mt(condStart.Add(time.Minute)), Updated: mt(condStart)}
	awaiting := progressing
	awaiting.NextStep, awaiting.AwaitingWrites = nil, true
	paused := progressing
	paused.Phase, paused.Paused, paused.NextStep = PhasePaused, true, nil
	invalid := progressing
	invalid.Phase, invalid.StrategyInvalid, invalid.Steps, invalid.StepSize, invalid.NextStep =
		PhasePaused, true, 0, 0, nil
	inconclusive := progressing
	inconclusive.Phase, inconclusive.NextStep = PhasePaused, nil
	inconclusive.Health = &nodeslov1alpha1.RolloutHealth{Allowed: 1, AllowedOf: 13,
		Metrics: []nodeslov1alpha1.MetricVerdict{{Name: checkLatency, Errors: 2, Inconclusive: true,
			Seen: "Prometheus unreachable at http://p:9090", At: mt(condStart)}}}
	halted := progressing
	halted.Phase, halted.NextStep = PhaseHalted, nil
	halted.Health = &nodeslov1alpha1.RolloutHealth{Gate: "maxUnhealthyNodes 1", MaxUnhealthyNodes: "1", Allowed: 1,
		AllowedOf: 3, Unhealthy: 2, Nodes: []nodeslov1alpha1.NodeVerdict{
			{Name: "canary-3", Signal: "Ready=Unknown since 18:31:40"}, {Name: "canary-4"}},
		HaltedAt: mt(condStart.Add(2 * time.Minute)), HaltedKey: "k1"}
	completed := progressing
	completed.Phase, completed.Step, completed.Reached, completed.Pending, completed.NextStep =
		PhaseCompleted, 5, 40, 0, nil
	completed.Completed = mt(condStart.Add(5 * time.Minute))
	withheld := completed
	withheld.Withheld = &nodeslov1alpha1.WithheldConfiguration{Configuration: condWithheld, Revision: 2,
		HaltedAt: mt(condStart.Add(-time.Hour)), Summary: condSummary}
	reverted := withheld
	reverted.Withheld = &nodeslov1alpha1.WithheldConfiguration{Configuration: condWithheld, Revision: 2,
		HaltedAt: mt(condStart.Add(-time.Hour)), Summary: condSummary, Reverted: true}
	return map[string]apiStatus{
		kindProgressing: progressing, kindAwaiting: awaiting, kindPaused: paused, kindStrategyInvalid: invalid,
		kindInconclusive: inconclusive, kindHalted: halted, kindCompleted: completed,
		kindAllAtOnce: {Configuration: condTarget, Phase: PhaseAllAtOnce, Updated: mt(condStart)},
		kindWithheld:  withheld, kindReverted: reverted,
	}
}

// cond is a condition's status and reason.
type cond struct {
	status metav1.ConditionStatus
	reason string
}

var conditionTypes = []string{nodeslov1alpha1.ConditionReady, nodeslov1alpha1.ConditionProgressing,
	nodeslov1alpha1.ConditionHalted, nodeslov1alpha1.ConditionReconciling, nodeslov1alpha1.ConditionStalled}

func TestSetConditions(t *testing.T) {
	const T, F = metav1.ConditionTrue, metav1.ConditionFalse
	notHalted := cond{F, ReasonNotHalted}
	// The reasons: the phase's name, or one of the Reason constants.
	moving, awaiting, paused, invalid := string(PhaseProgressing), ReasonAwaitingWrites, string(PhasePaused),
		ReasonStrategyInvalid
	halted, completed, allAtOnce, withheld := string(PhaseHalted), string(PhaseCompleted), string(PhaseAllAtOnce),
		ReasonWithheldData
	tests := []struct {
		status string
		// want is Ready, Progressing, Halted, Reconciling, Stalled.
		want [5]cond
		// message holds these, whatever the condition.
		message []string
	}{{
		status: kindProgressing,
		want: [5]cond{{F, moving}, {T, moving}, notHalted, {T, moving},
			{F, moving}},
		message: []string{"rolling out configuration 53c4325a5468:", "step 2 of 5, 13 of 40 nodes reached, 27 pending"},
	}, {
		status: kindAwaiting,
		want: [5]cond{{F, awaiting}, {T, awaiting}, notHalted, {T, awaiting},
			{F, awaiting}},
		message: []string{"rolling out configuration 53c4325a5468", "waits for its nodes' writes"},
	}, {
		status:  kindPaused,
		want:    [5]cond{{F, paused}, {F, paused}, notHalted, {T, paused}, {F, paused}},
		message: []string{"configuration 53c4325a5468 is paused: step 2 of 5"},
	}, {
		status: kindStrategyInvalid,
		want:   [5]cond{{F, invalid}, {F, invalid}, notHalted, {F, invalid}, {T, invalid}},
		// No plan without a valid key: the steps taken, never "of 0".
		message: []string{"spec.strategy is invalid", "configuration 53c4325a5468: 2 steps taken, 13 of 40 nodes",
			"its InvalidStrategy Events say why"},
	}, {
		// Not stuck: it goes on once Prometheus answers.
		status: kindInconclusive,
		want: [5]cond{{F, ReasonMetricsInconclusive}, {F, ReasonMetricsInconclusive}, notHalted,
			{T, ReasonMetricsInconclusive}, {F, ReasonMetricsInconclusive}},
		message: []string{"configuration 53c4325a5468 waits for Prometheus, neither halted nor going on: " +
			"metric check latency: Prometheus unreachable at http://p:9090 (2 consecutive errors); step 2 of 5"},
	}, {
		status:  kindHalted,
		want:    [5]cond{{F, halted}, {F, halted}, {T, halted}, {F, halted}, {T, halted}},
		message: []string{"halted the rollout of configuration 53c4325a5468: 2 reached nodes unhealthy, 1 allowed of 3"},
	}, {
		status:  kindCompleted,
		want:    [5]cond{{T, completed}, {F, completed}, notHalted, {F, completed}, {F, completed}},
		message: []string{"configuration 53c4325a5468 is in force on every node: step 5 of 5, 40 of 40 nodes"},
	}, {
		status:  kindAllAtOnce,
		want:    [5]cond{{T, allAtOnce}, {F, allAtOnce}, notHalted, {F, allAtOnce}, {F, allAtOnce}},
		message: []string{"configuration 53c4325a5468 is in force on every node (no spec.strategy"},
	}, {
		// Completed, but not what the ConfigMap says: not Ready.
		status: kindWithheld,
		want:   [5]cond{{F, withheld}, {F, withheld}, {T, withheld}, {F, withheld}, {T, withheld}},
		message: []string{"configuration d9d070e0d54f, was halted by the health gate at revision 2 and is kept out " +
			"of force: configuration 53c4325a5468 is in force", "kubectl nodeslo rollout retry"},
	}, {
		status: kindReverted,
		want:   [5]cond{{F, withheld}, {F, withheld}, {T, withheld}, {F, withheld}, {T, withheld}},
		message: []string{"configuration d9d070e0d54f, was halted by the health gate at revision 2 and is reverted: " +
			"configuration 53c4325a5468 is in force"},
	}}
	statuses := conditionStatuses()
	if len(tests) != len(statuses) {
		t.Fatalf("%d cases for %d kinds of status", len(tests), len(statuses))
	}
	now := condStart.Add(10 * time.Minute)
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			s, ok := statuses[tt.status]
			if !ok {
				t.Fatalf("no status %q", tt.status)
			}
			var conds []metav1.Condition
			SetConditions(&conds, &s, 7, now)
			if len(conds) != len(conditionTypes) {
				t.Errorf("%d conditions, want %d: %+v", len(conds), len(conditionTypes), conds)
			}
			for i, kind := range conditionTypes {
				c := meta.FindStatusCondition(conds, kind)
				if c == nil {
					t.Errorf("no condition %s", kind)
					continue
				}
				if got := (cond{c.Status, c.Reason}); got != tt.want[i] {
					t.Errorf("%s: %s/%s, want %s/%s", kind, got.status, got.reason, tt.want[i].status, tt.want[i].reason)
				}
				for _, part := range tt.message {
					if !strings.Contains(c.Message, part) {
						t.Errorf("%s: message %q does not say %q", kind, c.Message, part)
					}
				}
				if c.ObservedGeneration != 7 {
					t.Errorf("%s: observedGeneration %d, want 7", kind, c.ObservedGeneration)
				}
				if !c.LastTransitionTime.Time.Equal(now) {
					t.Errorf("%s: lastTransitionTime %v, want the time of the first decision %v",
						kind, c.LastTransitionTime, now)
				}
			}
			// Ready says what Done says, so that both readers agree.
			if ready := meta.IsStatusConditionTrue(conds, nodeslov1alpha1.ConditionReady); ready != StatusDone(&s) {
				t.Errorf("Ready %v, Done %v", ready, StatusDone(&s))
			}
			// The apiserver's own rules for conditions (the CRD's schema
			// says the same: type, reason, message length, time).
			if errs := metav1validation.ValidateConditions(conds, field.NewPath("status", "conditions")); len(errs) > 0 {
				t.Errorf("the apiserver would refuse the conditions: %v", errs.ToAggregate())
			}
		})
	}
}

// TestSetConditionsTransitions runs one rollout through its kinds of
// status: a condition whose status stays keeps its lastTransitionTime, and
// one that changes takes the decision's time; observedGeneration and the
// reason follow every decision.
func TestSetConditionsTransitions(t *testing.T) {
	statuses := conditionStatuses()
	steps := []struct {
		status     string
		generation int64
		// moved are the conditions whose status changes at this step.
		moved []string
	}{
		{kindProgressing, 1, conditionTypes}, // every condition is new
		{kindAwaiting, 1, nil},
		{kindPaused, 2, []string{nodeslov1alpha1.ConditionProgressing}},
		{kindHalted, 3, []string{nodeslov1alpha1.ConditionHalted, nodeslov1alpha1.ConditionReconciling,
			nodeslov1alpha1.ConditionStalled}},
		{kindWithheld, 3, nil},
		{kindCompleted, 4, []string{nodeslov1alpha1.ConditionReady, nodeslov1alpha1.ConditionHalted,
			nodeslov1alpha1.ConditionStalled}},
		{kindProgressing, 4, []string{nodeslov1alpha1.ConditionReady, nodeslov1alpha1.ConditionProgressing,
			nodeslov1alpha1.ConditionReconciling}},
		{kindStrategyInvalid, 5, []string{nodeslov1alpha1.ConditionProgressing, nodeslov1alpha1.ConditionReconciling,
			nodeslov1alpha1.ConditionStalled}},
		{kindAllAtOnce, 6, []string{nodeslov1alpha1.ConditionReady, nodeslov1alpha1.ConditionStalled}},
	}
	var conds []metav1.Condition
	last := map[string]metav1.Time{}
	for i, step := range steps {
		now := condStart.Add(time.Duration(i+1) * time.Minute)
		before := map[string]metav1.ConditionStatus{}
		for _, c := range conds {
			before[c.Type] = c.Status
		}
		s := statuses[step.status]
		SetConditions(&conds, &s, step.generation, now)
		var want []metav1.Condition
		SetConditions(&want, &s, step.generation, now)
		for _, kind := range conditionTypes {
			c, w := meta.FindStatusCondition(conds, kind), meta.FindStatusCondition(want, kind)
			if c.Status != w.Status || c.Reason != w.Reason || c.Message != w.Message {
				t.Errorf("step %d (%s): %s is %s/%s %q, want what it is on its own: %s/%s %q", i, step.status, kind,
					c.Status, c.Reason, c.Message, w.Status, w.Reason, w.Message)
			}
			if c.ObservedGeneration != step.generation {
				t.Errorf("step %d (%s): %s observedGeneration %d, want %d", i, step.status, kind,
					c.ObservedGeneration, step.generation)
			}
			changed := before[kind] != c.Status
			if moved := slices.Contains(step.moved, kind); moved != changed {
				t.Errorf("step %d (%s): %s went from %q to %s, the test expects a change: %v",
					i, step.status, kind, before[kind], c.Status, moved)
			}
			switch {
			case changed && !c.LastTransitionTime.Time.Equal(now):
				t.Errorf("step %d (%s): %s changed status at %v, lastTransitionTime %v", i, step.status, kind,
					now, c.LastTransitionTime)
			case !changed && !c.LastTransitionTime.Time.Equal(last[kind].Time):
				t.Errorf("step %d (%s): %s kept its status, lastTransitionTime moved from %v to %v", i, step.status,
					kind, last[kind], c.LastTransitionTime)
			}
			last[kind] = c.LastTransitionTime
		}
	}
}

// TestSetPlanFailedConditions: a failed plan of a halted rollout says so in
// Ready, Progressing, Reconciling and Stalled, with its reason and the
// error cut at maxPlanError; Halted keeps the halt, and the conditions are
// valid as the apiserver checks them.
func TestSetPlanFailedConditions(t *testing.T) {
	var conds []metav1.Condition
	haltedStatus := conditionStatuses()[kindHalted]
	SetConditions(&conds, &haltedStatus, 3, condStart)
	planErr := errors.New("reading NodeSLOs for the rollout: " + strings.Repeat("x", 4*maxPlanError))
	SetPlanFailedConditions(&conds, condTarget, planErr, 4, condStart.Add(time.Minute))

	want := map[string]metav1.ConditionStatus{
		nodeslov1alpha1.ConditionReady:       metav1.ConditionFalse,
		nodeslov1alpha1.ConditionProgressing: metav1.ConditionFalse,
		nodeslov1alpha1.ConditionReconciling: metav1.ConditionTrue,
		nodeslov1alpha1.ConditionStalled:     metav1.ConditionFalse,
	}
	for kind, status := range want {
		c := meta.FindStatusCondition(conds, kind)
		if c == nil || c.Status != status || c.Reason != ReasonPlanFailed || c.ObservedGeneration != 4 {
			t.Fatalf("%s: %+v, want %s with reason %s at generation 4", kind, c, status, ReasonPlanFailed)
		}
		if !strings.HasPrefix(c.Message, "cannot plan the rollout of configuration 53c4325a5468; trying again: "+
			"reading NodeSLOs for the rollout: xxx") || len(c.Message) > maxPlanError+200 {
			t.Errorf("%s: message of %d bytes: %.200s", kind, len(c.Message), c.Message)
		}
	}
	halted := meta.FindStatusCondition(conds, nodeslov1alpha1.ConditionHalted)
	if halted == nil || halted.Status != metav1.ConditionTrue || halted.Reason != string(PhaseHalted) {
		t.Errorf("Halted: %+v, want the halt kept", halted)
	}
	for i := range conds {
		path := field.NewPath("status", "conditions").Index(i)
		if errs := metav1validation.ValidateCondition(conds[i], path); len(errs) > 0 {
			t.Errorf("invalid condition: %v", errs.ToAggregate())
		}
	}
}

// apiStatus is the NodeSLORollout's status, which statusOf decides.
type apiStatus = nodeslov1alpha1.NodeSLORolloutStatus

// mt is t as a status time.
func mt(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }
