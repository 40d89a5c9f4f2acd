package manager

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clocktesting "k8s.io/utils/clock/testing"
)

// answer feeds c the answer to a request sent at sent, answered rtt later,
// by an apiserver whose clock is offset from the local one.
func answer(c *serverClock, sent time.Time, rtt, offset time.Duration) {
	date := sent.Add(rtt / 2).Add(offset).Truncate(time.Second)
	c.observe(date, sent, sent.Add(rtt))
}

// answers feeds c serverClockAnswers answers from from on, each taken a
// 64th of a second later in the second than the one before.
func answers(c *serverClock, from time.Time, rtt, offset time.Duration) {
	for i := range serverClockAnswers {
		answer(c, from.Add(time.Duration(i)*(time.Second+time.Second/serverClockAnswers)), rtt, offset)
	}
}

// offsetWithin is how close the offset comes with answers: the round trip
// and the gap between the fractions of a second they were taken at.
const offsetWithin = 4*time.Millisecond + time.Second/serverClockAnswers + time.Millisecond

// The Date header has a resolution of a second; answers taken at other
// fractions of a second narrow the offset to about the round trip, and the
// clock corrects by the least the answers prove.
func TestServerClockNarrowsTheOffsetWithAnswersAtOtherFractionsOfASecond(t *testing.T) {
	local := clocktesting.NewFakeClock(time.Date(2026, 12, 7, 12, 0, 45, 300e6, time.UTC))
	c := newServerClock(local, logr.Discard())
	if got := c.Now(); !got.Equal(local.Now()) {
		t.Fatalf("before any answer the clock reads %v, want the local %v", got, local.Now())
	}
	const offset, rtt = -45234500 * time.Microsecond, 4 * time.Millisecond
	answer(c, local.Now(), rtt, offset)
	if err := (c.Offset() - offset).Abs(); err > time.Second+rtt {
		t.Fatalf("offset %v after one answer, want %v within a second", c.Offset(), offset)
	}
	answers(c, local.Now(), rtt, offset)
	if err := (c.Offset() - offset).Abs(); err > offsetWithin {
		t.Fatalf("offset %v after %d answers, want %v within %v", c.Offset(), serverClockAnswers, offset, offsetWithin)
	}
	if got, want := c.Now(), local.Now().Add(c.Offset()); !got.Equal(want) {
		t.Fatalf("Now %v, want the local time plus the offset, %v", got, want)
	}
	if got := c.Since(local.Now().Add(offset)); got.Abs() > offsetWithin {
		t.Fatalf("Since the apiserver's now: %v, want within %v of 0", got, offsetWithin)
	}
}

// A local clock set while the manager runs (an NTP step) makes the older
// answers disagree with the newer: they are dropped, and the offset follows
// the new one at once.
func TestServerClockFollowsALocalClockThatWasSet(t *testing.T) {
	local := clocktesting.NewFakeClock(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
	c := newServerClock(local, logr.Discard())
	const rtt = 4 * time.Millisecond
	answers(c, local.Now(), rtt, 0)
	if c.Offset() != 0 {
		t.Fatalf("offset %v, want 0: the local clock agrees with the apiserver's", c.Offset())
	}
	const stepped = 30 * time.Second
	next := local.Now().Add(2 * time.Minute)
	answer(c, next, rtt, stepped)
	if err := (c.Offset() - stepped).Abs(); err > time.Second+rtt {
		t.Fatalf("offset %v after the local clock was set back %v, want within a second of it", c.Offset(), stepped)
	}
	answers(c, next.Add(time.Second), rtt, stepped)
	if err := (c.Offset() - stepped).Abs(); err > offsetWithin {
		t.Fatalf("offset %v, want %v within %v", c.Offset(), stepped, offsetWithin)
	}
}

// Through the transport: a replica whose clock is 45 s ahead reads the
// apiserver's time of day from the Date header of its answers.
func TestServerClockReadsTheDateHeaderOfEveryAnswer(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}))
	t.Cleanup(server.Close)
	const ahead = 45 * time.Second
	local := clocktesting.NewFakeClock(time.Now().Add(ahead))
	c := newServerClock(local, logr.Discard())
	httpClient := &http.Client{Transport: c.wrap(http.DefaultTransport)}
	for range 5 {
		local.SetTime(time.Now().Add(ahead))
		resp, err := httpClient.Get(server.URL)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	// Answers within one second bound the offset to that second (the
	// narrowing by many answers is the tests' above), and the correction
	// is the least they prove: at most a second and the round trips off.
	local.SetTime(time.Now().Add(ahead))
	if err := time.Until(c.Now()).Abs(); err > time.Second+100*time.Millisecond {
		t.Fatalf("a replica 45 s ahead reads the apiserver's time %v off (offset %v)", err, c.Offset())
	}
}
