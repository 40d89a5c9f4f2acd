// Package watchlist decides, for the whole process, whether client-go's
// caches start from a stream of watch events or from a list: its
// WatchListClient feature gate, which client-go turns on by default and
// the manager's --watch-list-client sets (off by default: kube-apiserver
// deep-copies every object it streams to a watch that asks for metadata
// only, as the manager's caches do, so at 50,000 nodes a restart spent
// 13.8 CPU-seconds of the control plane and 7.8 of the manager streaming,
// against 10.7 and 4.8 listing; docs/performance.md#50000-nodes).
package watchlist

import (
	"sync"

	"k8s.io/client-go/features"
)

// gate is client-go's feature gates with WatchListClient set.
type gate struct {
	features.Gates
	enabled bool
}

// Enabled answers WatchListClient as set and the rest from client-go.
func (g gate) Enabled(f features.Feature) bool {
	if f == features.WatchListClient {
		return g.enabled
	}
	return g.Gates.Enabled(f)
}

// clientGoGates are the gates client-go had before any were set, so that a
// process that sets them several times (the tests) wraps them once.
var clientGoGates = sync.OnceValue(features.FeatureGates)

// Set makes client-go's caches, in this whole process, start from watch
// streams (enabled) or from lists. A cache built earlier keeps its way.
func Set(enabled bool) {
	features.ReplaceFeatureGates(gate{Gates: clientGoGates(), enabled: enabled})
}

// Reset gives client-go its own gates back.
func Reset() {
	features.ReplaceFeatureGates(clientGoGates())
}
