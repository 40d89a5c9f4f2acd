package controller

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/nodeslo/nodeslo-controller/test/testkit"
)

func TestRequeueAfterWaitsOnTheControllersClock(t *testing.T) {
	if newQueueOnClock(clock.RealClock{}) != nil {
		t.Fatal("the real clock must keep controller-runtime's own queue")
	}
	clk := &testkit.Clock{}
	clk.Hold() // only skips move it: nothing fires in real time
	q := newQueueOnClock(clk)("test", nil)
	defer q.ShutDown()
	item := reconcile.Request{NamespacedName: types.NamespacedName{Name: "a"}}

	q.AddAfter(item, time.Hour)
	q.(priorityqueue.PriorityQueue[reconcile.Request]).AddWithOpts(priorityqueue.AddOpts{After: 2 * time.Hour}, item)
	if q.Len() != 0 {
		t.Fatalf("queued before the clock moved: %d items", q.Len())
	}
	// The skip has queued what it passed when it returns: no wait.
	if fired := clk.Skip(90 * time.Minute); fired != 1 || q.Len() != 1 {
		t.Fatalf("a skip past the requeue's hour fired %d timers and queued %d items, want 1 and 1", fired, q.Len())
	}
	got, _ := q.Get()
	q.Done(got)
	if fired := clk.Skip(time.Hour); fired != 1 || q.Len() != 1 {
		t.Fatalf("a skip past the second requeue's two hours fired %d timers and queued %d items, want 1 and 1",
			fired, q.Len())
	}
}

func TestAStoppedQueueLeavesNoRequeueOnTheClock(t *testing.T) {
	clk := &testkit.Clock{}
	clk.Hold()
	q := newQueueOnClock(clk)("test", nil)
	q.AddAfter(reconcile.Request{NamespacedName: types.NamespacedName{Name: "a"}}, time.Hour)
	q.ShutDown()
	// A manager restarted on the same clock must not see its predecessor's
	// requeues fire: a test waiting for what a fired requeue causes would
	// wait for nothing.
	if fired := clk.Skip(2 * time.Hour); fired != 0 {
		t.Fatalf("a skip after the queue stopped fired %d of its requeues", fired)
	}
	q.AddAfter(reconcile.Request{NamespacedName: types.NamespacedName{Name: "b"}}, time.Hour)
	if fired := clk.Skip(2 * time.Hour); fired != 0 {
		t.Fatalf("a requeue added after the queue stopped fired %d times", fired)
	}
}
