package exec

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// A MATCH runs over bindings held in columns (bindVec), one per variable,
// as DuckDB and Kùzu hold vectors: a node or relationship column is an
// int32 per row, an index into the run's vertex and edge tables. A hop
// appends, per input row and edge, the row's index (parents) and the new
// cells, then gathers the other columns by parents: a 2-hop pattern costs
// a few words per path, not a row of 80-byte values. Cells become VERTEX,
// EDGE and PATH values only when an expression reads them; RETURN's common
// items (id(v), v.tag.prop, e.prop, a variable) read the tables directly.

// The vertex table is the keys of the vertices the query reached, by
// index; their decoded ids and VERTEX values are made when an expression
// first reads them (most vertices a hop reaches are only passed on), and
// kept apart so that a hop appending thousands of vertices moves 16 bytes
// each.

// builtVertex is a VERTEX value made for an expression. withTags: it was
// made after the vertex was fetched; one made before (a variable read
// only through id() in an earlier clause) is made again once a later
// pattern fetches the vertex.
type builtVertex struct {
	val      value.Value
	withTags bool
}

// matchEdge is one edge the query followed, as stored (src → dst). Its
// properties, when the hop asked for them, are props, or cell at of each
// of cols (a hop over one edge type has them in columns, decoded only
// when read).
type matchEdge struct {
	src, dst int32 // vertex indexes
	typ      int32 // unsigned
	at       int32
	rank     int64
	props    []value.Prop
	cols     *edgeColumns
}

// edgeColumns are the property columns of one vertex's edges in a
// packed GetNeighbors answer, parallel to refs.
type edgeColumns struct {
	refs []*storagepb.PropRef
	cols []*commonpb.Column
}

// edgeProp is property name of edge e (ok false: it has none such).
func (m *matchRun) edgeProp(e *matchEdge, name string) (value.Value, bool) {
	if e.cols != nil {
		for j, r := range e.cols.refs {
			if r.Name == name {
				return columnValue(e.cols.cols[j], int(e.at)), true
			}
		}
		return value.Value{}, false
	}
	for _, p := range e.props {
		if p.Name == name {
			return p.Value, true
		}
	}
	return value.Value{}, false
}

// propsOf are edge e's properties, by name.
func (m *matchRun) propsOf(e *matchEdge) []value.Prop {
	if e.cols == nil {
		return e.props
	}
	out := make([]value.Prop, len(e.cols.refs))
	for j, r := range e.cols.refs {
		out[j] = value.Prop{Name: r.Name, Value: columnValue(e.cols.cols[j], int(e.at))}
	}
	return out
}

// same reports whether a and b are one stored edge (found from either end).
func (a *matchEdge) same(b *matchEdge) bool {
	return a.typ == b.typ && a.rank == b.rank && a.src == b.src && a.dst == b.dst
}

// noCell is a NULL node or relationship cell.
const noCell = -1

// bindVec is one column of bindings.
type bindVec struct {
	kind  bindKind
	ids   []int32       // bindNode, bindEdge: table index or noCell
	lists [][]int32     // bindEdges (edge indexes), bindPath (vertex, edge, vertex, ...); nil: NULL
	vals  []value.Value // bindValue
}

func newVec(kind bindKind, n int) *bindVec {
	v := &bindVec{kind: kind}
	switch kind {
	case bindNode, bindEdge:
		v.ids = make([]int32, n)
		for i := range v.ids {
			v.ids[i] = noCell
		}
	case bindEdges, bindPath:
		v.lists = make([][]int32, n)
	default:
		v.vals = make([]value.Value, n)
	}
	return v
}

// gather is the column of rows parents (each an index into v).
// idsVec, listsVec and valsVec make a column of cells.
func idsVec(kind bindKind, ids []int32) *bindVec { return &bindVec{kind: kind, ids: ids} }
func listsVec(kind bindKind, lists [][]int32) *bindVec {
	return &bindVec{kind: kind, lists: lists}
}
func valsVec(vals []value.Value) *bindVec { return &bindVec{kind: bindValue, vals: vals} }

