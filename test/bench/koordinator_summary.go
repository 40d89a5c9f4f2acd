package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// koordinatorSummary is koord-manager's side of one phase over the
// repetitions (BENCH_KOORDINATOR): medians, and the manager's time over
// koord-manager's as the median of the repetitions' ratios, as the floor's.
type koordinatorSummary struct {
	Seconds  float64  `json:"seconds"`
	Ratio    *float64 `json:"ratio"`
	RatioMin *float64 `json:"ratio_min"`
	RatioMax *float64 `json:"ratio_max"`
	Writes   float64  `json:"writes"`
	// SpecChanges is the median of the repetitions' spec changes.
	SpecChanges            float64 `json:"spec_changes"`
	CPUSeconds             float64 `json:"cpu_seconds"`
	ControlPlaneCPUSeconds float64 `json:"control_plane_cpu_seconds"`
	// ControlPlaneRatio is the median of the repetitions' control plane
	// CPU under the manager over that under koord-manager.
	ControlPlaneRatio *float64 `json:"control_plane_ratio"`
	// Check is "pass" only when every repetition's spec changes were as expected.
	Check string `json:"check"`
}

// summarizeKoordinator summarizes koord-manager's side of the repetitions
// of one phase; nil when it ran in none of them.
func summarizeKoordinator(runs []phaseResult) *koordinatorSummary {
	var ks []*koordinatorFigures
	var ratios, controlPlaneRatios []float64
	for _, p := range runs {
		k := p.Koordinator
		if k == nil {
			continue
		}
		ks = append(ks, k)
		ratios = appendSet(ratios, k.Ratio)
		if k.ControlPlaneCPUSeconds > 0 {
			controlPlaneRatios = append(controlPlaneRatios, p.ControlPlaneCPUSeconds/k.ControlPlaneCPUSeconds)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	all := func(figure func(k *koordinatorFigures) float64) float64 {
		xs := make([]float64, 0, len(ks))
		for _, k := range ks {
			xs = append(xs, figure(k))
		}
		return median(xs)
	}
	s := &koordinatorSummary{
		Seconds:                all(func(k *koordinatorFigures) float64 { return k.Seconds }),
		Writes:                 all(func(k *koordinatorFigures) float64 { return float64(k.Writes) }),
		SpecChanges:            all(func(k *koordinatorFigures) float64 { return float64(k.SpecChanges) }),
		CPUSeconds:             all(func(k *koordinatorFigures) float64 { return k.CPUSeconds }),
		ControlPlaneCPUSeconds: all(func(k *koordinatorFigures) float64 { return k.ControlPlaneCPUSeconds }),
		Ratio:                  medianOrNil(ratios),
		ControlPlaneRatio:      medianOrNil(controlPlaneRatios),
		Check:                  checkPass,
	}
	if len(ratios) > 0 {
		low, high := slices.Min(ratios), slices.Max(ratios)
		s.RatioMin, s.RatioMax = &low, &high
	}
	for _, k := range ks {
		if k.Check != checkPass {
			s.Check = checkFail
		}
	}
	return s
}

// printKoordinatorPhases writes koord-manager's figures of every phase of
// every repetition beside the manager's time.
func printKoordinatorPhases(out io.Writer, phases []phaseResult, repeated bool) {
	_, _ = fmt.Fprintln(out, "\nkoord-manager (its NodeSLO controller only) in the same phases; writes: its NodeSLO "+
		"writes kube-apiserver served, spec changes: those that changed a spec, which must equal expected:")
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	runHeader := ""
	if repeated {
		runHeader = "run\t"
	}
	_, _ = fmt.Fprintln(w, "regime\t"+runHeader+"phase\tmanager s\tkoord s\tmanager/koord\twrites\tspec changes\t"+
		"expected\treconciles\tCPU s\tcontrol plane CPU s\tmachine CPU s\tcheck\t")
	for _, p := range phases {
		k := p.Koordinator
		if k == nil {
			continue
		}
		run := ""
		if repeated {
			run = fmt.Sprintf("%d\t", p.Repetition)
		}
		_, _ = fmt.Fprintf(w, "%s\t%s%s\t%.2f\t%.2f\t%s\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t%s\t\n",
			p.Regime, run, p.Phase, p.Seconds, k.Seconds, formatRatio(k.Ratio), k.Writes, k.SpecChanges,
			k.ExpectedSpecChanges, k.Reconciles, k.CPUSeconds, k.ControlPlaneCPUSeconds, k.MachineCPUSeconds, k.Check)
	}
	_ = w.Flush()
}

// printThreeWaySummary writes each phase as manager ÷ koord-manager beside
// manager ÷ floor, medians over the repetitions (one run: its figures).
func printThreeWaySummary(out io.Writer, summary []phaseSummary) {
	_, _ = fmt.Fprintln(out, "\nManager, floor and koord-manager (medians over the repetitions; a ratio is the "+
		"median of the runs' ratios, min-max):")
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	_, _ = fmt.Fprintln(w, "regime\tphase\truns\tmanager s\tfloor s\tkoord s\tmanager/floor\tmanager/koord\t"+
		"manager/koord min-max\tcontrol plane CPU s\tfloor control plane CPU s\tkoord control plane CPU s\t"+
		"control plane manager/koord\tkoord writes\tkoord spec changes\tcheck\tkoord check\t")
	for _, s := range summary {
		k := s.Koordinator
		if k == nil {
			continue
		}
		spread := "-"
		if k.RatioMin != nil {
			spread = fmt.Sprintf("%.2f-%.2fx", *k.RatioMin, *k.RatioMax)
		}
		_, _ = fmt.Fprintf(w, "%s\t%s\t%d\t%.2f\t%s\t%.2f\t%s\t%s\t%s\t%.2f\t%s\t%.2f\t%s\t%.0f\t%.0f\t%s\t%s\t\n",
			s.Regime, s.Phase, s.Runs, s.Seconds, formatSeconds(s.FloorSeconds), k.Seconds, formatRatio(s.Ratio),
			formatRatio(k.Ratio), spread, s.ControlPlaneCPUSeconds, formatSeconds(s.FloorControlPlaneCPUSeconds),
			k.ControlPlaneCPUSeconds, formatRatio(k.ControlPlaneRatio), k.Writes, k.SpecChanges, s.Check, k.Check)
	}
	_ = w.Flush()
}

// formatRatio shows a ratio as "1.23x", "-" for none.
func formatRatio(ratio *float64) string {
	if ratio == nil {
		return "-"
	}
	return fmt.Sprintf("%.2fx", *ratio)
}

// printKoordinatorMemory writes koord-manager's memory after each cold phase.
func printKoordinatorMemory(out io.Writer, phases []phaseResult, repeated bool) {
	const mib = 1 << 20
	for _, p := range phases {
		if p.Koordinator == nil || p.Koordinator.Memory == nil {
			continue
		}
		run := ""
		if repeated {
			run = fmt.Sprintf(" (run %d)", p.Repetition)
		}
		m := p.Koordinator.Memory
		_, _ = fmt.Fprintf(out, "  koord-manager, %s%s, after %s: heap in use %.1f MiB, live heap %.1f MiB, "+
			"RSS %.1f MiB\n", p.Regime, run, p.Phase, m.HeapInuse/mib, m.HeapLive/mib, m.RSS/mib)
	}
}
