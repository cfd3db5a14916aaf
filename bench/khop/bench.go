package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
)

// Bench is one run: every workload at every concurrency on every system,
// with the same start vertices, every answer checked.
type Bench struct {
	DS        *Dataset
	Systems   []System // the first is the one the ratios are of (novagraph)
	Workloads []Workload
	Starts    []int64 // start vertices; the 3-step forms take the first Starts3
	Starts3   int
	Conc      []int
	// Queries measured per (workload, concurrency, system); 0 is every
	// start vertex of the workload once. Duration, if set, bounds each
	// measurement in time instead.
	Queries  int
	Duration time.Duration
	Warmup   time.Duration
	Timeout  time.Duration
	// MinTime: when a measurement of one pass over the inputs (Queries 0,
	// no Duration) takes less, it is run again with as many whole passes
	// as take about MinTime, so that fast systems (GO 1, the floor) are
	// not measured over a few milliseconds. The short first run serves as
	// more warm-up.
	MinTime time.Duration
	// FullCheck is how many start vertices per workload have their
	// answers compared as sorted multisets before the timed runs (< 0:
	// all of them).
	FullCheck int
	Log       io.Writer
}

// Measurement is one (workload, concurrency, system).
type Measurement struct {
	System      string        `json:"system"`
	Result      driver.Result `json:"result"`
	RowsPerQ    float64       `json:"rows_per_query"`
	Load1       float64       `json:"load1_after"` // 1-minute load average when it ended
	CheckedRows bool          `json:"checked_rows"`
}

// Cell is one row of the table: a workload at a concurrency.
type Cell struct {
	Workload    string        `json:"workload"`
	Label       string        `json:"label"`
	Concurrency int           `json:"concurrency"`
	Inputs      int           `json:"inputs"`
	RefRowsPerQ float64       `json:"reference_rows_per_query"` // over the workload's inputs
	Systems     []Measurement `json:"systems"`
	// Ratios of the first system's QPS (and rows/s) to each other's.
	QPSRatio  map[string]float64 `json:"qps_ratio,omitempty"`
	RowsRatio map[string]float64 `json:"rows_per_sec_ratio,omitempty"`
}

// CheckStats counts what was checked.
type CheckStats struct {
	FullCompared  int64 `json:"full_compared"`  // answers compared as sorted multisets (per system)
	Fingerprinted int64 `json:"fingerprinted"`  // timed answers whose fingerprint was checked
	CountChecked  int64 `json:"count_checked"`  // floor answers whose row count was checked
	Mismatches    int64 `json:"mismatches"`     // always 0 in a finished run
	Errors        int64 `json:"errors"`         // failed executions (timeouts, transport)
	RefRows       int64 `json:"reference_rows"` // rows the reference produced
}

// maxPasses bounds the passes of a MinTime rerun.
const maxPasses = 10000

// MismatchError is a wrong answer: it fails the run.
type MismatchError struct {
	Workload, System string
	Start            int64
	Detail           string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("MISMATCH: %s from %d on %s: %s", e.Workload, e.Start, e.System, e.Detail)
}

func (b *Bench) logf(format string, a ...any) {
	if b.Log != nil {
		fmt.Fprintf(b.Log, format, a...)
	}
}

func (b *Bench) inputs(w Workload) []int64 {
	if w.Steps >= 3 && b.Starts3 > 0 && b.Starts3 < len(b.Starts) {
		return b.Starts[:b.Starts3]
	}
	return b.Starts
}

// Run runs the bench; a mismatch stops it with a *MismatchError.
func (b *Bench) Run(ctx context.Context) ([]Cell, CheckStats, error) {
	var cells []Cell
	var stats CheckStats
	for _, w := range b.Workloads {
		ins := b.inputs(w)
		t0 := time.Now()
		ref := make(map[int64]Fingerprint, len(ins))
		var refRows int64
		for _, v := range ins {
			f := b.DS.csr.Fingerprint(w.Steps, v, w.Props)
			ref[v] = f
			refRows += f.Rows
		}
		stats.RefRows += refRows
		avg := float64(refRows) / float64(len(ins))
		b.logf("%s: %d start vertices, %.0f rows per query on average (reference, %.1fs)\n", w.Label(), len(ins), avg, time.Since(t0).Seconds())
		if err := b.fullCheck(ctx, w, ins, ref, &stats); err != nil {
			return cells, stats, err
		}
		for _, c := range b.Conc {
			cell := Cell{Workload: w.Name, Label: w.Label(), Concurrency: c, Inputs: len(ins), RefRowsPerQ: avg}
			for _, sys := range b.Systems {
				if !sys.Supports(w) {
					continue
				}
				m, err := b.measure(ctx, w, c, sys, ins, ref, &stats)
				if err != nil {
					return cells, stats, err
				}
				cell.Systems = append(cell.Systems, m)
			}
			cell.ratios()
			cells = append(cells, cell)
		}
	}
	return cells, stats, nil
}

