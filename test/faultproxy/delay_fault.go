package faultproxy

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// delayFault forwards the request at once and holds the apiserver's answer
// back for a while: the apiserver acts now, the client learns late.
type delayFault struct {
	delay time.Duration
}

// Delay forwards the request and delays its answer by d (a watch's
// headers, hence its start). A client that gives up first (its context
// ends) gets nothing, though the request took effect.
func Delay(d time.Duration) Fault { return &delayFault{delay: d} }

func (f *delayFault) String() string { return fmt.Sprintf("delay %s", f.delay) }

func (f *delayFault) inject(p *Proxy, w http.ResponseWriter, r *http.Request, _ Request) {
	p.forwarder.ServeHTTP(&delayedWriter{ResponseWriter: w, ctx: r.Context(), delay: f.delay}, r)
}

// delayedWriter waits before the answer's status line goes out.
type delayedWriter struct {
	http.ResponseWriter
	ctx     context.Context
	delay   time.Duration
	started bool
}

func (d *delayedWriter) WriteHeader(code int) {
	if d.started {
		return
	}
	d.started = true
	timer := time.NewTimer(d.delay)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-d.ctx.Done():
	}
	d.ResponseWriter.WriteHeader(code)
}

func (d *delayedWriter) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	return d.ResponseWriter.Write(b)
}

// FlushError passes a flush on (httputil.ReverseProxy flushes each chunk)
// once the status line is out.
func (d *delayedWriter) FlushError() error {
	d.WriteHeader(http.StatusOK)
	return http.NewResponseController(d.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (d *delayedWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }
