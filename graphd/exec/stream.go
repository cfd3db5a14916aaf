package exec

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Rows flow between the operators of a pipe in batches.
//
// A query statement is a producer (GO, FETCH, LOOKUP, FIND PATH, …)
// followed by the operators its pipes add. produce runs the producer and
// hands its rows to a chain of rowSinks, one per operator after a pipe,
// ending in a tableSink that builds the result for the client:
//
//	GO … | YIELD … WHERE … | ORDER BY … | LIMIT 10
//	goPlan.stream → yieldSink → orderSink → limitSink → tableSink
//
// Operators that look at one row at a time (YIELD, WHERE, LIMIT, DISTINCT)
// pass each batch on as soon as they have transformed it, so no
// intermediate table of the pipe is ever built and its memory never held.
// Operators that need every row before they can emit one hold only their
// own state: GROUP BY its groups, ORDER BY its rows (or, followed by a
// LIMIT, only the offset+count best rows). LIMIT tells its producer to stop
// once it has what it needs (errEnough), so `GO … | LIMIT 10` projects 10
// rows, not all of them.
//
// Statements after a pipe that need all their input rows at once (GO FROM
// $-, FETCH … FROM $-, FIND PATH FROM $-, DELETE, set operators) get them
// through a materializeSink, which collects the rows (charged to the
// query's budget) and then runs the statement as before.
//
// What still arrives whole: a GO step's storage answers are collected
// before its rows are built (a storage stream that breaks is retried per
// partition, and a partially shown partition would duplicate rows), and
// the producers other than GO (FETCH, LOOKUP, FIND PATH, GET SUBGRAPH)
// build their table before handing it over in batches.

// batchRows is how many rows a producer collects before passing them on.
const batchRows = 512

// errEnough is returned by a sink's push when it needs no more rows: the
// producer stops producing and closes the sink. It never reaches a client.
var errEnough = errors.New("the rest of the pipe needs no more rows")

// rowSink receives an operator's output.
//
// The producer calls open once, before producing anything, with the
// column names of its rows: a sink validates its expressions against them
// there, so a semantic error comes before any storage work. Then push,
// any number of times, with batches the sink may keep; then close, once,
// also after a push returned errEnough. A sink that returns an error from
// open or push is not closed.
type rowSink interface {
	open(ctx context.Context, cols []string) error
	push(ctx context.Context, batch [][]value.Value) error
	close(ctx context.Context) error
}

// rowsExpecter is a rowSink that can make room for the rows a producer
// expects to push, an upper bound, before the first push (tableSink).
type rowsExpecter interface {
	expectRows(n int)
}

// maxExpectedRows caps what expectRows reserves ahead: a bound from a GO
// whose WHERE or DISTINCT drops most rows must not reserve a huge slice.
const maxExpectedRows = 1 << 20

// emitter collects a producer's rows one at a time into batches.
type emitter struct {
	sink  rowSink
	batch [][]value.Value
	done  bool // the sink returned errEnough: drop further rows
}

// add queues row; it reports errEnough when the sink needs no more rows.
func (e *emitter) add(ctx context.Context, row []value.Value) error {
	if e.done {
		return errEnough
	}
	e.batch = append(e.batch, row)
	if len(e.batch) >= batchRows {
		return e.flush(ctx)
	}
	return nil
}

func (e *emitter) flush(ctx context.Context) error {
	if e.done {
		return errEnough
	}
	if len(e.batch) == 0 {
		return nil
	}
	b := e.batch
	e.batch = nil
	err := e.sink.push(ctx, b)
	if errors.Is(err, errEnough) {
		e.done = true
	}
	return err
}

// finish flushes what is queued and closes the sink.
func (e *emitter) finish(ctx context.Context) error {
	if err := e.flush(ctx); err != nil && !errors.Is(err, errEnough) {
		return err
	}
	return e.sink.close(ctx)
}

// pushTable hands a whole table to sink in batches and closes it. A nil
// table (a statement that yields nothing) leaves the sink unopened.
func pushTable(ctx context.Context, t *table, sink rowSink) error {
	if t == nil {
		return nil
	}
	if err := sink.open(ctx, t.cols); err != nil {
		return err
	}
	e := &emitter{sink: sink}
	for start := 0; start < len(t.rows); start += batchRows {
		end := min(start+batchRows, len(t.rows))
		e.batch = t.rows[start:end:end]
		if err := e.flush(ctx); err != nil {
			if errors.Is(err, errEnough) {
				break
			}
			return err
		}
	}
	return e.sink.close(ctx)
}

// tableSink is the end of every pipe: it builds the statement's result,
// charging each row to the query's budget. t stays nil when the pipe
// yields no table (it ended in DELETE).
type tableSink struct {
	mem *Budget
	t   *table
	// columnar: the table goes to the client in columns as it is (the
	// request's last statement, for a client that reads columns), so a GO
	// pushing straight into this sink may build it in columns instead of
	// pushing rows (go_columns.go).
	columnar bool
}

func (s *tableSink) open(_ context.Context, cols []string) error {
	s.t = newTable(cols...)
	s.t.mem = s.mem
	return nil
}

func (s *tableSink) push(_ context.Context, batch [][]value.Value) error {
	for _, row := range batch {
		s.t.add(row...)
	}
	if s.mem != nil {
		return s.mem.Err()
	}
	return nil
}

func (s *tableSink) close(context.Context) error { return nil }

