package localcluster

import "net/http"

// RoundTripperFunc lets a function stand where client-go wants an
// http.RoundTripper: the suites wrap the manager's transport with one to
// count, record or disturb its requests (rest.Config.Wrap).
type RoundTripperFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
