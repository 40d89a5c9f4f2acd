package main

import (
	"context"
	"time"
)

// phaseSteady is the steady phase: minutes of the fleet's heartbeats (kwok)
// with no change of the configuration or the Nodes' labels.
const phaseSteady = "steady"

// wait sleeps for d, or until ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// measureSteadyFloor measures the control plane with no writer at all for
// the steady phase's length: kwok's heartbeats alone, what the manager's
// steady figures are read against.
func (b *bench) measureSteadyFloor(ctx context.Context) (floorFigures, error) {
	return b.measureFloorSpan(ctx, phaseSteady, func(ctx context.Context) (string, error) {
		return "no writer", wait(ctx, b.steady)
	})
}

// measureFloorSpan measures the control plane and the machine while run
// does the floor's side of a phase as long as the steady phase, and logs
// their CPU a minute after what run says it did.
func (b *bench) measureFloorSpan(ctx context.Context, phase string,
	run func(context.Context) (string, error)) (floorFigures, error) {
	before, err := sampleCPU(b.controlPlane)
	if err != nil {
		return floorFigures{}, err
	}
	start := time.Now()
	did, err := run(ctx)
	if err != nil {
		return floorFigures{}, err
	}
	after, err := sampleCPU(b.controlPlane)
	if err != nil {
		return floorFigures{}, err
	}
	spent, seconds, minutes := after.since(before), time.Since(start).Seconds(), b.steady.Minutes()
	logf("  floor %-14s %7.2fs, %s: control plane %.2f CPU-s a minute, machine %.2f", phase, seconds, did,
		spent.controlPlane/minutes, spent.machine/minutes)
	return floorFigures{seconds: seconds, cpu: spent}, nil
}

// measureSteady runs the settled manager through the steady phase: it must
// write nothing; its CPU time, reconciles and heap are what a live fleet
// costs it when nothing changes.
func (b *bench) measureSteady(ctx context.Context, m *managerProcess, r regime, rep int) (phaseResult, error) {
	start, err := b.begin(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	if err := wait(ctx, b.steady); err != nil {
		return phaseResult{}, err
	}
	after, end, err := b.readEnd(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	p := newPhaseResult(r, rep, phaseSteady, time.Since(start.at).Seconds(), start.metrics, after, 0)
	if err := b.finish(m, start, end, &p); err != nil {
		return p, err
	}
	mem, err := readMemory(ctx, m)
	if err != nil {
		return p, err
	}
	f := b.results.memory(r.name, rep, phaseSteady, mem)
	minutes := b.steady.Minutes()
	logf("  manager %-14s a minute: %.2f CPU-s, %.1f reconciles, %.1f writes; control plane %.2f CPU-s; "+
		"heap in use %.2f KiB a node", phaseSteady, p.CPUSeconds/minutes, float64(p.Reconciles)/minutes,
		float64(p.Writes)/minutes, p.ControlPlaneCPUSeconds/minutes, f.HeapBytesPerNode/1024)
	return p, nil
}
