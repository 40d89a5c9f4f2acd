package manager

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// errNotLeading is what a write the lease fence refuses fails with.
var errNotLeading = errors.New("this replica does not hold the leader election Lease")

// leaseFence keeps this replica's writes within the time it holds the
// Lease of leader election (docs/behaviour.md#faults). client-go's leader
// election does not make sure that only one replica acts as the leader: a
// leader stalled past its Lease (a GC pause, CPU throttling, SIGSTOP)
// resumes believing it leads, and its workers write from what they read
// before the stall after another replica took over. The fence sits in the
// transport of every client the manager builds. It sees the Lease writes
// of leader election, so it knows when this replica last renewed the Lease
// (when that write began), and it lets another write through only while
// that was less than the renew deadline ago: a leader that has not renewed
// for that long gives up leading, and another replica takes over no
// earlier than a lease duration after the last renewal it saw. A write let
// through is cancelled once that lease duration is over, so that none
// lands after a takeover it was sent before.
type leaseFence struct {
	// namespace ("": any) and name identify the Lease.
	namespace, name string
	// within is how long after a renewal began writes pass (the renew
	// deadline); lease how long after it a write let through is cancelled
	// (the lease duration).
	within, lease time.Duration
	now           func() time.Time

	mu sync.Mutex
	// renewed is when the last renewal that succeeded began (zero: this
	// replica holds no Lease, or released it).
	renewed time.Time
}

func newLeaseFence(namespace, name string, t LeaderElectionTimings) *leaseFence {
	return &leaseFence{namespace: namespace, name: name, within: t.RenewDeadline, lease: t.LeaseDuration, now: time.Now}
}

// wrap is a rest.Config WrapTransport: every client built from the
// config, leader election's included, goes through the fence.
func (f *leaseFence) wrap(next http.RoundTripper) http.RoundTripper {
	return &fencedTransport{next: next, fence: f}
}

type fencedTransport struct {
	next  http.RoundTripper
	fence *leaseFence
}

func (t *fencedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch {
	case !writes(req.Method) || storesNothing(req):
		return t.next.RoundTrip(req)
	case strings.Contains(req.URL.Path, "/apis/coordination.k8s.io/"):
		return t.fence.observe(t.next, req)
	}
	left, err := t.fence.open()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.Context(), left)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// writes reports whether method changes what is stored.
func writes(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// storesNothing reports whether a write stores nothing: a dry run (the
// CRD probe's), or a token or access review (the metrics endpoint's
// authentication and authorization, on every replica).
func storesNothing(req *http.Request) bool {
	return req.URL.Query().Has("dryRun") ||
		strings.Contains(req.URL.Path, "/apis/authentication.k8s.io/") ||
		strings.Contains(req.URL.Path, "/apis/authorization.k8s.io/")
}

// open returns how long a write sent now may take to land (until the
// lease duration after the last renewal), or errNotLeading when that
// renewal began the renew deadline ago or more.
func (f *leaseFence) open() (time.Duration, error) {
	f.mu.Lock()
	renewed := f.renewed
	f.mu.Unlock()
	if renewed.IsZero() {
		return 0, fmt.Errorf("not written: %w (it has not acquired it, or released it)", errNotLeading)
	}
	since := f.now().Sub(renewed)
	if since >= f.within {
		return 0, fmt.Errorf("not written: %w: it last renewed it %s ago, the renew deadline is %s; "+
			"another replica may lead", errNotLeading, since.Round(time.Millisecond), f.within)
	}
	return f.lease - since, nil
}

// maxLeaseAnswer bounds what is read of an answer to a Lease write.
const maxLeaseAnswer = 64 << 10

// observe sends a write of a Lease and, when it succeeded on the Lease of
// leader election, notes this replica as holding it from when the write
// began (a holder) or no longer (a release, which leaves no holder). An
// answer that cannot be read as a Lease changes nothing: the fence then
// stays as it was, closed for a replica that never renewed.
func (f *leaseFence) observe(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	began := f.now()
	resp, err := next.RoundTrip(req)
	if err != nil || resp.StatusCode/100 != 2 {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLeaseAnswer))
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	// client-go asks for protobuf, or JSON: the deserializer reads either.
	lease := &coordinationv1.Lease{}
	if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, lease); err != nil ||
		lease.Name != f.name || (f.namespace != "" && lease.Namespace != f.namespace) {
		return resp, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		f.renewed = time.Time{}
	} else if began.After(f.renewed) {
		f.renewed = began
	}
	return resp, nil
}

// cancelOnClose ends a write's deadline once its answer is read.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
