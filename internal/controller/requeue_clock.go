package controller

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// newQueueOnClock returns, for a clock other than the real one, the
// controller queue constructor whose RequeueAfter waits on that clock (nil
// for the real clock: controller-runtime's own queue). The rollout
// controller's requeues are the rollout's waits (a canary soak, a step
// interval, the health gate's next look); measured on the clock the
// decisions read, a test that moves its clock past a soak moves them too,
// instead of waiting the soak out. Rate-limited retries keep the real
// clock: they wait on the apiserver, not on the rollout.
func newQueueOnClock(clk clock.WithDelayedExecution) newQueue {
	if _, real := clk.(clock.RealClock); real {
		return nil
	}
	return func(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) queue {
		inner := priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = limiter })
		return &queueOnClock{PriorityQueue: inner, clock: clk, waiting: map[clock.Timer]struct{}{}}
	}
}

type (
	queue    = workqueue.TypedRateLimitingInterface[reconcile.Request]
	newQueue = func(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) queue
)

// queueOnClock is a priority queue whose delayed adds wait on clock. Each
// delayed add is a timer of the clock that adds when it fires: a clock
// that is moved ahead (a test's) has then queued the requeues it passed by
// the time the move returns.
type queueOnClock struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	clock clock.WithDelayedExecution

	mu sync.Mutex
	// waiting holds the timers of the delayed adds not yet made; nil once
	// the queue is shut down, when they are stopped and no add is made.
	waiting map[clock.Timer]struct{}
}

// AddWithOpts adds at once, or once clock has moved by o.After.
func (q *queueOnClock) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	if o.After <= 0 || o.RateLimited {
		q.PriorityQueue.AddWithOpts(o, items...)
		return
	}
	after := o.After
	o.After = 0
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.waiting == nil {
		return
	}
	var t clock.Timer
	t = q.clock.AfterFunc(after, func() {
		q.mu.Lock()
		_, waiting := q.waiting[t]
		delete(q.waiting, t)
		q.mu.Unlock()
		if waiting {
			q.PriorityQueue.AddWithOpts(o, items...)
		}
	})
	q.waiting[t] = struct{}{}
}

// AddAfter is AddWithOpts with a delay only.
func (q *queueOnClock) AddAfter(item reconcile.Request, after time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: after}, item)
}

// ShutDown stops the waits as well as the queue.
func (q *queueOnClock) ShutDown() {
	q.stopWaits()
	q.PriorityQueue.ShutDown()
}

// ShutDownWithDrain stops the waits as well as the queue.
func (q *queueOnClock) ShutDownWithDrain() {
	q.stopWaits()
	q.PriorityQueue.ShutDownWithDrain()
}

// stopWaits stops the timers of the delayed adds not yet made: a stopped
// queue's requeues are not left on the clock for a later skip to fire.
func (q *queueOnClock) stopWaits() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for t := range q.waiting {
		t.Stop()
	}
	q.waiting = nil
}
