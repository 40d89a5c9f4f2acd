package main

import (
	"slices"
)

// phaseSummary is one phase of one regime over its repetitions: the median
// of each figure, and for the ratio to the floor also its spread. The
// ratio's median is the median of the repetitions' ratios (each manager run
// against the floor run beside it), not the ratio of the medians.
type phaseSummary struct {
	Regime string `json:"regime"`
	Phase  string `json:"phase"`
	Runs   int    `json:"runs"`

	Seconds      float64  `json:"seconds"`
	FloorSeconds *float64 `json:"floor_seconds"`
	Ratio        *float64 `json:"ratio"`
	RatioMin     *float64 `json:"ratio_min"`
	RatioMax     *float64 `json:"ratio_max"`

	CPUSeconds                  float64  `json:"cpu_seconds"`
	CPUSecondsPerWrite          *float64 `json:"cpu_seconds_per_write"`
	ControlPlaneCPUSeconds      float64  `json:"control_plane_cpu_seconds"`
	FloorControlPlaneCPUSeconds *float64 `json:"floor_control_plane_cpu_seconds"`
	MachineCPUSeconds           float64  `json:"machine_cpu_seconds"`
	FloorMachineCPUSeconds      *float64 `json:"floor_machine_cpu_seconds"`

	// Check is "pass" only when every repetition's check passed.
	Check string `json:"check"`
}

// summarize groups phases by regime and phase, in the order they first
// ran, and takes the medians over the repetitions.
func summarize(phases []phaseResult) []phaseSummary {
	type key struct{ regime, phase string }
	var order []key
	groups := map[key][]phaseResult{}
	for _, p := range phases {
		k := key{p.Regime, p.Phase}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p)
	}
	out := make([]phaseSummary, 0, len(order))
	for _, k := range order {
		out = append(out, summarizePhase(groups[k]))
	}
	return out
}

// summarizePhase summarizes the repetitions of one phase (at least one).
func summarizePhase(runs []phaseResult) phaseSummary {
	s := phaseSummary{Regime: runs[0].Regime, Phase: runs[0].Phase, Runs: len(runs), Check: checkPass}
	n := len(runs)
	seconds, cpu, controlPlane, machine := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n),
		make([]float64, 0, n)
	var floor, ratios, perWrite, floorControlPlane, floorMachine []float64
	for _, p := range runs {
		seconds = append(seconds, p.Seconds)
		cpu = append(cpu, p.CPUSeconds)
		controlPlane = append(controlPlane, p.ControlPlaneCPUSeconds)
		machine = append(machine, p.MachineCPUSeconds)
		floor = appendSet(floor, p.FloorSeconds)
		ratios = appendSet(ratios, p.Ratio)
		perWrite = appendSet(perWrite, p.CPUSecondsPerWrite)
		floorControlPlane = appendSet(floorControlPlane, p.FloorControlPlaneCPUSeconds)
		floorMachine = appendSet(floorMachine, p.FloorMachineCPUSeconds)
		if p.Check != checkPass {
			s.Check = checkFail
		}
	}
	s.Seconds, s.CPUSeconds, s.MachineCPUSeconds = median(seconds), median(cpu), median(machine)
	s.FloorSeconds, s.Ratio = medianOrNil(floor), medianOrNil(ratios)
	s.CPUSecondsPerWrite = medianOrNil(perWrite)
	s.ControlPlaneCPUSeconds, s.FloorControlPlaneCPUSeconds = median(controlPlane), medianOrNil(floorControlPlane)
	s.FloorMachineCPUSeconds = medianOrNil(floorMachine)
	if len(ratios) > 0 {
		low, high := slices.Min(ratios), slices.Max(ratios)
		s.RatioMin, s.RatioMax = &low, &high
	}
	return s
}

func appendSet(xs []float64, x *float64) []float64 {
	if x == nil {
		return xs
	}
	return append(xs, *x)
}

// median is the middle value of xs, or the mean of the two middle ones
// when their number is even; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(xs))
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}

// medianOrNil is the median, or nil when there are no values.
func medianOrNil(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := median(xs)
	return &m
}
