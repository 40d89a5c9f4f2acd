package main

import (
	"bytes"
	"strings"
	"testing"
)

// Over three repetitions koord-manager's side is the median of its
// figures and of the manager's ratios to it, with their spread; one
// repetition's wrong spec changes fail its check; the three-way summary
// prints each phase as manager ÷ floor beside manager ÷ koord-manager.
func TestThreeWaySummary(t *testing.T) {
	r := regimeNamed(unthrottled)
	run := func(rep int, manager, floor, koord float64, specChanges int) phaseResult {
		p := phaseResult{Regime: r.name, Repetition: rep, Phase: phaseCold, Seconds: manager, Writes: 100,
			ExpectedWrites: 100}
		p.check()
		p.setCPU(1, cpuSample{machine: 4, controlPlane: 2})
		p.setFloor(floorFigures{seconds: floor, cpu: cpuSample{machine: 4, controlPlane: 2}})
		k := koordinatorFigures{Seconds: koord, Writes: 200, SpecChanges: specChanges, ExpectedSpecChanges: 100,
			ControlPlaneCPUSeconds: 4, Check: checkPass}
		if specChanges != 100 {
			k.Check = checkFail
		}
		p.setKoordinator(k)
		return p
	}
	phases := []phaseResult{
		run(1, 10, 10, 20, 100), // 0.50x koord-manager's time
		run(2, 12, 10, 15, 100), // 0.80x
		run(3, 11, 10, 11, 99),  // 1.00x, one spec change short
	}
	got := summarize(phases)
	if len(got) != 1 || got[0].Koordinator == nil {
		t.Fatalf("summary %+v, want cold with koord-manager's side", got)
	}
	k := got[0].Koordinator
	if k.Seconds != 15 || *k.Ratio != 0.8 || *k.RatioMin != 0.5 || *k.RatioMax != 1 || k.Writes != 200 ||
		k.SpecChanges != 100 || *k.ControlPlaneRatio != 0.5 || k.Check != checkFail {
		t.Errorf("koord-manager's side: %+v (ratio %v, %v-%v)", k, *k.Ratio, *k.RatioMin, *k.RatioMax)
	}
	if summarizeKoordinator([]phaseResult{{Phase: phaseCold}}) != nil {
		t.Error("a side for phases koord-manager did not run")
	}

	var out bytes.Buffer
	printThreeWaySummary(&out, got)
	wantRow := "unthrottled-8workers cold 3 11.00 10.00 15.00 1.10x 0.80x 0.50-1.00x 2.00 2.00 4.00 0.50x 200 100 " +
		"pass FAIL"
	found := false
	for line := range strings.Lines(out.String()) {
		found = found || strings.Join(strings.Fields(line), " ") == wantRow
	}
	if !found {
		t.Errorf("no row %q in\n%s", wantRow, out.String())
	}
	res := results{Phases: phases}
	if failed := res.failedChecks(); len(failed) != 1 || failed[0] != r.name+"/cold (koord-manager)" {
		t.Errorf("failed checks %v, want koord-manager's cold of repetition 3", failed)
	}
}
