package exec

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/value"
)

// Budget is one query's memory account. The executor charges it where a
// query's memory grows — storage responses as they arrive, GO's frontier
// and rows, FETCH/LOOKUP results, result tables — and releases what a
// multi-step traversal no longer holds. When the charged bytes pass the
// limit, or the bytes of all running queries together pass the parent's
// limit, Grow returns an E_MEMORY_EXCEEDED error and cancels the query's
// context with it as the cause, so that storage calls in flight stop too.
//
// The bytes are estimates (see the size functions below): Go structs at
// their size, slices at their length, strings and byte slices at their
// length, map entries at a fixed overhead. They track the live heap of a
// query within a small factor, which is what a limit needs: a query that
// would blow up stops early instead of taking the daemon down. (Measured,
// testkit/e2e TestGoStepsMemory: GO 3 STEPS … YIELD dst(edge) is charged
// 459 bytes per row and adds 430–480 bytes of live heap per row.)
//
// What the budget does not count is garbage: a traversal allocates about
// three times its live peak on the way, and the collector lets the heap
// run to twice the live heap, so the process can hold well over the
// accounted bytes. The graphd daemon bounds that with a Go soft memory
// limit derived from the total (graphd/queries.go, DefaultGoMemoryLimit;
// set by cmd/graphd), not by charging it.
//
// A nil *Budget accounts nothing and never fails. Budget is safe for
// concurrent use.
type Budget struct {
	limit  atomic.Int64 // bytes; 0 = none
	source atomic.Pointer[string]
	used   atomic.Int64
	peak   atomic.Int64
	err    atomic.Pointer[Error]
	parent *Budget
	cancel context.CancelCauseFunc
	closed atomic.Bool
}

// NewBudget returns a budget of limit bytes (0: none); source says where
// the limit comes from, for the error ("SET QUERY_MEMORY_LIMIT in this
// session"). Bytes charged are also charged to parent, if not nil (graphd's
// account of all running queries). cancel, if not nil, is called with the
// limit error when the budget is exceeded.
func NewBudget(limit int64, source string, parent *Budget, cancel context.CancelCauseFunc) *Budget {
	b := &Budget{parent: parent, cancel: cancel}
	b.SetLimit(limit, source)
	return b
}

// SetLimit changes the limit (0: none) and where it comes from.
func (b *Budget) SetLimit(limit int64, source string) {
	if b == nil {
		return
	}
	b.limit.Store(max(limit, 0))
	b.source.Store(&source)
}

// Limit is the limit in bytes, 0 for none.
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit.Load()
}

// Used is the bytes charged now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Peak is the most bytes charged at once.
func (b *Budget) Peak() int64 {
	if b == nil {
		return 0
	}
	return b.peak.Load()
}

// Err is the limit error once the budget was exceeded, else nil.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	if e := b.err.Load(); e != nil {
		return e
	}
	return nil
}

// Grow charges n bytes for what ("receiving GO step 3 from storage"). It
// returns the limit error if this or an earlier charge went over a limit;
// the bytes stay charged either way until Release or Close.
func (b *Budget) Grow(n int64, what string) error {
	if b == nil {
		return nil
	}
	used := b.used.Add(n)
	for p := b.peak.Load(); used > p && !b.peak.CompareAndSwap(p, used); p = b.peak.Load() {
	}
	var total int64
	if b.parent != nil {
		total = b.parent.used.Add(n)
	}
	if e := b.err.Load(); e != nil {
		return e
	}
	if n <= 0 {
		return nil
	}
	if lim := b.limit.Load(); lim > 0 && used > lim {
		return b.fail(fmt.Sprintf("query used more than its memory limit of %s (%s): %s accounted while %s; the query was stopped and its memory released",
			bytesize.Format(lim), *b.source.Load(), bytesize.Format(used), what))
	}
	if p := b.parent; p != nil {
		if lim := p.limit.Load(); lim > 0 && total > lim {
			return b.fail(fmt.Sprintf("the running queries together used more than %s (%s): this query was stopped at %s accounted while %s, and its memory released",
				bytesize.Format(lim), *p.source.Load(), bytesize.Format(used), what))
		}
	}
	return nil
}

func (b *Budget) fail(msg string) error {
	e := &Error{Code: graphpb.QueryErrorCode_E_MEMORY_EXCEEDED, Msg: msg}
	if !b.err.CompareAndSwap(nil, e) {
		return b.err.Load()
	}
	if b.cancel != nil {
		b.cancel(e)
	}
	return e
}

// Release gives back n bytes charged earlier.
func (b *Budget) Release(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.used.Add(-n)
	if b.parent != nil {
		b.parent.used.Add(-n)
	}
}

// Close gives back everything still charged (the query ended and its
// memory is garbage); Peak stays. Calls after the first do nothing.
func (b *Budget) Close() {
	if b == nil || !b.closed.CompareAndSwap(false, true) {
		return
	}
	b.Release(b.used.Load())
}

type budgetKey struct{}

