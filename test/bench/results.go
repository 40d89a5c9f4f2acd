package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// results is bin/bench/results.json.
type results struct {
	Nodes int `json:"nodes"`
	// Repeat is how many times each regime's phases ran (BENCH_REPEAT).
	Repeat int `json:"repeat"`
	// FloorWatches: the floor watched NodeSLOs as metadata and listed the
	// Nodes in cold, as the manager does (BENCH_FLOOR_WATCHES, on unless 0).
	FloorWatches bool `json:"floor_watches,omitempty"`
	// FloorStamps: the floor wrote the manager's two annotations with each
	// spec (BENCH_FLOOR_STAMPS=1).
	FloorStamps bool `json:"floor_stamps,omitempty"`
	// Kwok is the pace at which kwok kept the Nodes alive (BENCH_KWOK), if it did.
	Kwok string `json:"kwok,omitempty"`
	// Koordinator: koord-manager ran as a third side (BENCH_KOORDINATOR),
	// its figures in each phase's koordinator.
	Koordinator bool `json:"koordinator,omitempty"`
	// HeapBytesPerNode is the manager's heap in use after convergence (the
	// cold phase of the defaults regime when it ran, else of the last
	// regime; its last repetition; after a full GC) above the empty
	// manager's, per node; LiveHeapBytesPerNode the same for the live heap.
	HeapBytesPerNode     float64 `json:"heap_bytes_per_node"`
	LiveHeapBytesPerNode float64 `json:"live_heap_bytes_per_node"`
	// RSSBytes is the manager's RSS at the same moment.
	RSSBytes float64 `json:"rss_bytes"`
	// Empty is the manager's memory with no nodes.
	Empty memorySample `json:"empty"`
	// Memory holds the figures of every regime, after cold and after restart.
	Memory []memoryFigure `json:"memory"`
	// Phases holds every phase of every repetition.
	Phases []phaseResult `json:"phases"`
	// Summary holds, per regime and phase, the medians over the
	// repetitions and the spread of the ratio to the floor.
	Summary []phaseSummary `json:"summary"`
	// ControlPlaneMemory is kube-apiserver's and etcd's memory at the end
	// of the run: resident then, and at its peak.
	ControlPlaneMemory []processMemory `json:"control_plane_memory"`

	// heapRegime is the regime HeapBytesPerNode comes from.
	heapRegime string
}

type memoryFigure struct {
	Regime     string `json:"regime"`
	Repetition int    `json:"repetition"`
	After      string `json:"after"`
	memorySample
	HeapBytesPerNode     float64 `json:"heap_bytes_per_node"`
	LiveHeapBytesPerNode float64 `json:"live_heap_bytes_per_node"`
}

// setMemory records the memory after cold, and makes it the run's heap
// figure unless the defaults regime's already is: the sweep's heap plot
// stays that of the manager's defaults when a regime runs after them.
func (r *results) setMemory(regime string, rep int, mem memorySample) {
	f := r.memory(regime, rep, phaseCold, mem)
	if r.heapRegime != "" && r.heapRegime != regime && strings.HasPrefix(r.heapRegime, defaultsRegime) {
		return
	}
	r.heapRegime = regime
	r.HeapBytesPerNode, r.LiveHeapBytesPerNode, r.RSSBytes = f.HeapBytesPerNode, f.LiveHeapBytesPerNode, f.RSS
}

func (r *results) setRestartMemory(regime string, rep int, mem memorySample) {
	r.memory(regime, rep, phaseRestart, mem)
}

func (r *results) memory(regime string, rep int, after string, mem memorySample) memoryFigure {
	f := memoryFigure{Regime: regime, Repetition: rep, After: after, memorySample: mem,
		HeapBytesPerNode:     (mem.HeapInuse - r.Empty.HeapInuse) / float64(r.Nodes),
		LiveHeapBytesPerNode: (mem.HeapLive - r.Empty.HeapLive) / float64(r.Nodes)}
	r.Memory = append(r.Memory, f)
	return f
}

