package webhook

import (
	"fmt"
	"net/http"
	"time"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// Bounds of what a caller of the webhook's port costs the manager
// (docs/deploy.md#least-privilege). The port answers whoever reaches it:
// the webhook authenticates no client. Unbounded, reviews of 7 MiB
// (controller-runtime's own limit) read at any concurrency would exhaust
// the memory of the manager, which runs the controller too.
const (
	// MaxReviewBytes bounds an AdmissionReview's body. The largest the
	// apiserver sends for the configured ConfigMap holds it twice (old and
	// new), each with at most 1 MiB of data and 256 KiB of annotations,
	// JSON-escaped (about a quarter more): about 3.2 MiB.
	MaxReviewBytes = 4 << 20
	// MaxConcurrentReviews bounds the reviews served at once: the apiserver
	// sends one for each write of the one ConfigMap the webhook checks.
	MaxConcurrentReviews = 4
)

// BoundedServer returns server with every webhook registered on it served
// within the bounds (boundReviews), all of them sharing the
// MaxConcurrentReviews slots.
func BoundedServer(server ctrlwebhook.Server) ctrlwebhook.Server {
	return &boundedServer{Server: server, slots: make(chan struct{}, MaxConcurrentReviews)}
}

type boundedServer struct {
	ctrlwebhook.Server
	slots chan struct{}
}

// Register registers hook on path, bounded.
func (s *boundedServer) Register(path string, hook http.Handler) {
	s.Server.Register(path, boundReviews(hook, s.slots))
}

// boundReviews serves a review with hook once one of slots is free. A body
// declared larger than MaxReviewBytes is refused unread (413); one that
// turns out larger fails hook's read. A review that finds no free slot
// within its answer timeout is refused (429), and a review served stops
// reading its body at that timeout, so that a caller trickling bytes does
// not hold its slot longer than a review may take.
func boundReviews(hook http.Handler, slots chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxReviewBytes {
			http.Error(w, fmt.Sprintf("the review is %d bytes, more than the %d this webhook reads",
				r.ContentLength, MaxReviewBytes), http.StatusRequestEntityTooLarge)
			return
		}
		timeout := answerTimeout(r)
		deadline := time.Now().Add(timeout)
		wait := time.NewTimer(timeout)
		defer wait.Stop()
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
		case <-wait.C:
			http.Error(w, fmt.Sprintf("more than %d reviews at once; none was done within %v",
				MaxConcurrentReviews, timeout), http.StatusTooManyRequests)
			return
		case <-r.Context().Done():
			return
		}
		// Not every ResponseWriter can (a test's recorder): the bound on the
		// body's size still holds then.
		_ = http.NewResponseController(w).SetReadDeadline(deadline)
		r.Body = http.MaxBytesReader(w, r.Body, MaxReviewBytes)
		hook.ServeHTTP(w, r)
	})
}
