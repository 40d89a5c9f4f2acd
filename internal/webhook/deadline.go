package webhook

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// defaultTimeout is the webhook's timeoutSeconds as generated (the marker in
// configmap_validator.go), for a request that does not say its own.
const defaultTimeout = 5 * time.Second

// withAnswerDeadline gives a request's context the deadline by which the
// webhook must answer: four fifths of the timeout the apiserver sent as the
// URL's "timeout" parameter (it sends the time its own deadline leaves,
// rounded up to a whole second), else of defaultTimeout. The fifth kept
// covers that rounding and the answer's way back, so that the checks
// against the cluster stop in time for the answer to count: a request the
// apiserver gives up on is admitted unchecked (failurePolicy Ignore). The
// deadline is released with the request, whose context net/http cancels
// when the handler returns.
func withAnswerDeadline(ctx context.Context, r *http.Request) context.Context {
	timeout := defaultTimeout
	if sent, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && sent > 0 {
		timeout = sent
	}
	bounded, cancel := context.WithTimeout(ctx, timeout*4/5)
	context.AfterFunc(ctx, cancel)
	return bounded
}

// cutShort is the warning for a check that ctx's end (err) stopped: the
// value is admitted without it.
func cutShort(check string, err error) string {
	return fmt.Sprintf("%s: the check did not finish within the webhook's deadline (%v)", check, err)
}
