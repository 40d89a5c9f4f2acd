package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	slov1alpha1 "github.com/nodeslo/nodeslo-controller/api/slo/v1alpha1"
	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Where the manager looks for its ConfigMap by default.
const (
	configNamespace = "koordinator-system"
	configName      = "slo-controller-config"
	setupWorkers    = 8
	pollInterval    = 200 * time.Millisecond
	// controllerName is the NodeSLO controller's name in the metrics' labels.
	controllerName = "nodeslo"
)

// bench holds what the phases share.
type bench struct {
	settings
	client     client.Client
	admin      *rest.Config
	kubeconfig string
	observer   *observer
	results    results
	// controlPlane holds kube-apiserver's and etcd's process IDs, whose
	// CPU time each phase reports.
	controlPlane []int

	// The specs each configuration resolves to, and how many nodes the
	// change-10pct configuration changes.
	specsCold, specsAll, specs10pct specSet
	changed10pct                    int
	// config10pct is the configuration in force after change-10pct, the
	// one the kwok phases resolve relabelled nodes against.
	config10pct *sloconfig.Config
}

// prepare measures the empty manager, then creates the Nodes and computes
// the specs every phase waits for.
func (b *bench) prepare(ctx context.Context) error {
	cold, specsCold, err := expectedSpecs(configCold, nil, b.nodes)
	if err != nil {
		return err
	}
	all, specsAll, err := expectedSpecs(configChangeAll, cold, b.nodes)
	if err != nil {
		return err
	}
	config10pct, specs10pct, err := expectedSpecs(configChange10pct, all, b.nodes)
	if err != nil {
		return err
	}
	b.specsCold, b.specsAll, b.specs10pct, b.config10pct = specsCold, specsAll, specs10pct, config10pct
	b.changed10pct = changedNodes(specsAll, specs10pct)
	if err := b.setConfig(ctx, configCold); err != nil {
		return err
	}

	logf("measuring the manager without nodes")
	m, err := b.startManager(regimeNamed(defaultsRegime), 0, "empty")
	if err != nil {
		return err
	}
	_, _, err = b.waitSettled(ctx, m, 0, time.Minute)
	if err == nil {
		b.results.Empty, err = readMemory(ctx, m)
	}
	m.stop()
	if err != nil {
		return fmt.Errorf("measuring the empty manager: %w", err)
	}

	logf("creating %d nodes", b.nodes)
	start := time.Now()
	if err := createNodes(ctx, b.client, b.nodes, setupWorkers); err != nil {
		return err
	}
	logf("created %d nodes in %.1fs", b.nodes, time.Since(start).Seconds())
	return nil
}

// setConfig creates or updates the ConfigMap with data.
func (b *bench) setConfig(ctx context.Context, data map[string]string) error {
	// Nothing else writes the ConfigMap (the manager never does), but a
	// conflict would read it again.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: configNamespace, Name: configName}}
		err := b.client.Get(ctx, client.ObjectKeyFromObject(cm), cm)
		switch {
		case apierrors.IsNotFound(err):
			cm.Data = data
			return b.client.Create(ctx, cm)
		case err != nil:
			return err
		}
		cm.Data = data
		return b.client.Update(ctx, cm)
	})
	if err != nil {
		return fmt.Errorf("writing the ConfigMap: %w", err)
	}
	return nil
}

// deleteNodeSLOs removes every NodeSLO and waits until the observer saw it.
func (b *bench) deleteNodeSLOs(ctx context.Context) error {
	reached := b.observer.expect(specSet{})
	if err := b.client.DeleteAllOf(ctx, &slov1alpha1.NodeSLO{}); err != nil {
		return fmt.Errorf("deleting NodeSLOs: %w", err)
	}
	// A collection delete removes the items one by one: allow 50 a second.
	return b.observer.wait(ctx, reached, b.timeout(regime{qps: 150}), nil)
}

// timeout bounds a phase: three times what writing every node at the
// regime's rate takes, plus a minute.
func (b *bench) timeout(r regime) time.Duration {
	return time.Minute + time.Duration(3*float64(b.nodes)/r.writesPerSecond()*float64(time.Second))
}

