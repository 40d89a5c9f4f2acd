package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// MetricOutOfDateNodes counts the nodes whose NodeSLO does not hold what
// the configuration in force resolves for them while no rollout holds them.
const MetricOutOfDateNodes = "nodeslo_out_of_date_nodes"

// Why a node counts as out of date (label "reason").
const (
	// OutOfDateMissing: the node has no NodeSLO.
	OutOfDateMissing = "missing"
	// OutOfDateDiffers: its NodeSLO holds another spec than the one resolved.
	OutOfDateDiffers = "differs"
	// OutOfDateEdited: its NodeSLO's digest annotation vouches for no spec:
	// it was changed since this controller wrote it, or never written by it.
	OutOfDateEdited = "edited"
)

// outOfDateReasons lists every reason, each exported even at 0, so that an
// alert sees a drop to 0 and the dashboard a flat line rather than no data.
var outOfDateReasons = []string{OutOfDateMissing, OutOfDateDiffers, OutOfDateEdited}

// outOfDateListTimeout bounds the wait for the cache during a scrape.
const outOfDateListTimeout = 5 * time.Second

// outOfDateNodes computes nodeslo_out_of_date_nodes when it is scraped,
// from the Snapshot in force and the cache's Node and NodeSLO metadata:
// what the NodeSLO controller should have converged to, checked apart from
// it, so that a write refused, a reconcile never triggered or a second
// writer shows whatever the controller believes. It compares the digest
// annotation of each NodeSLO with the digest of the spec resolved for its
// node (sloconfig.StoredForm.HeldBy without the spec, which the cache does
// not hold), about 5 µs a node, at most once per recountInterval.
type outOfDateNodes struct {
	published *snapshots
	cache     client.Reader
	desc      *prometheus.Desc

	last recountedSeries[*Snapshot]
}

func newOutOfDateNodes(published *snapshots, cache client.Reader) *outOfDateNodes {
	return &outOfDateNodes{published: published, cache: cache, desc: prometheus.NewDesc(MetricOutOfDateNodes,
		"Nodes whose NodeSLO does not hold what the configuration in force resolves for them, "+
			"not counting those a staged rollout holds, by reason: missing (no NodeSLO), differs "+
			"(another spec), edited (its digest annotation vouches for no spec).",
		[]string{"reason"}, nil)}
}

// Describe sends the one descriptor.
func (o *outOfDateNodes) Describe(ch chan<- *prometheus.Desc) { ch <- o.desc }

// Collect sends the counts by reason, counted again unless the last count
// is recent and of the same Snapshot. Before the first load there is
// nothing to compare with; under a Frozen key (the configuration resolves
// that section from each stored spec, which the cache does not hold) the
// digests cannot say: no series then.
func (o *outOfDateNodes) Collect(ch chan<- prometheus.Metric) {
	snap := o.published.load()
	if snap == nil || snap.Config.ReadsStoredSpec() {
		return
	}
	o.last.collect(ch, o.desc, snap, func() ([]prometheus.Metric, error) { return o.count(snap) })
}

// count compares every Node of the cache that the gate of snap does not
// hold with its NodeSLO.
func (o *outOfDateNodes) count(snap *Snapshot) ([]prometheus.Metric, error) {
	ctx, cancel := context.WithTimeout(context.Background(), outOfDateListTimeout)
	defer cancel()
	nodes := sloconfig.NodeMetadataList()
	// Read-only: the cache's objects are not copied.
	if err := o.cache.List(ctx, nodes, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing Nodes from the cache: %w", err)
	}
	slos := sloconfig.NodeSLOMetadataList()
	if err := o.cache.List(ctx, slos, client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("listing NodeSLOs from the cache: %w", err)
	}
	stored := make(map[string]*metav1.PartialObjectMetadata, len(slos.Items))
	for i := range slos.Items {
		stored[slos.Items[i].Name] = &slos.Items[i]
	}
	counts := map[string]int{}
	for i := range nodes.Items {
		node := &nodes.Items[i]
		if snap.Gate.Has(node.Name) {
			continue
		}
		if reason := outOfDateReason(snap, node, stored[node.Name]); reason != "" {
			counts[reason]++
		}
	}
	series := make([]prometheus.Metric, 0, len(outOfDateReasons))
	for _, r := range outOfDateReasons {
		series = append(series, prometheus.MustNewConstMetric(o.desc, prometheus.GaugeValue, float64(counts[r]), r))
	}
	return series, nil
}

// outOfDateReason says why node's NodeSLO (nil: none) does not hold what
// snap resolves for it, or "" when it does.
func outOfDateReason(snap *Snapshot, node, slo *metav1.PartialObjectMetadata) string {
	if slo == nil {
		return OutOfDateMissing
	}
	digest := storedslo.VouchedDigest(slo)
	if digest == "" {
		return OutOfDateEdited
	}
	res := snap.Config.Resolve(sloconfig.NodeOf(node), nil)
	if !snap.Config.StoredFormOf(&res, snap.Dropped).HeldBy(digest, nil) {
		return OutOfDateDiffers
	}
	return ""
}

// addLeaderMetric registers collector, named name, while this replica
// leads: only the leader loads the configuration, so a standby would have
// none to report. It is unregistered when the manager stops, so that a
// process that builds several managers (the tests do) registers each
// one's in turn.
func addLeaderMetric(mgr ctrl.Manager, name string, collector prometheus.Collector) error {
	return mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		err := metrics.Registry.Register(collector)
		if _, already := errors.AsType[prometheus.AlreadyRegisteredError](err); already {
			// Another manager of this process reports it.
			return nil
		}
		if err != nil {
			return fmt.Errorf("registering %s: %w", name, err)
		}
		<-ctx.Done()
		metrics.Registry.Unregister(collector)
		return nil
	}))
}
