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
	// HeapBytesPerNode is the manager's heap in use after convergence (the
	// last regime's cold phase, after a full GC) above the empty manager's,
	// per node; LiveHeapBytesPerNode the same for the live heap.
	HeapBytesPerNode     float64 `json:"heap_bytes_per_node"`
	LiveHeapBytesPerNode float64 `json:"live_heap_bytes_per_node"`
	// RSSBytes is the manager's RSS at the same moment.
	RSSBytes float64 `json:"rss_bytes"`
	// Empty is the manager's memory with no nodes.
	Empty memorySample `json:"empty"`
	// Memory holds the figures of every regime, after cold and after restart.
	Memory []memoryFigure `json:"memory"`
	Phases []phaseResult  `json:"phases"`
}

type memoryFigure struct {
	Regime string `json:"regime"`
	After  string `json:"after"`
	memorySample
	HeapBytesPerNode     float64 `json:"heap_bytes_per_node"`
	LiveHeapBytesPerNode float64 `json:"live_heap_bytes_per_node"`
}

func (r *results) setMemory(regime string, mem memorySample) {
	f := r.memory(regime, phaseCold, mem)
	r.HeapBytesPerNode, r.LiveHeapBytesPerNode, r.RSSBytes = f.HeapBytesPerNode, f.LiveHeapBytesPerNode, f.RSS
}

func (r *results) setRestartMemory(regime string, mem memorySample) {
	r.memory(regime, phaseRestart, mem)
}

func (r *results) memory(regime, after string, mem memorySample) memoryFigure {
	f := memoryFigure{Regime: regime, After: after, memorySample: mem,
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

// phaseResult is one phase of one regime.
type phaseResult struct {
	Regime             string   `json:"regime"`
	Phase              string   `json:"phase"`
	Seconds            float64  `json:"seconds"`
	FloorSeconds       *float64 `json:"floor_seconds"`
	Ratio              *float64 `json:"ratio"`
	Writes             int      `json:"writes"`
	ExpectedWrites     int      `json:"expected_writes"`
	Reconciles         int      `json:"reconciles"`
	ExpectedReconciles *int     `json:"expected_reconciles,omitempty"`
	CPUSeconds         float64  `json:"cpu_seconds"`
	// Requests are the manager's API requests by verb during the phase.
	Requests map[string]int `json:"requests"`
	// Check is "pass" when the writes (and, where given, the reconciles)
	// are as expected.
	Check string `json:"check"`
}

// newPhaseResult takes the counters' increase from before (nil: from zero,
// a manager started in the phase) to after.
func newPhaseResult(r regime, phase string, seconds, cpu float64, before, after metrics,
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
		Regime: r.name, Phase: phase, Seconds: seconds, CPUSeconds: cpu,
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
}

// failedChecks names the phases whose counts are not as they must be.
func (r *results) failedChecks() []string {
	var failed []string
	for _, p := range r.Phases {
		if p.Check != checkPass {
			failed = append(failed, p.Regime+"/"+p.Phase)
		}
	}
	return failed
}

func (p *phaseResult) setFloor(seconds float64) {
	ratio := p.Seconds / seconds
	p.FloorSeconds, p.Ratio = &seconds, &ratio
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

// print writes the results as a table.
func (r *results) print(out io.Writer) {
	const mib, kib = 1 << 20, 1 << 10
	_, _ = fmt.Fprintf(out, "\n%d nodes. Manager with no nodes: heap in use %.1f MiB, live heap %.1f MiB, RSS %.1f MiB\n",
		r.Nodes, r.Empty.HeapInuse/mib, r.Empty.HeapLive/mib, r.Empty.RSS/mib)
	for _, m := range r.Memory {
		_, _ = fmt.Fprintf(out, "  %s, after %s: heap in use %.1f MiB (%.2f KiB/node above empty), "+
			"live heap %.1f MiB (%.2f KiB/node), RSS %.1f MiB\n", m.Regime, m.After, m.HeapInuse/mib,
			m.HeapBytesPerNode/kib, m.HeapLive/mib, m.LiveHeapBytesPerNode/kib, m.RSS/mib)
	}
	_, _ = fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	_, _ = fmt.Fprintln(w,
		"regime\tphase\tseconds\tfloor s\tratio\twrites\texpected\treconciles\tCPU s\trequests\tcheck\t")
	for _, p := range r.Phases {
		floor, ratio := "-", "-"
		if p.FloorSeconds != nil {
			floor, ratio = fmt.Sprintf("%.2f", *p.FloorSeconds), fmt.Sprintf("%.2fx", *p.Ratio)
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%.2f\t%s\t%s\t%d\t%d\t%d\t%.2f\t%s\t%s\t\n", p.Regime, p.Phase, p.Seconds,
			floor, ratio, p.Writes, p.ExpectedWrites, p.Reconciles, p.CPUSeconds, formatRequests(p.Requests), p.Check)
	}
	_ = w.Flush()
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