// Values of phaseResult.Check.
const (
	checkPass = "pass"
	checkFail = "FAIL"
)

// phaseResult is one phase of one regime in one repetition.
type phaseResult struct {
	Regime string `json:"regime"`
	// Repetition counts from 1 to BENCH_REPEAT.
	Repetition         int      `json:"repetition"`
	Phase              string   `json:"phase"`
	Seconds            float64  `json:"seconds"`
	FloorSeconds       *float64 `json:"floor_seconds"`
	Ratio              *float64 `json:"ratio"`
	Writes             int      `json:"writes"`
	ExpectedWrites     int      `json:"expected_writes"`
	Reconciles         int      `json:"reconciles"`
	ExpectedReconciles *int     `json:"expected_reconciles,omitempty"`
	cpuFigures
	// Requests are the manager's API requests by verb during the phase.
	Requests map[string]int `json:"requests"`
	// APIServerRequests is what kube-apiserver served from before the
	// phase's start until the manager settled, by verb and resource
	// (apiserver_requests.go); FloorAPIServerRequests the same over the
	// floor's phase. Phases held against the floor only.
	APIServerRequests      requestTable `json:"apiserver_requests,omitempty"`
	FloorAPIServerRequests requestTable `json:"floor_apiserver_requests,omitempty"`
	// Koordinator holds koord-manager's figures of the same phase
	// (BENCH_KOORDINATOR), with the manager's time over its own.
	Koordinator *koordinatorFigures `json:"koordinator,omitempty"`
	// Gate holds the health-gate phase's own figures.
	Gate *gateFigures `json:"health_gate,omitempty"`
	// Check is "pass" when the writes (and, where given, the reconciles)
	// are as expected, and in the health-gate phase the halt came within
	// the step interval with no node beyond the canaries written.
	Check string `json:"check"`
}

// newPhaseResult takes the counters' increase from before (nil: from zero,
// a manager started in the phase) to after.
func newPhaseResult(r regime, rep int, phase string, seconds float64, before, after metrics,
	expectedWrites int) phaseResult {
	if before == nil {
		before = metrics{}
	}
	requests := map[string]int{}
	beforeByVerb := before.byLabel("rest_client_requests_total", "method")
	for verb, n := range after.byLabel("rest_client_requests_total", "method") {
		if d := int(n - beforeByVerb[verb]); d > 0 {
			requests[verb] = d
		}
	}
	p := phaseResult{
		Regime: r.name, Repetition: rep, Phase: phase, Seconds: seconds,
		Writes:         int(writes(after) - writes(before)),
		ExpectedWrites: expectedWrites,
		Reconciles:     int(reconciles(after) - reconciles(before)),
		Requests:       requests,
	}
	p.check()
	return p
}

func (p *phaseResult) check() {
	p.Check = checkPass
	if p.Writes != p.ExpectedWrites || (p.ExpectedReconciles != nil && p.Reconciles != *p.ExpectedReconciles) {
		p.Check = checkFail
	}
	if g := p.Gate; g != nil && (g.HaltSeconds >= gateStepSeconds || g.WrittenBeyondCanaries > 0) {
		p.Check = checkFail
	}
}

// cpuFigures are the CPU times of one phase, of one repetition or their
// medians: what the manager, the control plane and the machine spent.
type cpuFigures struct {
	// CPUSeconds is the manager process's user and system time
	// (/proc/<pid>/stat) from the phase's start until it settled;
	// CPUSecondsPerWrite divides it by the writes (null without writes).
	CPUSeconds         float64  `json:"cpu_seconds"`
	CPUSecondsPerWrite *float64 `json:"cpu_seconds_per_write"`
	// MachineCPUSeconds is the busy time of every core of the machine
	// (/proc/stat: the manager, the control plane, the bench and anything
	// else running) over the span Seconds measures: until convergence, or
	// for restart and status-updates until settled. ControlPlaneCPUSeconds
	// is kube-apiserver's and etcd's user and system time over the same
	// span: what the apiserver pays. The Floor ones are the same over the
	// floor's phase.
	MachineCPUSeconds           float64  `json:"machine_cpu_seconds"`
	FloorMachineCPUSeconds      *float64 `json:"floor_machine_cpu_seconds"`
	ControlPlaneCPUSeconds      float64  `json:"control_plane_cpu_seconds"`
	FloorControlPlaneCPUSeconds *float64 `json:"floor_control_plane_cpu_seconds"`
}

