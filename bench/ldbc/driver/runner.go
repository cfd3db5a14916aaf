package driver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/novagraph/novagraph/client"
)

// Input is what one execution of a scenario reads. Which fields are set
// depends on the scenario's InputKind.
type Input struct {
	ID       int64 `json:"id,omitempty"`
	Src, Dst int64 `json:"-"`
	TS       int64 `json:"-"`
}

// Outcome is the result of one execution.
type Outcome struct {
	Rows int64 // rows returned (the floor: edges of the last step)
	// ServerUS is the latency graphd reported (ResultSet.LatencyUS), when
	// HasServer.
	ServerUS  int64
	HasServer bool
	Err       error
}

// Op executes one input. Each worker has its own.
type Op func(ctx context.Context, in Input) Outcome

// Target is what a run drives: novagraph through graphd (NovaTarget), or
// the storage floor (package floor).
type Target interface {
	// Open prepares worker w (a session, an iterator) and returns its Op
	// and a function that releases what Open took.
	Open(ctx context.Context, w int) (Op, func(), error)
}

// RunConfig is one run: one scenario at one concurrency.
type RunConfig struct {
	Concurrency int
	// Duration of the measured period, or Count measured executions
	// (whichever is set; Count wins if both are).
	Duration time.Duration
	Count    int64
	// Warmup runs the workload this long before measuring; what completes
	// in it is not counted (connections, caches, the JIT-less Go runtime's
	// first allocations).
	Warmup time.Duration
	// Timeout bounds one execution (0: none).
	Timeout time.Duration
	// Inputs are handed out in order to whichever worker is free, and
	// cycled; the same list gives novagraph and the floor the same start
	// vertices.
	Inputs []Input
	// Observe, if set, sees every measured execution, from the worker
	// goroutines (it must be safe for concurrent use).
	Observe func(in Input, out Outcome)
	// Meter, if set, measures the servers' CPU and memory over the
	// measured period (Result.Resources).
	Meter *ResourceMeter
}

// MaxErrorSamples is how many error messages a Result keeps.
const MaxErrorSamples = 5

// Result is one run's measurements.
type Result struct {
	Scenario    string           `json:"scenario"`
	Concurrency int              `json:"concurrency"`
	Count       int64            `json:"count"`  // successful executions measured
	Errors      int64            `json:"errors"` // failed executions measured
	Rows        int64            `json:"rows"`
	ElapsedSec  float64          `json:"elapsed_sec"`
	QPS         float64          `json:"qps"` // successful executions per second
	RowsPerSec  float64          `json:"rows_per_sec"`
	Client      Latency          `json:"client"`           // wall time of the call, in the driver
	Server      *Latency         `json:"server,omitempty"` // graphd's own latency; nil for the floor
	ErrorKinds  map[string]int64 `json:"error_kinds,omitempty"`
	ErrorSample []string         `json:"error_samples,omitempty"`
	// Resources is each metered server's CPU and peak memory over the
	// measured period (RunConfig.Meter).
	Resources []DaemonUse `json:"resources,omitempty"`

	client, server *Hist
}

// Hists returns the merged client and server histograms of a run (server
// nil when the target reports none).
func (r *Result) Hists() (clientHist, serverHist *Hist) { return r.client, r.server }

// ErrorKind classifies an execution error: the graphd error code of a
// rejected statement (E_SEMANTIC, E_EXECUTION, ...), "timeout" when the
// execution's deadline passed, "transport" when graphd was not reached,
// "other" otherwise.
func ErrorKind(err error) string {
	var qe *client.QueryError
	var te *client.TransportError
	switch {
	case errors.As(err, &qe):
		return qe.Code.String()
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &te):
		return "transport"
	}
	return "other"
}

type workerStats struct {
	client, server *Hist
	count, errors  int64
	rows           int64
	kinds          map[string]int64
	samples        []string
}

func (s *workerStats) add(lat time.Duration, out Outcome) {
	if out.Err != nil {
		s.errors++
		s.kinds[ErrorKind(out.Err)]++
		if len(s.samples) < MaxErrorSamples {
			s.samples = append(s.samples, out.Err.Error())
		}
		return
	}
	s.count++
	s.rows += out.Rows
	s.client.Record(lat.Microseconds())
	if out.HasServer {
		s.server.Record(out.ServerUS)
	}
}

