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
// for the real clock: controller-runtime's own queue). The config-cache
// controller's requeues are the rollout's waits (a canary soak, a step
// interval, the health gate's next look); measured on the clock the
// decisions read, a test that moves its clock past a soak moves them too,
// instead of waiting the soak out. Rate-limited retries keep the real
// clock: they wait on the apiserver, not on the rollout.
func newQueueOnClock(clk clock.Clock) newQueue {
	if _, real := clk.(clock.RealClock); real {
		return nil
	}
	return func(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) queue {
		inner := priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) { o.RateLimiter = limiter })
		return &queueOnClock{PriorityQueue: inner, clock: clk, done: make(chan struct{})}
	}
}

type (
	queue    = workqueue.TypedRateLimitingInterface[reconcile.Request]
	newQueue = func(name string, limiter workqueue.TypedRateLimiter[reconcile.Request]) queue
)

// queueOnClock is a priority queue whose delayed adds wait on clock.
type queueOnClock struct {
	priorityqueue.PriorityQueue[reconcile.Request]
	clock    clock.Clock
	done     chan struct{}
	shutdown sync.Once
}

// AddWithOpts adds at once, or once clock has moved by o.After.
func (q *queueOnClock) AddWithOpts(o priorityqueue.AddOpts, items ...reconcile.Request) {
	if o.After <= 0 || o.RateLimited {
		q.PriorityQueue.AddWithOpts(o, items...)
		return
	}
	wait := q.clock.After(o.After)
	o.After = 0
	go func() {
		select {
		case <-wait:
			q.PriorityQueue.AddWithOpts(o, items...)
		case <-q.done:
		}
	}()
}

// AddAfter is AddWithOpts with a delay only.
func (q *queueOnClock) AddAfter(item reconcile.Request, after time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: after}, item)
}

// ShutDown ends the waits as well as the queue.
func (q *queueOnClock) ShutDown() {
	q.shutdown.Do(func() { close(q.done) })
	q.PriorityQueue.ShutDown()
}

// ShutDownWithDrain ends the waits as well as the queue.
func (q *queueOnClock) ShutDownWithDrain() {
	q.shutdown.Do(func() { close(q.done) })
	q.PriorityQueue.ShutDownWithDrain()
}