func (c *Cell) ratios() {
	if len(c.Systems) < 2 {
		return
	}
	base := c.Systems[0].Result
	c.QPSRatio, c.RowsRatio = map[string]float64{}, map[string]float64{}
	for _, m := range c.Systems[1:] {
		if m.Result.QPS > 0 {
			c.QPSRatio[m.System] = base.QPS / m.Result.QPS
		}
		if m.Result.RowsPerSec > 0 {
			c.RowsRatio[m.System] = base.RowsPerSec / m.Result.RowsPerSec
		}
	}
}

// fullCheck compares, for the first FullCheck inputs, every row-returning
// system's answer with the others' and with the reference as sorted
// multisets, and the count-only systems' row counts with the reference's.
func (b *Bench) fullCheck(ctx context.Context, w Workload, ins []int64, ref map[int64]Fingerprint, stats *CheckStats) error {
	n := len(ins)
	if b.FullCheck >= 0 {
		n = min(n, b.FullCheck)
	}
	if n == 0 {
		return nil
	}
	t0 := time.Now()
	workers := make([]Worker, len(b.Systems))
	defer func() {
		for _, wk := range workers {
			if wk != nil {
				wk.Close()
			}
		}
	}()
	for i, sys := range b.Systems {
		if !sys.Supports(w) {
			continue
		}
		wk, err := sys.Open(ctx, w)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", w.Name, sys.Name(), err)
		}
		workers[i] = wk
	}
	csr := b.DS.csr.Clone()
	for k, v := range ins[:n] {
		var firstName string
		var first []Row
		for i, sys := range b.Systems {
			wk := workers[i]
			if wk == nil {
				continue
			}
			qctx, cancel := b.queryCtx(ctx)
			if isCountOnly(sys) {
				f, _, err := wk.Fingerprint(qctx, v)
				cancel()
				if err != nil {
					return fmt.Errorf("%s from %d on %s: %w", w.Name, v, sys.Name(), err)
				}
				stats.CountChecked++
				if f.Rows != ref[v].Rows {
					stats.Mismatches++
					return &MismatchError{w.Name, sys.Name(), v, fmt.Sprintf("%d rows, the reference %d", f.Rows, ref[v].Rows)}
				}
				continue
			}
			rows, err := wk.Rows(qctx, v)
			cancel()
			if err != nil {
				return fmt.Errorf("%s from %d on %s: %w", w.Name, v, sys.Name(), err)
			}
			stats.FullCompared++
			// Against the reference first, so that a mismatch names the
			// system that is wrong; then against the first system's rows.
			if FingerprintOf(rows) != ref[v] {
				stats.Mismatches++
				d := Diff(sys.Name(), rows, "reference", csr.Rows(w.Steps, v, w.Props))
				if d == "" {
					d = "fingerprints differ but the sorted rows are equal (a bug in the checker)"
				}
				return &MismatchError{w.Name, sys.Name(), v, d}
			}
			if firstName == "" {
				firstName, first = sys.Name(), rows
			} else if d := Diff(firstName, first, sys.Name(), rows); d != "" {
				stats.Mismatches++
				return &MismatchError{w.Name, sys.Name(), v, d}
			}
		}
		if (k+1)%100 == 0 || k+1 == n {
			b.logf("  full check %s: %d/%d start vertices agree (%.0fs)\n", w.Name, k+1, n, time.Since(t0).Seconds())
		}
	}
	return nil
}

func (b *Bench) queryCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.Timeout > 0 {
		return context.WithTimeout(ctx, b.Timeout)
	}
	return context.WithCancel(ctx)
}

// target adapts a System to the driver's runner: each execution's answer
// is fingerprinted as it is read and compared with the reference's.
type target struct {
	sys     System
	w       Workload
	ref     map[int64]Fingerprint
	mu      sync.Mutex
	first   *MismatchError
	cancel  context.CancelFunc
	checked int64
}

func (t *target) Open(ctx context.Context, _ int) (driver.Op, func(), error) {
	wk, err := t.sys.Open(ctx, t.w)
	if err != nil {
		return nil, nil, err
	}
	countOnly := isCountOnly(t.sys)
	op := func(ctx context.Context, in driver.Input) driver.Outcome {
		f, server, err := wk.Fingerprint(ctx, in.ID)
		if err != nil {
			return driver.Outcome{Err: err}
		}
		want := t.ref[in.ID]
		ok := f == want
		if countOnly {
			ok = f.Rows == want.Rows
		}
		t.mu.Lock()
		t.checked++
		if !ok && t.first == nil {
			t.first = &MismatchError{t.w.Name, t.sys.Name(), in.ID, fmt.Sprintf("answer %v, the reference %v", f, want)}
			t.cancel()
		}
		t.mu.Unlock()
		if !ok {
			return driver.Outcome{Err: errors.New("wrong answer")}
		}
		return driver.Outcome{Rows: f.Rows, ServerUS: server, HasServer: server > 0}
	}
	return op, wk.Close, nil
}

