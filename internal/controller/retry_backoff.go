package controller

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Bounds of the wait before a failed reconcile is tried again.
const (
	minRetryBackoff = 5 * time.Millisecond
	// maxRetryBackoff caps the doubling: after an outage of the apiserver,
	// every node and the rollout are tried again within this of its end,
	// not after a wait as long as the outage (controller-runtime's default
	// cap is 1,000 s) (docs/behaviour.md#faults).
	maxRetryBackoff = 10 * time.Second
	// maxRolloutRetryBackoff caps the rollout controller's doubling
	// at the rollout's recheck of a step whose writes have not all landed
	// (a second): the wait for the next step counts from the last decision
	// that saw the step incomplete, so a decision put off by failures
	// would cut that wait short. It reconciles one object.
	maxRolloutRetryBackoff = time.Second
)

// retryBackoff is the controllers' rate limiter: per request, a wait that
// doubles from minRetryBackoff with each failure in a row, up to maxWait
// (maxRetryBackoff; the rollout controller's maxRolloutRetryBackoff),
// and resets on success. controller-runtime's default adds
// a bucket of 10 retries a second over all requests; it is left out, as it
// would space the retries of the nodes of one step after an outage over
// minutes (a thousand nodes: 100 s), and the client's own limit
// (--kube-api-qps) already bounds what they cost the apiserver.
func retryBackoff(maxWait time.Duration) workqueue.TypedRateLimiter[reconcile.Request] {
	return workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](minRetryBackoff, maxWait)
}
