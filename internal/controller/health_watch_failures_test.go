package controller

import (
	"context"
	"errors"
	"strings"
	"testing"

	toolscache "k8s.io/client-go/tools/cache"
)

// A watch that does not list says why: each watch's last error, cut at
// maxWatchFailure, sorted by watch; nothing when none failed.
func TestWatchFailuresSayWhyAWatchDidNotList(t *testing.T) {
	var f watchFailures
	if got := f.describe(); got != "" {
		t.Errorf("no failure described as %q", got)
	}
	reflector := toolscache.NewReflector(nil, nil, toolscache.NewStore(toolscache.MetaNamespaceKeyFunc), 0)
	f.record("Pods in namespace b")(context.Background(), reflector, errors.New("an earlier error"))
	const forbidden = `pods is forbidden: User "x" cannot list resource "pods" in the namespace "b"`
	f.record("Pods in namespace b")(context.Background(), reflector, errors.New(forbidden))
	f.record("Nodes")(context.Background(), reflector, errors.New(strings.Repeat("y", 2*maxWatchFailure)))
	got := f.describe()
	want := `: Nodes: ` + strings.Repeat("y", 10)
	if !strings.HasPrefix(got, want) ||
		!strings.HasSuffix(got, "; Pods in namespace b: "+forbidden) ||
		strings.Contains(got, "an earlier error") || len(got) > 2*maxWatchFailure+100 {
		t.Errorf("described as %q", got)
	}
}
