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
	q := newQueueOnClock(clk)("test", nil)
	defer q.ShutDown()
	item := reconcile.Request{NamespacedName: types.NamespacedName{Name: "a"}}

	q.AddAfter(item, time.Hour)
	q.(priorityqueue.PriorityQueue[reconcile.Request]).AddWithOpts(priorityqueue.AddOpts{After: 2 * time.Hour}, item)
	time.Sleep(50 * time.Millisecond)
	if q.Len() != 0 {
		t.Fatalf("queued before the clock moved: %d items", q.Len())
	}
	clk.Skip(90 * time.Minute)
	deadline := time.Now().Add(5 * time.Second)
	for q.Len() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("a skip past the requeue's hour queued %d items, want 1", q.Len())
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, _ := q.Get()
	q.Done(got)
	clk.Skip(time.Hour)
	deadline = time.Now().Add(5 * time.Second)
	for q.Len() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("a skip past the second requeue's two hours queued nothing")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
