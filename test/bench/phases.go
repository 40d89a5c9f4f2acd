package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Phase names, as in results.json.
const (
	phaseCold          = "cold"
	phaseChangeAll     = "change-all"
	phaseChange10pct   = "change-10pct"
	phaseRestart       = "restart"
	phaseStatusUpdates = "status-updates"
)

// sentinelLabel is changed on one node after the status updates: its
// reconcile proves that the manager has seen every update sent before it
// (a watch delivers a kind's events in order), matching no selector.
const sentinelLabel = "bench.nodeslo.dev/sentinel"

// runRegime measures the floor, then the manager, in one regime.
func (b *bench) runRegime(ctx context.Context, r regime) error {
	logf("regime %s: floor", r.name)
	if err := b.setConfig(ctx, configCold); err != nil {
		return err
	}
	if err := b.deleteNodeSLOs(ctx); err != nil {
		return err
	}
	floorSeconds, err := b.runFloor(ctx, r)
	if err != nil {
		return err
	}
	if err := b.deleteNodeSLOs(ctx); err != nil {
		return err
	}
	logf("regime %s: manager", r.name)
	phases, err := b.runManager(ctx, r)
	for i := range phases {
		if fs, ok := floorSeconds[phases[i].Phase]; ok {
			phases[i].setFloor(fs)
		}
		b.results.Phases = append(b.results.Phases, phases[i])
	}
	return err
}

// floorStep is a phase the floor has a counterpart for, and its specs.
type floorStep struct {
	phase string
	want  specSet
}

func (b *bench) floorSteps() []floorStep {
	return []floorStep{{phaseCold, b.specsCold}, {phaseChangeAll, b.specsAll}, {phaseChange10pct, b.specs10pct}}
}

// runFloor writes each phase's specs with a plain client and times it as
// the manager is timed: until the observer sees them all.
func (b *bench) runFloor(ctx context.Context, r regime) (map[string]float64, error) {
	f, err := newFloor(ctx, b.admin, r)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, step := range b.floorSteps() {
		names := f.changed(step.want)
		reached := b.observer.expect(step.want)
		start := time.Now()
		if err := f.write(ctx, names, step.want); err != nil {
			return nil, err
		}
		if err := b.observer.wait(ctx, reached, b.timeout(r), nil); err != nil {
			return nil, fmt.Errorf("floor %s: %w", step.phase, err)
		}
		out[step.phase] = time.Since(start).Seconds()
		logf("  floor %-14s %7.2fs, %d writes", step.phase, out[step.phase], len(names))
	}
	return out, nil
}

// runManager runs every phase against bin/manager and returns what it
// measured, as far as it got.
func (b *bench) runManager(ctx context.Context, r regime) ([]phaseResult, error) {
	var out []phaseResult
	add := func(p phaseResult) {
		logf("  manager %-14s %7.2fs, %d writes (expected %d), %d reconciles, %.2f CPU-s",
			p.Phase, p.Seconds, p.Writes, p.ExpectedWrites, p.Reconciles, p.CPUSeconds)
		out = append(out, p)
	}

	// cold: from the manager's start until every node has its NodeSLO.
	reached := b.observer.expect(b.specsCold)
	start := time.Now()
	m, err := b.startManager(r, phaseCold)
	if err != nil {
		return out, err
	}
	defer func() { m.stop() }()
	p, err := b.measure(ctx, m, r, phaseCold, nil, 0, start, reached, b.nodes)
	if err != nil {
		return out, err
	}
	add(p)
	mem, err := readMemory(ctx, m)
	if err != nil {
		return out, err
	}
	b.results.setMemory(r.name, mem)
	profile := filepath.Join(b.outDir, "heap-"+r.name+".pprof")
	if err := m.saveHeapProfile(ctx, profile); err != nil {
		return out, fmt.Errorf("saving the heap profile: %w", err)
	}

	// change-all and change-10pct: from the ConfigMap update until every node carries it.
	for _, step := range []struct {
		phase   string
		data    map[string]string
		want    specSet
		changed int
	}{
		{phaseChangeAll, configChangeAll, b.specsAll, changedNodes(b.specsCold, b.specsAll)},
		{phaseChange10pct, configChange10pct, b.specs10pct, b.changed10pct},
	} {
		before, cpuBefore, err := b.snapshot(ctx, m)
		if err != nil {
			return out, err
		}
		reached := b.observer.expect(step.want)
		start := time.Now()
		if err := b.setConfig(ctx, step.data); err != nil {
			return out, err
		}
		p, err := b.measure(ctx, m, r, step.phase, before, cpuBefore, start, reached, step.changed)
		if err != nil {
			return out, err
		}
		add(p)
	}

	// restart: over unchanged inputs, until ready and idle; nothing to write.
	m.stop()
	start = time.Now()
	if m, err = b.startManager(r, phaseRestart); err != nil {
		return out, err
	}
	if p, err = b.measure(ctx, m, r, phaseRestart, nil, 0, start, nil, 0); err != nil {
		return out, err
	}
	add(p)
	if mem, err := readMemory(ctx, m); err == nil {
		b.results.setRestartMemory(r.name, mem)
	}

	// status-updates: heartbeats must not reach the queue.
	p, err = b.measureStatusUpdates(ctx, m, r)
	if err != nil {
		return out, err
	}
	add(p)
	return out, nil
}

