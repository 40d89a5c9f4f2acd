package controller

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// listCounter is cachedNodes that counts the lists made of it.
type listCounter struct {
	cachedNodes
	lists int
}

func (l *listCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	l.lists++
	return l.cachedNodes.List(ctx, list, opts...)
}

// collect scrapes s once and returns how many series it sent.
func collect(s *strategyNodes) int {
	ch := make(chan prometheus.Metric, 10)
	s.Collect(ch)
	return len(ch)
}

// A scrape soon after another under the same configuration reuses its
// count; a new configuration, or the interval passed, counts again.
func TestStrategyNodesRecountsOnlyWhenStaleOrReconfigured(t *testing.T) {
	load := func(threshold string) *sloconfig.Config {
		cfg := sloconfig.Load(map[string]string{string(sloconfig.KeyResourceThreshold): `{"nodeStrategies": [
			{"name": "a", "nodeSelector": {"matchLabels": {"pool": "a"}}, "cpuSuppressThresholdPercent": ` +
			threshold + `}]}`}, nil)
		if !cfg.Valid() {
			t.Fatalf("invalid configuration: %v", cfg.Reports())
		}
		return cfg
	}
	nodes := &listCounter{cachedNodes: cachedNodes{items: []metav1.PartialObjectMetadata{
		{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"pool": "a"}}},
	}}}
	published := &snapshots{}
	published.publish(&Snapshot{Config: load("50")})
	s := newStrategyNodes(published, nodes)

	for range 3 {
		if got := collect(s); got != 1 {
			t.Fatalf("%d series, want 1", got)
		}
	}
	if nodes.lists != 1 {
		t.Errorf("three scrapes in a row listed the Nodes %d times, want once", nodes.lists)
	}
	published.publish(&Snapshot{Config: load("40")})
	collect(s)
	if nodes.lists != 2 {
		t.Errorf("a new configuration was not counted again: %d lists, want 2", nodes.lists)
	}
	s.last.at = time.Now().Add(-recountInterval)
	collect(s)
	if nodes.lists != 3 {
		t.Errorf("a count %s old was reused: %d lists, want 3", recountInterval, nodes.lists)
	}
}
