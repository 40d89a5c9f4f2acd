package manager

import "testing"

// The manager's caches list by default (internal/watchlist says why).
func TestTheManagerListsByDefault(t *testing.T) {
	if DefaultOptions().WatchListClient {
		t.Error("the manager streams its caches' lists by default")
	}
}