func (v *bindVec) gather(parents []int32) *bindVec {
	out := &bindVec{kind: v.kind}
	switch v.kind {
	case bindNode, bindEdge:
		out.ids = make([]int32, len(parents))
		for i, p := range parents {
			out.ids[i] = v.ids[p]
		}
	case bindEdges, bindPath:
		out.lists = make([][]int32, len(parents))
		for i, p := range parents {
			out.lists[i] = v.lists[p]
		}
	default:
		out.vals = make([]value.Value, len(parents))
		for i, p := range parents {
			out.vals[i] = v.vals[p]
		}
	}
	return out
}

// bindings are the rows between two clauses, in columns.
type bindings struct {
	cols []bindCol
	vecs []*bindVec
	n    int
}

func (b *bindings) gather(parents []int32) *bindings {
	out := &bindings{cols: b.cols, vecs: make([]*bindVec, len(b.vecs)), n: len(parents)}
	for i, v := range b.vecs {
		out.vecs[i] = v.gather(parents)
	}
	return out
}

// isNull reports whether column col of row is NULL.
func (b *bindings) isNull(col, row int) bool {
	v := b.vecs[col]
	switch v.kind {
	case bindNode, bindEdge:
		return v.ids[row] == noCell
	case bindEdges, bindPath:
		return v.lists[row] == nil
	}
	return v.vals[row].IsNull()
}

// matchRun is one execution of a matchPlan. It owns the vertex and edge
// tables the bindings index into.
type matchRun struct {
	r        *runState
	p        *matchPlan
	t        *traversal // space, vids, fetched tags, budget
	verts    *vertexTable
	built    map[int32]builtVertex
	edges    []matchEdge
	edgeVals map[int32]value.Value // EDGE values made for expressions
	// edgeProps are the property refs of every edge type, in one request
	// order, for hops that read edge properties.
	edgeProps []*storagepb.PropRef
	vidLen    int
	regexps   eval.RegexCache // the =~ patterns of the query, compiled once
	// slim are the vertex properties fetched in columns (match_props.go).
	slim map[propKey]*slimColumn
}

// match runs a MATCH query and passes its rows to out. When out is the
// request's result and the client reads columns, a RETURN of plain items
// (variables, id(v), v.tag.prop, e.prop) is built in columns straight
// from the bindings (returnColumns), as GO's result is.
func (r *runState) match(ctx context.Context, s *ast.MatchStmt, out rowSink) error {
	p, err := r.planMatch(s)
	if err != nil {
		return err
	}
	t, err := r.newTraversal(ctx, s, "MATCH", true)
	if err != nil {
		return err
	}
	t.useEdges(nil) // the tags' property refs, for fetched vertices
	m := &matchRun{r: r, p: p, t: t, verts: newVertexTable(t.vids), vidLen: t.vidLen,
		built: map[int32]builtVertex{}, edgeVals: map[int32]value.Value{}}
	for _, e := range p.snap.Edges(p.space.GetSpaceId()) {
		t.edgeNames[e.GetEdgeType()] = e.GetName()
		vs := e.GetVersions()
		if len(vs) == 0 {
			continue
		}
		for _, c := range vs[len(vs)-1].GetColumns() {
			m.edgeProps = append(m.edgeProps, &storagepb.PropRef{SchemaId: e.GetEdgeType(), Name: c.GetName()})
		}
	}
	b := &bindings{n: 1}
	for _, cp := range p.clauses {
		if err := t.checkCtx(ctx); err != nil {
			return err
		}
		switch c := cp.clause.(type) {
		case *ast.MatchClause:
			b, err = m.matchClause(ctx, c, cp, b)
		case *ast.UnwindClause:
			b, err = m.unwind(c, cp, b)
		case *ast.WithClause:
			var rows *projected
			if rows, err = m.project(c.Proj, b, false); err == nil {
				b = rows.bindings
				if c.Where != nil {
					b, err = m.filter(b, c.Where, "WITH ... WHERE")
				}
			}
		}
		if err != nil {
			return err
		}
	}
	start := time.Now()
	if ts, ok := out.(*tableSink); ok && ts.columnar {
		if done, err := m.returnColumns(ctx, s.Return, b, ts); done || err != nil {
			if err == nil {
				m.record(projectionName(s.Return), int(ts.t.columns.GetNumRows()), start)
				err = ts.close(ctx)
			}
			return err
		}
	}
	res, err := m.project(s.Return, b, true)
	if err != nil {
		return err
	}
	return pushTable(ctx, &table{cols: res.names, rows: res.rows}, out)
}

