package controller

import (
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/v1alpha1"
)

// ownWrites remembers the spec of the NodeSLO write this controller has in
// flight or just made for each node, until the watch brings it back, so
// that the echo of its own write costs no second reconcile: a configuration
// change then costs one reconcile per node, not two
// (docs/behaviour.md#triggers).
//
// The spec is recorded before the write is sent, because the watch may
// deliver the write before the client returns. An event whose spec is the
// one written needs no reconcile, whoever caused it: the NodeSLO already
// holds what the configuration resolved. Any other spec is someone else's
// edit and still gets the NodeSLO put back. An entry lives from the write to
// the next event of that NodeSLO, or is dropped when the write fails.
//
// Once the write has returned, its resourceVersion is known too, and an
// event of that resourceVersion is the stored write itself: it is dropped
// without comparing specs, which the profile of a change of every node
// showed to be a noticeable share of the manager's CPU.
type ownWrites struct {
	mu      sync.Mutex
	written map[string]ownWrite // NodeSLO name -> write in flight or made
	// skew says which fields the installed CRD drops: the echo of a write
	// lacks them (docs/behaviour.md#crd-version-skew).
	skew *crdSkew
}

// ownWrite is one write of a NodeSLO: the spec sent and, once the
// apiserver answered, the resourceVersion it stored the write as.
type ownWrite struct {
	spec            *slov1alpha1.NodeSLOSpec
	resourceVersion string
}

func newOwnWrites(skew *crdSkew) *ownWrites {
	return &ownWrites{written: map[string]ownWrite{}, skew: skew}
}

// writing notes that spec is about to be written to the NodeSLO name. spec
// is read by the watch's goroutine, so it must be memory no one writes into:
// the resolved spec (shared with the Config), not the object the client
// decodes the response into.
func (w *ownWrites) writing(name string, spec *slov1alpha1.NodeSLOSpec) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.written[name] = ownWrite{spec: spec}
}

// wrote notes the resourceVersion the write to name was stored as, unless
// its echo came first and the write is already forgotten.
func (w *ownWrites) wrote(name, resourceVersion string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if write, ok := w.written[name]; ok {
		write.resourceVersion = resourceVersion
		w.written[name] = write
	}
}

// forget drops the memory of a write that failed or of a NodeSLO that is gone.
func (w *ownWrites) forget(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.written, name)
}

// isEcho reports whether obj carries the spec last written to it, and
// forgets that write either way: any later event of the object is news.
func (w *ownWrites) isEcho(obj client.Object) bool {
	slo, ok := obj.(*slov1alpha1.NodeSLO)
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	write, ok := w.written[slo.Name]
	if !ok {
		return false
	}
	delete(w.written, slo.Name)
	if write.resourceVersion != "" && write.resourceVersion == slo.ResourceVersion {
		return true
	}
	return w.skew.isEcho(&slo.Spec, write.spec)
}

// notEcho drops the create and update events that only bring back our own
// writes.
func (w *ownWrites) notEcho() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return !w.isEcho(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool { return !w.isEcho(e.ObjectNew) },
		DeleteFunc: func(e event.DeleteEvent) bool {
			w.forget(e.Object.GetName())
			return true
		},
	}
}
