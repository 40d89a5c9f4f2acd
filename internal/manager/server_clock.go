package manager

import (
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
)

// serverClock is the apiserver's clock as this replica reads it from the
// Date header of the apiserver's answers (docs/behaviour.md#faults, "a
// replica's clock ahead or behind"). The rollout's times are written by
// one replica and read by the next leader: when a step was taken (the
// soak and the interval count from it) and when a node was written (the
// health gate compares it with the kubelet's times). Read from each
// replica's own clock, a replica 45 s ahead that takes over would find a
// 60 s soak 45 s older than it is. Only the time of day is corrected:
// timers and requeues wait on the local clock, whose durations are right.
type serverClock struct {
	clock.WithDelayedExecution // the replica's own clock
	log                        logr.Logger

	mu sync.Mutex
	// answers are the bounds of the offset (the apiserver's time less
	// this replica's) given by the latest answers, oldest first; offset is
	// the value in the range they agree on closest to zero: the smallest
	// correction they prove (zero before any answer, and while the local
	// clock agrees with the apiserver's as closely as they can tell).
	answers []offsetBounds
	offset  time.Duration
	// logged is the offset last logged.
	logged time.Duration
}

// offsetBounds is what one answer tells of the offset: it is above low and
// below high.
type offsetBounds struct{ low, high time.Duration }

const (
	// serverClockAnswers is how many of the latest answers narrow the
	// offset: the Date header has a resolution of a second, and answers
	// taken at other fractions of a second narrow it to the round trip.
	serverClockAnswers = 64
	// serverClockLogStep is how far the offset moves before it is logged
	// again (a replica's clock usually keeps within it of the apiserver's).
	serverClockLogStep = time.Second
)

// newServerClock estimates the apiserver's clock against local (nil: the
// real clock).
func newServerClock(local clock.WithDelayedExecution, log logr.Logger) *serverClock {
	if local == nil {
		local = clock.RealClock{}
	}
	return &serverClock{WithDelayedExecution: local, log: log}
}

// Now is the apiserver's time as this replica last estimated it.
func (c *serverClock) Now() time.Time { return c.WithDelayedExecution.Now().Add(c.Offset()) }

// Since is the time elapsed since t on the apiserver's clock.
func (c *serverClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Offset is the apiserver's time less this replica's.
func (c *serverClock) Offset() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset
}

// observe narrows the offset with an answer whose Date header is date,
// sent at sent and received at received on the local clock. The header
// is the apiserver's time between the two, cut to the second, so the
// offset is above date − received and below date + 1 s − sent. An older
// answer that disagrees with the newer ones is dropped with all before
// it: the local clock was set since.
func (c *serverClock) observe(date, sent, received time.Time) {
	answer := offsetBounds{low: date.Sub(received), high: date.Add(time.Second).Sub(sent)}
	c.mu.Lock()
	if len(c.answers) == serverClockAnswers {
		c.answers = append(c.answers[:0], c.answers[1:]...)
	}
	c.answers = append(c.answers, answer)
	low, high := answer.low, answer.high
	for i := len(c.answers) - 2; i >= 0; i-- {
		older := c.answers[i]
		if max(low, older.low) > min(high, older.high) {
			c.answers = append(c.answers[:0], c.answers[i+1:]...)
			break
		}
		low, high = max(low, older.low), min(high, older.high)
	}
	c.offset = min(max(0, low), high)
	offset, moved := c.offset, (c.offset-c.logged).Abs() >= serverClockLogStep
	if moved {
		c.logged = offset
	}
	c.mu.Unlock()
	if moved {
		c.log.Info("this replica's clock differs from the apiserver's; the rollout's times follow the apiserver's",
			"apiserverAhead", offset.Round(time.Millisecond).String())
	}
}

// wrap is a rest.Config WrapTransport: every answer the manager's clients
// get narrows the offset.
func (c *serverClock) wrap(next http.RoundTripper) http.RoundTripper {
	return &serverClockTransport{next: next, clock: c}
}

type serverClockTransport struct {
	next  http.RoundTripper
	clock *serverClock
}

func (t *serverClockTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	sent := t.clock.WithDelayedExecution.Now()
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if date, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		t.clock.observe(date, sent, t.clock.WithDelayedExecution.Now())
	}
	return resp, nil
}
