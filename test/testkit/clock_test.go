package testkit

import (
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
