package faults

import (
	"net/http"
	"sync"

	"github.com/nodeslo/nodeslo-controller/test/localcluster"
)

// WriteHold holds, on a client's HTTP transport, every NodeSLO write sent
// after the first few of those that follow Arm, until Release: a spec
// that stops the apiserver while a change is rolling knows then that
// writes are waiting to be refused, however fast the manager went on a
// quiet machine or however slowly the spec looked on a busy one.
type WriteHold struct {
	mu      sync.Mutex
	armed   bool
	left    int // writes still let through once armed
	waiting int
	open    chan struct{}
}

// NewWriteHold returns a hold that holds nothing until armed.
func NewWriteHold() *WriteHold {
	return &WriteHold{open: make(chan struct{})}
}

// Arm lets the next after writes through and holds those that follow.
func (h *WriteHold) Arm(after int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.armed, h.left = true, after
}

// Wrap is a rest.Config WrapTransport.
func (h *WriteHold) Wrap(rt http.RoundTripper) http.RoundTripper {
	return localcluster.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if isNodeSLOWrite(req) && h.mustWait() {
			select {
			case <-h.open:
			case <-req.Context().Done():
				h.done()
				return nil, req.Context().Err()
			}
			h.done()
		}
		return rt.RoundTrip(req)
	})
}

// mustWait reports whether a write must wait: armed, past the writes let
// through, and not released.
func (h *WriteHold) mustWait() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.open:
		return false
	default:
	}
	if !h.armed {
		return false
	}
	if h.left > 0 {
		h.left--
		return false
	}
	h.waiting++
	return true
}

func (h *WriteHold) done() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.waiting--
}

// Waiting is how many writes are held now.
func (h *WriteHold) Waiting() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.waiting
}

// Release lets every held write go, and every later one.
func (h *WriteHold) Release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.open:
	default:
		close(h.open)
	}
}

// isNodeSLOWrite reports whether req creates, changes or deletes a NodeSLO
// (a server-side dry run changes nothing).
func isNodeSLOWrite(req *http.Request) bool {
	_, ok := localcluster.NodeSLOWrite(req)
	return ok && !req.URL.Query().Has("dryRun")
}
