package controller

import (
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// ownWrites remembers the NodeSLO write this controller has in flight or
// just made for each node, until the watch brings it back, so that the
// echo of its own write costs no second reconcile: a configuration change
// then costs one reconcile per node, not two (docs/behaviour.md#triggers).
//
// The write is recorded before it is sent, because the watch may deliver it
// before the client returns: by the value of its SpecDigestAnnotation, which
// names the generation the write gives the NodeSLO and the digest of its
// spec. An event of a NodeSLO at that generation with that annotation holds
// the spec written, whoever caused it, and needs no reconcile; any other is
// someone else's edit and still gets the NodeSLO put back. Once the write
// has returned, its resourceVersion is known too, and an event of that
// resourceVersion is the stored write itself. An entry lives from the write
// to the next event of that NodeSLO, or is dropped when the write fails.
type ownWrites struct {
	mu      sync.Mutex
	written map[string]ownWrite // NodeSLO name -> write in flight or made
}

// ownWrite is one write of a NodeSLO: the SpecDigestAnnotation sent and,
// once the apiserver answered, the resourceVersion it stored the write as.
type ownWrite struct {
	digest          string
	resourceVersion string
}

func newOwnWrites() *ownWrites {
	return &ownWrites{written: map[string]ownWrite{}}
}

// writing notes that a write with the SpecDigestAnnotation value digest is
// about to be sent to the NodeSLO name.
func (w *ownWrites) writing(name, digest string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.written[name] = ownWrite{digest: digest}
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

// isEcho reports whether obj holds the spec last written to it, and
// forgets that write either way: any later event of the object is news.
func (w *ownWrites) isEcho(obj client.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	write, ok := w.written[obj.GetName()]
	if !ok {
		return false
	}
	delete(w.written, obj.GetName())
	if write.resourceVersion != "" && write.resourceVersion == obj.GetResourceVersion() {
		return true
	}
	return obj.GetAnnotations()[sloconfig.SpecDigestAnnotation] == write.digest &&
		sloconfig.StoredSpecDigest(obj) != ""
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
