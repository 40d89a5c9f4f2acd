package faultproxy

import "net/http"

// Fault is what a rule does to a request instead of forwarding it
// untouched. The faults are this package's own (TooManyRequests,
// ServiceUnavailable, Conflict, ResetAfterForwarding, Delay, StallWatch,
// StallWatchThenCut): each is a real answer on the wire, which client-go
// reads as it would the apiserver's.
type Fault interface {
	// inject answers r, forwarding it through p when the fault needs the
	// apiserver's answer.
	inject(p *Proxy, w http.ResponseWriter, r *http.Request, req Request)
	String() string
}
