// Package testkit holds what the envtest suites share: a clock that a
// spec moves ahead instead of waiting, the ConfigMap set and Nodes created
// the same way everywhere, and a wait until the controllers hold no work
// (Settle) instead of a wait for a quiet while.
package testkit

import (
	"slices"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Clock runs with the real time and can be moved ahead. Skip(d) adds d to
// every later reading and fires each timer whose deadline that passes, so
// a spec skips a rollout's soak or step interval instead of waiting it
// out, and a spec that never skips sees the real clock. A fake clock that
// stands still would stall everything a spec does not step by hand (the
// health gate's rechecks, retries); this one only jumps when told to, and
// stands still only while a spec holds it (Hold).
//
// A timer made by AfterFunc runs its function when it fires. Skip runs
// those it passes before it returns, and first waits for any that fired in
// real time to finish: what a skip must cause has been handed over when it
// returns, whether the skip fired the timer or the real time fired it a
// moment before (docs/testing.md, "The controllers' clock").
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
	armed  map[*timer]struct{}
	// held is set between Hold and Release; heldAt is then the time.
	held   bool
	heldAt time.Time
	// running counts the AfterFunc functions that fired in real time and
	// have not returned; finished is signalled each time one returns.
	running  int
	finished *sync.Cond
}

var _ clock.WithDelayedExecution = &Clock{}

// Now is the real time plus every skip so far (the time held, while held).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	if c.held {
		return c.heldAt
	}
	return time.Now().Add(c.offset)
}

// Hold stops the clock: until Release it moves only by Skip, and no timer
// fires in real time. A spec that reads what a rollout reached and then
// changes the configuration holds it, so that no step interval can pass
// in between however slow the machine is: the real time a busy machine
// takes between two actions of a spec is then not a step's time. Hold
// returns once the functions of timers that fired in real time before it
// have returned.
func (c *Clock) Hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		c.heldAt, c.held = c.nowLocked(), true
		for t := range c.armed {
			t.stopRealLocked()
		}
	}
	c.waitRunningLocked()
}

// Release lets a held clock run with the real time again, from where it
// stood: the time held is not skipped.
func (c *Clock) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		return
	}
	c.held = false
	c.offset = time.Until(c.heldAt)
	for t := range c.armed {
		t.startLocked(t.deadline.Sub(c.heldAt))
	}
}

// Armed is how many timers wait to fire: 0 once the real time (or a skip)
// has fired every wait the controllers requeued on.
func (c *Clock) Armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.armed)
}

// Since is Now().Sub(t).
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Skip moves the clock ahead by d, fires the timers it passes and returns
// how many it fired. The functions of the AfterFunc timers it fired have
// run, in the order of their deadlines, when it returns, and so have those
// of timers that fired in real time before it: a timer that the real time
// fired first is not fired again, and is not counted.
func (c *Clock) Skip(d time.Duration) int {
	c.mu.Lock()
	if c.held {
		c.heldAt = c.heldAt.Add(d)
	} else {
		c.offset += d
	}
	now := c.nowLocked()
	var passed []*timer
	for t := range c.armed {
		if t.deadline.After(now) {
			t.startLocked(t.deadline.Sub(now))
		} else {
			passed = append(passed, t)
		}
	}
	slices.SortFunc(passed, func(a, b *timer) int { return a.deadline.Compare(b.deadline) })
	var run []func()
	for _, t := range passed {
		if f := t.fireLocked(now); f != nil {
			run = append(run, f)
		}
	}
	c.waitRunningLocked()
	c.mu.Unlock()
	for _, f := range run {
		f()
	}
	return len(passed)
}

// AfterFunc returns a timer that runs f once the clock has moved by d: in
// a goroutine of its own when the real time fires it, before Skip returns
// when a skip does.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &timer{clock: c, f: f}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.armLocked(d)
	return t
}

// waitRunningLocked waits until every function fired in real time has
// returned.
func (c *Clock) waitRunningLocked() {
	if c.finished == nil {
		c.finished = sync.NewCond(&c.mu)
	}
	for c.running > 0 {
		c.finished.Wait()
	}
}

// After is NewTimer(d).C().
func (c *Clock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

// Sleep waits until the clock has moved by d.
func (c *Clock) Sleep(d time.Duration) { <-c.After(d) }

// Tick sends the time every d of this clock, for ever.
func (c *Clock) Tick(d time.Duration) <-chan time.Time {
	out := make(chan time.Time, 1)
	go func() {
		for {
			now := <-c.After(d)
			select {
			case out <- now:
			default:
			}
		}
	}()
	return out
}

// NewTimer returns a timer that fires once the clock has moved by d.
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	t := &timer{clock: c, c: make(chan time.Time, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.armLocked(d)
	return t
}

// timer fires at deadline of its clock: by a real timer for the time left,
// restarted by each skip, or by the skip that passes the deadline. Firing
// sends the time on c, or runs f for a timer made by AfterFunc.
type timer struct {
	clock    *Clock
	c        chan time.Time
	f        func()
	deadline time.Time
	real     *time.Timer
	// generation tells a real timer that a skip or a reset replaced it.
	generation int
}

func (t *timer) C() <-chan time.Time { return t.c }

// Stop disarms the timer; true if it was armed.
func (t *timer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	return t.disarmLocked()
}

// Reset arms the timer for d from now; true if it was armed.
func (t *timer) Reset(d time.Duration) bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := t.disarmLocked()
	t.armLocked(d)
	return was
}

func (t *timer) armLocked(d time.Duration) {
	if t.clock.armed == nil {
		t.clock.armed = map[*timer]struct{}{}
	}
	t.deadline = t.clock.nowLocked().Add(d)
	t.clock.armed[t] = struct{}{}
	t.startLocked(d)
}

// startLocked (re)starts the real timer for the time left; while the
// clock is held, only a skip fires the timer.
func (t *timer) startLocked(left time.Duration) {
	t.stopRealLocked()
	if t.clock.held {
		return
	}
	generation := t.generation
	t.real = time.AfterFunc(left, func() {
		c := t.clock
		c.mu.Lock()
		if t.generation != generation {
			c.mu.Unlock()
			return
		}
		f := t.fireLocked(c.nowLocked())
		if f == nil {
			c.mu.Unlock()
			return
		}
		c.running++
		c.mu.Unlock()
		f()
		c.mu.Lock()
		c.running--
		if c.finished != nil {
			c.finished.Broadcast()
		}
		c.mu.Unlock()
	})
}

// fireLocked disarms the timer and sends now on its channel, or returns
// the function of an AfterFunc timer, for the caller to run unlocked.
func (t *timer) fireLocked(now time.Time) func() {
	t.disarmLocked()
	if t.f != nil {
		return t.f
	}
	select {
	case t.c <- now:
	default:
	}
	return nil
}

func (t *timer) disarmLocked() bool {
	_, armed := t.clock.armed[t]
	if !armed {
		return false
	}
	delete(t.clock.armed, t)
	t.stopRealLocked()
	return true
}

// stopRealLocked stops the real timer, if any, and tells one already
// firing that it was replaced.
func (t *timer) stopRealLocked() {
	if t.real != nil {
		t.real.Stop()
	}
	t.generation++
}
