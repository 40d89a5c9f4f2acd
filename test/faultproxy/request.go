package faultproxy

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// requestInfoFactory reads a request's verb, resource, subresource,
// namespace and name the way kube-apiserver itself does (a watch is a list
// with watch=true, a patch of .../status is the status subresource), so
// that a rule means what the apiserver's RBAC and audit log would call the
// request.
var requestInfoFactory = &apirequest.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// Request is what rules match on: the apiserver's reading of an HTTP
// request, and the identity that sent it.
type Request struct {
	apirequest.RequestInfo
	// token is the bearer token the client sent ("" for none): the proxy
	// learns the identity behind it only when a rule asks (User).
	token string
	// impersonated is the Impersonate-User header: the identity the
	// apiserver will act as, when set.
	impersonated string
}

// describeRequest reads r; ok is false for a request that is not about a
// resource (discovery, /version, /healthz), which no rule matches.
func describeRequest(r *http.Request) (Request, bool) {
	info, err := requestInfoFactory.NewRequestInfo(r)
	if err != nil || !info.IsResourceRequest {
		return Request{}, false
	}
	req := Request{RequestInfo: *info, impersonated: r.Header.Get("Impersonate-User")}
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		req.token = strings.TrimSpace(token)
	}
	return req, true
}
