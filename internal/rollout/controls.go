package rollout

import (
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodeslov1alpha1 "github.com/nodeslo/nodeslo-controller/api/nodeslo/v1alpha1"
)

// Controls are what a plan takes from the NodeSLORollout
// (docs/rollout.md#the-nodeslorollout): the record the controller keeps
// in its status, and what the operator asks in its spec.
type Controls struct {
	// Record is the rollout record of the status (Record's JSON:
	// recordText); HasRecord says whether there is one.
	Record    string
	HasRecord bool
	// Retry is the operator's retry (zero: none), Resume the halt the
	// operator resumes (zero: none). The operator's pause is the
	// strategy's (Policy.Paused).
	Retry  Retry
	Resume time.Time
}

// ControlsOf reads obj (nil: there is none).
func ControlsOf(obj *nodeslov1alpha1.NodeSLORollout) Controls {
	var c Controls
	if obj != nil {
		c.Record = recordText(obj.Status.RolloutRecord)
		if r := obj.Spec.Resume; r != nil {
			c.Resume = r.HaltedAt.UTC()
		}
		if r := obj.Spec.Retry; r != nil {
			c.Retry = Retry{Fingerprint: r.Configuration, HaltedAt: r.HaltedAt.UTC()}
		}
	}
	c.HasRecord = c.Record != ""
	return c
}

// ObservedBy is what a NodeSLORollout's status was decided on: the spec's
// generation, the ConfigMap's resourceVersion ("": it does not exist) and
// the number of the revision in force (0: not recorded).
type ObservedBy struct {
	Generation       int64
	ConfigMapVersion string
	Revision         int64
}

// APIStatus is the NodeSLORollout status p leaves over old, decided at now
// on c and what observed says: p's status and its conditions (old's when
// p decided none), the record p persists (c's when it changes none).
func (p Plan) APIStatus(
	old nodeslov1alpha1.NodeSLORolloutStatus, c Controls, observed ObservedBy, now time.Time,
) nodeslov1alpha1.NodeSLORolloutStatus {
	want := *old.DeepCopy()
	if p.Status != nil {
		want = *p.Status.DeepCopy()
		want.Conditions = old.DeepCopy().Conditions
		SetConditions(&want.Conditions, &want, observed.Generation, now)
	}
	want.RolloutRecord = apiRecord(c.Record)
	if rc := p.RecordChange; rc != nil {
		want.RolloutRecord = apiRecord(rc.Value)
	}
	want.ObservedGeneration, want.ObservedConfigMapVersion = observed.Generation, observed.ConfigMapVersion
	want.Revision = observed.Revision
	want.Updated = old.Updated
	if StatusChanged(old, want) {
		want.Updated = &metav1.Time{Time: now.UTC().Truncate(time.Second)}
	}
	return want
}

// StatusChanged reports whether b says anything a does not, time passing
// aside: only then is the status written.
func StatusChanged(a, b nodeslov1alpha1.NodeSLORolloutStatus) bool {
	a.Updated, b.Updated = nil, nil
	return !apiequality.Semantic.DeepEqual(a, b)
}
