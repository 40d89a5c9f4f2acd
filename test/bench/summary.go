package main

import (
	"slices"
)

// phaseSummary is one phase of one regime over its repetitions: the median
// of each figure, and for the ratio to the floor also its spread. The
// ratio's median is the median of the repetitions' ratios (each manager run
// against the floor run beside it), not the ratio of the medians; so is
// the control plane's, as its CPU for the same writes drifts over a run.
type phaseSummary struct {
	Regime string `json:"regime"`
	Phase  string `json:"phase"`
	Runs   int    `json:"runs"`

	Seconds      float64  `json:"seconds"`
	FloorSeconds *float64 `json:"floor_seconds"`
	Ratio        *float64 `json:"ratio"`
	RatioMin     *float64 `json:"ratio_min"`
	RatioMax     *float64 `json:"ratio_max"`
	// ControlPlaneRatio is the median of the repetitions' control plane
	// CPU under the manager over that under the floor.
	ControlPlaneRatio *float64 `json:"control_plane_ratio"`

	cpuFigures

	// Check is "pass" only when every repetition's check passed.
	Check string `json:"check"`

	// Koordinator is koord-manager's side (BENCH_KOORDINATOR).
	Koordinator *koordinatorSummary `json:"koordinator,omitempty"`
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
	for _, p := range runs {
		if p.Check != checkPass {
			s.Check = checkFail
		}
	}
	all := func(figure func(p phaseResult) float64) float64 {
		xs := make([]float64, 0, len(runs))
		for _, p := range runs {
			xs = append(xs, figure(p))
		}
		return median(xs)
	}
	set := func(figure func(p phaseResult) *float64) []float64 {
		var xs []float64
		for _, p := range runs {
			xs = appendSet(xs, figure(p))
		}
		return xs
	}
	s.Seconds = all(func(p phaseResult) float64 { return p.Seconds })
	s.CPUSeconds = all(func(p phaseResult) float64 { return p.CPUSeconds })
	s.MachineCPUSeconds = all(func(p phaseResult) float64 { return p.MachineCPUSeconds })
	s.ControlPlaneCPUSeconds = all(func(p phaseResult) float64 { return p.ControlPlaneCPUSeconds })
	s.FloorSeconds = medianOrNil(set(func(p phaseResult) *float64 { return p.FloorSeconds }))
	s.CPUSecondsPerWrite = medianOrNil(set(func(p phaseResult) *float64 { return p.CPUSecondsPerWrite }))
	s.FloorMachineCPUSeconds = medianOrNil(set(func(p phaseResult) *float64 { return p.FloorMachineCPUSeconds }))
	s.FloorControlPlaneCPUSeconds = medianOrNil(set(func(p phaseResult) *float64 {
		return p.FloorControlPlaneCPUSeconds
	}))
	s.ControlPlaneRatio = medianOrNil(set(func(p phaseResult) *float64 {
		if p.FloorControlPlaneCPUSeconds == nil || *p.FloorControlPlaneCPUSeconds <= 0 {
			return nil
		}
		ratio := p.ControlPlaneCPUSeconds / *p.FloorControlPlaneCPUSeconds
		return &ratio
	}))
	ratios := set(func(p phaseResult) *float64 { return p.Ratio })
	s.Ratio = medianOrNil(ratios)
	if len(ratios) > 0 {
		low, high := slices.Min(ratios), slices.Max(ratios)
		s.RatioMin, s.RatioMax = &low, &high
	}
	s.Koordinator = summarizeKoordinator(runs)
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