// Run runs one scenario on target at cfg.Concurrency workers and returns
// the merged measurements. A worker that cannot be opened fails the run;
// errors of single executions are counted, not returned.
func Run(ctx context.Context, name string, target Target, cfg RunConfig) (Result, error) {
	if cfg.Concurrency <= 0 {
		return Result{}, fmt.Errorf("%s: concurrency %d, want > 0", name, cfg.Concurrency)
	}
	if cfg.Count <= 0 && cfg.Duration <= 0 {
		return Result{}, fmt.Errorf("%s: neither a duration nor a count", name)
	}
	if len(cfg.Inputs) == 0 {
		return Result{}, fmt.Errorf("%s: no inputs", name)
	}
	ops := make([]Op, cfg.Concurrency)
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for w := range ops {
		op, closeFn, err := target.Open(ctx, w)
		if err != nil {
			return Result{}, fmt.Errorf("%s: opening worker %d of %d: %w", name, w, cfg.Concurrency, err)
		}
		ops[w] = op
		if closeFn != nil {
			closers = append(closers, closeFn)
		}
	}

	stats := make([]*workerStats, cfg.Concurrency)
	var next atomic.Uint64
	var claimed atomic.Int64
	n := uint64(len(cfg.Inputs))
	start := time.Now()
	measureFrom := start.Add(cfg.Warmup)
	var deadline time.Time
	if cfg.Count <= 0 {
		deadline = measureFrom.Add(cfg.Duration)
	}
	// The meter's period starts when measuring does, on a timer of its own.
	var meterTimer *time.Timer
	meterBegun := make(chan func() []DaemonUse, 1)
	if cfg.Meter != nil {
		meterTimer = time.AfterFunc(cfg.Warmup, func() { meterBegun <- cfg.Meter.Begin() })
	}
	var wg sync.WaitGroup
	for w := range ops {
		st := &workerStats{client: NewHist(), server: NewHist(), kinds: map[string]int64{}}
		stats[w] = st
		op := ops[w]
		wg.Go(func() {
			for ctx.Err() == nil {
				now := time.Now()
				measured := !now.Before(measureFrom)
				if !deadline.IsZero() && !now.Before(deadline) {
					return
				}
				if measured && cfg.Count > 0 && claimed.Add(1) > cfg.Count {
					return
				}
				in := cfg.Inputs[(next.Add(1)-1)%n]
				opCtx, cancel := ctx, context.CancelFunc(func() {})
				if cfg.Timeout > 0 {
					opCtx, cancel = context.WithTimeout(ctx, cfg.Timeout)
				}
				t0 := time.Now()
				out := op(opCtx, in)
				lat := time.Since(t0)
				cancel()
				if !measured {
					continue
				}
				st.add(lat, out)
				if cfg.Observe != nil {
					cfg.Observe(in, out)
				}
			}
		})
	}
	wg.Wait()
	end := time.Now()
	var resources []DaemonUse
	if meterTimer != nil && !meterTimer.Stop() {
		resources = (<-meterBegun)()
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}

	res := Result{Scenario: name, Concurrency: cfg.Concurrency, client: NewHist(), server: NewHist(), ErrorKinds: map[string]int64{}, Resources: resources}
	hasServer := false
	for _, st := range stats {
		res.Count += st.count
		res.Errors += st.errors
		res.Rows += st.rows
		res.client.Merge(st.client)
		res.server.Merge(st.server)
		hasServer = hasServer || st.server.Count() > 0
		for k, v := range st.kinds {
			res.ErrorKinds[k] += v
		}
		for _, m := range st.samples {
			if len(res.ErrorSample) < MaxErrorSamples {
				res.ErrorSample = append(res.ErrorSample, m)
			}
		}
	}
	if len(res.ErrorKinds) == 0 {
		res.ErrorKinds = nil
	}
	elapsed := end.Sub(measureFrom)
	if elapsed <= 0 {
		elapsed = time.Nanosecond
	}
	res.ElapsedSec = elapsed.Seconds()
	res.QPS = float64(res.Count) / res.ElapsedSec
	res.RowsPerSec = float64(res.Rows) / res.ElapsedSec
	res.Client = res.client.Summary()
	if hasServer {
		s := res.server.Summary()
		res.Server = &s
	} else {
		res.server = nil
	}
	return res, nil
}

// DefaultConcurrency is the default sweep.
var DefaultConcurrency = []int{1, 2, 4, 8, 16, 32, 64}

// Sweep runs a scenario at each concurrency in turn; progress, if set, is
// called after each run.
func Sweep(ctx context.Context, name string, target Target, concurrency []int, cfg RunConfig, progress func(Result)) ([]Result, error) {
	var out []Result
	for _, c := range concurrency {
		cfg.Concurrency = c
		r, err := Run(ctx, name, target, cfg)
		if err != nil {
			return out, err
		}
		if progress != nil {
			progress(r)
		}
		out = append(out, r)
	}
	return out, nil
}

// ErrorKindsText renders error kinds as "E_SEMANTIC:3, timeout:1", sorted.
func ErrorKindsText(kinds map[string]int64) string {
	s := ""
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%s:%d", k, kinds[k])
	}
	return s
}
