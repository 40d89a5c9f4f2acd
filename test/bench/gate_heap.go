package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nodeslo/nodeslo-controller/internal/controller"
)

// Memory figures of the health gate (docs/rollout.md#health-gates), as
// results.json's memory "after" values.
const (
	afterGateOff = "health-gate-off"
	afterGateOn  = "health-gate-on"
)

// measureHealthGateHeap weighs the health gate's watches: the manager's
// heap under a paused strategy (the NodeSLORollout's) without a gate, then
// with one while it judges (its watches listed every Node), then without a
// strategy, as before. Only the NodeSLORollout changes, never the
// ConfigMap: any NodeSLO write is an error.
func (b *bench) measureHealthGateHeap(ctx context.Context, m *managerProcess, r regime, rep int) error {
	before, err := m.scrape(ctx)
	if err != nil {
		return err
	}
	steps := []struct {
		after, strategy string
	}{
		{afterGateOff, `{}`},
		{afterGateOn, `{"healthGate": {}}`},
	}
	heap := map[string]float64{}
	for _, s := range steps {
		if err := b.setRollout(ctx, s.strategy, true); err != nil {
			return err
		}
		if err := b.waitRolloutTakenUp(ctx, b.timeout(r)); err != nil {
			return fmt.Errorf("health gate %s: %w", s.after, err)
		}
		if _, _, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r)); err != nil {
			return fmt.Errorf("health gate %s: %w", s.after, err)
		}
		if s.after == afterGateOn {
			if err := b.waitWatched(ctx, m, b.timeout(r)); err != nil {
				return err
			}
		}
		mem, err := readMemory(ctx, m)
		if err != nil {
			return err
		}
		b.results.memory(r.name, rep, s.after, mem)
		heap[s.after] = mem.HeapInuse
	}
	if err := b.setRollout(ctx, "", false); err != nil {
		return err
	}
	if err := b.waitRolloutTakenUp(ctx, b.timeout(r)); err != nil {
		return fmt.Errorf("health gate: removing the strategy: %w", err)
	}
	after, _, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	if err != nil {
		return err
	}
	if n := writes(after) - writes(before); n != 0 {
		return fmt.Errorf("health gate: %.0f NodeSLO writes while only the NodeSLORollout's strategy changed", n)
	}
	logf("  manager health gate: heap in use %.1f MiB without, %.1f MiB with the gate's watches "+
		"(%+.0f bytes a node), 0 writes", heap[afterGateOff]/(1<<20), heap[afterGateOn]/(1<<20),
		(heap[afterGateOn]-heap[afterGateOff])/float64(b.nodes))
	return nil
}

// waitWatched waits until the health gate's watch holds every node.
func (b *bench) waitWatched(ctx context.Context, m *managerProcess, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ms, err := m.scrape(ctx)
		if err == nil && int(ms.sum(controller.MetricHealthWatchedNodes, nil)) >= b.nodes {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the health gate's watch did not list the %d nodes within %s", b.nodes, timeout)
		}
		time.Sleep(pollInterval)
	}
}
