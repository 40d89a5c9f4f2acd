package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// One run prints the table as before, with the CPU columns; repetitions add
// a run column and the summary with the ratio's spread; results.json holds
// the new figures under their documented names (docs/performance.md).
func TestResultsPrintAndJSON(t *testing.T) {
	r := regimeNamed("unthrottled")
	phase := func(rep int, seconds, floor float64) phaseResult {
		p := newPhaseResult(r, rep, phaseChangeAll, seconds, nil, nil, 0)
		p.setCPU(0.5, cpuSample{machine: 3, controlPlane: 2})
		p.setFloor(floorFigures{seconds: floor, cpu: cpuSample{machine: 2.5, controlPlane: 1.5}})
		return p
	}
	one := &results{Nodes: 10, Repeat: 1, Phases: []phaseResult{phase(1, 2, 2)}}
	one.Summary = summarize(one.Phases)
	var out strings.Builder
	one.print(&out)
	for _, want := range []string{"CPU ms/write", "control plane CPU s", "floor machine CPU s", "1.00x"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table of one run lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "Medians") || strings.Contains(out.String(), " run ") {
		t.Errorf("one run printed repetitions:\n%s", out.String())
	}

	three := &results{Nodes: 10, Repeat: 3, Phases: []phaseResult{phase(1, 2, 2), phase(2, 3, 2), phase(3, 1.8, 2)}}
	three.Summary = summarize(three.Phases)
	out.Reset()
	three.print(&out)
	if !strings.Contains(out.String(), "Medians over the repetitions") || !strings.Contains(out.String(), "0.90-1.50x") {
		t.Errorf("three runs print no summary with the ratio's spread:\n%s", out.String())
	}
	data, err := json.Marshal(three)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"repeat":3`, `"repetition":2`, `"cpu_seconds_per_write":null`,
		`"control_plane_cpu_seconds":2`, `"floor_control_plane_cpu_seconds":1.5`, `"machine_cpu_seconds":3`,
		`"floor_machine_cpu_seconds":2.5`, `"summary":[`, `"ratio":1`, `"ratio_min":0.9`, `"ratio_max":1.5`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("results.json lacks %s: %s", field, data)
		}
	}
}

// The run's heap figure is the defaults regime's when it ran, whatever ran
// after it, else the last regime's; the last repetition's in each case.
func TestHeapFigureIsTheDefaultsRegimes(t *testing.T) {
	mem := func(kib float64) memorySample { return memorySample{HeapInuse: kib * 1024 * 10} }
	all := &results{Nodes: 10}
	all.setMemory(regimes[0].name, 1, mem(1))
	all.setMemory(regimeNamed(defaultsRegime).name, 1, mem(2))
	all.setMemory(regimeNamed(defaultsRegime).name, 2, mem(3))
	all.setMemory(regimeNamed("unthrottled").name, 1, mem(4))
	if got := all.HeapBytesPerNode / 1024; got != 3 {
		t.Errorf("heap per node %v KiB with every regime, want the defaults regime's last, 3", got)
	}
	if len(all.Memory) != 4 {
		t.Errorf("%d memory figures, want every one of 4", len(all.Memory))
	}
	one := &results{Nodes: 10}
	one.setMemory(regimes[0].name, 1, mem(1))
	one.setMemory(regimeNamed("unthrottled").name, 1, mem(4))
	if got := one.HeapBytesPerNode / 1024; got != 4 {
		t.Errorf("heap per node %v KiB without the defaults regime, want the last one's, 4", got)
	}
}
