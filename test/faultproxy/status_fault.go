package faultproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// statusFault answers in the apiserver's place with an error status,
// without forwarding: the request changes nothing, as a refused one does.
type statusFault struct {
	name string
	// status makes the answer's body for the request.
	status func(req Request) metav1.Status
	// retryAfterSeconds is sent as Retry-After when not negative.
	retryAfterSeconds int
}

// TooManyRequests answers 429 with Retry-After: retryAfterSeconds, as the
// apiserver's priority and fairness does when a level is full; client-go
// waits that long and sends the request again (up to ten times).
func TooManyRequests(retryAfterSeconds int) Fault {
	return &statusFault{
		name: fmt.Sprintf("429 Retry-After %d", retryAfterSeconds),
		status: func(Request) metav1.Status {
			return apierrors.NewTooManyRequests("injected by faultproxy", retryAfterSeconds).ErrStatus
		},
		retryAfterSeconds: retryAfterSeconds,
	}
}

// ServiceUnavailable answers 503. With retryAfterSeconds > 0 it sends
// Retry-After, which client-go obeys by retrying; with 0 it sends none,
// and the client gets the error.
func ServiceUnavailable(retryAfterSeconds int) Fault {
	header := retryAfterSeconds
	if header == 0 {
		header = -1
	}
	return &statusFault{
		name: fmt.Sprintf("503 Retry-After %d", retryAfterSeconds),
		status: func(Request) metav1.Status {
			status := apierrors.NewServiceUnavailable("injected by faultproxy").ErrStatus
			if retryAfterSeconds > 0 {
				status.Details = &metav1.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)} //nolint:gosec // seconds
			}
			return status
		},
		retryAfterSeconds: header,
	}
}

// Conflict answers 409 Conflict for the request's object, as the apiserver
// does for a write with a stale resourceVersion: apierrors.IsConflict holds
// for the error client-go returns, and the object is not written.
func Conflict() Fault {
	return &statusFault{
		name: "409 Conflict",
		status: func(req Request) metav1.Status {
			resource := schema.GroupResource{Group: req.APIGroup, Resource: req.Resource}
			return apierrors.NewConflict(resource, req.Name, errors.New("injected by faultproxy")).ErrStatus
		},
		retryAfterSeconds: -1,
	}
}

func (f *statusFault) String() string { return f.name }

func (f *statusFault) inject(p *Proxy, w http.ResponseWriter, _ *http.Request, req Request) {
	status := f.status(req)
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	body, err := json.Marshal(status)
	if err != nil {
		p.log.Printf("faultproxy: encoding a %s answer: %v", f.name, err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f.retryAfterSeconds >= 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.retryAfterSeconds))
	}
	w.WriteHeader(int(status.Code))
	_, _ = w.Write(body)
}
