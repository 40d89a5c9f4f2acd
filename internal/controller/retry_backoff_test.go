package controller

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A request that keeps failing waits at most maxRetryBackoff before its
// next try, however long the failures last; another request's failures do
// not lengthen its wait, and a success starts it over.
func TestRetryBackoffIsCappedPerRequest(t *testing.T) {
	limiter := retryBackoff(maxRetryBackoff)
	node := reconcile.Request{NamespacedName: types.NamespacedName{Name: "node-0"}}
	if d := limiter.When(node); d != minRetryBackoff {
		t.Errorf("first retry after %s, want %s", d, minRetryBackoff)
	}
	for i := range 1000 {
		other := reconcile.Request{NamespacedName: types.NamespacedName{Name: "other", Namespace: string(rune('a' + i%26))}}
		limiter.When(other)
		if d := limiter.When(node); d > maxRetryBackoff {
			t.Fatalf("failure %d: retry after %s, more than %s", i+2, d, maxRetryBackoff)
		}
	}
	if d := limiter.When(node); d != maxRetryBackoff {
		t.Errorf("after 1,000 failures: retry after %s, want the cap %s", d, maxRetryBackoff)
	}
	limiter.Forget(node)
	if d := limiter.When(node); d != minRetryBackoff {
		t.Errorf("after a success: retry after %s, want %s", d, minRetryBackoff)
	}
}

// The rollout controller's retries wait at most the rollout's
// recheck: a decision put off longer would shorten the wait after a step.
func TestRolloutRetryBackoffIsCappedAtTheRecheck(t *testing.T) {
	limiter := retryBackoff(maxRolloutRetryBackoff)
	config := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "config"}}
	var last time.Duration
	for range 100 {
		last = limiter.When(config)
	}
	if last != maxRolloutRetryBackoff {
		t.Errorf("after 100 failures: retry after %s, want the cap %s", last, maxRolloutRetryBackoff)
	}
}
