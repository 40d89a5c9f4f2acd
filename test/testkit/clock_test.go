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
	select {
	case <-passed.C():
	case <-time.After(time.Second):
		t.Fatal("a timer of 1h did not fire on a skip of 2h")
	}
	if fired(notYet.C()) || fired(stopped.C()) {
		t.Fatal("a timer of 3h or a stopped one fired on a skip of 2h")
	}
	c.Skip(time.Hour)
	select {
	case <-notYet.C():
	case <-time.After(time.Second):
		t.Fatal("a timer of 3h did not fire on skips adding up to 3h")
	}
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
