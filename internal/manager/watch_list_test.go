package manager

import (
	"testing"

	"k8s.io/client-go/features"
)

// The flag decides client-go's WatchListClient, each time the manager is
// set up, and leaves every other gate to client-go.
func TestSetWatchListDecidesOnlyWatchListClient(t *testing.T) {
	defer setWatchList(DefaultOptions().WatchListClient)
	for _, enabled := range []bool{true, false, true} {
		setWatchList(enabled)
		if got := features.FeatureGates().Enabled(features.WatchListClient); got != enabled {
			t.Errorf("after setWatchList(%t), WatchListClient is %t", enabled, got)
		}
		for _, other := range []features.Feature{features.ClientsAllowCBOR, features.InformerResourceVersion} {
			if got, want := features.FeatureGates().Enabled(other), clientGoGates().Enabled(other); got != want {
				t.Errorf("%s is %t, client-go says %t", other, got, want)
			}
		}
	}
	if DefaultOptions().WatchListClient {
		t.Error("the manager streams its caches' lists by default")
	}
}
