package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// stallFault opens the watch with the apiserver and the client alike, then
// passes none of its events on for a while.
type stallFault struct {
	stall time.Duration
	// cut ends the stream with an error when the stall is over, instead of
	// passing on what was held; end ends it cleanly, passing nothing.
	cut, end bool
}

// StallWatch opens the watch and sends the client nothing for d (the
// response's headers go out, so the client believes the watch is up), then
// delivers the events the apiserver sent meanwhile and streams on. A rule
// with it must match Verbs: []string{VerbWatch}.
func StallWatch(d time.Duration) Fault { return &stallFault{stall: d} }

// StallWatchThenCut opens the watch, sends nothing for d and then breaks
// the stream off (an HTTP/2 stream reset): the events of the stall are
// lost with it, and the client must watch again from its last
// resourceVersion.
func StallWatchThenCut(d time.Duration) Fault { return &stallFault{stall: d, cut: true} }

// StallWatchThenEnd opens the watch, sends nothing for d and then ends the
// stream cleanly, as the apiserver ends a watch at its timeout: the events
// of the stall are lost, and the client, which saw no error, watches again
// from its last resourceVersion. That is the way to a 410 Gone (client-go
// lists again after any other end of a watch, so a cut never gets there).
func StallWatchThenEnd(d time.Duration) Fault { return &stallFault{stall: d, end: true} }

func (f *stallFault) String() string {
	if f.end {
		return fmt.Sprintf("stall watch %s then end", f.stall)
	}
	if f.cut {
		return fmt.Sprintf("stall watch %s then cut", f.stall)
	}
	return fmt.Sprintf("stall watch %s", f.stall)
}

func (f *stallFault) inject(p *Proxy, w http.ResponseWriter, r *http.Request, _ Request) {
	until := time.Now().Add(f.stall)
	if f.end {
		endAt(p, w, r, until)
		return
	}
	if f.cut {
		// The upstream watch ends at the deadline even with no event to
		// hold, and httputil.ReverseProxy aborts the client's stream then.
		ctx, cancel := context.WithDeadline(r.Context(), until)
		defer cancel()
		r = r.WithContext(ctx)
	}
	p.forwarder.ServeHTTP(&stallingWriter{ResponseWriter: w, ctx: r.Context(), until: until, cut: f.cut}, r)
}

// endAt forwards the watch with the apiserver until the deadline, passing
// the client its headers and nothing else, then returns, which ends the
// client's stream cleanly. The forwarding runs aside: when its upstream
// request ends at the deadline, httputil.ReverseProxy aborts its handler
// (a panic with http.ErrAbortHandler), which must not reach the client's.
func endAt(p *Proxy, w http.ResponseWriter, r *http.Request, until time.Time) {
	ctx, cancel := context.WithDeadline(r.Context(), until)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil && v != http.ErrAbortHandler { //nolint:errorlint // the panic's own value
				panic(v)
			}
		}()
		p.forwarder.ServeHTTP(headersOnly{w}, r.WithContext(ctx))
	}()
	<-done
}

// headersOnly passes the apiserver's status line and headers on at once
// and drops the body.
type headersOnly struct{ w http.ResponseWriter }

func (h headersOnly) Header() http.Header { return h.w.Header() }

func (h headersOnly) WriteHeader(code int) {
	h.w.WriteHeader(code)
	_ = http.NewResponseController(h.w).Flush()
}

func (h headersOnly) Write(b []byte) (int, error) { return len(b), nil }

// errWatchCut ends the copy of a cut watch's stream.
var errWatchCut = errors.New("faultproxy: watch cut")

// stallingWriter sends the headers at once and holds every byte of the
// body until the stall is over (Write blocks; a flush has nothing to send
// before then).
type stallingWriter struct {
	http.ResponseWriter
	ctx   context.Context
	until time.Time
	cut   bool
}

// WriteHeader sends the status line and headers right away, so that
// client-go's Watch returns and the stall is one of events, not of setup.
func (s *stallingWriter) WriteHeader(code int) {
	s.ResponseWriter.WriteHeader(code)
	_ = http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *stallingWriter) Write(b []byte) (int, error) {
	if err := s.waitOut(); err != nil {
		return 0, err
	}
	return s.ResponseWriter.Write(b)
}

// waitOut blocks until the stall is over, and fails when the stream is to
// be cut or the client left.
func (s *stallingWriter) waitOut() error {
	timer := time.NewTimer(time.Until(s.until))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	if s.cut {
		return errWatchCut
	}
	return nil
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *stallingWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
