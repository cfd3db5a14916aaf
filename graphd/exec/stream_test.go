package exec

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// pipeOps parses "X | op1 | op2 …" and returns op1, op2, … (the pipe is
// left-associative, so they are the Right sides from the inside out).
func pipeOps(t *testing.T, text string) []ast.Statement {
	t.Helper()
	stmts, err := parser.Parse(text)
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	var ops []ast.Statement
	st := stmts[0]
	for {
		p, ok := st.(*ast.PipeStmt)
		if !ok {
			break
		}
		ops = append([]ast.Statement{p.Right}, ops...)
		st = p.Left
	}
	return ops
}

// streamOps runs in through ops as a pipe does: operator sinks ending in
// a table.
func streamOps(t *testing.T, r *runState, in *table, ops []ast.Statement) (*table, *countSink) {
	t.Helper()
	out := &tableSink{}
	var sink rowSink = out
	for i := len(ops) - 1; i >= 0; i-- {
		var err error
		if sink, err = r.sinkFor(ops[i], sink); err != nil {
			t.Fatal(err)
		}
	}
	in2 := &countSink{next: sink}
	if err := pushTable(context.Background(), in, in2); err != nil {
		t.Fatalf("pipe: %v", err)
	}
	return out.t, in2
}

// materializedOps runs the same operators one whole table after another
// (the way variables are read, and the way pipes ran before streaming).
func materializedOps(t *testing.T, r *runState, in *table, ops []ast.Statement) *table {
	t.Helper()
	cur := in
	for _, op := range ops {
		q, ok := kindOf(op).(rowStatement)
		if !ok {
			t.Fatalf("no materialized operator for %s", op)
		}
		var err error
		cur, err = q.query(context.Background(), r, cur)
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	return cur
}

func randomTable(rng *rand.Rand, n int) *table {
	t := newTable("a", "b", "c")
	for i := 0; i < n; i++ {
		a := value.Int(int64(rng.Intn(7)))
		if rng.Intn(10) == 0 {
			a = value.Null()
		}
		t.add(a, value.Str(fmt.Sprintf("s%d", rng.Intn(20))), value.Int(int64(i)))
	}
	return t
}

// TestStreamedOperatorsMatchMaterialized runs random tables through the
// streaming operators (with ORDER BY's bounded heap before LIMIT, LIMIT
// stopping the producer, DISTINCT and GROUP BY state) and through the
// whole-table operators, and wants identical tables.
func TestStreamedOperatorsMatchMaterialized(t *testing.T) {
	pipes := []string{
		"YIELD 1 AS x | ORDER BY $-.a DESC, $-.b | LIMIT 3",
		"YIELD 1 AS x | ORDER BY $-.a, $-.b DESC | LIMIT 5, 7",
		"YIELD 1 AS x | ORDER BY $-.a | LIMIT 0",
		"YIELD 1 AS x | ORDER BY $-.b | LIMIT 2000",
		"YIELD 1 AS x | ORDER BY $-.a DESC",
		"YIELD 1 AS x | LIMIT 600, 10",
		"YIELD 1 AS x | LIMIT 1, 9223372036854775807",
		"YIELD 1 AS x | ORDER BY $-.a | LIMIT 2, 9223372036854775807",
		"YIELD 1 AS x | OFFSET 9223372036854775807 LIMIT 9223372036854775807",
		"YIELD 1 AS x | YIELD $-.a AS a, $-.b + \"!\" AS b WHERE $-.c % 3 != 0 | LIMIT 700",
		"YIELD 1 AS x | YIELD DISTINCT $-.a AS a, $-.b AS b | ORDER BY $-.a, $-.b",
		"YIELD 1 AS x | GROUP BY $-.a YIELD $-.a AS a, count(*) AS n, sum($-.c) AS s | ORDER BY $-.a",
		"YIELD 1 AS x | YIELD $-.b AS b, count(*) AS n, collect($-.a) AS l",
		"YIELD 1 AS x | YIELD count(*) AS n, max($-.c) AS m WHERE $-.a > 3",
	}
	rng := rand.New(rand.NewSource(7))
	for _, text := range pipes {
		ops := pipeOps(t, text)
		for _, n := range []int{0, 1, 5, 511, 512, 513, 1500} {
			in := randomTable(rng, n)
			r := &runState{vars: map[string]*table{}}
			got, _ := streamOps(t, r, in, ops)
			want := materializedOps(t, r, in, ops)
			if fmt.Sprint(got.cols) != fmt.Sprint(want.cols) || fmt.Sprint(got.rows) != fmt.Sprint(want.rows) {
				t.Errorf("%s over %d rows:\nstreamed     %v %v\nmaterialized %v %v", text, n, got.cols, head(got.rows), want.cols, head(want.rows))
			}
		}
	}
}

func head(rows [][]value.Value) [][]value.Value {
	if len(rows) > 8 {
		return rows[:8]
	}
	return rows
}

// TestLimitStopsProducer: once LIMIT has its rows the producer is told to
// stop, so later batches are never handed over.
func TestLimitStopsProducer(t *testing.T) {
	in := randomTable(rand.New(rand.NewSource(1)), 10*batchRows)
	r := &runState{vars: map[string]*table{}}
	for _, tc := range []struct {
		pipe    string
		batches int // batches the pipe may receive
	}{
		{"YIELD 1 AS x | LIMIT 10", 1},
		{"YIELD 1 AS x | LIMIT 3, 600", 2},
		{"YIELD 1 AS x | YIELD $-.c AS c | LIMIT 10", 1},
		{"YIELD 1 AS x | ORDER BY $-.c | LIMIT 10", 10}, // a sort reads everything
	} {
		out, counter := streamOps(t, r, in, pipeOps(t, tc.pipe))
		if got := counter.rows; got > tc.batches*batchRows {
			t.Errorf("%s: the producer handed over %d rows, want at most %d", tc.pipe, got, tc.batches*batchRows)
		}
		if len(out.rows) == 0 {
			t.Errorf("%s: no rows", tc.pipe)
		}
	}
}

// TestOrderByLimitHoldsOnlyKeptRows: ORDER BY before LIMIT n charges the
// budget for about n rows, not for its whole input.
func TestOrderByLimitHoldsOnlyKeptRows(t *testing.T) {
	in := randomTable(rand.New(rand.NewSource(2)), 20000)
	r := &runState{vars: map[string]*table{}}
	peak := func(pipe string) int64 {
		b := NewBudget(1<<40, "test", nil, nil)
		ctx := WithBudget(context.Background(), b)
		out := &tableSink{}
		var sink rowSink = out
		ops := pipeOps(t, pipe)
		for i := len(ops) - 1; i >= 0; i-- {
			sink, _ = r.sinkFor(ops[i], sink)
		}
		if err := pushTable(ctx, in, sink); err != nil {
			t.Fatal(err)
		}
		return b.Peak()
	}
	full, limited := peak("YIELD 1 AS x | ORDER BY $-.b"), peak("YIELD 1 AS x | ORDER BY $-.b | LIMIT 10")
	if limited*100 > full {
		t.Errorf("ORDER BY | LIMIT 10 peaked at %d bytes, a full ORDER BY at %d: the sort should keep only 10 rows", limited, full)
	}
}
