package exec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

func queryCodeOf(t *testing.T, err error) graphpb.QueryErrorCode {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v (%T) is not an *Error", err, err)
	}
	return e.Code
}

func TestBudgetLimit(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	b := NewBudget(1<<20, "set by a test", nil, cancel)
	if err := b.Grow(600<<10, "step 1"); err != nil {
		t.Fatal(err)
	}
	b.Release(100 << 10)
	if err := b.Grow(500<<10, "step 2"); err != nil {
		t.Fatalf("1000 KiB of a 1 MiB budget: %v", err)
	}
	if got := b.Used(); got != 1000<<10 {
		t.Fatalf("used %d, want %d", got, 1000<<10)
	}
	if ctx.Err() != nil {
		t.Fatal("context cancelled within the limit")
	}
	err := b.Grow(100<<10, "receiving GO step 3 from storage")
	if queryCodeOf(t, err) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED {
		t.Fatalf("over the limit: %v", err)
	}
	for _, want := range []string{"1 MiB", "set by a test", "1.1 MiB", "receiving GO step 3 from storage"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%q does not mention %q", err, want)
		}
	}
	if !errors.Is(context.Cause(ctx), err) {
		t.Fatalf("context cause %v, want the limit error", context.Cause(ctx))
	}
	// The error sticks, even for a release or a zero charge.
	b.Release(1 << 20)
	if b.Grow(0, "x") != err || b.Grow(1, "y") != err || b.Err() != err {
		t.Fatal("the limit error did not stick")
	}
	if b.Peak() != 1100<<10 {
		t.Fatalf("peak %d, want %d", b.Peak(), 1100<<10)
	}
}

func TestBudgetParentTotal(t *testing.T) {
	total := NewBudget(1000, "graphd --total", nil, nil)
	a := NewBudget(0, "none", total, nil)
	b := NewBudget(800, "b's", total, nil)
	if err := a.Grow(600, "a"); err != nil {
		t.Fatal(err)
	}
	if err := b.Grow(300, "b"); err != nil {
		t.Fatal(err)
	}
	if total.Used() != 900 {
		t.Fatalf("total %d, want 900", total.Used())
	}
	err := b.Grow(200, "b again")
	if queryCodeOf(t, err) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED || !strings.Contains(err.Error(), "graphd --total") || !strings.Contains(err.Error(), "running queries together") {
		t.Fatalf("over the total: %v", err)
	}
	if a.Err() != nil {
		t.Fatal("the query under its limit failed too")
	}
	b.Close()
	b.Close()
	if total.Used() != 600 || b.Used() != 0 {
		t.Fatalf("after closing b: total %d, b %d; want 600, 0", total.Used(), b.Used())
	}
	a.Close()
	if total.Used() != 0 {
		t.Fatalf("after closing both: total %d", total.Used())
	}
	// No limit and no budget never fail.
	var none *Budget
	if none.Grow(1<<40, "x") != nil || none.Err() != nil || none.Used() != 0 {
		t.Fatal("a nil budget accounted")
	}
	if NewBudget(0, "", nil, nil).Grow(1<<40, "x") != nil {
		t.Fatal("a budget without a limit failed")
	}
}

func TestTableAddChargesAndStops(t *testing.T) {
	b := NewBudget(2000, "test", nil, nil)
	tb := newTable("a")
	tb.mem = b
	for i := 0; i < 1000; i++ {
		tb.add(value.Str("0123456789"), value.Int(int64(i)))
	}
	per := rowSize([]value.Value{value.Str("0123456789"), value.Int(1)})
	if want := int(2000/per) + 1; len(tb.rows) != want-1 && len(tb.rows) != want {
		t.Fatalf("%d rows kept, want about %d (%d bytes a row)", len(tb.rows), want, per)
	}
	if b.Err() == nil {
		t.Fatal("no error after 1000 rows")
	}
	// A statement that ends after its budget went over fails.
	r := &runState{vars: map[string]*table{}}
	ctx := WithBudget(context.Background(), b)
	if err := r.settle(ctx, tb); queryCodeOf(t, err) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED {
		t.Fatalf("settle: %v", err)
	}
}

