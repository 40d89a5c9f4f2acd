// Package ecosystem checks that the ecosystem's tools read a
// NodeSLORollout's status as docs/argocd-health.md says: kstatus (Flux, kpt,
// cli-utils) through its Reconciling and Stalled conditions, and Argo CD
// through the health check in Lua that page ships, run from the page
// itself. The objects are built by the controller's own code,
// rollout.SetConditions on the API's status, for each kind of status.
package ecosystem

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/rollout"
)

// The configurations of the statuses: the one rolled out, and the
// ConfigMap's data withheld in its place.
const (
	target       = "53c4325a5468a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a"
	withheldData = "d9d070e0d54f0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796"
)

var started = time.Date(2026, 12, 2, 18, 30, 0, 0, time.UTC)

// Argo CD's health statuses.
const (
	healthy     = "Healthy"
	progressing = "Progressing"
	degraded    = "Degraded"
	suspended   = "Suspended"
)

// recorded is a NodeSLORollout as the controller leaves it, and what each
// tool must read in it.
type recorded struct {
	name string
	// status is the controller's (nil: none written yet), decided on the
	// spec of generation observed; the object is at generation.
	status               *nodeslov1alpha1.NodeSLORolloutStatus
	generation, observed int64
	// kstatus is status.Compute's verdict.
	kstatus status.Status
	// health is the Argo CD check's, with the message of the condition
	// from, or message when from is "".
	health, from, message string
}

// recordings are the kinds of status, each as the tools must read it.
func recordings() []recorded {
	at := func(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }
	progressingStatus := nodeslov1alpha1.NodeSLORolloutStatus{Configuration: target, RolloutKey: "k1",
		Phase: rollout.PhaseProgressing, Started: at(started), Step: 2, Steps: 5, StepSize: 10, Reached: 13,
		PendingAtStart: 40, Pending: 27, NextStep: at(started.Add(time.Minute)), Updated: at(started)}
	awaiting := progressingStatus
	awaiting.NextStep, awaiting.AwaitingWrites = nil, true
	paused := progressingStatus
	paused.Phase, paused.Paused, paused.NextStep = rollout.PhasePaused, true, nil
	invalid := progressingStatus
	invalid.Phase, invalid.StrategyInvalid, invalid.Steps, invalid.StepSize, invalid.NextStep =
		rollout.PhasePaused, true, 0, 0, nil
	halted := progressingStatus
	halted.Phase, halted.NextStep = rollout.PhaseHalted, nil
	halted.Health = &nodeslov1alpha1.RolloutHealth{Gate: "maxUnhealthyNodes 1", MaxUnhealthyNodes: "1", Allowed: 1,
		AllowedOf: 3, Unhealthy: 2, Nodes: []nodeslov1alpha1.NodeVerdict{{Name: "canary-1", Signal: "Ready=False"}},
		Omitted: 1, HaltedAt: at(started.Add(2 * time.Minute)), HaltedKey: "k1"}
	completed := progressingStatus
	completed.Phase, completed.Step, completed.Reached, completed.Pending, completed.NextStep =
		rollout.PhaseCompleted, 5, 40, 0, nil
	completed.Completed = at(started.Add(5 * time.Minute))
	allAtOnce := nodeslov1alpha1.NodeSLORolloutStatus{Configuration: target, Phase: rollout.PhaseAllAtOnce,
		Updated: at(started)}
	withheld := completed
	withheld.Withheld = &nodeslov1alpha1.WithheldConfiguration{Configuration: withheldData, Revision: 2,
		HaltedAt: at(started.Add(-time.Hour)),
		Summary:  "canary-1 (Ready=False since 17:30:00)"}
	reverted := completed
	reverted.Withheld = &nodeslov1alpha1.WithheldConfiguration{Configuration: withheldData, Revision: 2,
		HaltedAt: at(started.Add(-time.Hour)), Summary: "canary-1 (Ready=False since 17:30:00)", Reverted: true}

	const (
		ready     = nodeslov1alpha1.ConditionReady
		moving    = nodeslov1alpha1.ConditionProgressing
		reconcile = nodeslov1alpha1.ConditionReconciling
		stalled   = nodeslov1alpha1.ConditionStalled
	)
	return []recorded{
		{name: "progressing", status: &progressingStatus, generation: 1, observed: 1,
			kstatus: status.InProgressStatus, health: progressing, from: moving},
		{name: "awaiting writes", status: &awaiting, generation: 1, observed: 1,
			kstatus: status.InProgressStatus, health: progressing, from: moving},
		{name: "paused", status: &paused, generation: 2, observed: 2,
			kstatus: status.InProgressStatus, health: suspended, from: reconcile},
		{name: "key invalid", status: &invalid, generation: 1, observed: 1,
			kstatus: status.FailedStatus, health: degraded, from: stalled},
		{name: "halted", status: &halted, generation: 1, observed: 1,
			kstatus: status.FailedStatus, health: degraded, from: stalled},
		{name: "completed", status: &completed, generation: 1, observed: 1,
			kstatus: status.CurrentStatus, health: healthy, from: ready},
		{name: "all at once", status: &allAtOnce, generation: 1, observed: 1,
			kstatus: status.CurrentStatus, health: healthy, from: ready},
		{name: "withheld", status: &withheld, generation: 3, observed: 3,
			kstatus: status.FailedStatus, health: degraded, from: stalled},
		{name: "withheld reverted", status: &reverted, generation: 3, observed: 3,
			kstatus: status.FailedStatus, health: degraded, from: stalled},
		// An operator's spec.retry (generation 3) not taken up yet: the
		// completed status is of the spec before.
		{name: "completed, the spec newer", status: &completed, generation: 3, observed: 2,
			kstatus: status.InProgressStatus, health: progressing,
			message: "waiting for the controller to decide on generation 3 (the status is of generation 2)"},
		// spec.resume (generation 2) not taken up yet: still halted, but
		// neither tool reports the halt any more.
		{name: "halted, the spec newer", status: &halted, generation: 2, observed: 1,
			kstatus: status.InProgressStatus, health: progressing,
			message: "waiting for the controller to decide on generation 2 (the status is of generation 1)"},
		// Created, no status written yet: kstatus finds nothing to read
		// and takes the object as current (its rule for an object without
		// conditions); the Argo CD check waits.
		{name: "no status", generation: 1,
			kstatus: status.CurrentStatus, health: progressing, message: "waiting for the controller's first status"},
	}
}

