package controller

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// MetricStrategyNodes is the number of nodes each node strategy applies to.
const MetricStrategyNodes = "nodeslo_strategy_nodes"

// strategyNodesListTimeout bounds the wait for the Node cache during a
// scrape; a scrape that waits longer reports the metric as failed.
const strategyNodesListTimeout = 5 * time.Second

// strategyNodes computes nodeslo_strategy_nodes when it is scraped, from
// the configuration in force and the Node cache, so that it costs nothing
// between scrapes and is never more than recountInterval stale:
// keeping the counts up to date on every Node event would cost more at
// 10,000 nodes than counting once per scrape (sloconfig's
// BenchmarkReach10000Nodes: milliseconds).
type strategyNodes struct {
	published *snapshots
	nodes     client.Reader
	desc      *prometheus.Desc

	last recountedSeries[*sloconfig.Config]
}

func newStrategyNodes(published *snapshots, nodes client.Reader) *strategyNodes {
	return &strategyNodes{published: published, nodes: nodes, desc: prometheus.NewDesc(MetricStrategyNodes,
		"Nodes each node strategy (or host-application node config) of each key applies to: "+
			"those it matches and no earlier entry of the key matched; strategy is its name, "+
			"or its index when it has none.",
		[]string{labelKey, "strategy"}, nil)}
}

// Describe sends the one descriptor.
func (s *strategyNodes) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

// Collect sends the counts of the nodes of every entry in force, counted
// again unless the last count is recent and of the same configuration;
// before the first load there is nothing to count.
func (s *strategyNodes) Collect(ch chan<- prometheus.Metric) {
	cfg := s.published.config()
	if cfg == nil {
		return
	}
	s.last.collect(ch, s.desc, cfg, func() ([]prometheus.Metric, error) { return s.count(cfg) })
}

// count counts the nodes of every entry of cfg in the Node cache.
func (s *strategyNodes) count(cfg *sloconfig.Config) ([]prometheus.Metric, error) {
	ctx, cancel := context.WithTimeout(context.Background(), strategyNodesListTimeout)
	defer cancel()
	list := sloconfig.NodeMetadataList()
	// Read-only: the cache's objects are not copied.
	if err := s.nodes.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes from the cache: %w", err)
	}
	reach, _ := cfg.Reach(func(yield func(map[string]string) bool) {
		for i := range list.Items {
			if !yield(sloconfig.LabelsOf(&list.Items[i])) {
				return
			}
		}
	})
	series := make([]prometheus.Metric, 0, len(reach))
	for _, r := range reach {
		series = append(series,
			prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, float64(r.Applied), string(r.Key), r.Label))
	}
	return series, nil
}
