package watchlist

import (
	"testing"

	"k8s.io/client-go/features"
)

// Set decides client-go's WatchListClient each time it is called and
// leaves every other gate to client-go; Reset gives client-go its own.
func TestSetDecidesOnlyWatchListClient(t *testing.T) {
	defer Reset()
	own := features.FeatureGates().Enabled(features.WatchListClient)
	for _, enabled := range []bool{true, false, true} {
		Set(enabled)
		if got := features.FeatureGates().Enabled(features.WatchListClient); got != enabled {
			t.Errorf("after Set(%t), WatchListClient is %t", enabled, got)
		}
		for _, other := range []features.Feature{features.ClientsAllowCBOR, features.InformerResourceVersion} {
			if got, want := features.FeatureGates().Enabled(other), clientGoGates().Enabled(other); got != want {
				t.Errorf("%s is %t, client-go says %t", other, got, want)
			}
		}
	}
	Set(!own)
	Reset()
	if got := features.FeatureGates().Enabled(features.WatchListClient); got != own {
		t.Errorf("after Reset, WatchListClient is %t, client-go's own is %t", got, own)
	}
}
