package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// observer watches NodeSLOs through one informer and says when the stored
// NodeSLOs are exactly a wanted set: it decides when a phase is done, in the
// same way for the manager and the floor, without LISTing again and again.
type observer struct {
	mu      sync.Mutex
	stored  map[string]*slov1alpha1.NodeSLOSpec
	want    specSet
	matched int // stored NodeSLOs whose spec equals the wanted one
	reached chan struct{}
	// generations and rewrites serve a controller whose specs the bench
	// cannot know in advance (Koordinator's): they tell which NodeSLOs it
	// created or whose spec it changed (observer_rewrites.go).
	generations map[string]int64
	rewrites    *rewriteWait
}

// startObserver runs the informer until ctx ends and returns once it synced.
func startObserver(ctx context.Context, cfg *rest.Config) (*observer, error) {
	o := &observer{stored: map[string]*slov1alpha1.NodeSLOSpec{}, want: specSet{}, generations: map[string]int64{}}
	err := watch(ctx, cfg, "observer", &slov1alpha1.NodeSLO{}, toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { o.set(obj) },
		UpdateFunc: func(_, obj any) { o.set(obj) },
		DeleteFunc: o.remove,
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (o *observer) set(obj any) {
	slo, ok := obj.(*slov1alpha1.NodeSLO)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.unmatch(slo.Name)
	o.stored[slo.Name] = &slo.Spec
	o.match(slo.Name)
	o.check()
	o.generations[slo.Name] = slo.Generation
	o.rewrites.saw(slo.Name, slo.Generation)
}

func (o *observer) remove(obj any) {
	if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	slo, ok := obj.(*slov1alpha1.NodeSLO)
	if !ok {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.unmatch(slo.Name)
	delete(o.stored, slo.Name)
	o.check()
	delete(o.generations, slo.Name)
}

func (o *observer) matches(name string) bool {
	want, wanted := o.want[name]
	stored, exists := o.stored[name]
	return wanted && exists && sloconfig.SpecEqual(stored, want)
}

func (o *observer) unmatch(name string) {
	if o.matches(name) {
		o.matched--
	}
}

func (o *observer) match(name string) {
	if o.matches(name) {
		o.matched++
	}
}

// check closes reached once the stored NodeSLOs are exactly the wanted ones.
func (o *observer) check() {
	if o.reached != nil && o.matched == len(o.want) && len(o.stored) == len(o.want) {
		close(o.reached)
		o.reached = nil
	}
}

// expect makes want the set to wait for and returns a channel closed once
// it is reached (at once if it already is).
func (o *observer) expect(want specSet) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.want = want
	o.rewrites = nil
	o.matched = 0
	for name := range o.stored {
		o.match(name)
	}
	reached := make(chan struct{})
	o.reached = reached
	o.check()
	return reached
}

// progress says how far the stored NodeSLOs are from the wanted ones.
func (o *observer) progress() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if w := o.rewrites; w != nil {
		return fmt.Sprintf("%d of %d NodeSLOs created or changed, %d stored", len(w.base)-w.pending, len(w.base),
			len(o.stored))
	}
	return fmt.Sprintf("%d of %d NodeSLOs as wanted, %d stored", o.matched, len(o.want), len(o.stored))
}

// wait blocks until reached is closed, failing after timeout, or at once
// when writer (the process doing the writes; nil for the floor) exits.
func (o *observer) wait(ctx context.Context, reached <-chan struct{}, timeout time.Duration,
	writer *localcluster.Process) error {
	var exited <-chan struct{}
	if writer != nil {
		exited = writer.Exited()
	}
	select {
	case <-reached:
		return nil
	case <-exited:
		return fmt.Errorf("the writer exited before it was reached: %v (%s)", writer.Err(), o.progress())
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(timeout):
		return fmt.Errorf("not reached within %s: %s", timeout, o.progress())
	}
}

// unmatched counts the nodes of the set last expected whose stored
// NodeSLO is missing or has another spec.
func (o *observer) unmatched() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.want) - o.matched
}
