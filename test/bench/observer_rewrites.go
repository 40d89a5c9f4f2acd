package main

import (
	"maps"
)

// rewriteWait is a wait for a set of NodeSLOs to be created or to have
// their spec changed, each judged by its generation, which kube-apiserver
// raises on every change of a spec and on nothing else: the end of a phase
// for a controller whose specs the bench does not know in advance.
type rewriteWait struct {
	// base holds each awaited NodeSLO's generation when the wait began
	// (0: there was none).
	base    map[string]int64
	pending int
	done    map[string]bool
	reached chan struct{}
}

// saw records that name is stored with generation; a nil wait does nothing.
func (w *rewriteWait) saw(name string, generation int64) {
	if w == nil {
		return
	}
	base, awaited := w.base[name]
	if !awaited || w.done[name] || generation <= base {
		return
	}
	w.done[name] = true
	w.pending--
	w.close()
}

func (w *rewriteWait) close() {
	if w.pending == 0 && w.reached != nil {
		close(w.reached)
		w.reached = nil
	}
}

// expectRewritten returns a channel closed once every NodeSLO of names was
// created or had its spec changed since the call (at once for no names).
// It replaces the wait of an earlier call.
func (o *observer) expectRewritten(names []string) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	reached := make(chan struct{})
	w := &rewriteWait{base: make(map[string]int64, len(names)), pending: len(names), done: map[string]bool{},
		reached: reached}
	for _, name := range names {
		w.base[name] = o.generations[name]
	}
	w.close()
	o.rewrites = w
	return reached
}

// generationsNow is each stored NodeSLO's generation, to count the spec
// changes from (specChanges).
func (o *observer) generationsNow() map[string]int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.generations)
}

// specChanges counts the spec changes between two readings of the
// generations: each NodeSLO's rise, a NodeSLO created since counting its
// whole generation (1 when created, one more for each change after). A
// write that changed nothing (an update with the same spec) raises no
// generation and is not counted; nor is a NodeSLO deleted since.
func specChanges(before, after map[string]int64) int {
	changes := 0
	for name, generation := range after {
		if rise := generation - before[name]; rise > 0 {
			changes += int(rise)
		}
	}
	return changes
}
