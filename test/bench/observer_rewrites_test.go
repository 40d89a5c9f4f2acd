package main

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
)

// A wait for NodeSLOs to be created or changed ends once each of them was
// stored with a higher generation than at its start, or created; an
// update that keeps the generation (a write that changed nothing) and a
// NodeSLO not awaited do not count.
func TestExpectRewritten(t *testing.T) {
	o := &observer{stored: map[string]*slov1alpha1.NodeSLOSpec{}, want: specSet{}, generations: map[string]int64{}}
	store := func(name string, generation int64) {
		o.set(&slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: generation}})
	}
	store("a", 1)
	store("b", 3)
	reached := o.expectRewritten([]string{"a", "b", "c"})
	isClosed := func() bool {
		select {
		case <-reached:
			return true
		default:
			return false
		}
	}
	store("a", 1) // no change
	store("d", 1) // not awaited
	store("a", 2)
	store("c", 1) // created
	if isClosed() {
		t.Fatal("reached before b changed")
	}
	if got, want := o.progress(), "2 of 3 NodeSLOs created or changed, 4 stored"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	store("b", 4)
	if !isClosed() {
		t.Fatal("not reached once a, b and c changed")
	}
	select {
	case <-o.expectRewritten(nil):
	default:
		t.Error("a wait for no NodeSLO is not reached at once")
	}
	o.expect(specSet{})
	if o.rewrites != nil {
		t.Error("expect left the wait for rewrites in place")
	}
}

// Spec changes add up each NodeSLO's generation rise; one created since
// counts its whole generation; one deleted since counts nothing.
func TestSpecChanges(t *testing.T) {
	before := map[string]int64{"a": 1, "b": 2, "gone": 5}
	after := map[string]int64{"a": 1, "b": 4, "new": 2}
	if got, want := specChanges(before, after), 4; got != want {
		t.Errorf("spec changes %d, want %d", got, want)
	}
}