// returnColumns builds RETURN's result in columns when it is plain items
// with no DISTINCT, ORDER BY or aggregate (done is false otherwise, and
// nothing was sent).
func (m *matchRun) returnColumns(ctx context.Context, pr *ast.Projection, b *bindings, ts *tableSink) (done bool, err error) {
	if pr.Distinct || len(pr.OrderBy) > 0 || pr.Star {
		return false, nil
	}
	readers := make([]itemReader, len(pr.Items))
	names := make([]string, len(pr.Items))
	for i, it := range pr.Items {
		if findAggregate(it.Expr) != nil {
			return false, nil
		}
		if readers[i] = m.fastItem(it.Expr, b); readers[i] == nil {
			return false, nil
		}
		names[i] = it.Name()
	}
	skip, err := m.count(pr.Skip, "SKIP")
	if err != nil {
		return true, err
	}
	end := int64(b.n)
	if pr.Limit != nil {
		limit, err := m.count(pr.Limit, "LIMIT")
		if err != nil {
			return true, err
		}
		end = min(end, skip+limit)
	}
	lo, hi := int(min(skip, int64(b.n))), int(max(min(end, int64(b.n)), min(skip, int64(b.n))))
	if err := ts.open(ctx, names); err != nil {
		return true, err
	}
	builders := make([]commonpb.ColumnBuilder, len(readers))
	for j := range builders {
		builders[j].ValueSize = protoValueSize
	}
	var charged int64
	charge := func() error {
		var total int64
		for j := range builders {
			total += builders[j].Bytes()
		}
		if err := m.t.grow(total-charged, "building the result for the client"); err != nil {
			return err
		}
		charged = total
		return nil
	}
	// id(v) in an INT64 space, the commonest item, is appended as the
	// int64 it is, without a value in between.
	intIDCol := make([]int, len(readers))
	for j, it := range pr.Items {
		intIDCol[j] = -1
		if f, ok := it.Expr.(*ast.FuncCall); ok && m.verts.intVids && len(f.Args) == 1 && strings.EqualFold(f.Name, "id") {
			if l, ok := f.Args[0].(*ast.LabelExpr); ok {
				if col := findCol(b.cols, l.Name); col >= 0 && b.cols[col].kind == bindNode {
					intIDCol[j] = col
					builders[j].Reserve(hi-lo, commonpb.ColumnKind_COL_INT)
				}
			}
		}
	}
	for from := lo; from < hi; from += 1024 {
		if err := m.t.checkCtx(ctx); err != nil {
			return true, err
		}
		to := min(from+1024, hi)
		for j, read := range readers {
			if col := intIDCol[j]; col >= 0 {
				ids := b.vecs[col].ids
				for row := from; row < to; row++ {
					if i := ids[row]; i != noCell {
						builders[j].AddInt(m.verts.ints[i])
					} else {
						builders[j].AddNull()
					}
				}
				continue
			}
			for row := from; row < to; row++ {
				addValue(&builders[j], read(b, row))
			}
		}
		if err := charge(); err != nil {
			return true, err
		}
	}
	ds := &graphpb.DataSet{ColumnNames: names, Columns: make([]*commonpb.Column, len(builders)), NumRows: int64(hi - lo)}
	for j := range builders {
		ds.Columns[j] = builders[j].Finish()
	}
	ts.t.columns = ds
	return true, nil
}

func (m *matchRun) record(name string, rows int, start time.Time) {
	m.r.prof.record(m.p.stmt, stageStat{name: name, rows: rows, took: time.Since(start)})
}