// failedChecks names the phases whose counts are not as they must be.
func (r *results) failedChecks() []string {
	var failed []string
	for _, p := range r.Phases {
		if p.Check != checkPass {
			failed = append(failed, p.Regime+"/"+p.Phase)
		}
		if p.Koordinator != nil && p.Koordinator.Check != checkPass {
			failed = append(failed, p.Regime+"/"+p.Phase+" (koord-manager)")
		}
	}
	return failed
}

// setCPU records the manager's, the machine's and the control plane's CPU
// time in the phase.
func (p *phaseResult) setCPU(manager float64, spent cpuSample) {
	p.CPUSeconds, p.MachineCPUSeconds, p.ControlPlaneCPUSeconds = manager, spent.machine, spent.controlPlane
	p.CPUSecondsPerWrite = nil
	if p.Writes > 0 {
		perWrite := manager / float64(p.Writes)
		p.CPUSecondsPerWrite = &perWrite
	}
}

func (p *phaseResult) setFloor(f floorFigures) {
	seconds, machine, controlPlane := f.seconds, f.cpu.machine, f.cpu.controlPlane
	ratio := p.Seconds / seconds
	p.FloorSeconds, p.Ratio = &seconds, &ratio
	p.FloorMachineCPUSeconds, p.FloorControlPlaneCPUSeconds = &machine, &controlPlane
	p.FloorAPIServerRequests = f.requests
}

// setKoordinator records koord-manager's figures of the phase and the
// manager's time over its own.
func (p *phaseResult) setKoordinator(k koordinatorFigures) {
	if k.Seconds > 0 {
		ratio := p.Seconds / k.Seconds
		k.Ratio = &ratio
	}
	p.Koordinator = &k
}

