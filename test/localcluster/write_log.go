package localcluster

import (
	"net/http"
	"strings"
	"sync"
)

// WriteLog counts, on a client's HTTP transport, the requests that write a
// NodeSLO (create, update, patch, delete) by NodeSLO name and outcome: what
// the apiserver was asked and answered, not what the code under test says
// it did. A refused request (a conflict after the cache lagged, retried with
// a fresh read) changed nothing and is not a successful write, and neither
// is a server-side dry run (dryRun=All), which stores nothing: dry runs are
// counted apart.
type WriteLog struct {
	mu        sync.Mutex
	succeeded map[string]int
	conflicts int
	failed    int
	dryRuns   int
}

// Wrap is a rest.Config WrapTransport.
func (w *WriteLog) Wrap(rt http.RoundTripper) http.RoundTripper {
	return RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		name, ok := NodeSLOWrite(req)
		resp, err := rt.RoundTrip(req)
		switch {
		case ok && req.URL.Query().Has("dryRun"):
			w.mu.Lock()
			w.dryRuns++
			w.mu.Unlock()
		case ok:
			w.record(name, resp, err)
		}
		return resp, err
	})
}

func (w *WriteLog) record(name string, resp *http.Response, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err != nil:
		w.failed++
	case resp.StatusCode == http.StatusConflict:
		w.conflicts++
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if w.succeeded == nil {
			w.succeeded = map[string]int{}
		}
		w.succeeded[name]++
	default:
		w.failed++
	}
}

// NodeSLOWrite reports whether req writes a NodeSLO and which one ("" for
// a create, whose name is in the body).
func NodeSLOWrite(req *http.Request) (string, bool) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return "", false
	}
	tail, ok := strings.CutPrefix(req.URL.Path, "/apis/slo.koordinator.sh/v1alpha1/nodeslos")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(tail, "/"), "/")
	return name, true
}

// Succeeded returns the successful writes of the NodeSLO name.
func (w *WriteLog) Succeeded(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.succeeded[name]
}

// Total returns the successful writes of every NodeSLO.
func (w *WriteLog) Total() int {
	succeeded, _, _ := w.Totals()
	return succeeded
}

// Totals returns the successful writes, the conflicts (409) and the
// failures (no answer, or another error status).
func (w *WriteLog) Totals() (succeeded, conflicts, failed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.succeeded {
		succeeded += n
	}
	return succeeded, w.conflicts, w.failed
}

// Failed returns the writes that got no answer or an error other than a conflict.
func (w *WriteLog) Failed() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// DryRuns returns the NodeSLO writes sent as server-side dry runs.
func (w *WriteLog) DryRuns() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dryRuns
}

// Reset forgets every write counted so far.
func (w *WriteLog) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.succeeded, w.conflicts, w.failed, w.dryRuns = nil, 0, 0, 0
}