// object is r's NodeSLORollout as the tools get it: unstructured, its
// conditions set by the controller's code at the time of its status.
func (r recorded) object(t *testing.T) (*unstructured.Unstructured, *nodeslov1alpha1.NodeSLORollout) {
	t.Helper()
	o := &nodeslov1alpha1.NodeSLORollout{
		TypeMeta: metav1.TypeMeta{APIVersion: nodeslov1alpha1.GroupVersion.String(), Kind: "NodeSLORollout"},
		ObjectMeta: metav1.ObjectMeta{Name: "slo-controller-config", Namespace: "koordinator-system",
			Generation: r.generation, CreationTimestamp: metav1.NewTime(started.Add(-24 * time.Hour))},
	}
	if r.status != nil {
		o.Status = *r.status.DeepCopy()
		o.Status.ObservedGeneration = r.observed
		o.Status.Revision = 2
		rollout.SetConditions(&o.Status.Conditions, &o.Status, r.observed, r.status.Updated.Time)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatalf("converting %s: %v", r.name, err)
	}
	if r.status == nil {
		// As the apiserver keeps it: a create drops the status of a kind
		// with a status subresource (the typed object's is "status": {}).
		delete(content, "status")
	}
	return &unstructured.Unstructured{Object: content}, o
}

// wantMessage is the message r's check must return.
func (r recorded) wantMessage(t *testing.T, o *nodeslov1alpha1.NodeSLORollout) string {
	t.Helper()
	if r.from == "" {
		return r.message
	}
	for _, c := range o.Status.Conditions {
		if c.Type == r.from {
			if c.Message == "" {
				t.Fatalf("%s: condition %s has no message", r.name, r.from)
			}
			return c.Message
		}
	}
	t.Fatalf("%s: no condition %s", r.name, r.from)
	return ""
}
