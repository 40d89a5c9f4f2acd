package controller

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// recountInterval is how long one count of a metric computed at scrape
// time serves the scrapes that follow it under the same input: several
// Prometheus replicas (or a poll as tight as make bench's) then cost one
// count between them.
const recountInterval = time.Second

// recountedSeries keeps the last series of a metric computed when scraped
// (nodeslo_strategy_nodes, nodeslo_out_of_date_nodes), with the input they
// were counted from (the configuration or the Snapshot in force).
type recountedSeries[K comparable] struct {
	mu     sync.Mutex
	input  K
	at     time.Time
	series []prometheus.Metric
}

// collect sends the series for input: those of the last count when it was
// of the same input and less than recountInterval ago, else those count
// returns; an error is sent as an invalid metric of desc.
func (r *recountedSeries[K]) collect(ch chan<- prometheus.Metric, desc *prometheus.Desc, input K,
	count func() ([]prometheus.Metric, error)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.input != input || time.Since(r.at) >= recountInterval {
		series, err := count()
		if err != nil {
			ch <- prometheus.NewInvalidMetric(desc, err)
			return
		}
		r.input, r.at, r.series = input, time.Now(), series
	}
	for _, m := range r.series {
		ch <- m
	}
}
