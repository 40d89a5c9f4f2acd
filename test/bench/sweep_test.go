package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The plot is drawn from results alone: a PNG comes out for a sweep whose
// runs have every regime, or only one.
func TestPlotScale(t *testing.T) {
	sizes := []int{1000, 2000, 50000}
	all := make([]*results, 0, len(sizes))
	for _, n := range sizes {
		res := &results{Nodes: n, HeapBytesPerNode: 4096, LiveHeapBytesPerNode: 3000}
		for i, r := range regimes {
			if n == 2000 && i == 0 {
				continue // a regime missing from one run
			}
			if n == 50000 && !r.unthrottled() {
				continue // a large point of the unthrottled regime alone
			}
			p := phaseResult{Regime: r.name, Phase: phaseCold, Seconds: float64(n) / 100}
			p.setFloor(floorFigures{seconds: float64(n) / 110})
			res.Phases = append(res.Phases, p)
		}
		all = append(all, res)
	}
	path := filepath.Join(t.TempDir(), "scale.png")
	if err := plotScale(all, path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("%s is not a PNG", path)
	}
}

// A sweep point may name its own regimes, so that a 50,000-node point runs
// the unthrottled regime alone; a wrong count or regime is named.
func TestParseSweep(t *testing.T) {
	points, err := parseSweep("1000, 10000,50000:unthrottled,3000:qps30+defaults")
	if err != nil {
		t.Fatal(err)
	}
	want := []sweepPoint{{1000, ""}, {10000, ""}, {50000, "unthrottled"}, {3000, "qps30,defaults"}}
	if len(points) != len(want) {
		t.Fatalf("got %v, want %v", points, want)
	}
	for i := range want {
		if points[i] != want[i] {
			t.Errorf("point %d: got %+v, want %+v", i, points[i], want[i])
		}
	}
	for _, bad := range []string{"10k", "0", "50000:nosuch", "1000,"} {
		if _, err := parseSweep(bad); err == nil {
			t.Errorf("parseSweep(%q): no error", bad)
		} else if !strings.Contains(err.Error(), "BENCH_SWEEP") {
			t.Errorf("parseSweep(%q): %v does not say BENCH_SWEEP", bad, err)
		}
	}
}