// vertex returns the index of the vertex with key, adding it.
func (m *matchRun) vertex(key []byte) int32 { return m.verts.add(key) }

// vid is vertex i's id.
func (m *matchRun) vid(i int32) value.Value { return m.verts.id(i) }

// vertexValue is vertex i as a VERTEX value.
func (m *matchRun) vertexValue(i int32) value.Value {
	v, ok := m.built[i]
	if !ok || !v.withTags {
		_, fetched := m.t.vertexTags[m.verts.key(i)]
		if !ok || fetched {
			v = builtVertex{val: value.VertexValue(m.t.vertexValue(m.verts.key(i))), withTags: fetched}
			m.built[i] = v
		}
	}
	return v.val
}

// edgeValue is edge i as an EDGE value.
func (m *matchRun) edgeValue(i int32) value.Value {
	if v, ok := m.edgeVals[i]; ok {
		return v
	}
	e := &m.edges[i]
	ev := value.Edge{Src: m.vid(e.src), Dst: m.vid(e.dst), Type: m.t.edgeNames[e.typ], Rank: e.rank, Props: m.propsOf(e)}
	if ev.Props == nil {
		ev.Props = []value.Prop{}
	}
	v := value.EdgeValue(ev)
	m.edgeVals[i] = v
	return v
}

// cell is the value column col of row stands for.
func (m *matchRun) cell(b *bindings, col, row int) value.Value {
	v := b.vecs[col]
	switch b.cols[col].kind {
	case bindNode:
		if i := v.ids[row]; i != noCell {
			return m.vertexValue(i)
		}
	case bindEdge:
		if i := v.ids[row]; i != noCell {
			return m.edgeValue(i)
		}
	case bindEdges:
		if l := v.lists[row]; l != nil {
			out := make([]value.Value, len(l))
			for j, e := range l {
				out[j] = m.edgeValue(e)
			}
			return value.List(out...)
		}
	case bindPath:
		if l := v.lists[row]; l != nil {
			return m.pathValue(l)
		}
	default:
		return v.vals[row]
	}
	return value.Null()
}

// pathValue builds a PATH from vertex, edge, vertex, ... indexes.
func (m *matchRun) pathValue(items []int32) value.Value {
	first, _ := m.vertexValue(items[0]).VertexVal()
	p := value.Path{Src: *first}
	for j := 1; j+1 < len(items); j += 2 {
		e := &m.edges[items[j]]
		ev, _ := m.edgeValue(items[j]).EdgeVal()
		dst, _ := m.vertexValue(items[j+1]).VertexVal()
		p.Steps = append(p.Steps, value.Step{Edge: *ev, Reverse: e.src != items[j-1], Dst: *dst})
	}
	return value.PathValue(p)
}

// matchContext evaluates an expression over one row of bindings.
type matchContext struct {
	m   *matchRun
	b   *bindings // nil: no row
	row int
	// names and vals bind extra names first: a projection's items for
	// its ORDER BY, the aggregates' results.
	names []string
	vals  []value.Value
}

func (c *matchContext) Variable(name string) (value.Value, bool) {
	for i, n := range c.names {
		if n == name {
			return c.vals[i], true
		}
	}
	if c.b == nil {
		return value.Value{}, false
	}
	for i, col := range c.b.cols {
		if col.name == name && !col.hidden {
			return c.m.cell(c.b, i, c.row), true
		}
	}
	return value.Value{}, false
}

func (c *matchContext) Regexps() *eval.RegexCache { return &c.m.regexps }

// TagProp reads v.tag.prop of a node variable from the columns fetched
// for it, when it was fetched so.
func (c *matchContext) TagProp(variable, tag, prop string) (value.Value, bool) {
	if c.b == nil || c.m.slim == nil {
		return value.Value{}, false
	}
	for _, n := range c.names {
		if n == variable {
			return value.Value{}, false // a projected name shadows the column
		}
	}
	col := findCol(c.b.cols, variable)
	if col < 0 || c.b.cols[col].hidden || c.b.cols[col].kind != bindNode {
		return value.Value{}, false
	}
	i := c.b.vecs[col].ids[c.row]
	if i == noCell {
		return value.Null(), true
	}
	if v, ok := c.m.slim[propKey{tag, prop}].get(i); ok {
		return v, true
	}
	return value.Value{}, false
}

