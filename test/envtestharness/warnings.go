package envtestharness

import (
	"context"
	"sync"
)

// WarningCollector keeps the warnings the apiserver sends a client (kubectl
// prints the same ones as "Warning: ..."): set it as the rest.Config's
// WarningHandlerWithContext of the client whose requests a suite checks.
type WarningCollector struct {
	mu   sync.Mutex
	seen []string
}

// HandleWarningHeaderWithContext records one warning.
func (w *WarningCollector) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

// Take returns the warnings received since the last Take and forgets them.
func (w *WarningCollector) Take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}