func (b *Bench) measure(ctx context.Context, w Workload, conc int, sys System, ins []int64, ref map[int64]Fingerprint, stats *CheckStats) (Measurement, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := &target{sys: sys, w: w, ref: ref, cancel: cancel}
	inputs := make([]driver.Input, len(ins))
	for i, v := range ins {
		inputs[i] = driver.Input{ID: v}
	}
	cfg := driver.RunConfig{Concurrency: conc, Warmup: b.Warmup, Timeout: b.Timeout, Inputs: inputs}
	if b.Duration > 0 {
		cfg.Duration = b.Duration
	} else {
		cfg.Count = int64(b.Queries)
		if cfg.Count <= 0 {
			cfg.Count = int64(len(ins))
		}
	}
	res, err := driver.Run(rctx, w.Name, t, cfg)
	if err == nil && b.Duration <= 0 && b.Queries <= 0 && b.MinTime > 0 && res.ElapsedSec < b.MinTime.Seconds() {
		passes := int64(b.MinTime.Seconds()/max(res.ElapsedSec, 1e-6)) + 1
		cfg.Count = min(passes, maxPasses) * int64(len(ins))
		cfg.Warmup = 0
		res, err = driver.Run(rctx, w.Name, t, cfg)
	}
	t.mu.Lock()
	first, checked := t.first, t.checked
	t.mu.Unlock()
	if isCountOnly(sys) {
		stats.CountChecked += checked
	} else {
		stats.Fingerprinted += checked
	}
	if first != nil {
		stats.Mismatches++
		first.Detail += b.explain(ctx, w, first.Start)
		return Measurement{}, first
	}
	if err != nil {
		return Measurement{}, fmt.Errorf("%s at %d on %s: %w", w.Name, conc, sys.Name(), err)
	}
	stats.Errors += res.Errors
	m := Measurement{System: sys.Name(), Result: res, Load1: load1(), CheckedRows: !isCountOnly(sys)}
	if res.Count > 0 {
		m.RowsPerQ = float64(res.Rows) / float64(res.Count)
	}
	errs := ""
	if res.Errors > 0 {
		errs = fmt.Sprintf(", %d ERRORS (%s): %s", res.Errors, driver.ErrorKindsText(res.ErrorKinds), strings.Join(res.ErrorSample, "; "))
	}
	b.logf("  %-10s c=%d %-9s %9s qps %9s rows/s  p50 %s p99 %s ms  (%d queries, %.1fs, load %.2f)%s\n", w.Name, conc, sys.Name(),
		driver.FormatRate(res.QPS), driver.FormatRate(res.RowsPerSec), driver.FormatMS(res.Client.P50US), driver.FormatMS(res.Client.P99US),
		res.Count, res.ElapsedSec, m.Load1, errs)
	return m, nil
}

// explain fetches the full answers of every row-returning system and of
// the reference for a mismatching start vertex and returns their diffs.
func (b *Bench) explain(ctx context.Context, w Workload, start int64) string {
	want := b.DS.csr.Clone().Rows(w.Steps, start, w.Props)
	var s strings.Builder
	for _, sys := range b.Systems {
		if isCountOnly(sys) || !sys.Supports(w) {
			continue
		}
		wk, err := sys.Open(ctx, w)
		if err != nil {
			fmt.Fprintf(&s, "\n%s: %v", sys.Name(), err)
			continue
		}
		qctx, cancel := b.queryCtx(ctx)
		rows, err := wk.Rows(qctx, start)
		cancel()
		wk.Close()
		if err != nil {
			fmt.Fprintf(&s, "\n%s: %v", sys.Name(), err)
			continue
		}
		d := Diff(sys.Name(), rows, "reference", want)
		if d == "" {
			d = fmt.Sprintf("%s: %d rows, equal to the reference when asked again", sys.Name(), len(rows))
		}
		s.WriteString("\n" + d)
	}
	return s.String()
}

// load1 is the 1-minute load average (0 where /proc/loadavg is absent).
func load1() float64 {
	l, _ := loadAvg()
	if len(l) == 0 {
		return 0
	}
	return l[0]
}

// loadAvg reads the 1, 5 and 15-minute load averages.
func loadAvg() ([]float64, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil, err
	}
	var a, b, c float64
	if _, err := fmt.Sscanf(string(data), "%f %f %f", &a, &b, &c); err != nil {
		return nil, err
	}
	return []float64{a, b, c}, nil
}
