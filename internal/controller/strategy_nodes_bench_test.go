package controller

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// cachedNodes stands in for the manager's cache in a List with
// UnsafeDisableDeepCopy: it copies the cached objects' structs into the
// list, sharing their maps, as the informer cache does.
type cachedNodes struct {
	client.Reader
	items []metav1.PartialObjectMetadata
}

func (c cachedNodes) List(_ context.Context, list client.ObjectList, _ ...client.ListOption) error {
	l, ok := list.(*metav1.PartialObjectMetadataList)
	if !ok {
		return fmt.Errorf("unexpected list %T", list)
	}
	l.Items = append(l.Items[:0], c.items...)
	return nil
}

// BenchmarkStrategyNodesCollect10000Nodes is one count of
// nodeslo_strategy_nodes at 10,000 nodes, as a scrape makes it when the
// last is not recent: the list from the cache, the counts and the
// series, for 20 node strategies in each of four keys, the nodes spread
// over 25 pools and 3 zones.
func BenchmarkStrategyNodesCollect10000Nodes(b *testing.B) {
	entries := func(fields string) string {
		out := ""
		for i := range 20 {
			if i > 0 {
				out += ","
			}
			out += fmt.Sprintf(`{"name": "pool-%d", "nodeSelector": {"matchLabels": {"pool": "pool-%d"},
				"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}, %s}`,
				i, i, fmt.Sprintf(fields, 30+i))
		}
		return out
	}
	cfg := sloconfig.Load(map[string]string{
		string(sloconfig.KeyResourceThreshold): `{"nodeStrategies": [` + entries(`"cpuSuppressThresholdPercent": %d`) + `]}`,
		string(sloconfig.KeyCPUBurst):          `{"nodeStrategies": [` + entries(`"cpuBurstPercent": %d`) + `]}`,
		string(sloconfig.KeySystem):            `{"nodeStrategies": [` + entries(`"minFreeKbytesFactor": %d`) + `]}`,
		string(sloconfig.KeyResourceQOS): `{"nodeStrategies": [` +
			entries(`"beClass": {"memoryQOS": {"enable": true, "wmarkRatio": %d}}`) + `]}`,
	}, nil)
	if !cfg.Valid() {
		b.Fatalf("invalid benchmark configuration: %v", cfg.Reports())
	}
	items := make([]metav1.PartialObjectMetadata, 10_000)
	for i := range items {
		items[i].Name = fmt.Sprintf("node-%d", i)
		items[i].Labels = map[string]string{
			"kubernetes.io/hostname": items[i].Name, "kubernetes.io/os": "linux",
			"pool": fmt.Sprintf("pool-%d", i%25), "zone": string(rune('a' + i%3)),
		}
	}
	published := &snapshots{}
	published.publish(&Snapshot{Config: cfg})
	collector := newStrategyNodes(published, cachedNodes{items: items})
	b.ReportAllocs()
	for b.Loop() {
		series, err := collector.count(cfg)
		if err != nil || len(series) != 80 {
			b.Fatalf("%d series (%v), want 80", len(series), err)
		}
	}
}
