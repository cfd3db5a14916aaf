package exec

import (
	"container/heap"
	"context"
	"math"
	"sort"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// The operators after a pipe, as rowSinks (stream.go). The same code runs
// them over a variable's rows (GROUP BY … YIELD $a.x), by pushing the
// variable's table through them.

// --- YIELD [DISTINCT] … WHERE …, one row at a time ---

type yieldSink struct {
	r    *runState
	stmt *ast.YieldStmt
	next rowSink

	src  *opRows // the header of the rows read, for evaluation contexts
	seen map[string]struct{}
	key  []byte
	out  [][]value.Value
}

func (s *yieldSink) open(ctx context.Context, cols []string) error {
	exprs := []ast.Expr{s.stmt.Where}
	names := make([]string, len(s.stmt.Yield.Columns))
	for i, c := range s.stmt.Yield.Columns {
		exprs = append(exprs, c.Expr)
		names[i] = c.Name()
	}
	props := eval.CollectProps(exprs...)
	var err error
	if s.src, err = s.r.rowsFor(s.stmt, "YIELD", newTable(cols...), props); err != nil {
		return err
	}
	if err := checkColumns(s.stmt.Yield.Columns, exprs...); err != nil {
		return err
	}
	if s.stmt.Yield.Distinct {
		s.seen = map[string]struct{}{}
	}
	return s.next.open(ctx, names)
}

func (s *yieldSink) push(ctx context.Context, batch [][]value.Value) error {
	out := s.out[:0]
	mem := BudgetOf(ctx)
	for _, in := range batch {
		rc := s.src.context(in)
		ok, err := eval.Filter(rc, s.stmt.Where)
		if err != nil {
			return execErrorf("%v", err)
		}
		if !ok {
			continue
		}
		row := make([]value.Value, len(s.stmt.Yield.Columns))
		for i, c := range s.stmt.Yield.Columns {
			if row[i], err = eval.Eval(rc, c.Expr); err != nil {
				return execErrorf("%v", err)
			}
		}
		if s.seen != nil {
			s.key = rowKey(s.key[:0], row)
			if _, dup := s.seen[string(s.key)]; dup {
				continue
			}
			s.seen[string(s.key)] = struct{}{}
			if err := mem.Grow(mapEntryBytes+stringBytes+int64(len(s.key)), "YIELD DISTINCT"); err != nil {
				return err
			}
		}
		out = append(out, row)
	}
	s.out = nil // the next operator may keep the batch
	if len(out) == 0 {
		s.out = out
		return nil
	}
	return s.next.push(ctx, out)
}

func (s *yieldSink) close(ctx context.Context) error { return s.next.close(ctx) }

// --- GROUP BY and aggregate YIELD: one state per group ---

type aggSink struct {
	r    *runState
	stmt ast.Statement // *ast.GroupByStmt or *ast.YieldStmt
	next rowSink

	src      *opRows
	plan     *aggPlan
	where    ast.Expr
	distinct bool
	state    *aggState
}

func (s *aggSink) open(ctx context.Context, cols []string) error {
	var err error
	s.src, s.plan, s.where, s.distinct, err = s.r.planAggregateStmt(s.stmt, newTable(cols...))
	if err != nil {
		return err
	}
	s.state = s.plan.newState(BudgetOf(ctx))
	return s.next.open(ctx, s.plan.names)
}

func (s *aggSink) push(_ context.Context, batch [][]value.Value) error {
	for _, row := range batch {
		if err := s.state.add(row, s.src.context, s.where); err != nil {
			return err
		}
	}
	return nil
}

func (s *aggSink) close(ctx context.Context) error {
	t, err := s.state.result(s.src.context, s.distinct)
	if err != nil {
		return err
	}
	s.state.release()
	return pushTable(ctx, t, s.next)
}

// planAggregateStmt validates GROUP BY … YIELD or an aggregate YIELD over
// input (nil: the statement reads a variable or nothing).
func (r *runState) planAggregateStmt(st ast.Statement, input *table) (src *opRows, p *aggPlan, where ast.Expr, distinct bool, err error) {
	switch s := st.(type) {
	case *ast.GroupByStmt:
		exprs := append([]ast.Expr(nil), s.Keys...)
		for _, c := range s.Yield.Columns {
			exprs = append(exprs, c.Expr)
		}
		if src, err = r.rowsFor(s, "GROUP BY", input, eval.CollectProps(exprs...)); err != nil {
			return
		}
		p, err = planAggregate("GROUP BY", s.Keys, s.Yield.Columns)
		return src, p, nil, s.Yield.Distinct, err
	case *ast.YieldStmt:
		exprs := []ast.Expr{s.Where}
		var keys []ast.Expr
		for _, c := range s.Yield.Columns {
			exprs = append(exprs, c.Expr)
			if findAggregate(c.Expr) == nil {
				keys = append(keys, c.Expr)
			}
		}
		if a := findAggregate(s.Where); a != nil {
			err = at(a, "aggregate function %s is not allowed in WHERE", a)
			return
		}
		props := eval.CollectProps(exprs...)
		src = &opRows{t: &table{rows: [][]value.Value{nil}}, input: input, vars: r.vars, params: r.params}
		if input != nil || len(props.Var) > 0 || len(props.Input) > 0 {
			if src, err = r.rowsFor(s, "YIELD", input, props); err != nil {
				return
			}
		} else if len(props.Edge)+len(props.Src)+len(props.Dst) > 0 {
			err = at(s, "YIELD on its own cannot read edge or vertex properties")
			return
		}
		if p, err = planAggregate("YIELD", keys, s.Yield.Columns); err != nil {
			return
		}
		err = checkColumns(nil, s.Where)
		return src, p, s.Where, s.Yield.Distinct, err
	}
	panic("planAggregateStmt: not an aggregation")
}

// --- ORDER BY: all rows, or the best offset+count of them before a LIMIT ---

type orderSink struct {
	r    *runState
	stmt *ast.OrderByStmt
	next rowSink
	// keep > 0: only the keep first rows in order are needed (a LIMIT
	// follows), so a bounded heap replaces the full sort.
	keep int64

	src   *opRows
	exprs []ast.Expr
	cols  []string
	rows  sortRows
	held  int64
}

func (s *orderSink) open(ctx context.Context, cols []string) error {
	s.exprs = make([]ast.Expr, len(s.stmt.Factors))
	for i, f := range s.stmt.Factors {
		s.exprs[i] = f.Expr
	}
	var err error
	if s.src, err = s.r.rowsFor(s.stmt, "ORDER BY", newTable(cols...), eval.CollectProps(s.exprs...)); err != nil {
		return err
	}
	if err := checkColumns(nil, s.exprs...); err != nil {
		return err
	}
	s.cols = cols
	s.rows.desc = make([]bool, len(s.stmt.Factors))
	for i, f := range s.stmt.Factors {
		s.rows.desc[i] = f.Desc
	}
	return nil
}

func (s *orderSink) push(ctx context.Context, batch [][]value.Value) error {
	mem := BudgetOf(ctx)
	for _, row := range batch {
		rc := s.src.context(row)
		keys := make([]value.Value, len(s.exprs))
		for j, e := range s.exprs {
			var err error
			if keys[j], err = eval.Eval(rc, e); err != nil {
				return execErrorf("ORDER BY %s: %v", e, err)
			}
		}
		r := sortRow{row: row, keys: keys, seq: s.rows.seq}
		s.rows.seq++
		if s.keep > 0 && int64(len(s.rows.items)) >= s.keep {
			// A max-heap of the kept rows: a row after the worst kept one
			// is not needed.
			if !s.rows.before(r, s.rows.items[0]) {
				continue
			}
			s.rows.items[0] = r
			heap.Fix(&s.rows, 0)
			continue
		}
		size := rowSize(row) + valuesSize(keys) + sliceBytes
		if err := mem.Grow(size, "ORDER BY"); err != nil {
			return err
		}
		s.held += size
		if s.keep > 0 {
			heap.Push(&s.rows, r)
		} else {
			s.rows.items = append(s.rows.items, r)
		}
	}
	return nil
}

func (s *orderSink) close(ctx context.Context) error {
	items := s.rows.items
	sort.Slice(items, func(a, b int) bool { return s.rows.before(items[a], items[b]) })
	t := &table{cols: s.cols, rows: make([][]value.Value, len(items))}
	for i, it := range items {
		t.rows[i] = it.row
	}
	s.rows.items = nil
	BudgetOf(ctx).Release(s.held)
	return pushTable(ctx, t, s.next)
}

// sortRow is a row with its ORDER BY keys; seq keeps the sort stable.
type sortRow struct {
	row  []value.Value
	keys []value.Value
	seq  int64
}

// sortRows orders rows as ORDER BY does; as a heap it puts the row that
// comes last on top.
type sortRows struct {
	items []sortRow
	desc  []bool
	seq   int64
}

// before reports whether a comes before b in the ORDER BY order.
func (s *sortRows) before(a, b sortRow) bool {
	for j, d := range s.desc {
		c := sortCompare(a.keys[j], b.keys[j])
		if c == 0 {
			continue
		}
		if d {
			return c > 0
		}
		return c < 0
	}
	return a.seq < b.seq
}

func (s *sortRows) Len() int           { return len(s.items) }
func (s *sortRows) Less(i, j int) bool { return s.before(s.items[j], s.items[i]) }
func (s *sortRows) Swap(i, j int)      { s.items[i], s.items[j] = s.items[j], s.items[i] }
func (s *sortRows) Push(x any)         { s.items = append(s.items, x.(sortRow)) }
func (s *sortRows) Pop() any {
	it := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return it
}

// --- LIMIT: pass rows offset .. offset+count-1, then stop the producer ---

type limitSink struct {
	stmt *ast.LimitStmt
	next rowSink
	seen int64 // rows received so far
}

// limitEnd is the index after the last row a LIMIT passes; a count up to
// MaxInt64 (which the parser takes) saturates instead of wrapping to a
// negative end that would pass nothing.
func limitEnd(l *ast.LimitStmt) int64 {
	return l.Offset + min(l.Count, math.MaxInt64-l.Offset)
}

func (s *limitSink) open(ctx context.Context, cols []string) error {
	return s.next.open(ctx, cols)
}

func (s *limitSink) push(ctx context.Context, batch [][]value.Value) error {
	end := limitEnd(s.stmt)
	from, to := s.seen, s.seen+int64(len(batch))
	s.seen = to
	lo, hi := max(from, s.stmt.Offset), min(to, end)
	if lo < hi {
		if err := s.next.push(ctx, batch[lo-from:hi-from]); err != nil {
			return err
		}
	}
	if to >= end {
		return errEnough
	}
	return nil
}

func (s *limitSink) close(ctx context.Context) error { return s.next.close(ctx) }
