package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// The envtest suite proves the watch as a whole; this pins the update rule
// case by case, including the ones an apiserver round-trip makes slow to set up.
func TestNodeInputsChangedOnUpdate(t *testing.T) {
	const bw = sloconfig.NetworkBandwidthAnnotation
	node := func(rv string, labels, annotations map[string]string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Name: "n", ResourceVersion: rv, Labels: labels, Annotations: annotations,
		}}
	}
	cases := []struct {
		name     string
		old, new *metav1.PartialObjectMetadata
		want     bool
	}{
		{"status only (new resourceVersion)", node("1", nil, nil), node("2", nil, nil), false},
		{"unrelated annotation", node("1", nil, nil), node("2", nil, map[string]string{"x": "1"}), false},
		{"nil and empty labels alike", node("1", nil, nil), node("2", map[string]string{}, nil), false},
		{"label added", node("1", nil, nil), node("2", map[string]string{"a": "1"}, nil), true},
		{"label value changed",
			node("1", map[string]string{"a": "1"}, nil), node("2", map[string]string{"a": "2"}, nil), true},
		{"label removed", node("1", map[string]string{"a": "1"}, nil), node("2", nil, nil), true},
		{"bandwidth set", node("1", nil, nil), node("2", nil, map[string]string{bw: "1G"}), true},
		{"bandwidth set to empty", node("1", nil, nil), node("2", nil, map[string]string{bw: ""}), true},
		{"bandwidth changed", node("1", nil, map[string]string{bw: "1G"}), node("2", nil, map[string]string{bw: "2G"}), true},
		{"bandwidth removed", node("1", nil, map[string]string{bw: "1G"}), node("2", nil, nil), true},
		{"the same inputs under a new UID (deleted and created again during a relist)",
			node("1", nil, nil), withUID(node("2", nil, nil), "another"), true},
	}
	p := nodeInputsChanged()
	for _, c := range cases {
		if got := p.Update(event.UpdateEvent{ObjectOld: c.old, ObjectNew: c.new}); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	created, deleted := event.CreateEvent{Object: node("1", nil, nil)}, event.DeleteEvent{Object: node("1", nil, nil)}
	if !p.Create(created) || !p.Delete(deleted) {
		t.Error("create and delete must always pass")
	}
}

// Before the first load a reconcile could only skip; the load itself asks
// for every node (the bench's restart phase counts one reconcile per node).
func TestConfigurationLoadedGatesEvents(t *testing.T) {
	published := &snapshots{}
	p := configurationLoaded(published)
	node := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "n"}}
	if p.Create(event.CreateEvent{Object: node}) {
		t.Error("an event before the first load must be dropped")
	}
	published.publish(&Snapshot{Config: sloconfig.Load(nil, nil)})
	if !p.Create(event.CreateEvent{Object: node}) ||
		!p.Update(event.UpdateEvent{ObjectOld: node, ObjectNew: node}) ||
		!p.Delete(event.DeleteEvent{Object: node}) {
		t.Error("events after the first load must pass")
	}
}

// withUID sets o's UID.
func withUID(o *metav1.PartialObjectMetadata, uid types.UID) *metav1.PartialObjectMetadata {
	o.UID = uid
	return o
}