func (c *matchContext) Param(name string) (value.Value, bool) {
	v, ok := c.m.r.params[name]
	return v, ok
}

func (c *matchContext) EdgeProp(edge, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("variable %s is not defined", ast.QuoteName(edge))
}
func (c *matchContext) SrcProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$^ cannot be used in a MATCH query")
}
func (c *matchContext) DstProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$$ cannot be used in a MATCH query")
}
func (c *matchContext) InputProp(col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$- cannot be used in a MATCH query")
}
func (c *matchContext) VarProp(v, col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$%s cannot be used in a MATCH query", v)
}

func (m *matchRun) ctx(b *bindings, row int) *matchContext {
	return &matchContext{m: m, b: b, row: row}
}

// grow charges n rows of b's width to the query's memory budget.
func (m *matchRun) grow(n int, width int, what string) error {
	if m.t.budget == nil || n == 0 {
		return nil
	}
	return m.t.grow(int64(n)*int64(width)*4+int64(n)*4, what)
}

// unwind makes one row per item of the list.
func (m *matchRun) unwind(c *ast.UnwindClause, cp *clausePlan, in *bindings) (*bindings, error) {
	start := time.Now()
	var parents []int32
	var items []value.Value
	mc := m.ctx(in, 0)
	for row := 0; row < in.n; row++ {
		mc.row = row
		v, err := eval.Eval(mc, c.Expr)
		if err != nil {
			return nil, at(c, "UNWIND %s: %v", c.Expr, err)
		}
		list := []value.Value{v}
		if v.IsNull() {
			list = nil
		} else if l, ok := v.ListVal(); ok {
			list = l
		}
		for _, it := range list {
			parents = append(parents, int32(row))
			items = append(items, it)
		}
	}
	out := in.gather(parents)
	out.cols = cp.cols
	out.vecs = append(out.vecs, valsVec(items))
	if err := m.t.grow(valuesSize(items), "UNWIND"); err != nil {
		return nil, err
	}
	m.record("Unwind", out.n, start)
	return out, nil
}

// filter keeps the rows for which cond holds.
func (m *matchRun) filter(b *bindings, cond ast.Expr, what string) (*bindings, error) {
	start := time.Now()
	var keep []int32
	mc := m.ctx(b, 0)
	for row := 0; row < b.n; row++ {
		mc.row = row
		ok, err := eval.Filter(mc, cond)
		if err != nil {
			return nil, at(cond, "%s: %v", what, err)
		}
		if ok {
			keep = append(keep, int32(row))
		}
	}
	out := b
	if len(keep) != b.n {
		out = b.gather(keep)
	}
	m.record("Filter", out.n, start)
	return out, nil
}

// projected is the result of WITH (bindings) or RETURN (rows of values).
type projected struct {
	names    []string
	bindings *bindings
	rows     [][]value.Value
}

// itemReader reads one projection item of a row straight from the tables
// (nil: the item is evaluated).
type itemReader func(b *bindings, row int) value.Value

