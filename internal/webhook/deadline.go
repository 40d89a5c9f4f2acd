package webhook

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// ownTimeout is the webhook's timeoutSeconds as generated (the marker in
// configmap_validator.go): the apiserver waits no longer, so no request
// is given longer, whatever the caller's "timeout" parameter says.
const ownTimeout = 5 * time.Second

// answerTimeout is how long the webhook has to answer r: four fifths of
// the timeout the apiserver sent as the URL's "timeout" parameter (it
// sends the time its own deadline leaves, rounded up to a whole second),
// capped at ownTimeout, which is also used when none is sent. The fifth
// kept covers that rounding and the answer's way back, so that the checks
// against the cluster stop in time for the answer to count: a request the
// apiserver gives up on is admitted unchecked (failurePolicy Ignore). The
// cap keeps a caller of the port, who need not be the apiserver
// (docs/deploy.md#least-privilege), from holding a request for longer.
func answerTimeout(r *http.Request) time.Duration {
	timeout := ownTimeout
	if sent, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && sent > 0 {
		timeout = min(sent, ownTimeout)
	}
	return timeout * 4 / 5
}

// withAnswerDeadline gives a request's context the deadline by which the
// webhook must answer (answerTimeout). The deadline is released with the
// request, whose context net/http cancels when the handler returns.
func withAnswerDeadline(ctx context.Context, r *http.Request) context.Context {
	bounded, cancel := context.WithTimeout(ctx, answerTimeout(r))
	context.AfterFunc(ctx, cancel)
	return bounded
}

// cutShort is the warning for a check that ctx's end (err) stopped: the
// value is admitted without it.
func cutShort(check string, err error) string {
	return fmt.Sprintf("%s: the check did not finish within the webhook's deadline (%v)", check, err)
}