// snapshot scrapes the manager and reads its CPU time.
func (b *bench) snapshot(ctx context.Context, m *managerProcess) (metrics, float64, error) {
	ms, err := m.scrape(ctx)
	if err != nil {
		return nil, 0, err
	}
	cpu, err := m.cpuSeconds()
	return ms, cpu, err
}

// measure waits until the observer reached the wanted NodeSLOs (when reached
// is not nil) and the manager settled, and returns the phase's figures: its
// time is until convergence (or, without reached, until settled); its
// counters include the reconciles that follow convergence. before is nil for
// a manager started in this phase.
func (b *bench) measure(ctx context.Context, m *managerProcess, r regime, phase string, before metrics,
	cpuBefore float64, start time.Time, reached <-chan struct{}, expectedWrites int) (phaseResult, error) {
	var seconds float64
	if reached != nil {
		if err := b.observer.wait(ctx, reached, b.timeout(r), m.Process); err != nil {
			return phaseResult{}, fmt.Errorf("manager %s: %w (log in %s)", phase, err, m.log.Name())
		}
		seconds = time.Since(start).Seconds()
	}
	after, settledAt, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	if err != nil {
		return phaseResult{}, fmt.Errorf("manager %s: %w", phase, err)
	}
	if reached == nil {
		seconds = settledAt.Sub(start).Seconds()
	}
	cpu, err := m.cpuSeconds()
	if err != nil {
		return phaseResult{}, err
	}
	return newPhaseResult(r, phase, seconds, cpu-cpuBefore, before, after, expectedWrites), nil
}

// measureStatusUpdates sends the status-only updates, then the sentinel
// label change, and counts the reconciles beyond the sentinel's one.
func (b *bench) measureStatusUpdates(ctx context.Context, m *managerProcess, r regime) (phaseResult, error) {
	before, cpuBefore, err := b.snapshot(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	start := time.Now()
	if err := touchNodeStatuses(ctx, b.client, b.nodes, b.statusUpdates, setupWorkers); err != nil {
		return phaseResult{}, err
	}
	node := &corev1.Node{}
	if err := b.client.Get(ctx, client.ObjectKey{Name: nodeName(0)}, node); err != nil {
		return phaseResult{}, fmt.Errorf("reading node: %w", err)
	}
	patch := client.MergeFrom(node.DeepCopy())
	node.Labels[sentinelLabel] = fmt.Sprint(time.Now().UnixNano())
	if err := b.client.Patch(ctx, node, patch); err != nil {
		return phaseResult{}, fmt.Errorf("labelling node %s: %w", node.Name, err)
	}
	deadline := time.Now().Add(b.timeout(r))
	for {
		ms, err := m.scrape(ctx)
		if err == nil && reconciles(ms) > reconciles(before) {
			break
		}
		if time.Now().After(deadline) {
			return phaseResult{}, fmt.Errorf("the sentinel label change on %s was not reconciled", node.Name)
		}
		time.Sleep(pollInterval)
	}
	after, settledAt, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	if err != nil {
		return phaseResult{}, err
	}
	cpu, err := m.cpuSeconds()
	if err != nil {
		return phaseResult{}, err
	}
	p := newPhaseResult(r, phaseStatusUpdates, settledAt.Sub(start).Seconds(), cpu-cpuBefore, before, after, 0)
	p.Reconciles-- // the sentinel's
	p.ExpectedReconciles = new(0)
	p.check()
	return p, nil
}
