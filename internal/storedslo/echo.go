package storedslo

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// echoes remembers the NodeSLO write the controller has in flight or just
// made for each node, until the watch brings it back, so that the echo of
// its own write costs no second reconcile: a configuration change then
// costs one reconcile per node, not two (docs/behaviour.md#triggers).
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
type echoes struct {
	mu      sync.Mutex
	written map[string]echo // NodeSLO name -> write in flight or made
}

// echo is one write of a NodeSLO: the SpecDigestAnnotation sent and, once
// the apiserver answered, the resourceVersion it stored the write as; and
// what List shows of a create while the cache does not (unseenCreates): the generation
// the write gives the NodeSLO (as stored, once known), its UID once known,
// and this controller's other annotations sent. Only those strings are
// kept, not the annotation map, so that writes whose echo is late cost a
// few words each.
type echo struct {
	digest          string
	resourceVersion string
	generation      int64
	uid             types.UID
	configuration   string
	writtenAt       string
}

// meta is the metadata List shows for the write.
func (w echo) meta(name string) *metav1.ObjectMeta {
	annotations := map[string]string{SpecDigestAnnotation: w.digest, SpecWrittenAnnotation: w.writtenAt}
	if w.configuration != "" {
		annotations[ConfigurationAnnotation] = w.configuration
	}
	return &metav1.ObjectMeta{Name: name, UID: w.uid, ResourceVersion: w.resourceVersion, Generation: w.generation,
		Annotations: annotations}
}

func newEchoes() *echoes { return &echoes{written: map[string]echo{}} }

// writing notes that a write of the metadata sent (its
// SpecDigestAnnotation by which the echo is known, the generation it gives
// the NodeSLO) is about to be sent to the NodeSLO of its name.
func (e *echoes) writing(sent *metav1.ObjectMeta) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.written[sent.Name] = echo{digest: sent.Annotations[SpecDigestAnnotation], generation: sent.Generation,
		uid: sent.UID, configuration: sent.Annotations[ConfigurationAnnotation],
		writtenAt: sent.Annotations[SpecWrittenAnnotation]}
}

// wrote notes the resourceVersion and generation the write to name was
// stored as, unless its echo came first and the write is already forgotten.
func (e *echoes) wrote(name string, stored *metav1.ObjectMeta) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if w, ok := e.written[name]; ok {
		w.resourceVersion, w.generation, w.uid = stored.ResourceVersion, stored.Generation, stored.UID
		e.written[name] = w
	}
}

// unseenCreates returns the metadata of the creates in flight or made
// whose NodeSLO the cache does not hold yet (cached says whether it holds
// one), by name: what a list of the cache does not show yet of this
// controller's own creates.
func (e *echoes) unseenCreates(cached func(name string) bool) map[string]*metav1.ObjectMeta {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out map[string]*metav1.ObjectMeta
	for name, w := range e.written {
		if cached(name) {
			continue
		}
		if out == nil {
			out = map[string]*metav1.ObjectMeta{}
		}
		out[name] = w.meta(name)
	}
	return out
}

// forget drops the memory of a write that failed or of a NodeSLO that is gone.
func (e *echoes) forget(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.written, name)
}

// isEcho reports whether obj holds the spec last written to it, and
// forgets that write either way: any later event of the object is news.
func (e *echoes) isEcho(obj client.Object) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.written[obj.GetName()]
	if !ok {
		return false
	}
	delete(e.written, obj.GetName())
	if w.resourceVersion != "" && w.resourceVersion == obj.GetResourceVersion() {
		return true
	}
	return obj.GetAnnotations()[SpecDigestAnnotation] == w.digest && VouchedDigest(obj) != ""
}

// notYetSeen reports whether a write to name is in flight, or was stored
// at a resourceVersion other than resourceVersion while its echo has not
// come back: a reader that shows resourceVersion has not seen it. (Once the
// echo has come, the entry is gone: a cache shows that write or a later one.)
func (e *echoes) notYetSeen(name, resourceVersion string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	w, ok := e.written[name]
	return ok && w.resourceVersion != resourceVersion
}

// NotEcho drops the NodeSLO create and update events that only bring back
// the Store's own writes.
func (s *Store) NotEcho() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return !s.echoes.isEcho(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool { return !s.echoes.isEcho(e.ObjectNew) },
		DeleteFunc: func(e event.DeleteEvent) bool {
			s.echoes.forget(e.Object.GetName())
			return true
		},
	}
}
