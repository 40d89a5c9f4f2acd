package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// koordinatorFigures is what one phase of Koordinator's koord-manager
// measured (BENCH_KOORDINATOR), timed as the manager's phase is. Its specs
// are its own (it fills defaults its own way), so the bench does not wait
// for this manager's specs but for each NodeSLO the phase must write to be
// created or changed, and checks the number of spec changes.
type koordinatorFigures struct {
	Seconds float64 `json:"seconds"`
	// Ratio is the manager's time over koord-manager's.
	Ratio *float64 `json:"ratio,omitempty"`
	// Writes are the NodeSLO writes kube-apiserver served with success in
	// the phase, all koord-manager's (nothing else writes NodeSLOs then),
	// those that changed nothing included; SpecChanges are the changes of
	// a spec they made (observer_rewrites.go), which must equal
	// ExpectedSpecChanges, the writes this manager must make in the phase.
	Writes                 int     `json:"writes"`
	SpecChanges            int     `json:"spec_changes"`
	ExpectedSpecChanges    int     `json:"expected_spec_changes"`
	Reconciles             int     `json:"reconciles"`
	CPUSeconds             float64 `json:"cpu_seconds"`
	ControlPlaneCPUSeconds float64 `json:"control_plane_cpu_seconds"`
	MachineCPUSeconds      float64 `json:"machine_cpu_seconds"`
	// APIServerRequests is what kube-apiserver served over the phase, as
	// for the manager and the floor: koord-manager's metrics have no
	// counter of its client's requests.
	APIServerRequests requestTable `json:"apiserver_requests,omitempty"`
	// Memory is koord-manager's after the phase, read after cold only.
	Memory *memorySample `json:"memory,omitempty"`
	Check  string        `json:"check"`
}

// newKoordinatorFigures takes the phase's figures measured as the
// manager's are (p), kube-apiserver's requests, and the NodeSLOs'
// generations at the phase's start and end.
func newKoordinatorFigures(p phaseResult, requests requestTable, before, after map[string]int64,
	expected int) koordinatorFigures {
	k := koordinatorFigures{
		Seconds: p.Seconds, Writes: nodeSLOWrites(requests), SpecChanges: specChanges(before, after),
		ExpectedSpecChanges: expected, Reconciles: p.Reconciles,
		CPUSeconds: p.CPUSeconds, ControlPlaneCPUSeconds: p.ControlPlaneCPUSeconds,
		MachineCPUSeconds: p.MachineCPUSeconds, APIServerRequests: requests, Check: checkPass,
	}
	if k.SpecChanges != k.ExpectedSpecChanges {
		k.Check = checkFail
	}
	return k
}

// nodeSLOWriteVerbs are kube-apiserver's verbs that write an object.
var nodeSLOWriteVerbs = []string{"POST", "PUT", "PATCH", "DELETE"}

// nodeSLOWrites counts the NodeSLO writes of a request table that did not fail.
func nodeSLOWrites(t requestTable) int {
	total := 0.0
	for _, verb := range nodeSLOWriteVerbs {
		f := t[verb+" "+nodeSLOResource]
		total += f.Count - f.Failed
	}
	return int(total)
}

// nodeSLOResource is NodeSLO's row in a request table.
const nodeSLOResource = "nodeslos.slo.koordinator.sh"