func TestSettleChargesTablesBuiltWithoutBudget(t *testing.T) {
	b := NewBudget(0, "", nil, nil)
	ctx := WithBudget(context.Background(), b)
	res := newTable("a")
	res.add(value.Str("xyz"))
	v := newTable("b")
	v.add(value.Int(1))
	r := &runState{vars: map[string]*table{"v": v}}
	if err := r.settle(ctx, res); err != nil {
		t.Fatal(err)
	}
	want := tableSize(res) + tableSize(v)
	if b.Used() != want || want == 0 {
		t.Fatalf("charged %d, want %d", b.Used(), want)
	}
	if err := r.settle(ctx, res); err != nil || b.Used() != want {
		t.Fatalf("a second settle charged again: %d", b.Used())
	}
	res.add(value.Str("more"))
	if b.Used() <= want {
		t.Fatal("a row added after settle was not charged")
	}
	b2 := NewBudget(10, "tiny", nil, nil)
	if err := r.settle(WithBudget(context.Background(), b2), newTableWith(100)); queryCodeOf(t, err) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED {
		t.Fatalf("a big unbudgeted result: %v", err)
	}
}

func newTableWith(rows int) *table {
	t := newTable("x")
	for i := 0; i < rows; i++ {
		t.add(value.Int(int64(i)))
	}
	return t
}

// TestDataSetCharged: the copy of the result sent to the client is charged
// while it is built, and building stops at the limit, within one batch of
// rows; a budget with room gets the whole copy charged.
func TestDataSetCharged(t *testing.T) {
	const rows = 20 * batchRows
	tab := newTableWith(rows)
	full, err := tab.toDataSet(nil)
	if err != nil || len(full.Rows) != rows {
		t.Fatalf("without a budget: %d rows, %v", len(full.GetRows()), err)
	}
	size := DataSetSize(full)

	roomy := NewBudget(2*size, "set by a test", nil, nil)
	if ds, err := tab.toDataSet(roomy); err != nil || len(ds.Rows) != rows || roomy.Used() != size {
		t.Fatalf("with room: %v, %d bytes charged, want %d", err, roomy.Used(), size)
	}

	limit := size / 2
	tight := NewBudget(limit, "set by a test", nil, nil)
	ds, err := tab.toDataSet(tight)
	if queryCodeOf(t, err) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED || ds != nil || !strings.Contains(err.Error(), "building the result for the client") {
		t.Fatalf("over the limit: %v", err)
	}
	// One batch past the limit at most: the copy stops growing there.
	if batch := size / (rows / batchRows); tight.Peak() > limit+batch {
		t.Fatalf("peak %d with a limit of %d: more than one batch (%d bytes) past it", tight.Peak(), limit, batch)
	}
}

