package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The plot is drawn from results alone: a PNG comes out for a sweep whose
// runs have every regime, or only one.
func TestPlotScale(t *testing.T) {
	sizes := []int{1000, 2000}
	all := make([]*results, 0, len(sizes))
	for _, n := range sizes {
		res := &results{Nodes: n, HeapBytesPerNode: 4096, LiveHeapBytesPerNode: 3000}
		for i, r := range regimes {
			if n == 2000 && i == 0 {
				continue // a regime missing from one run
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
