package testkit

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// mustFire fails the test with why unless c fires within a second.
func mustFire(t *testing.T, c <-chan time.Time, why string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(time.Second):
		t.Fatal(why)
	}
}

func TestSkipMovesNowAndFiresThePassedTimers(t *testing.T) {
	c := &Clock{}
	before := c.Now()
	passed, notYet, stopped := c.NewTimer(time.Hour), c.NewTimer(3*time.Hour), c.NewTimer(time.Hour)
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop: true for an armed timer, then false")
	}
	c.Skip(2 * time.Hour)
	if got := c.Since(before); got < 2*time.Hour || got > 2*time.Hour+time.Minute {
		t.Fatalf("after a skip of 2h, %s since before", got)
	}
	mustFire(t, passed.C(), "a timer of 1h did not fire on a skip of 2h")
	if fired(notYet.C()) || fired(stopped.C()) {
		t.Fatal("a timer of 3h or a stopped one fired on a skip of 2h")
	}
	c.Skip(time.Hour)
	mustFire(t, notYet.C(), "a timer of 3h did not fire on skips adding up to 3h")
}

func TestTimersFireInRealTimeWithoutSkips(t *testing.T) {
	c := &Clock{}
	start := time.Now()
	<-c.After(50 * time.Millisecond)
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("After(50ms) fired after %s", waited)
	}
	tm := c.NewTimer(time.Hour)
	if !tm.Reset(10 * time.Millisecond) {
		t.Fatal("Reset of an armed timer reported it unarmed")
	}
	select {
	case <-tm.C():
	case <-time.After(5 * time.Second):
		t.Fatal("a timer reset to 10ms did not fire")
	}
}

func TestAHeldClockMovesOnlyBySkips(t *testing.T) {
	c := &Clock{}
	soon := c.NewTimer(20 * time.Millisecond)
	c.Hold()
	held := c.Now()
	later := c.NewTimer(30 * time.Millisecond)
	// Nothing may happen in real time: 100 ms is more than three times the
	// later timer's 30 ms, by which an unheld clock fires both (as
	// TestTimersFireInRealTimeWithoutSkips shows of an unheld one).
	time.Sleep(100 * time.Millisecond)
	if !c.Now().Equal(held) {
		t.Fatalf("a held clock moved by %s in real time", c.Now().Sub(held))
	}
	if fired(soon.C()) || fired(later.C()) {
		t.Fatal("a timer fired in real time while the clock was held")
	}
	c.Skip(25 * time.Millisecond)
	mustFire(t, soon.C(), "a skip past a timer's deadline did not fire it while held")
	if got := c.Since(held); got != 25*time.Millisecond {
		t.Fatalf("a held clock moved by %s on a skip of 25ms", got)
	}
	if fired(later.C()) {
		t.Fatal("a timer fired before its deadline while held")
	}
	c.Release()
	if got := c.Since(held); got < 25*time.Millisecond || got > 25*time.Millisecond+time.Second {
		t.Fatalf("released, the clock stood %s after the time held instead of going on from it", got)
	}
	mustFire(t, later.C(), "released, a timer did not fire in real time")
}

func TestSkipRunsThePassedFunctionsBeforeItReturns(t *testing.T) {
	c := &Clock{}
	var ran []string
	c.AfterFunc(2*time.Hour, func() { ran = append(ran, "2h") })
	c.AfterFunc(time.Hour, func() { ran = append(ran, "1h") })
	c.AfterFunc(3*time.Hour, func() { ran = append(ran, "3h") })
	c.AfterFunc(time.Hour, func() { ran = append(ran, "stopped") }).Stop()
	if n := c.Skip(150 * time.Minute); n != 2 {
		t.Fatalf("a skip of 2h30 fired %d timers, want 2 (1h and 2h)", n)
	}
	// No wait: the functions ran in Skip, in the order of their deadlines.
	if want := []string{"1h", "2h"}; !slices.Equal(ran, want) {
		t.Fatalf("after a skip of 2h30 the functions run were %v, want %v", ran, want)
	}
	if n := c.Skip(time.Hour); n != 1 || len(ran) != 3 {
		t.Fatalf("a second skip fired %d timers and the functions run were %v, want 1 and the 3h one", n, ran)
	}
	if n := c.Skip(time.Hour); n != 0 {
		t.Fatalf("a skip past no timer fired %d", n)
	}
}

// A function the real time fired just before a skip is the case of
// docs/testing.md's "The controllers' clock": the skip must neither fire
// it again nor return before it has run.
func TestSkipWaitsForAFunctionTheRealTimeFiredAndDoesNotFireItAgain(t *testing.T) {
	c := &Clock{}
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	c.AfterFunc(time.Millisecond, func() {
		runs.Add(1)
		close(started)
		<-release
	})
	<-started // fired in real time, and still running
	skipped := make(chan int)
	go func() { skipped <- c.Skip(time.Hour) }()
	select {
	case n := <-skipped:
		t.Fatalf("Skip returned (%d fired) while a function fired in real time was still running", n)
	case <-time.After(50 * time.Millisecond):
		// 50 ms: Skip has nothing else to wait for, and returns within
		// microseconds once the function has returned (below).
	}
	close(release)
	select {
	case n := <-skipped:
		if n != 0 {
			t.Fatalf("Skip counted %d timers fired, want 0: the real time fired the only one", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Skip did not return once the function had returned")
	}
	if got := runs.Load(); got != 1 {
		t.Fatalf("the function ran %d times, want once", got)
	}
}

func TestHoldWaitsForAFunctionTheRealTimeFired(t *testing.T) {
	c := &Clock{}
	started, release := make(chan struct{}), make(chan struct{})
	var done atomic.Bool
	c.AfterFunc(time.Millisecond, func() {
		close(started)
		<-release
		done.Store(true)
	})
	<-started
	held := make(chan struct{})
	go func() { c.Hold(); close(held) }()
	select {
	case <-held:
		t.Fatal("Hold returned while a function fired in real time was still running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-held:
	case <-time.After(5 * time.Second):
		t.Fatal("Hold did not return once the function had returned")
	}
	if !done.Load() {
		t.Fatal("Hold returned before the function did")
	}
}
