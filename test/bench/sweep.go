package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// sweepPoint is one run of a sweep: a node count and, when given, the
// regimes it runs instead of BENCH_REGIMES.
type sweepPoint struct {
	nodes   int
	regimes string
}

// parseSweep reads BENCH_SWEEP's list of node counts; a count may name its
// regimes after a colon, with "+" between them, so that a large point runs
// only the regimes that finish in reasonable time, e.g.
// 1000,2000,5000,10000,50000:unthrottled.
func parseSweep(list string) ([]sweepPoint, error) {
	var points []sweepPoint
	for f := range strings.SplitSeq(list, ",") {
		count, regimes, _ := strings.Cut(strings.TrimSpace(f), ":")
		n, err := strconv.Atoi(count)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("BENCH_SWEEP: %q is not a node count (optionally with :regime+regime)", f)
		}
		regimes = strings.ReplaceAll(regimes, "+", ",")
		if _, err := selectRegimes(regimes); err != nil {
			return nil, fmt.Errorf("BENCH_SWEEP: %q: %w", f, err)
		}
		points = append(points, sweepPoint{nodes: n, regimes: regimes})
	}
	return points, nil
}

// runSweep runs the bench at each node count of s.sweep, one control plane
// each, writes results-N.json per run and plots scale.png from them all.
func runSweep(s settings) error {
	points, err := parseSweep(s.sweep)
	if err != nil {
		return err
	}
	var all []*results
	var failed []string
	for _, pt := range points {
		one := s
		one.nodes = pt.nodes
		if pt.regimes != "" {
			one.regimes = pt.regimes
		}
		logf("sweep: %d nodes", pt.nodes)
		res, err := runOnce(one, filepath.Join(s.outDir, fmt.Sprintf("results-%d.json", pt.nodes)))
		if res == nil {
			return err
		}
		if err != nil {
			failed = append(failed, err.Error())
		}
		all = append(all, res)
	}
	path := filepath.Join(s.outDir, "scale.png")
	if err := plotScale(all, path); err != nil {
		return err
	}
	logf("plot in %s", path)
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return nil
}

// plotScale draws, against the number of nodes, the convergence time of the
// manager and of the floor (cold start and change of every node, per
// regime) and the manager's heap per node.
func plotScale(all []*results, path string) error {
	cold, err := timePlot(all, phaseCold, "cold start")
	if err != nil {
		return err
	}
	change, err := timePlot(all, phaseChangeAll, "change of every node")
	if err != nil {
		return err
	}
	heap, err := heapPlot(all)
	if err != nil {
		return err
	}
	const width, height = 18 * vg.Inch, 6 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 3, PadX: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8,
		PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	plots := [][]*plot.Plot{{cold, change, heap}}
	canvases := plot.Align(plots, tiles, dc)
	for i, p := range plots[0] {
		p.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// timePlot has one solid line (manager) and one dashed line (floor) per
// regime, through the medians of the repetitions.
func timePlot(all []*results, phase, title string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "nodes"
	p.Y.Label.Text = "seconds until every NodeSLO is as wanted"
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left = true, true
	for i, r := range regimes {
		var manager, floor plotter.XYs
		for _, res := range all {
			for _, ph := range summarize(res.Phases) {
				if ph.Regime == r.name && ph.Phase == phase && ph.FloorSeconds != nil {
					manager = append(manager, plotter.XY{X: float64(res.Nodes), Y: ph.Seconds})
					floor = append(floor, plotter.XY{X: float64(res.Nodes), Y: *ph.FloorSeconds})
				}
			}
		}
		if len(manager) == 0 {
			continue
		}
		for _, series := range []struct {
			name   string
			xys    plotter.XYs
			dashed bool
		}{{"manager, " + r.name, manager, false}, {"floor, " + r.name, floor, true}} {
			line, points, err := plotter.NewLinePoints(series.xys)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color = palette[i%len(palette)], palette[i%len(palette)]
			if series.dashed {
				line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
			}
			p.Add(line, points)
			p.Legend.Add(series.name, line, points)
		}
	}
	return p, nil
}

// heapPlot has the manager's heap per node above an empty manager's, in use and live.
func heapPlot(all []*results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "manager heap per node (above an empty manager, after a forced GC)"
	p.X.Label.Text = "nodes"
	p.Y.Label.Text = "KiB per node"
	p.Y.Min = 0
	p.Legend.Top = true
	inuse := make(plotter.XYs, 0, len(all))
	live := make(plotter.XYs, 0, len(all))
	for _, res := range all {
		inuse = append(inuse, plotter.XY{X: float64(res.Nodes), Y: res.HeapBytesPerNode / 1024})
		live = append(live, plotter.XY{X: float64(res.Nodes), Y: res.LiveHeapBytesPerNode / 1024})
	}
	for i, series := range []struct {
		name string
		xys  plotter.XYs
	}{{"heap in use", inuse}, {"live heap", live}} {
		line, points, err := plotter.NewLinePoints(series.xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = palette[i], palette[i]
		p.Add(line, points)
		p.Legend.Add(series.name, line, points)
	}
	return p, nil
}
