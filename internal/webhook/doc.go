// Package webhook is the validating admission webhook for the
// slo-controller-config ConfigMap: it denies a ConfigMap with an invalid key
// before it is stored, with the same lines `kubectl nodeslo validate` prints,
// and accepts the rest with admission warnings (docs/behaviour.md, "Bad
// input"); it refuses to delete the ConfigMap, which resets every node to
// the defaults, unless it is annotated for it (docs/behaviour.md, "Deleting
// the ConfigMap").
//
// It is a convenience, not a guard: it runs with failurePolicy Ignore, so
// that an outage of the manager never blocks writes to the cluster, and the
// config-cache controller validates every ConfigMap it loads whatever the
// webhook said.
package webhook
