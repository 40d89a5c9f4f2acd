package controller_test

import (
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// reconcileHold holds the NodeSLO reconciles of one node while a spec
// acts, so that a rollout decision can run between that node's change and
// its write: the order a loaded machine chooses now and then, which a spec
// cannot otherwise choose (docs/testing.md, "Choosing an order"). The
// manager calls wait at the start of every NodeSLO reconcile
// (controller.Options.BeforeNodeSLOReconcile).
type reconcileHold struct {
	mu      sync.Mutex
	node    string        // the node held ("": none)
	arrived chan struct{} // closed when a reconcile of node began
	open    chan struct{} // closed to let the node's reconciles go on
}

// heldReconciles is the hold of the manager the suite runs.
var heldReconciles = &reconcileHold{}

// hold makes the NodeSLO reconciles of node wait from now until the
// returned release is called (at the latest when the spec ends). arrived
// is closed once one of them has begun: the cache has then seen the
// change that queued it, and so will a decision.
func (h *reconcileHold) hold(node string) (arrived <-chan struct{}, release func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	Expect(h.node).To(BeEmpty(), "one node is held at a time")
	h.node, h.arrived, h.open = node, make(chan struct{}), make(chan struct{})
	open := h.open
	var once sync.Once
	release = func() {
		once.Do(func() {
			h.mu.Lock()
			h.node = ""
			h.mu.Unlock()
			close(open)
		})
	}
	DeferCleanup(release)
	return h.arrived, release
}

// wait is the manager's hook: a reconcile of the node held waits until
// it is released or the manager stops.
func (h *reconcileHold) wait(ctx context.Context, node string) {
	h.mu.Lock()
	if node == "" || node != h.node {
		h.mu.Unlock()
		return
	}
	select {
	case <-h.arrived:
	default:
		close(h.arrived)
	}
	open := h.open
	h.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
	}
}