func TestSizeEstimates(t *testing.T) {
	var vs []*storagepb.VertexNeighbors
	for i := 0; i < 10; i++ {
		vn := &storagepb.VertexNeighbors{Vid: make([]byte, 8)}
		for j := 0; j < 100; j++ {
			vn.Edges = append(vn.Edges, &storagepb.NeighborEdge{Dst: make([]byte, 8),
				Props: []*commonpb.Value{{V: &commonpb.Value_StrVal{StrVal: make([]byte, 100)}}}})
		}
		vs = append(vs, vn)
	}
	n := neighborsSize(vs)
	// 1000 edges, each at least its struct, dst and a 100-byte string.
	if min := int64(1000 * (edgeStruct + 8 + 100)); n < min || n > 4*min {
		t.Fatalf("neighborsSize %d, want between %d and %d", n, min, 4*min)
	}
	packed := []*storagepb.VertexNeighbors{{Vid: make([]byte, 8), PackedDsts: make([]byte, 8000)}}
	if n := neighborsSize(packed); n < 8000 || n > 9000 {
		t.Fatalf("packed destinations: %d", n)
	}
	rows := []*storagepb.PropRow{{Vid: make([]byte, 8), Values: []*commonpb.Value{{V: &commonpb.Value_StrVal{StrVal: make([]byte, 50)}}}}}
	if n := propRowsSize(rows); n < 58 {
		t.Fatalf("propRowsSize %d", n)
	}
	if n := rowSize([]value.Value{value.Str(strings.Repeat("x", 1000)), value.List(value.Str("abc"))}); n < 1003 {
		t.Fatalf("rowSize %d", n)
	}
	ds, err := newTableWith(10).toDataSet(nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := DataSetSize(ds); n < 10*protoValue {
		t.Fatalf("DataSetSize %d", n)
	}
}

func TestQueryEndError(t *testing.T) {
	plain := errors.New("GO step 2 failed: storaged x: context canceled")
	if got := QueryEndError(context.Background(), plain); got != plain {
		t.Fatalf("an unrelated error became %v", got)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(KilledError(7, 3))
	if got := QueryEndError(ctx, plain); queryCodeOf(t, got) != graphpb.QueryErrorCode_E_KILLED || !strings.Contains(got.Error(), "session=7, plan=3") {
		t.Fatalf("killed: %v", got)
	}
	if got := ctxError(ctx, "GO step 1"); queryCodeOf(t, got) != graphpb.QueryErrorCode_E_KILLED {
		t.Fatalf("ctxError of a killed query: %v", got)
	}
	tctx, tcancel := WithQueryTimeout(context.Background(), time.Millisecond, "set by a test")
	defer tcancel()
	<-tctx.Done()
	if got := QueryEndError(tctx, plain); queryCodeOf(t, got) != graphpb.QueryErrorCode_E_TIMEOUT || !strings.Contains(got.Error(), "1ms (set by a test)") {
		t.Fatalf("timeout: %v", got)
	}
	b := NewBudget(1, "x", nil, nil)
	_ = b.Grow(2, "y")
	if got := QueryEndError(WithBudget(context.Background(), b), plain); queryCodeOf(t, got) != graphpb.QueryErrorCode_E_MEMORY_EXCEEDED {
		t.Fatalf("budget: %v", got)
	}
	if QueryEndError(ctx, nil) != nil {
		t.Fatal("no error became one")
	}
}

func TestSetSessionLimits(t *testing.T) {
	sess := &SessionState{}
	r := &runState{x: &Executor{}, sess: sess} // no ceilings: LimitCeilings tests them
	b := NewBudget(1<<30, "graphd", nil, nil)
	ctx := WithBudget(context.Background(), b)
	if err := r.setSession(ctx, &ast.SetSessionStmt{Name: ast.SetQueryMemoryLimit, Bytes: 100 << 20}); err != nil {
		t.Fatal(err)
	}
	if sess.Limits.MemoryLimit != 100<<20 || b.Limit() != 100<<20 {
		t.Fatalf("session %d, running budget %d", sess.Limits.MemoryLimit, b.Limit())
	}
	_ = r.setSession(ctx, &ast.SetSessionStmt{Name: ast.SetQueryMemoryLimit, Bytes: 0})
	if sess.Limits.MemoryLimit != Unlimited {
		t.Fatalf("= 0: %d", sess.Limits.MemoryLimit)
	}
	_ = r.setSession(ctx, &ast.SetSessionStmt{Name: ast.SetQueryMemoryLimit, Default: true})
	if sess.Limits.MemoryLimit != 0 {
		t.Fatalf("= DEFAULT: %d", sess.Limits.MemoryLimit)
	}
	set := &ast.SetSessionStmt{Name: ast.SetQueryTimeout, Timeout: time.Millisecond}
	_ = r.setSession(ctx, set)
	if sess.Limits.Timeout != time.Millisecond {
		t.Fatalf("timeout %v", sess.Limits.Timeout)
	}
	next, cancel := r.applyLimits(ctx, set)
	if cancel == nil {
		t.Fatal("SET QUERY_TIMEOUT did not bound the rest of the request")
	}
	defer cancel()
	<-next.Done()
	if got := QueryEndError(next, errors.New("x")); queryCodeOf(t, got) != graphpb.QueryErrorCode_E_TIMEOUT || !strings.Contains(got.Error(), TimeoutSourceSession) {
		t.Fatalf("%v", got)
	}
	if _, cancel := r.applyLimits(ctx, &ast.SetSessionStmt{Name: ast.SetQueryTimeout, Default: true}); cancel != nil {
		t.Fatal("DEFAULT changed the running request")
	}
}
