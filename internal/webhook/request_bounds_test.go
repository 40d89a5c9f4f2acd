package webhook

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
)

// readingHook reads the whole body and answers 200, or 400 with the
// error of the read.
var readingHook = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if _, err := io.ReadAll(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
})

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// A review declared over MaxReviewBytes is refused unread; one that is
// larger than it says fails the hook's read; one within is served.
func TestAReviewBodyIsBounded(t *testing.T) {
	bounded := boundReviews(readingHook, make(chan struct{}, MaxConcurrentReviews))

	declared := httptest.NewRequestWithContext(t.Context(), "POST", "/validate", strings.NewReader("{}"))
	declared.ContentLength = MaxReviewBytes + 1
	if rec := serve(bounded, declared); rec.Code != http.StatusRequestEntityTooLarge ||
		!strings.Contains(rec.Body.String(), "4194305 bytes, more than the 4194304 this webhook reads") {
		t.Errorf("a body declared over the bound: %d %q, want 413 naming the size and the bound", rec.Code, rec.Body)
	}

	undeclared := httptest.NewRequestWithContext(t.Context(), "POST", "/validate",
		strings.NewReader(strings.Repeat(" ", MaxReviewBytes+1)))
	undeclared.ContentLength = -1 // chunked: the size is known only when read
	if rec := serve(bounded, undeclared); rec.Code != http.StatusBadRequest ||
		!strings.Contains(rec.Body.String(), "request body too large") {
		t.Errorf("an undeclared body over the bound: %d %q, want the read to fail", rec.Code, rec.Body)
	}

	within := httptest.NewRequestWithContext(t.Context(), "POST", "/validate",
		strings.NewReader(strings.Repeat(" ", MaxReviewBytes)))
	if rec := serve(bounded, within); rec.Code != http.StatusOK {
		t.Errorf("a body of exactly the bound: %d %q, want it served", rec.Code, rec.Body)
	}
}

// With MaxConcurrentReviews reviews in the hook, one more is refused
// without reaching it (once its answer timeout passes); once one ends,
// the next is served.
func TestConcurrentReviewsAreBounded(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var hookCalls int
	holding := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hookCalls++ // before entered: the test reads it after receiving that
		entered <- struct{}{}
		<-release
		w.WriteHeader(http.StatusOK)
	})
	bounded := boundReviews(holding, make(chan struct{}, MaxConcurrentReviews))
	done := make(chan int, MaxConcurrentReviews+1)
	review := func(query string) {
		r := httptest.NewRequestWithContext(t.Context(), "POST", "/validate"+query, strings.NewReader("{}"))
		done <- serve(bounded, r).Code
	}
	for range MaxConcurrentReviews {
		go review("")
		<-entered
	}

	// Every slot is held: the next waits out its (short) timeout, refused.
	go review("?timeout=1ms")
	if code := <-done; code != http.StatusTooManyRequests {
		t.Fatalf("a review beyond the bound: %d, want 429", code)
	}
	if hookCalls != MaxConcurrentReviews {
		t.Fatalf("the hook was called %d times, want %d", hookCalls, MaxConcurrentReviews)
	}

	// One ends: the next review takes its slot.
	release <- struct{}{}
	if code := <-done; code != http.StatusOK {
		t.Fatalf("a held review ended with %d", code)
	}
	go review("")
	<-entered
	for range MaxConcurrentReviews {
		release <- struct{}{}
		if code := <-done; code != http.StatusOK {
			t.Errorf("a review ended with %d", code)
		}
	}
}

// The caller's timeout is capped at the webhook's own: a client of the
// port cannot keep a review going for longer.
func TestTheCallersTimeoutIsCappedAtTheWebhooksOwn(t *testing.T) {
	for query, want := range map[string]time.Duration{
		"?timeout=1h": ownTimeout * 4 / 5, "?timeout=30s": ownTimeout * 4 / 5, "?timeout=2s": 2 * time.Second * 4 / 5,
	} {
		r := httptest.NewRequestWithContext(t.Context(), "POST", "/validate"+query, nil)
		if got := answerTimeout(r); got != want {
			t.Errorf("%s: answer timeout %v, want %v", query, got, want)
		}
	}
}

// A webhook registered on a BoundedServer is served within the bounds.
func TestBoundedServerBoundsWhatIsRegistered(t *testing.T) {
	server := BoundedServer(ctrlwebhook.NewServer(ctrlwebhook.Options{}))
	server.Register("/validate", readingHook)
	r := httptest.NewRequestWithContext(t.Context(), "POST", "/validate", strings.NewReader("{}"))
	r.ContentLength = MaxReviewBytes + 1
	if rec := serve(server.WebhookMux(), r); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the bound through the server's mux: %d, want 413", rec.Code)
	}
	within := httptest.NewRequestWithContext(t.Context(), "POST", "/validate", strings.NewReader("{}"))
	if rec := serve(server.WebhookMux(), within); rec.Code != http.StatusOK {
		t.Errorf("a small body through the server's mux: %d, want it served", rec.Code)
	}
}
