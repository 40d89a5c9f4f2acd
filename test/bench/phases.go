package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
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

// runRegime measures the floor, the manager and, with BENCH_KOORDINATOR,
// koord-manager in one regime, each from the cold configuration and no
// NodeSLO; rep numbers the repetition (from 1). The sides take turns
// going first (sidesInOrder): the control plane can slow down over a run
// (in one, the same writes cost it 40 % more CPU in the fifth repetition
// than in the first), and the side that always went last paid for it.
func (b *bench) runRegime(ctx context.Context, r regime, rep int) error {
	var floorFigures map[string]floorFigures
	var koordinator map[string]koordinatorFigures
	var phases []phaseResult
	for _, side := range sidesInOrder(rep, b.koordinatorBinary != "") {
		if err := b.setConfig(ctx, configCold); err != nil {
			return err
		}
		if err := b.deleteNodeSLOs(ctx); err != nil {
			return err
		}
		// No strategy, and no record of the last side's rollouts (its
		// health gate's halts): every side's changes reach every node at
		// once, and a phase that stages a rollout sets its own strategy.
		if err := b.deleteRollout(ctx); err != nil {
			return err
		}
		var err error
		switch side {
		case sideFloor:
			logf("regime %s: floor%s%s", r.name, b.floorNote(), b.repetitionNote(rep))
			floorFigures, err = b.runFloor(ctx, r)
		case sideKoordinator:
			logf("regime %s: koord-manager%s%s", r.name, koordinatorNote(r), b.repetitionNote(rep))
			koordinator, err = b.runKoordinator(ctx, r, rep)
		default:
			logf("regime %s: manager%s", r.name, b.repetitionNote(rep))
			phases, err = b.runManager(ctx, r, rep)
		}
		if err != nil {
			b.addPhases(phases, floorFigures, koordinator)
			return err
		}
	}
	b.addPhases(phases, floorFigures, koordinator)
	return nil
}

// The sides of a regime's measure.
const (
	sideFloor       = "floor"
	sideManager     = "manager"
	sideKoordinator = "koord-manager"
)

// sidesInOrder is the order the sides run in repetition rep: floor and
// manager in turn, or with koord-manager the three in rotation, so that
// over three repetitions each goes first, second and last once.
func sidesInOrder(rep int, koordinator bool) []string {
	if !koordinator {
		if rep%2 == 0 {
			return []string{sideManager, sideFloor}
		}
		return []string{sideFloor, sideManager}
	}
	sides := []string{sideFloor, sideManager, sideKoordinator}
	shift := (rep - 1) % len(sides)
	return slices.Concat(sides[shift:], sides[:shift])
}

// addPhases records the manager's phases, each with the floor's and
// koord-manager's figures of the same phase when they have them.
func (b *bench) addPhases(phases []phaseResult, floor map[string]floorFigures,
	koordinator map[string]koordinatorFigures) {
	for i := range phases {
		if f, ok := floor[phases[i].Phase]; ok {
			phases[i].setFloor(f)
		}
		if k, ok := koordinator[phases[i].Phase]; ok {
			phases[i].setKoordinator(k)
		}
		b.results.Phases = append(b.results.Phases, phases[i])
	}
}

// floorNote says what the floor reads and writes beside its writes.
func (b *bench) floorNote() string {
	note := ", writes only"
	if b.floorWatches {
		note = ", watching NodeSLOs as metadata and listing the Nodes once"
	}
	if b.floorStamps {
		note += ", writing the manager's two annotations"
	}
	return note
}

// repetitionNote says which repetition a log line is about, when there are several.
func (b *bench) repetitionNote(rep int) string {
	if b.repeat <= 1 {
		return ""
	}
	return fmt.Sprintf(" (repetition %d of %d)", rep, b.repeat)
}

// floorStep is a phase the floor has a counterpart for, and its specs.
type floorStep struct {
	phase string
	want  specSet
}