func (r *results) write(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// print writes the results as a table, then, with repetitions, their summary.
func (r *results) print(out io.Writer) {
	const mib, kib = 1 << 20, 1 << 10
	repeated := r.Repeat > 1
	_, _ = fmt.Fprintf(out, "\n%d nodes. Manager with no nodes: heap in use %.1f MiB, live heap %.1f MiB, RSS %.1f MiB\n",
		r.Nodes, r.Empty.HeapInuse/mib, r.Empty.HeapLive/mib, r.Empty.RSS/mib)
	for _, m := range r.Memory {
		run := ""
		if repeated {
			run = fmt.Sprintf(" (run %d)", m.Repetition)
		}
		_, _ = fmt.Fprintf(out, "  %s%s, after %s: heap in use %.1f MiB (%.2f KiB/node above empty), "+
			"live heap %.1f MiB (%.2f KiB/node), RSS %.1f MiB\n", m.Regime, run, m.After, m.HeapInuse/mib,
			m.HeapBytesPerNode/kib, m.HeapLive/mib, m.LiveHeapBytesPerNode/kib, m.RSS/mib)
	}
	printKoordinatorMemory(out, r.Phases, repeated)
	for _, m := range r.ControlPlaneMemory {
		_, _ = fmt.Fprintf(out, "  %s: RSS %.0f MiB at the end, %.0f MiB at its peak\n", m.Command, m.RSS/mib, m.PeakRSS/mib)
	}
	_, _ = fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	runHeader := ""
	if repeated {
		runHeader = "run\t"
	}
	_, _ = fmt.Fprintln(w, "regime\t"+runHeader+"phase\tseconds\tfloor s\tratio\twrites\texpected\treconciles\t"+
		"CPU s\tCPU ms/write\tcontrol plane CPU s\tfloor control plane CPU s\tmachine CPU s\tfloor machine CPU s\t"+
		"requests\tcheck\t")
	for _, p := range r.Phases {
		floor, ratio := "-", "-"
		if p.FloorSeconds != nil {
			floor, ratio = fmt.Sprintf("%.2f", *p.FloorSeconds), fmt.Sprintf("%.2fx", *p.Ratio)
		}
		run := ""
		if repeated {
			run = fmt.Sprintf("%d\t", p.Repetition)
		}
		_, _ = fmt.Fprintf(w, "%s\t%s%s\t%.2f\t%s\t%s\t%d\t%d\t%d\t%.2f\t%s\t%.2f\t%s\t%.2f\t%s\t%s\t%s\t\n",
			p.Regime, run, p.Phase, p.Seconds, floor, ratio, p.Writes, p.ExpectedWrites, p.Reconciles, p.CPUSeconds,
			formatMillis(p.CPUSecondsPerWrite), p.ControlPlaneCPUSeconds, formatSeconds(p.FloorControlPlaneCPUSeconds),
			p.MachineCPUSeconds, formatSeconds(p.FloorMachineCPUSeconds), formatRequests(p.Requests), p.Check)
	}
	_ = w.Flush()
	if r.Koordinator {
		printKoordinatorPhases(out, r.Phases, repeated)
	}
	printRequestTables(out, r.Phases, r.Repeat)
	if repeated {
		printSummary(out, r.Summary)
	}
	if r.Koordinator {
		printThreeWaySummary(out, r.Summary)
	}
}

// printSummary writes the medians over the repetitions and the spread of the ratio.
func printSummary(out io.Writer, summary []phaseSummary) {
	_, _ = fmt.Fprintln(out, "\nMedians over the repetitions (ratio: median of the runs' ratios, min-max):")
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	_, _ = fmt.Fprintln(w, "regime\tphase\truns\tseconds\tfloor s\tratio\tratio min-max\tCPU s\tCPU ms/write\t"+
		"control plane CPU s\tfloor control plane CPU s\tcontrol plane ratio\tmachine CPU s\tfloor machine CPU s\tcheck\t")
	for _, s := range summary {
		floor, ratio, spread, controlPlane := "-", "-", "-", "-"
		if s.FloorSeconds != nil {
			floor = fmt.Sprintf("%.2f", *s.FloorSeconds)
			ratio = fmt.Sprintf("%.2fx", *s.Ratio)
			spread = fmt.Sprintf("%.2f-%.2fx", *s.RatioMin, *s.RatioMax)
		}
		if s.ControlPlaneRatio != nil {
			controlPlane = fmt.Sprintf("%.2fx", *s.ControlPlaneRatio)
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%d\t%.2f\t%s\t%s\t%s\t%.2f\t%s\t%.2f\t%s\t%s\t%.2f\t%s\t%s\t\n", s.Regime,
			s.Phase, s.Runs, s.Seconds, floor, ratio, spread, s.CPUSeconds, formatMillis(s.CPUSecondsPerWrite),
			s.ControlPlaneCPUSeconds, formatSeconds(s.FloorControlPlaneCPUSeconds), controlPlane,
			s.MachineCPUSeconds, formatSeconds(s.FloorMachineCPUSeconds), s.Check)
	}
	_ = w.Flush()
}

// formatMillis shows seconds as milliseconds, "-" for none.
func formatMillis(seconds *float64) string {
	if seconds == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *seconds*1000)
}

// formatSeconds shows seconds, "-" for none.
func formatSeconds(seconds *float64) string {
	if seconds == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *seconds)
}

func formatRequests(requests map[string]int) string {
	parts := make([]string, 0, len(requests))
	for _, verb := range slices.Sorted(maps.Keys(requests)) {
		parts = append(parts, fmt.Sprintf("%s=%d", verb, requests[verb]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}
