package driver

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WritePlots draws, for every scenario of the report, its QPS against
// concurrency (with the floor's, if measured) as qps_<scenario>.<ext> and
// its client and server p50/p99 latency against concurrency as
// latency_<scenario>.<ext>. ext is "svg" (also when empty) or "png"; the
// files are returned.
func (r *Report) WritePlots(dir, ext string) ([]string, error) {
	ext = strings.TrimPrefix(strings.ToLower(ext), ".")
	switch ext {
	case "":
		ext = "svg"
	case "svg", "png":
	default:
		return nil, fmt.Errorf("plot format %q: want svg or png", ext)
	}
	var order []string
	byName := map[string][]Result{}
	for _, res := range r.Results {
		if _, ok := byName[res.Scenario]; !ok {
			order = append(order, res.Scenario)
		}
		byName[res.Scenario] = append(byName[res.Scenario], res)
	}
	floorBy := map[string][]Result{}
	for _, f := range r.Floor {
		if byName[f.Scenario] == nil && floorBy[f.Scenario] == nil {
			order = append(order, f.Scenario) // a scenario only the floor ran
		}
		floorBy[f.Scenario] = append(floorBy[f.Scenario], f)
	}
	var files []string
	for _, name := range order {
		runs, floor := byName[name], floorBy[name]
		primary, label := runs, "novagraph"
		if len(primary) == 0 { // a floor-only report
			primary, floor, label = floor, nil, "floor"
		}
		p, err := qpsPlot(name, label, primary, floor)
		if err != nil {
			return files, err
		}
		path := filepath.Join(dir, "qps_"+fileSafe(name)+"."+ext)
		if err := p.Save(16*vg.Centimeter, 10*vg.Centimeter, path); err != nil {
			return files, err
		}
		files = append(files, path)
		p, err = latencyPlot(name, primary)
		if err != nil {
			return files, err
		}
		path = filepath.Join(dir, "latency_"+fileSafe(name)+"."+ext)
		if err := p.Save(16*vg.Centimeter, 10*vg.Centimeter, path); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// concAxis puts concurrency on a log scale with a tick at each value.
func concAxis(p *plot.Plot, runs []Result) {
	p.X.Label.Text = "concurrency"
	p.X.Scale = plot.LogScale{}
	var ticks plot.ConstantTicks
	lo, hi := 0.0, 0.0
	for i, r := range runs {
		c := float64(r.Concurrency)
		ticks = append(ticks, plot.Tick{Value: c, Label: strconv.Itoa(r.Concurrency)})
		if i == 0 || c < lo {
			lo = c
		}
		if c > hi {
			hi = c
		}
	}
	p.X.Tick.Marker = ticks
	// Keep the first and last points off the axes (and give a single
	// point some width).
	p.X.Min, p.X.Max = lo/1.2, hi*1.2
}

func points(runs []Result, y func(Result) float64) plotter.XYs {
	pts := make(plotter.XYs, 0, len(runs))
	for _, r := range runs {
		pts = append(pts, plotter.XY{X: float64(r.Concurrency), Y: y(r)})
	}
	return pts
}

// allPositive reports whether every y is > 0 (a log axis needs it).
func allPositive(sets ...plotter.XYs) bool {
	for _, s := range sets {
		for _, p := range s {
			if !(p.Y > 0) {
				return false
			}
		}
	}
	return true
}

func qpsPlot(name, label string, runs, floor []Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = name + ": throughput"
	p.Y.Label.Text = "QPS"
	concAxis(p, runs)
	qps := func(r Result) float64 { return r.QPS }
	args := []any{label, points(runs, qps)}
	if len(floor) > 0 {
		fp := points(floor, qps)
		args = append(args, "storage floor", fp)
		// The floor is orders of magnitude faster: a log axis shows both.
		if allPositive(points(runs, qps), fp) {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}

func latencyPlot(name string, runs []Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = name + ": latency"
	p.Y.Label.Text = "ms"
	concAxis(p, runs)
	ms := func(us int64) float64 { return float64(us) / 1000 }
	sets := []any{
		"client p50", points(runs, func(r Result) float64 { return ms(r.Client.P50US) }),
		"client p99", points(runs, func(r Result) float64 { return ms(r.Client.P99US) }),
	}
	hasServer := len(runs) > 0
	for _, r := range runs {
		hasServer = hasServer && r.Server != nil
	}
	if hasServer {
		sets = append(sets,
			"server p50", points(runs, func(r Result) float64 { return ms(r.Server.P50US) }),
			"server p99", points(runs, func(r Result) float64 { return ms(r.Server.P99US) }))
	}
	var xys []plotter.XYs
	for _, s := range sets {
		if x, ok := s.(plotter.XYs); ok {
			xys = append(xys, x)
		}
	}
	if allPositive(xys...) {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if err := plotutil.AddLinePoints(p, sets...); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}
