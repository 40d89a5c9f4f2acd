package manager

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
)

// An apiserver that accepts the manager client's request and never
// answers holds it for RequestTimeout, not for as long as the connection
// lives: the request fails, and the worker is free to try again.
func TestTheManagersClientGivesUpOnAHungRequest(t *testing.T) {
	hang := make(chan struct{})
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(server.Close)
	t.Cleanup(func() { close(hang) })

	s := scheme.New()
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	const timeout = 300 * time.Millisecond
	c, err := newTimedClient(timeout)(&rest.Config{Host: server.URL}, client.Options{Scheme: s, Mapper: mapper})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	err = c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "cm"}, &corev1.ConfigMap{})
	if err == nil {
		t.Fatal("a request that was never answered succeeded")
	}
	if ctx.Err() != nil {
		t.Fatalf("the request waited for the caller's minute, not for the client's timeout: %v", err)
	}
	t.Logf("gave up after %s: %v", time.Since(start).Round(time.Millisecond), err)
}
