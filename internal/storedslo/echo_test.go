package storedslo

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// sloAt is a NodeSLO as the metadata-only watch brings it: at generation,
// with the digest annotation digest ("" for none).
func sloAt(name, resourceVersion string, generation int64, digest string) *metav1.PartialObjectMetadata {
	slo := sloconfig.NodeSLOMetadata()
	slo.Name, slo.ResourceVersion, slo.Generation = name, resourceVersion, generation
	if digest != "" {
		slo.Annotations = map[string]string{SpecDigestAnnotation: digest}
	}
	return slo
}

// The envtest suite counts reconciles per configuration change; this pins
// which events count as the echo of our own write.
func TestEchoesDropsOnlyTheEcho(t *testing.T) {
	update := func(generation int64, digest string) event.UpdateEvent {
		return event.UpdateEvent{ObjectOld: sloAt("n", "1", 1, ""), ObjectNew: sloAt("n", "", generation, digest)}
	}
	w := newEchoes()
	p := (&Store{echoes: w}).NotEcho()

	if !p.Update(update(2, "2/five")) {
		t.Error("an update with nothing written must pass")
	}
	w.writing(sent("n", "2/five"))
	if p.Update(update(2, "2/five")) {
		t.Error("the echo of our write must be dropped")
	}
	if !p.Update(update(2, "2/five")) {
		t.Error("a write is forgotten after its echo: the same event again must pass")
	}
	w.writing(sent("n", "3/six"))
	if !p.Update(update(3, "3/seven")) {
		t.Error("another digest than the one written is someone else's edit and must pass")
	}
	w.writing(sent("n", "3/six"))
	if !p.Update(update(4, "3/six")) {
		t.Error("our annotation at a later generation is a hand edit of the spec and must pass")
	}
	w.writing(sent("n", "3/six"))
	w.forget("n")
	if !p.Update(update(3, "3/six")) {
		t.Error("a failed write is forgotten: its echo must pass")
	}
	w.writing(sent("m", "1/eight"))
	if p.Create(event.CreateEvent{Object: sloAt("m", "", 1, "1/eight")}) {
		t.Error("the echo of our create must be dropped")
	}
	w.writing(sent("m", "1/nine"))
	if !p.Delete(event.DeleteEvent{Object: sloAt("m", "", 1, "1/nine")}) {
		t.Error("a delete must always pass")
	}
	if !p.Create(event.CreateEvent{Object: sloAt("m", "", 1, "1/nine")}) {
		t.Error("a delete forgets our write: a create afterwards must pass")
	}
}

// Once the write returned, the event of the resourceVersion it was stored
// as is its echo whatever it says; an event of another resourceVersion is
// still judged by its digest and generation.
func TestEchoesKnowsTheEchoByResourceVersion(t *testing.T) {
	updateOf := func(rv string, generation int64, digest string) event.UpdateEvent {
		return event.UpdateEvent{ObjectOld: sloAt("n", "1", 1, ""), ObjectNew: sloAt("n", rv, generation, digest)}
	}
	w := newEchoes()
	p := (&Store{echoes: w}).NotEcho()

	w.writing(sent("n", "2/five"))
	w.wrote("n", storedAt("42"))
	if p.Update(updateOf("42", 7, "")) {
		t.Error("the event of the resourceVersion our write was stored as must be dropped, whatever it says")
	}
	w.writing(sent("n", "2/five"))
	w.wrote("n", storedAt("43"))
	if !p.Update(updateOf("44", 3, "3/six")) {
		t.Error("another resourceVersion with another digest is someone else's edit and must pass")
	}
	w.writing(sent("n", "4/five"))
	if p.Update(updateOf("45", 4, "4/five")) {
		t.Error("an echo that comes before the write returned is still known by its digest")
	}
	w.wrote("n", storedAt("45"))
	if !p.Update(updateOf("45", 4, "4/five")) {
		t.Error("a write whose echo came first is forgotten: its resourceVersion noted late must not revive it")
	}
}

// sent is the metadata of a write to name whose SpecDigestAnnotation is
// digest ("generation/digest").
func sent(name, digest string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: name, Annotations: map[string]string{SpecDigestAnnotation: digest}}
}

// storedAt is what the apiserver answers a write stored at resourceVersion.
func storedAt(resourceVersion string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{ResourceVersion: resourceVersion}
}