// changedNames names the nodes whose spec differs between two sets, sorted.
func changedNames(before, after specSet) []string {
	var names []string
	for name, spec := range after {
		if !sloconfig.SpecEqual(before[name], spec) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// runKoordinator runs cold, change-all, change-10pct, restart and
// status-updates against koord-manager and returns their figures by phase.
func (b *bench) runKoordinator(ctx context.Context, r regime, rep int) (map[string]koordinatorFigures, error) {
	out := map[string]koordinatorFigures{}
	record := func(p phaseResult, before map[string]int64, expected int) koordinatorFigures {
		k := newKoordinatorFigures(p, p.APIServerRequests, before, b.observer.generationsNow(), expected)
		logf("  koord-manager %-14s %7.2fs, %d writes, %d spec changes (expected %d), %d reconciles, "+
			"%.2f CPU-s, control plane %.2f CPU-s, machine %.2f CPU-s", p.Phase, k.Seconds, k.Writes, k.SpecChanges,
			k.ExpectedSpecChanges, k.Reconciles, k.CPUSeconds, k.ControlPlaneCPUSeconds, k.MachineCPUSeconds)
		out[p.Phase] = k
		return k
	}

	// cold: from koord-manager's start until every node has a NodeSLO.
	reached := b.observer.expectRewritten(slices.Sorted(maps.Keys(b.specsCold)))
	generations := b.observer.generationsNow()
	var k *managerProcess
	defer func() {
		if k != nil {
			k.stop()
		}
	}()
	p, err := b.withRequests(ctx, func() (phaseResult, error) {
		start, err := b.begin(ctx, nil)
		if err != nil {
			return phaseResult{}, err
		}
		if k, err = b.startKoordinator(r, rep, phaseCold); err != nil {
			return phaseResult{}, err
		}
		return b.measure(ctx, k, r, rep, phaseCold, start, reached, b.nodes)
	})
	if err != nil {
		return out, err
	}
	cold := record(p, generations, b.nodes)
	mem, err := readMemory(ctx, k)
	if err != nil {
		return out, fmt.Errorf("reading koord-manager's memory: %w", err)
	}
	cold.Memory = &mem
	out[phaseCold] = cold

	// change-all and change-10pct: from the ConfigMap update until every
	// node whose spec the change alters had its NodeSLO changed.
	for _, step := range []struct {
		phase       string
		data        map[string]string
		from, until specSet
	}{
		{phaseChangeAll, configChangeAll, b.specsCold, b.specsAll},
		{phaseChange10pct, configChange10pct, b.specsAll, b.specs10pct},
	} {
		names := changedNames(step.from, step.until)
		reached := b.observer.expectRewritten(names)
		generations := b.observer.generationsNow()
		p, err := b.withRequests(ctx, func() (phaseResult, error) {
			start, err := b.begin(ctx, k)
			if err != nil {
				return phaseResult{}, err
			}
			if err := b.setConfig(ctx, step.data); err != nil {
				return phaseResult{}, err
			}
			return b.measure(ctx, k, r, rep, step.phase, start, reached, len(names))
		})
		if err != nil {
			return out, err
		}
		record(p, generations, len(names))
	}

	// restart: over unchanged inputs, until idle; no spec to change.
	k.stop()
	k = nil
	generations = b.observer.generationsNow()
	p, err = b.withRequests(ctx, func() (phaseResult, error) {
		start, err := b.begin(ctx, nil)
		if err != nil {
			return phaseResult{}, err
		}
		if k, err = b.startKoordinator(r, rep, phaseRestart); err != nil {
			return phaseResult{}, err
		}
		return b.measure(ctx, k, r, rep, phaseRestart, start, nil, 0)
	})
	if err != nil {
		return out, err
	}
	record(p, generations, 0)

	// status-updates: what heartbeats cost it, and no spec to change.
	generations = b.observer.generationsNow()
	if p, err = b.withRequests(ctx, func() (phaseResult, error) {
		return b.measureStatusUpdates(ctx, k, r, rep)
	}); err != nil {
		return out, err
	}
	record(p, generations, 0)
	return out, nil
}

// startKoordinator starts koord-manager for a phase of repetition rep,
// logging to a file named after them.
func (b *bench) startKoordinator(r regime, rep int, label string) (*managerProcess, error) {
	logPath := filepath.Join(b.outDir, koordinatorLogName(r, label, b.repetitionSuffix(rep)))
	return startKoordinator(b.koordinatorBinary, b.kubeconfig, logPath, r)
}

// koordinatorNote says how koord-manager runs in regime r, for the log.
func koordinatorNote(r regime) string {
	limit := "its own client limits (QPS 30, burst 50)"
	if r.unthrottled() {
		limit = "no client rate limit"
	}
	return fmt.Sprintf(", its NodeSLO controller only, %s, 1 worker (%s)", limit,
		strings.Join(koordinatorArgs(r, "<probe>", "<metrics>", "<pprof>"), " "))
}