// expectRows reserves the row slice once: growing it by doubling through
// the 76,000 rows of a GO 3 (copying each row header about twice, with GC
// write barriers) was a quarter of graphd's CPU.
func (s *tableSink) expectRows(n int) {
	if s.t != nil && len(s.t.rows) == 0 {
		s.t.rows = slices.Grow(s.t.rows, min(n, maxExpectedRows))
	}
}

// materializeSink collects its input and runs a statement that needs all
// of it (GO FROM $-, FETCH … FROM $-, DELETE …), passing that statement's
// result on to next.
type materializeSink struct {
	r    *runState
	stmt ast.Statement
	next rowSink
	in   tableSink
}

func (s *materializeSink) open(ctx context.Context, cols []string) error {
	s.in.mem = BudgetOf(ctx)
	return s.in.open(ctx, cols)
}

func (s *materializeSink) push(ctx context.Context, batch [][]value.Value) error {
	return s.in.push(ctx, batch)
}

func (s *materializeSink) close(ctx context.Context) error {
	out, err := s.r.query(ctx, s.stmt, s.in.t)
	if err != nil {
		return err
	}
	// The input's rows are garbage once the statement ran.
	if mem := BudgetOf(ctx); mem != nil {
		mem.Release(tableSize(s.in.t))
	}
	s.in.t = nil
	return pushTable(ctx, out, s.next)
}

// produce runs st and streams its rows into out. input is the table piped
// into st ($-), nil when there is none. A streamer (kinds.go) streams as
// it goes; any other statement builds its table, which is then handed on
// in batches.
func (r *runState) produce(ctx context.Context, st ast.Statement, input *table, out rowSink) error {
	if s, ok := kindOf(st).(streamer); ok {
		return s.produce(ctx, r, input, out)
	}
	start := time.Now()
	t, err := r.query(ctx, st, input)
	if err != nil {
		return err
	}
	if t != nil {
		r.prof.record(st, stageStat{rows: len(t.rows), took: time.Since(start)})
	}
	return pushTable(ctx, t, out)
}

// sinkFor returns the operator that runs st over piped rows and passes
// its output to next: the kind's own when it is a pipeOperator, else one
// that gives st all the rows at once.
func (r *runState) sinkFor(st ast.Statement, next rowSink) (rowSink, error) {
	var counter *countSink
	if r.prof != nil {
		counter = &countSink{next: next}
		next = counter
	}
	var sink rowSink
	if op, ok := kindOf(st).(pipeOperator); ok {
		sink = op.sink(r, next)
	} else {
		sink = &materializeSink{r: r, stmt: st, next: next}
	}
	if r.prof != nil {
		sink = &profiledSink{prof: r.prof, stmt: st, inner: sink, out: counter}
	}
	return sink, nil
}

// unwrapSink returns the operator behind PROFILE's wrappers.
func unwrapSink(s rowSink) rowSink {
	for {
		switch w := s.(type) {
		case *countSink:
			s = w.next
		case *profiledSink:
			s = w.inner
		default:
			return s
		}
	}
}

// queryStream runs st to the end and returns its result as a table (nil
// when it yields none).
func (r *runState) queryStream(ctx context.Context, st ast.Statement, input *table) (*table, error) {
	out := &tableSink{mem: BudgetOf(ctx), columnar: r.columnarOut != nil && st == r.columnarOut}
	if err := r.produce(ctx, st, input, out); err != nil {
		return nil, err
	}
	return out.t, nil
}

// profiledSink records, for PROFILE, the rows an operator passed on and
// the time spent in it, less the time of the operators it fed.
type profiledSink struct {
	prof  *profile
	stmt  ast.Statement
	inner rowSink
	out   *countSink // between inner and the operator it feeds
	took  time.Duration
}

func (s *profiledSink) open(ctx context.Context, cols []string) error {
	start := time.Now()
	err := s.inner.open(ctx, cols)
	s.took += time.Since(start)
	return err
}

func (s *profiledSink) push(ctx context.Context, batch [][]value.Value) error {
	start := time.Now()
	err := s.inner.push(ctx, batch)
	s.took += time.Since(start)
	return err
}

func (s *profiledSink) close(ctx context.Context) error {
	start := time.Now()
	err := s.inner.close(ctx)
	s.took += time.Since(start)
	s.prof.record(s.stmt, stageStat{rows: s.out.rows, took: max(s.took-s.out.took, 0)})
	return err
}

// countSink counts the rows passing to next and the time next takes.
type countSink struct {
	next rowSink
	rows int
	took time.Duration
}

func (s *countSink) open(ctx context.Context, cols []string) error {
	start := time.Now()
	err := s.next.open(ctx, cols)
	s.took += time.Since(start)
	return err
}

func (s *countSink) push(ctx context.Context, batch [][]value.Value) error {
	start := time.Now()
	s.rows += len(batch)
	err := s.next.push(ctx, batch)
	s.took += time.Since(start)
	return err
}

func (s *countSink) close(ctx context.Context) error {
	start := time.Now()
	err := s.next.close(ctx)
	s.took += time.Since(start)
	return err
}

// profile collects PROFILE's figures: per statement of the query, its
// stages in the order they ran. A nil profile records nothing.
type profile struct {
	stats map[ast.Statement][]stageStat
}

func (p *profile) record(st ast.Statement, s stageStat) {
	if p == nil {
		return
	}
	p.stats[st] = append(p.stats[st], s)
}
