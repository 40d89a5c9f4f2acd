package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/nodeslo/nodeslo-controller/api/scheme"
	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
	"github.com/nodeslo/nodeslo-controller/internal/storedslo"
)

// floor is the least any controller could do: a plain client with the
// manager's rate limit and concurrency that writes the very specs the
// controller writes, knowing them in advance and reading nothing.
type floor struct {
	client  client.Client
	workers int
	// stamps: each write carries the manager's two annotations (newFloor).
	stamps bool
	// written holds what the floor last wrote, with its resourceVersion,
	// so that updates need no read.
	mu      sync.Mutex
	written map[string]*slov1alpha1.NodeSLO
}

// newFloor makes the floor's client. With watchNodeSLOs (the default;
// BENCH_FLOOR_WATCHES=0 turns it off) the floor is what any controller of
// NodeSLOs must do: it watches NodeSLOs as the manager does, as metadata
// only, until ctx ends, since only a watch sees a NodeSLO edited or
// deleted by someone else, and so pays, and has kube-apiserver pay, for the
// echo of its own writes; and its cold phase lists the Nodes once, as
// metadata, since a controller learns from them which NodeSLOs to write
// (listNodes). With stamps (BENCH_FLOOR_STAMPS=1) each write also carries
// the three annotations the manager writes with a spec, to tell what their
// bytes cost from the rest of the manager's work.
func newFloor(ctx context.Context, cfg *rest.Config, r regime, watchNodeSLOs, stamps bool) (*floor, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = float32(r.qps), r.burst
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, fmt.Errorf("creating the floor's client: %w", err)
	}
	// Discover NodeSLO's REST mapping before the clock starts, as the
	// manager does while its cache syncs.
	if err := c.Get(ctx, client.ObjectKey{Name: "warm-up"}, &slov1alpha1.NodeSLO{}); client.IgnoreNotFound(err) != nil {
		return nil, fmt.Errorf("floor: warming up its client: %w", err)
	}
	if watchNodeSLOs {
		if err := watch(ctx, cfg, "floor", sloconfig.NodeSLOMetadata(), nil); err != nil {
			return nil, err
		}
	}
	return &floor{client: c, workers: r.workers, stamps: stamps, written: map[string]*slov1alpha1.NodeSLO{}}, nil
}

// listNodes reads the Nodes once, as metadata: what a controller must
// read before it knows which NodeSLOs to write.
func (f *floor) listNodes(ctx context.Context) error {
	nodes := &metav1.PartialObjectMetadataList{}
	nodes.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	if err := f.client.List(ctx, nodes); err != nil {
		return fmt.Errorf("floor: listing the Nodes: %w", err)
	}
	return nil
}

// changed names the nodes whose spec in want differs from what the floor
// wrote last: the floor knows in advance, so this is not timed.
func (f *floor) changed(want specSet) []string {
	var names []string
	for name, spec := range want {
		if old, ok := f.written[name]; !ok || !sloconfig.SpecEqual(&old.Spec, spec) {
			names = append(names, name)
		}
	}
	return names
}

// write creates or updates the NodeSLOs of names with their spec in want.
func (f *floor) write(ctx context.Context, names []string, want specSet) error {
	return forEach(ctx, len(names), f.workers, func(ctx context.Context, i int) error {
		name := names[i]
		f.mu.Lock()
		old := f.written[name]
		f.mu.Unlock()
		var err error
		var slo *slov1alpha1.NodeSLO
		if old == nil {
			slo = &slov1alpha1.NodeSLO{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: *want[name].DeepCopy()}
			f.stamp(slo)
			err = f.client.Create(ctx, slo)
		} else {
			slo = old
			slo.Spec = *want[name].DeepCopy()
			f.stamp(slo)
			err = f.client.Update(ctx, slo)
		}
		if err != nil {
			return fmt.Errorf("floor: writing NodeSLO %s: %w", name, err)
		}
		f.mu.Lock()
		f.written[name] = slo
		f.mu.Unlock()
		return nil
	})
}

// stamp sets on slo, about to be written, the three annotations the manager
// writes with a spec, of the same length, when the floor writes them.
func (f *floor) stamp(slo *slov1alpha1.NodeSLO) {
	if !f.stamps {
		return
	}
	slo.Annotations = map[string]string{
		storedslo.SpecDigestAnnotation:  storedslo.FormatSpecDigest(slo.Generation+1, sloconfig.SpecDigest(&slo.Spec)),
		storedslo.SpecWrittenAnnotation: storedslo.FormatWrittenAt(time.Now()),
		// A configuration's short fingerprint and a revision number.
		storedslo.ConfigurationAnnotation: storedslo.FormatConfiguration(sloconfig.SpecDigest(&slo.Spec)[:12], 1),
	}
}
