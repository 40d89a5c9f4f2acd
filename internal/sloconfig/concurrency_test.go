package sloconfig

import (
	"sync"
	"testing"
)

// A Config is read by many reconcilers at once, and a new Load reads the
// previous Config while they do: run under -race, this fails on any write
// to shared memory.
func TestConcurrentResolveAndLoad(t *testing.T) {
	c := Load(realisticData, nil)
	labels := map[string]string{poolLabel: poolWeb}
	want := specJSON(t, c.Resolve(Node{Name: "n", Labels: labels}, nil).Spec)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				// No annotation, a valid one, and an invalid one (whose
				// warning quotes the shared strategy's bandwidth).
				annotations := []map[string]string{nil, {NetworkBandwidthAnnotation: "1G"}, {NetworkBandwidthAnnotation: "lots"}}
				node := Node{Name: "n", Labels: labels, Annotations: annotations[i%3]}
				_ = c.Resolve(node, nil)
				_ = Load(map[string]string{string(KeyCPUBurst): "{"}, c)
			}
		})
	}
	wg.Wait()
	if got := specJSON(t, c.Resolve(Node{Name: "n", Labels: labels}, nil).Spec); got != want {
		t.Errorf("the shared configuration changed:\n got %s\nwant %s", got, want)
	}
}