// WithBudget returns ctx carrying the query's budget.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetOf is the budget ctx carries, nil if none.
func BudgetOf(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// WithQueryTimeout returns ctx ending after d (d > 0) with an E_TIMEOUT
// error naming d and source as its cause.
func WithQueryTimeout(ctx context.Context, d time.Duration, source string) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &Error{Code: graphpb.QueryErrorCode_E_TIMEOUT,
		Msg: fmt.Sprintf("query ran longer than its timeout of %s (%s) and was stopped", d, source)})
}

// KilledError is the error of a query stopped by KILL QUERY.
func KilledError(sessionID, planID int64) error {
	return &Error{Code: graphpb.QueryErrorCode_E_KILLED,
		Msg: fmt.Sprintf("query (session=%d, plan=%d) was killed by KILL QUERY", sessionID, planID)}
}

// SessionKilledError is the error of a query stopped because KILL SESSION
// ended its session.
func SessionKilledError(sessionID, planID int64) error {
	return &Error{Code: graphpb.QueryErrorCode_E_KILLED,
		Msg: fmt.Sprintf("query (session=%d, plan=%d) was stopped: KILL SESSION ended its session", sessionID, planID)}
}

// CancelledError is the error of a query its own client cancelled
// (graphd's HTTP API, POST /api/v1/cancel); the session goes on.
func CancelledError(sessionID, planID int64) error {
	return &Error{Code: graphpb.QueryErrorCode_E_KILLED,
		Msg: fmt.Sprintf("query (session=%d, plan=%d) was killed: its client cancelled it", sessionID, planID)}
}

// isLimitError reports whether err is a query-ending limit error.
func isLimitError(err error) (*Error, bool) {
	var e *Error
	if !errors.As(err, &e) {
		return nil, false
	}
	switch e.Code {
	case graphpb.QueryErrorCode_E_MEMORY_EXCEEDED, graphpb.QueryErrorCode_E_TIMEOUT, graphpb.QueryErrorCode_E_KILLED:
		return e, true
	}
	return nil, false
}

// QueryEndError is the error a statement that ended with err reports: when
// the query's memory budget was exceeded, or its context ended with a
// limit error as the cause (timeout, KILL QUERY), that error — whatever
// the statement was doing when it noticed — else err itself.
func QueryEndError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if e, ok := isLimitError(err); ok {
		return e
	}
	if e := BudgetOf(ctx).Err(); e != nil {
		return e
	}
	if ctx.Err() != nil {
		if e, ok := isLimitError(context.Cause(ctx)); ok {
			return e
		}
	}
	return err
}

// ctxError is the error of a statement that found ctx done at where.
func ctxError(ctx context.Context, where string) error {
	if e, ok := isLimitError(context.Cause(ctx)); ok {
		return e
	}
	return execErrorf("%s: %v", where, ctx.Err())
}

// Size estimates. Structs count at their Go size; a pointer slice's
// element at 8 bytes; a map entry at mapEntryBytes plus its key and value.
var (
	neighborsStruct = int64(reflect.TypeFor[storagepb.VertexNeighbors]().Size())
	edgeStruct      = int64(reflect.TypeFor[storagepb.NeighborEdge]().Size())
	protoValue      = int64(reflect.TypeFor[commonpb.Value]().Size()) + 16 // + the oneof wrapper
	propRowStruct   = int64(reflect.TypeFor[storagepb.PropRow]().Size())
	edgeKeyStruct   = int64(reflect.TypeFor[storagepb.EdgeKey]().Size())
	rowStruct       = int64(reflect.TypeFor[graphpb.Row]().Size())
	valueStruct     = int64(reflect.TypeFor[value.Value]().Size())
	goRunStruct     = int64(reflect.TypeFor[goRun]().Size())
)

const (
	pointerBytes  = 8
	sliceBytes    = 24
	stringBytes   = 16
	mapEntryBytes = 48 // bucket share, tophash, overflow: about what a Go map spends per entry
)

// neighborsSize estimates the memory of decoded GetNeighbors vertices.
func neighborsSize(vs []*storagepb.VertexNeighbors) int64 {
	var n int64
	for _, v := range vs {
		n += pointerBytes + neighborsStruct + int64(len(v.Vid)+len(v.PackedDsts)+8*len(v.Degrees)+8*len(v.PackedRanks)) + protoValuesSize(v.Props)
		for _, c := range v.EdgeColumns {
			n += pointerBytes + columnSize(c)
		}
		for _, e := range v.Edges {
			n += pointerBytes + edgeStruct + int64(len(e.Dst)) + protoValuesSize(e.Props)
		}
	}
	return n
}

// propRowsSize estimates the memory of GetProps or LookupIndex rows.
func propRowsSize(rows []*storagepb.PropRow) int64 {
	var n int64
	for _, r := range rows {
		n += pointerBytes + propRowStruct + int64(len(r.Vid)) + protoValuesSize(r.Values)
		if r.Edge != nil {
			n += edgeKeyStruct + int64(len(r.Edge.Src)+len(r.Edge.Dst))
		}
	}
	return n
}