func (b *bench) floorSteps() []floorStep {
	return []floorStep{{phaseCold, b.specsCold}, {phaseChangeAll, b.specsAll}, {phaseChange10pct, b.specs10pct}}
}

// floorFigures is what one phase of the floor measured.
type floorFigures struct {
	seconds float64
	// cpu is the CPU time the machine and the control plane spent in the phase.
	cpu cpuSample
	// requests is what kube-apiserver served in the phase.
	requests requestTable
}

// runFloor writes each phase's specs with a plain client and times it as
// the manager is timed: until the observer sees them all.
func (b *bench) runFloor(ctx context.Context, r regime) (map[string]floorFigures, error) {
	ctx, stop := context.WithCancel(ctx) // ends the floor's watch, if any
	defer stop()
	f, err := newFloor(ctx, b.admin, r, b.floorWatches, b.floorStamps)
	if err != nil {
		return nil, err
	}
	out := map[string]floorFigures{}
	for _, step := range b.floorSteps() {
		names := f.changed(step.want)
		reached := b.observer.expect(step.want)
		requestsBefore, err := readAPIServerRequests(ctx, b.admin)
		if err != nil {
			return nil, err
		}
		cpuBefore, err := sampleCPU(b.controlPlane)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		profiled := b.profileAPIServerFor(ctx, r, 0, step.phase, writerFloor)
		if step.phase == phaseCold && b.floorWatches {
			if err := f.listNodes(ctx); err != nil {
				return nil, err
			}
		}
		if err := f.write(ctx, names, step.want); err != nil {
			return nil, err
		}
		if err := b.observer.wait(ctx, reached, b.timeout(r), nil); err != nil {
			return nil, fmt.Errorf("floor %s: %w", step.phase, err)
		}
		if err := awaitProfiles(step.phase, profiled); err != nil {
			return nil, err
		}
		seconds := time.Since(start).Seconds()
		cpuAfter, err := sampleCPU(b.controlPlane)
		if err != nil {
			return nil, err
		}
		spent := cpuAfter.since(cpuBefore)
		requests, err := b.apiserverRequestsSince(ctx, requestsBefore)
		if err != nil {
			return nil, err
		}
		out[step.phase] = floorFigures{seconds: seconds, cpu: spent, requests: requests}
		logf("  floor %-14s %7.2fs, %d writes, control plane %.2f CPU-s, machine %.2f CPU-s", step.phase, seconds,
			len(names), spent.controlPlane, spent.machine)
	}
	if b.kwok != nil {
		if out[phaseSteady], err = b.measureSteadyFloor(ctx); err != nil {
			return nil, err
		}
		if out[phaseSteadyLabels], err = b.measureSteadyLabelsFloor(ctx, r, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runManager runs every phase against bin/manager and returns what it
// measured, as far as it got.
func (b *bench) runManager(ctx context.Context, r regime, rep int) ([]phaseResult, error) {
	var out []phaseResult
	add := func(p phaseResult) {
		logf("  manager %-14s %7.2fs, %d writes (expected %d), %d reconciles, %.2f CPU-s, "+
			"control plane %.2f CPU-s, machine %.2f CPU-s", p.Phase, p.Seconds, p.Writes, p.ExpectedWrites,
			p.Reconciles, p.CPUSeconds, p.ControlPlaneCPUSeconds, p.MachineCPUSeconds)
		out = append(out, p)
	}

	// cold: from the manager's start until every node has its NodeSLO.
	reached := b.observer.expect(b.specsCold)
	var m *managerProcess
	defer func() {
		if m != nil {
			m.stop()
		}
	}()
	var coldProfiled <-chan error
	p, err := b.withRequests(ctx, func() (phaseResult, error) {
		start, err := b.begin(ctx, nil)
		if err != nil {
			return phaseResult{}, err
		}
		coldProfiled = b.profileAPIServerFor(ctx, r, rep, phaseCold, writerManager)
		if m, err = b.startManager(r, rep, phaseCold); err != nil {
			return phaseResult{}, err
		}
		return b.measure(ctx, m, r, rep, phaseCold, start, reached, b.nodes)
	})
	if err != nil {
		return out, err
	}
	add(p)
	if err := awaitProfiles(phaseCold, coldProfiled); err != nil {
		return out, err
	}
	mem, err := readMemory(ctx, m)
	if err != nil {
		return out, err
	}
	b.results.setMemory(r.name, rep, mem)
	profile := filepath.Join(b.outDir, "heap-"+r.name+b.repetitionSuffix(rep)+".pprof")
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
		reached := b.observer.expect(step.want)
		var profiled, apiserverProfiled <-chan error
		p, err := b.withRequests(ctx, func() (phaseResult, error) {
			start, err := b.begin(ctx, m)
			if err != nil {
				return phaseResult{}, err
			}
			profiled = b.profileManagerFor(ctx, m, r, rep, step.phase, false)
			apiserverProfiled = b.profileAPIServerFor(ctx, r, rep, step.phase, writerManager)
			if err := b.setConfig(ctx, step.data); err != nil {
				return phaseResult{}, err
			}
			return b.measure(ctx, m, r, rep, step.phase, start, reached, step.changed)
		})
		if err != nil {
			return out, err
		}
		add(p)
		// The next phase starts after the profiles, so that they hold this one only.
		if err := awaitProfiles(step.phase, profiled, apiserverProfiled); err != nil {
			return out, err
		}
	}

	// restart: over unchanged inputs, until ready and idle; nothing to write.
	m.stop()
	start, err := b.begin(ctx, nil)
	if err != nil {
		return out, err
	}
	restartAPIServerProfiled := b.profileAPIServerFor(ctx, r, rep, phaseRestart, writerManager)
	if m, err = b.startManager(r, rep, phaseRestart); err != nil {
		return out, err
	}
	restartProfiled := b.profileManagerFor(ctx, m, r, rep, phaseRestart, true)
	if p, err = b.measure(ctx, m, r, rep, phaseRestart, start, nil, 0); err != nil {
		return out, err
	}
	add(p)
	if err := awaitProfiles(phaseRestart, restartProfiled, restartAPIServerProfiled); err != nil {
		return out, err
	}
	if mem, err := readMemory(ctx, m); err == nil {
		b.results.setRestartMemory(r.name, rep, mem)
	}

	// status-updates: heartbeats must not reach the queue.
	p, err = b.measureStatusUpdates(ctx, m, r, rep)
	if err != nil {
		return out, err
	}
	add(p)
	if b.kwok != nil {
		for _, measure := range []func(context.Context, *managerProcess, regime, int) (phaseResult, error){
			b.measureSteady, b.measureSteadyLabels, b.measureHealthGate,
		} {
			if p, err = measure(ctx, m, r, rep); err != nil {
				return out, err
			}
			add(p)
		}
	}
	return out, b.measureHealthGateHeap(ctx, m, r, rep)
}

// withRequests runs a phase and puts into its result what kube-apiserver
// served from before the phase began until after it settled.
func (b *bench) withRequests(ctx context.Context, phase func() (phaseResult, error)) (phaseResult, error) {
	before, err := readAPIServerRequests(ctx, b.admin)
	if err != nil {
		return phaseResult{}, err
	}
	p, err := phase()
	if err != nil {
		return p, err
	}
	p.APIServerRequests, err = b.apiserverRequestsSince(ctx, before)
	return p, err
}

// apiserverRequestsSince is what kube-apiserver served since before was
// read: read once the manager settled, outside the span whose CPU time the
// phase reports, since the read costs kube-apiserver CPU of its own.
func (b *bench) apiserverRequestsSince(ctx context.Context, before requestTable) (requestTable, error) {
	after, err := readAPIServerRequests(ctx, b.admin)
	if err != nil {
		return nil, err
	}
	return after.since(before), nil
}

// phaseStart is what a phase's figures are counted from.
type phaseStart struct {
	at time.Time
	// metrics and managerCPU are the running manager's (nil and 0 for a
	// manager started in the phase).
	metrics    metrics
	managerCPU float64
	cpu        cpuSample
}

// begin reads the counters a phase starts from; m is nil when the phase
// starts the manager. The clock starts last.
func (b *bench) begin(ctx context.Context, m *managerProcess) (phaseStart, error) {
	var s phaseStart
	if m != nil {
		var err error
		if s.metrics, err = m.scrape(ctx); err != nil {
			return s, err
		}
		if s.managerCPU, err = m.cpuSeconds(); err != nil {
			return s, err
		}
	}
	cpu, err := sampleCPU(b.controlPlane)
	if err != nil {
		return s, err
	}
	s.cpu, s.at = cpu, time.Now()
	return s, nil
}

// readEnd reads what a phase ends with: the manager's counters, then the
// control plane's CPU time.
func (b *bench) readEnd(ctx context.Context, m *managerProcess) (metrics, cpuSample, error) {
	after, err := m.scrape(ctx)
	if err != nil {
		return nil, cpuSample{}, err
	}
	end, err := sampleCPU(b.controlPlane)
	return after, end, err
}

// finish puts into p the manager's CPU time from start until now and the
// machine's and control plane's until end (sampled at the phase's end).
func (b *bench) finish(m *managerProcess, start phaseStart, end cpuSample, p *phaseResult) error {
	cpu, err := m.cpuSeconds()
	if err != nil {
		return err
	}
	p.setCPU(cpu-start.managerCPU, end.since(start.cpu))
	return nil
}

// measure waits until the observer reached the wanted NodeSLOs (when reached
// is not nil) and the manager settled, and returns the phase's figures: its
// time and the machine's and control plane's CPU time are until convergence, as the floor's (or,
// without reached, until settled); the manager's counters and CPU time run
// until settled, so they include the reconciles that follow convergence.
func (b *bench) measure(ctx context.Context, m *managerProcess, r regime, rep int, phase string, start phaseStart,
	reached <-chan struct{}, expectedWrites int) (phaseResult, error) {
	var seconds float64
	var end cpuSample
	if reached != nil {
		if err := b.observer.wait(ctx, reached, b.timeout(r), m.Process); err != nil {
			return phaseResult{}, fmt.Errorf("%s %s: %w (log in %s)", m.name(), phase, err, m.log.Name())
		}
		seconds = time.Since(start.at).Seconds()
		var err error
		if end, err = sampleCPU(b.controlPlane); err != nil {
			return phaseResult{}, err
		}
	}
	after, settledAt, err := b.waitSettled(ctx, m, b.nodes, b.timeout(r))
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s %s: %w", m.name(), phase, err)
	}
	if reached == nil {
		seconds = settledAt.Sub(start.at).Seconds()
		if end, err = sampleCPU(b.controlPlane); err != nil {
			return phaseResult{}, err
		}
	}
	p := newPhaseResult(r, rep, phase, seconds, start.metrics, after, expectedWrites)
	return p, b.finish(m, start, end, &p)
}

// measureStatusUpdates sends the status-only updates, then the sentinel
// label change, and counts the reconciles beyond the sentinel's one.
func (b *bench) measureStatusUpdates(ctx context.Context, m *managerProcess, r regime, rep int) (phaseResult, error) {
	start, err := b.begin(ctx, m)
	if err != nil {
		return phaseResult{}, err
	}
	before := start.metrics
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
	end, err := sampleCPU(b.controlPlane)
	if err != nil {
		return phaseResult{}, err
	}
	p := newPhaseResult(r, rep, phaseStatusUpdates, settledAt.Sub(start.at).Seconds(), before, after, 0)
	p.Reconciles-- // the sentinel's
	p.ExpectedReconciles = new(0)
	p.check()
	return p, b.finish(m, start, end, &p)
}
