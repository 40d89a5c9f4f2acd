package main

import (
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{1.10, 0.95, 1.30, 1.02, 0.99}, 1.02},
	} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	xs := []float64{3, 1, 2}
	median(xs)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Errorf("median reordered its argument: %v", xs)
	}
}

// Three repetitions of one regime: the ratio is the median of the runs'
// own ratios with their min and max, each figure its median, phases without
// a floor have no ratio, and one failed count fails the phase's summary.
func TestSummarize(t *testing.T) {
	r := regimeNamed("unthrottled")
	run := func(rep int, phase string, seconds, floor, cpu, machine, floorMachine float64, writes int) phaseResult {
		p := phaseResult{Regime: r.name, Repetition: rep, Phase: phase, Seconds: seconds, Writes: writes,
			ExpectedWrites: 100}
		p.check()
		p.setCPU(cpu, cpuSample{machine: machine, controlPlane: machine / 2})
		if floor > 0 {
			p.setFloor(floorFigures{seconds: floor, cpu: cpuSample{machine: floorMachine, controlPlane: floorMachine / 2}})
		}
		return p
	}
	phases := []phaseResult{
		run(1, phaseCold, 12, 10, 2.0, 5, 4, 100),    // 1.20x
		run(1, phaseRestart, 1.5, 0, 0.5, 1, 0, 100), // no floor
		run(2, phaseCold, 9, 10, 1.0, 3, 5, 100),     // 0.90x
		run(2, phaseRestart, 1.0, 0, 0.3, 2, 0, 100),
		run(3, phaseCold, 11, 10, 3.0, 4, 6, 99), // 1.10x, one write short
		run(3, phaseRestart, 2.0, 0, 0.4, 3, 0, 100),
	}
	got := summarize(phases)
	if len(got) != 2 || got[0].Phase != phaseCold || got[1].Phase != phaseRestart {
		t.Fatalf("summary of %v, want cold then restart", got)
	}
	cold := got[0]
	if cold.Runs != 3 || cold.Seconds != 11 || *cold.FloorSeconds != 10 || cold.CPUSeconds != 2.0 ||
		cold.MachineCPUSeconds != 4 || *cold.FloorMachineCPUSeconds != 5 || cold.ControlPlaneCPUSeconds != 2 ||
		*cold.FloorControlPlaneCPUSeconds != 2.5 {
		t.Errorf("cold medians: %+v", cold)
	}
	if *cold.Ratio != 1.1 || *cold.RatioMin != 0.9 || *cold.RatioMax != 1.2 {
		t.Errorf("cold ratio %v (%v-%v), want 1.1 (0.9-1.2)", *cold.Ratio, *cold.RatioMin, *cold.RatioMax)
	}
	// The control plane's: 2.5/2, 1.5/2.5 and 2/3 of the floor's.
	if want := 2.0 / 3.0; cold.ControlPlaneRatio == nil || *cold.ControlPlaneRatio != want {
		t.Errorf("cold control plane ratio %v, want %v", cold.ControlPlaneRatio, want)
	}
	if want := 0.02; *cold.CPUSecondsPerWrite != want {
		t.Errorf("cold CPU seconds per write %v, want %v", *cold.CPUSecondsPerWrite, want)
	}
	if cold.Check != checkFail {
		t.Errorf("cold check %q with one repetition a write short", cold.Check)
	}
	restart := got[1]
	if restart.Ratio != nil || restart.FloorSeconds != nil || restart.RatioMin != nil || restart.ControlPlaneRatio != nil {
		t.Errorf("restart has a ratio without a floor: %+v", restart)
	}
	if restart.Seconds != 1.5 || restart.Check != checkPass {
		t.Errorf("restart: %+v", restart)
	}
}

// A phase without writes has no CPU time per write rather than a division by zero.
func TestCPUSecondsPerWriteWithoutWrites(t *testing.T) {
	p := phaseResult{Writes: 0}
	p.setCPU(1.5, cpuSample{machine: 3})
	if p.CPUSecondsPerWrite != nil {
		t.Errorf("CPU seconds per write %v for no writes", *p.CPUSecondsPerWrite)
	}
	p.Writes = 3
	p.setCPU(1.5, cpuSample{machine: 3})
	if p.CPUSecondsPerWrite == nil || *p.CPUSecondsPerWrite != 0.5 {
		t.Errorf("CPU seconds per write %v, want 0.5", p.CPUSecondsPerWrite)
	}
}
