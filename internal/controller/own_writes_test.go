package controller

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// The envtest suite counts reconciles per configuration change; this pins
// which events count as the echo of our own write.
func TestOwnWritesDropsOnlyTheEcho(t *testing.T) {
	spec := func(percent int64) *slov1alpha1.NodeSLOSpec {
		return &slov1alpha1.NodeSLOSpec{CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{
			CPUBurstConfig: slov1alpha1.CPUBurstConfig{CPUBurstPercent: new(percent)},
		}}
	}
	slo := func(name string, s *slov1alpha1.NodeSLOSpec) *slov1alpha1.NodeSLO {
		return &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: *s.DeepCopy()}
	}
	update := func(s *slov1alpha1.NodeSLOSpec) event.UpdateEvent {
		return event.UpdateEvent{ObjectOld: slo("n", spec(1)), ObjectNew: slo("n", s)}
	}
	w := newOwnWrites(newCRDSkew(time.Minute))
	p := w.notEcho()

	if !p.Update(update(spec(5))) {
		t.Error("an update with nothing written must pass")
	}
	w.writing("n", spec(5))
	if p.Update(update(spec(5))) {
		t.Error("the echo of our write must be dropped")
	}
	if !p.Update(update(spec(5))) {
		t.Error("a write is forgotten after its echo: the same spec again must pass")
	}
	w.writing("n", spec(6))
	if !p.Update(update(spec(7))) {
		t.Error("another spec than the one written is someone else's edit and must pass")
	}
	w.writing("n", spec(6))
	w.forget("n")
	if !p.Update(update(spec(6))) {
		t.Error("a failed write is forgotten: its spec must pass")
	}
	w.writing("m", spec(8))
	if p.Create(event.CreateEvent{Object: slo("m", spec(8))}) {
		t.Error("the echo of our create must be dropped")
	}
	w.writing("m", spec(9))
	if !p.Delete(event.DeleteEvent{Object: slo("m", spec(9))}) {
		t.Error("a delete must always pass")
	}
	if !p.Create(event.CreateEvent{Object: slo("m", spec(9))}) {
		t.Error("a delete forgets our write: a create afterwards must pass")
	}
}

// Once the write returned, the event of the resourceVersion it was stored
// as is its echo whatever its spec says (no specs compared); an event of
// another resourceVersion is still judged by its spec.
func TestOwnWritesKnowsTheEchoByResourceVersion(t *testing.T) {
	spec := func(percent int64) *slov1alpha1.NodeSLOSpec {
		return &slov1alpha1.NodeSLOSpec{CPUBurstStrategy: &slov1alpha1.CPUBurstStrategy{
			CPUBurstConfig: slov1alpha1.CPUBurstConfig{CPUBurstPercent: new(percent)},
		}}
	}
	updateOf := func(rv string, s *slov1alpha1.NodeSLOSpec) event.UpdateEvent {
		return event.UpdateEvent{
			ObjectOld: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "1"}},
			ObjectNew: &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: rv}, Spec: *s},
		}
	}
	w := newOwnWrites(newCRDSkew(time.Minute))
	p := w.notEcho()

	w.writing("n", spec(5))
	w.wrote("n", "42")
	if p.Update(updateOf("42", &slov1alpha1.NodeSLOSpec{})) {
		t.Error("the event of the resourceVersion our write was stored as must be dropped, whatever its spec")
	}
	w.writing("n", spec(5))
	w.wrote("n", "43")
	if !p.Update(updateOf("44", spec(6))) {
		t.Error("another resourceVersion with another spec is someone else's edit and must pass")
	}
	w.writing("n", spec(5))
	if p.Update(updateOf("45", spec(5))) {
		t.Error("an echo that comes before the write returned is still known by its spec")
	}
	w.wrote("n", "45")
	if !p.Update(updateOf("45", spec(5))) {
		t.Error("a write whose echo came first is forgotten: its resourceVersion noted late must not revive it")
	}
}