func protoValuesSize(vs []*commonpb.Value) int64 {
	var n int64
	for _, v := range vs {
		n += pointerBytes + protoValue
		switch x := v.GetV().(type) {
		case *commonpb.Value_StrVal:
			n += int64(len(x.StrVal))
		case *commonpb.Value_ListVal:
			n += sliceBytes + protoValuesSize(x.ListVal.GetValues())
		case *commonpb.Value_MapVal:
			n += protoMapSize(x.MapVal)
		case *commonpb.Value_VertexVal:
			n += protoVertexSize(x.VertexVal)
		case *commonpb.Value_EdgeVal:
			n += protoEdgeSize(x.EdgeVal)
		case *commonpb.Value_PathVal:
			n += protoVertexSize(x.PathVal.GetSrc()) + sliceBytes
			for _, st := range x.PathVal.GetSteps() {
				n += pointerBytes + protoStruct + protoEdgeSize(st.GetEdge()) + protoVertexSize(st.GetDst())
			}
		}
	}
	return n
}

// protoStruct is a small wire message (a map entry, a tag, an edge...)
// without what it points to.
const protoStruct = 64

func protoMapSize(m *commonpb.MapVal) int64 {
	n := int64(protoStruct + sliceBytes)
	for _, e := range m.GetEntries() {
		n += pointerBytes + protoStruct + int64(len(e.GetKey())) + protoValuesSize([]*commonpb.Value{e.GetValue()})
	}
	return n
}

func protoVertexSize(v *commonpb.VertexVal) int64 {
	n := int64(protoStruct+sliceBytes) + protoValuesSize([]*commonpb.Value{v.GetVid()})
	for _, t := range v.GetTags() {
		n += pointerBytes + protoStruct + int64(len(t.GetName())) + protoMapSize(t.GetProps())
	}
	return n
}

func protoEdgeSize(e *commonpb.EdgeVal) int64 {
	return protoStruct + int64(len(e.GetName())) + protoValuesSize([]*commonpb.Value{e.GetSrc(), e.GetDst()}) + protoMapSize(e.GetProps())
}

// rowSize estimates the memory of one result table row.
func rowSize(row []value.Value) int64 {
	return sliceBytes + valuesSize(row)
}

func valuesSize(vs []value.Value) int64 {
	n := int64(len(vs)) * valueStruct
	for _, v := range vs {
		n += valueExtraSize(v)
	}
	return n
}

// valueExtraSize is what a value holds beyond its struct: a string's
// bytes, a list's items, a map's entries; a graph value's structure, and
// as much again for the printed form it keeps (value/graph.go).
func valueExtraSize(v value.Value) int64 {
	switch v.Kind() {
	case value.KindString:
		s, _ := v.StrVal()
		return int64(len(s))
	case value.KindList:
		l, _ := v.ListVal()
		return valuesSize(l)
	case value.KindMap:
		props, _ := v.MapVal()
		return propsSize(props)
	case value.KindVertex:
		vx, _ := v.VertexVal()
		return 2 * vertexSize(vx)
	case value.KindEdge:
		e, _ := v.EdgeVal()
		return 2 * edgeSize(e)
	case value.KindPath:
		p, _ := v.PathVal()
		n := vertexSize(&p.Src) + sliceBytes
		for i := range p.Steps {
			n += edgeSize(&p.Steps[i].Edge) + vertexSize(&p.Steps[i].Dst) + 8
		}
		return 2 * n
	}
	return 0
}

func propsSize(props []value.Prop) int64 {
	n := int64(sliceBytes)
	for _, p := range props {
		n += stringBytes + int64(len(p.Name)) + valueStruct + valueExtraSize(p.Value)
	}
	return n
}

func vertexSize(v *value.Vertex) int64 {
	n := pointerBytes + valueStruct + valueExtraSize(v.VID) + sliceBytes
	for _, t := range v.Tags {
		n += stringBytes + int64(len(t.Name)) + propsSize(t.Props)
	}
	return n
}

func edgeSize(e *value.Edge) int64 {
	return pointerBytes + 2*valueStruct + valueExtraSize(e.Src) + valueExtraSize(e.Dst) + stringBytes + int64(len(e.Type)) + 8 + propsSize(e.Props)
}

// tableSize estimates the memory of a table's rows.
func tableSize(t *table) int64 {
	if t == nil {
		return 0
	}
	var n int64
	for _, r := range t.rows {
		n += rowSize(r)
	}
	return n
}

// DataSetSize estimates the memory of a result as sent to the client.
func DataSetSize(ds *graphpb.DataSet) int64 {
	n := int64(len(ds.GetRows()))*pointerBytes + dataSetRowsSize(ds.GetRows())
	for _, c := range ds.GetColumns() {
		n += pointerBytes + columnSize(c)
	}
	return n
}

// dataSetRowsSize is DataSetSize without the row pointers of the DataSet's
// own slice.
func dataSetRowsSize(rows []*graphpb.Row) int64 {
	var n int64
	for _, r := range rows {
		n += rowStruct + protoValuesSize(r.Values) // Row holds its Values slice header
	}
	return n
}