// fastItem compiles the items RETURN and WITH most often have: a variable,
// id(v), v.tag.prop and e.prop.
func (m *matchRun) fastItem(e ast.Expr, b *bindings) itemReader {
	colOf := func(name string, kinds ...bindKind) int {
		for i, c := range b.cols {
			if c.name == name && !c.hidden {
				for _, k := range kinds {
					if c.kind == k {
						return i
					}
				}
				return -1
			}
		}
		return -1
	}
	switch x := e.(type) {
	case *ast.LabelExpr:
		if col := findCol(b.cols, x.Name); col >= 0 && !b.cols[col].hidden {
			return func(b *bindings, row int) value.Value { return m.cell(b, col, row) }
		}
	case *ast.FuncCall:
		if len(x.Args) == 1 && strings.EqualFold(x.Name, "id") {
			if l, ok := x.Args[0].(*ast.LabelExpr); ok {
				if col := colOf(l.Name, bindNode); col >= 0 {
					return func(b *bindings, row int) value.Value {
						if i := b.vecs[col].ids[row]; i != noCell {
							return m.vid(i)
						}
						return value.Null()
					}
				}
			}
		}
	case *ast.AttributeExpr:
		if ep, ok := x.X.(*ast.EdgePropExpr); ok {
			if col := colOf(ep.Edge, bindNode); col >= 0 {
				tag, prop := ep.Prop, x.Name
				return func(b *bindings, row int) value.Value {
					i := b.vecs[col].ids[row]
					if i == noCell {
						return value.Null()
					}
					if v, ok := m.slim[propKey{tag, prop}].get(i); ok {
						return v
					}
					for _, t := range m.t.vertexTags[m.verts.key(i)] {
						if t.Name == tag {
							for _, p := range t.Props {
								if p.Name == prop {
									return p.Value
								}
							}
						}
					}
					return value.Null()
				}
			}
		}
	case *ast.EdgePropExpr:
		if col := colOf(x.Edge, bindEdge); col >= 0 && !eval.IsReservedProp(x.Prop) {
			prop := x.Prop
			return func(b *bindings, row int) value.Value {
				i := b.vecs[col].ids[row]
				if i == noCell {
					return value.Null()
				}
				v, _ := m.edgeProp(&m.edges[i], prop)
				return v
			}
		}
	}
	return nil
}

