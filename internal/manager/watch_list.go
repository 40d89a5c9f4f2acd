package manager

import (
	"sync"

	"k8s.io/client-go/features"
)

// watchListGate is client-go's feature gates with WatchListClient set by
// the manager's --watch-list-client flag. client-go turns it on by
// default: its caches then start from a stream of watch events instead
// of a list. kube-apiserver deep-copies every object it streams to a
// watch that asks for metadata only, as this manager's do, so at 50,000
// nodes a restart spent 13.8 CPU-seconds of the control plane and 7.8 of
// the manager streaming, against 10.7 and 4.8 listing
// (docs/performance.md#50000-nodes).
type watchListGate struct {
	features.Gates
	enabled bool
}

// Enabled answers WatchListClient from the flag and the rest from client-go.
func (g watchListGate) Enabled(f features.Feature) bool {
	if f == features.WatchListClient {
		return g.enabled
	}
	return g.Gates.Enabled(f)
}

// clientGoGates are the gates client-go had before the manager set any,
// so that a process building several managers (the tests) wraps them once.
var clientGoGates = sync.OnceValue(features.FeatureGates)

// setWatchList makes client-go's caches, in this whole process, start from
// watch streams (enabled) or from lists.
func setWatchList(enabled bool) {
	features.ReplaceFeatureGates(watchListGate{Gates: clientGoGates(), enabled: enabled})
}