// startManager starts the manager for a phase of repetition rep (0: not
// one of the repeated phases), logging to a file named after them.
func (b *bench) startManager(r regime, rep int, label string) (*managerProcess, error) {
	logPath := filepath.Join(b.outDir, fmt.Sprintf("manager-%s-%s%s.log", r.name, label, b.repetitionSuffix(rep)))
	return startManager(b.managerBinary, b.kubeconfig, logPath, r, strings.Fields(b.managerFlags))
}

// repetitionSuffix tells the files of repetition rep apart when there are
// several ("-2"), and is empty otherwise, as the files were named before
// BENCH_REPEAT.
func (b *bench) repetitionSuffix(rep int) string {
	if b.repeat <= 1 || rep == 0 {
		return ""
	}
	return fmt.Sprintf("-%d", rep)
}

// memorySample is the manager's memory at one moment, after a full garbage
// collection: heap in use (spans holding live objects, the figure the
// issue's targets use), live heap (the live objects alone) and RSS.
type memorySample struct {
	HeapInuse float64 `json:"heap_inuse_bytes"`
	HeapLive  float64 `json:"heap_live_bytes"`
	RSS       float64 `json:"rss_bytes"`
}

// readMemory collects the manager's garbage and reads its memory. It
// collects twice: objects with finalizers survive the first collection.
func readMemory(ctx context.Context, m *managerProcess) (memorySample, error) {
	for range 2 {
		if err := m.collectGarbage(ctx); err != nil {
			return memorySample{}, err
		}
	}
	ms, err := m.scrape(ctx)
	if err != nil {
		return memorySample{}, err
	}
	rss, err := m.rssBytes()
	return memorySample{
		HeapInuse: ms.sum("go_memstats_heap_inuse_bytes", nil),
		HeapLive:  ms.sum("go_memstats_heap_alloc_bytes", nil),
		RSS:       rss,
	}, err
}

// waitSettled waits until the manager is ready, has loaded its configuration,
// has reconciled at least `nodes` nodes with it, and has nothing queued or
// in progress on two polls in a row with no reconcile in between. It returns
// the last scrape and the time of the first of those polls.
func (b *bench) waitSettled(ctx context.Context, m *managerProcess, nodes int,
	timeout time.Duration) (metrics, time.Time, error) {
	deadline := time.Now().Add(timeout)
	var last metrics
	var quietSince time.Time
	for {
		if !m.Running() {
			return nil, time.Time{}, fmt.Errorf("%s exited: %v (log in %s)", m.name(), m.Err(), m.log.Name())
		}
		if time.Now().After(deadline) {
			return nil, time.Time{}, fmt.Errorf("%s did not settle within %s (log in %s)", m.name(), timeout, m.log.Name())
		}
		now := time.Now()
		ms, err := m.scrape(ctx)
		switch {
		case err != nil || !m.ready(ctx) || !m.settled(ms, nodes):
			quietSince = time.Time{}
		case !quietSince.IsZero() && reconciles(ms) == reconciles(last):
			return ms, quietSince, nil
		default:
			quietSince = now
		}
		if err == nil {
			last = ms
		}
		select {
		case <-ctx.Done():
			return nil, time.Time{}, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// settled: configuration loaded, `nodes` nodes reconciled with it, queue
// empty and no worker busy.
func settled(ms metrics, nodes int) bool {
	resolved := ms.sum("nodeslo_reconcile_total", nil) -
		ms.sum("nodeslo_reconcile_total", map[string]string{"operation": "skip"})
	return ms.sum("nodeslo_config_changes_total", nil) >= 1 && resolved >= float64(nodes) && idle(ms)
}

// idle: the NodeSLO controller's queue is empty and no worker is busy,
// by controller-runtime's metrics, which both the manager and koord-manager
// serve under the controller's name.
func idle(ms metrics) bool {
	return ms.sum("workqueue_depth", map[string]string{"name": controllerName}) == 0 &&
		ms.sum("controller_runtime_active_workers", map[string]string{"controller": controllerName}) == 0
}

// reconciles counts the NodeSLO controller's reconciles.
func reconciles(ms metrics) float64 {
	return ms.sum("controller_runtime_reconcile_total", map[string]string{"controller": controllerName})
}

// writes counts the NodeSLO writes that succeeded.
func writes(ms metrics) float64 {
	total := 0.0
	for _, op := range []string{"create", "update", "delete"} {
		total += ms.sum("nodeslo_reconcile_total", map[string]string{"operation": op, "result": "success"})
	}
	return total
}