// project runs a WITH or RETURN: the items (grouped when one has an
// aggregate), DISTINCT, ORDER BY, SKIP and LIMIT. RETURN (final) yields
// rows of values; WITH yields bindings in which a variable passed through
// keeps its column (nodes and edges stay table indexes).
func (m *matchRun) project(pr *ast.Projection, in *bindings, final bool) (*projected, error) {
	start := time.Now()
	items := pr.Items
	if pr.Star {
		items = nil
		for _, c := range in.cols {
			if !c.hidden {
				items = append(items, &ast.YieldColumn{Pos: pr.Pos, Expr: &ast.LabelExpr{Pos: pr.Pos, Name: c.name}})
			}
		}
	}
	names := make([]string, len(items))
	passCol := make([]int, len(items)) // WITH: a variable passed through, its column
	outCols := make([]bindCol, len(items))
	for i, it := range items {
		names[i] = it.Name()
		passCol[i] = -1
		outCols[i] = bindCol{name: names[i], kind: bindValue}
		if l, ok := it.Expr.(*ast.LabelExpr); ok && !final {
			if j := findCol(in.cols, l.Name); j >= 0 && !in.cols[j].hidden {
				passCol[i] = j
				outCols[i].kind = in.cols[j].kind
			}
		}
	}
	// Aggregates become names read from the group's results.
	var aggs []*ast.AggregateExpr
	exprs := make([]ast.Expr, len(items))
	isAgg := make([]bool, len(items))
	for i, it := range items {
		e, err := rewrite(it.Expr, func(x ast.Expr) (ast.Expr, error) {
			a, ok := x.(*ast.AggregateExpr)
			if !ok {
				return nil, nil
			}
			isAgg[i] = true
			aggs = append(aggs, a)
			return &ast.LabelExpr{Pos: a.Pos, Name: fmt.Sprintf("__agg%d", len(aggs)-1)}, nil
		})
		if err != nil {
			return nil, err
		}
		exprs[i] = e
	}
	grouping := len(aggs) > 0
	fast := make([]itemReader, len(items))
	for i := range items {
		if !isAgg[i] {
			fast[i] = m.fastItem(exprs[i], in)
		}
	}
	// value of item i for input row (raw for a pass-through column).
	eval1 := func(mc *matchContext, i int) (value.Value, error) {
		if fast[i] != nil && mc.names == nil {
			return fast[i](in, mc.row), nil
		}
		v, err := eval.Eval(mc, exprs[i])
		if err != nil {
			return value.Value{}, at(items[i], "%s: %v", names[i], err)
		}
		return v, nil
	}

	// itemValues are the items of one row (zero for a pass-through column
	// of WITH, read from the input when needed).
	itemValues := func(mc *matchContext) ([]value.Value, error) {
		vals := make([]value.Value, len(items))
		for i := range items {
			if passCol[i] >= 0 {
				continue
			}
			v, err := eval1(mc, i)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return vals, nil
	}
	// Each output row: its item values (nil for a pass-through column of
	// WITH) and the input row it came from (-1 for a group).
	type outRow struct {
		vals []value.Value
		src  int32
	}
	var rows []outRow
	if grouping {
		aggNames := make([]string, len(aggs))
		for i := range aggs {
			aggNames[i] = fmt.Sprintf("__agg%d", i)
		}
		type grp struct {
			row  int
			accs []*accumulator
		}
		newGroup := func(row int) *grp {
			g := &grp{row: row, accs: make([]*accumulator, len(aggs))}
			for i, a := range aggs {
				g.accs[i] = newAccumulator(a)
			}
			return g
		}
		groups := map[string]*grp{}
		var order []*grp
		var key []byte
		mc := m.ctx(in, 0)
		for row := 0; row < in.n; row++ {
			mc.row = row
			key = key[:0]
			for i := range items {
				if isAgg[i] {
					continue
				}
				v, err := eval1(mc, i)
				if err != nil {
					return nil, err
				}
				key = v.AppendKey(key)
			}
			g := groups[string(key)]
			if g == nil {
				g = newGroup(row)
				groups[string(key)] = g
				order = append(order, g)
				if err := m.t.grow(mapEntryBytes+int64(len(key))+int64(len(aggs))*accumulatorBytes, "MATCH aggregation"); err != nil {
					return nil, err
				}
			}
			for i, a := range aggs {
				var v value.Value
				if a.Arg != nil {
					var err error
					if v, err = eval.Eval(mc, a.Arg); err != nil {
						return nil, at(a, "%s: %v", a, err)
					}
				}
				if err := g.accs[i].add(v); err != nil {
					return nil, at(a, "%s: %v", a, err)
				}
			}
		}
		if len(order) == 0 && allAggregates(items) {
			order = append(order, newGroup(-1))
		}
		for _, g := range order {
			mc := m.ctx(in, g.row)
			if g.row < 0 {
				mc.b = nil
			}
			mc.names = aggNames
			mc.vals = make([]value.Value, len(aggs))
			for i, acc := range g.accs {
				mc.vals[i] = acc.result()
			}
			vals, err := itemValues(mc)
			if err != nil {
				return nil, err
			}
			rows = append(rows, outRow{vals: vals, src: int32(g.row)})
		}
		// A variable passed through is a grouping key: its group's first
		// row holds it, so it keeps its column (the plan counts on it).
	} else {
		rows = make([]outRow, in.n)
		mc := m.ctx(in, 0)
		for row := 0; row < in.n; row++ {
			mc.row = row
			vals, err := itemValues(mc)
			if err != nil {
				return nil, err
			}
			rows[row] = outRow{vals: vals, src: int32(row)}
		}
	}
	// full is item i of an output row as a value (a pass-through column's
	// cell materialized).
	full := func(r outRow, i int) value.Value {
		if passCol[i] >= 0 {
			return m.cell(in, passCol[i], int(r.src))
		}
		return r.vals[i]
	}
	m.record(projectionName(pr), len(rows), start)
	if pr.Distinct {
		start := time.Now()
		seen := map[string]bool{}
		kept := rows[:0]
		var key []byte
		for _, r := range rows {
			key = key[:0]
			for i := range items {
				key = full(r, i).AppendKey(key)
			}
			if !seen[string(key)] {
				seen[string(key)] = true
				kept = append(kept, r)
				if err := m.t.grow(mapEntryBytes+stringBytes+int64(len(key)), "MATCH DISTINCT"); err != nil {
					return nil, err
				}
			}
		}
		rows = kept
		m.record("Dedup", len(rows), start)
	}
	if len(pr.OrderBy) > 0 {
		start := time.Now()
		orderBy := orderKeys(pr, items)
		keys := make([][]value.Value, len(rows))
		for j, r := range rows {
			mc := m.ctx(in, int(r.src))
			if grouping || pr.Distinct || r.src < 0 {
				mc.b = nil // after grouping or DISTINCT only the items are there
			}
			mc.names = names
			mc.vals = make([]value.Value, len(items))
			for i := range items {
				mc.vals[i] = full(r, i)
			}
			keys[j] = make([]value.Value, len(pr.OrderBy))
			for k, f := range pr.OrderBy {
				v, err := eval.Eval(mc, orderBy[k])
				if err != nil {
					return nil, at(f, "ORDER BY %s: %v", f.Expr, err)
				}
				keys[j][k] = v
			}
			if err := m.t.grow(valuesSize(keys[j])+sliceBytes, "MATCH ORDER BY"); err != nil {
				return nil, err
			}
		}
		idx := make([]int, len(rows))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			for k, f := range pr.OrderBy {
				c := sortCompare(keys[idx[a]][k], keys[idx[b]][k])
				if c == 0 {
					continue
				}
				if f.Desc {
					return c > 0
				}
				return c < 0
			}
			return false
		})
		sorted := make([]outRow, len(rows))
		for i, j := range idx {
			sorted[i] = rows[j]
		}
		rows = sorted
		m.record("Sort", len(rows), start)
	}
	skip, err := m.count(pr.Skip, "SKIP")
	if err != nil {
		return nil, err
	}
	limit, err := m.count(pr.Limit, "LIMIT")
	if err != nil {
		return nil, err
	}
	if skip > 0 {
		rows = rows[min(int(skip), len(rows)):]
	}
	if pr.Limit != nil && int(limit) < len(rows) {
		rows = rows[:limit]
	}
	if pr.Skip != nil || pr.Limit != nil {
		m.record("Limit", len(rows), time.Now())
	}
	res := &projected{names: names}
	if final {
		res.rows = make([][]value.Value, len(rows))
		var size int64
		for j, r := range rows {
			for i := range items {
				r.vals[i] = full(r, i)
			}
			res.rows[j] = r.vals
			size += rowSize(r.vals)
		}
		if err := m.t.grow(size, "MATCH RETURN"); err != nil {
			return nil, err
		}
		return res, nil
	}
	out := &bindings{cols: outCols, vecs: make([]*bindVec, len(items)), n: len(rows)}
	srcs := make([]int32, len(rows))
	for j, r := range rows {
		srcs[j] = r.src
	}
	for i := range items {
		if passCol[i] >= 0 {
			out.vecs[i] = in.vecs[passCol[i]].gather(srcs)
			continue
		}
		vals := make([]value.Value, len(rows))
		for j, r := range rows {
			vals[j] = r.vals[i]
		}
		if err := m.t.grow(valuesSize(vals), "MATCH WITH"); err != nil {
			return nil, err
		}
		out.vecs[i] = valsVec(vals)
	}
	res.bindings = out
	return res, nil
}

func allAggregates(items []*ast.YieldColumn) bool {
	for _, it := range items {
		if findAggregate(it.Expr) == nil {
			return false
		}
	}
	return true
}

// count evaluates SKIP or LIMIT: a non-negative INT.
func (m *matchRun) count(e ast.Expr, what string) (int64, error) {
	if e == nil {
		return 0, nil
	}
	v, err := eval.Eval(&matchContext{m: m}, e)
	if err != nil {
		return 0, at(e, "%s %s: %v", what, e, err)
	}
	n, ok := v.IntVal()
	if !ok || v.Kind() != value.KindInt || n < 0 {
		return 0, at(e, "%s %s: expected a non-negative INT, got %s", what, e, v)
	}
	return n, nil
}
