package exec

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// matchVertex is one vertex the query reached: its key, and its value once
// an expression asked for it (with its tags when it was fetched).
type matchVertex struct {
	key   string
	val   value.Value
	built bool
	// withTags: val was built after the vertex was fetched. A value built
	// before (a variable read only through id() in an earlier clause) is
	// built again once a later pattern fetches the vertex.
	withTags bool
}

// matchEdge is one edge the query followed, as stored (src → dst).
type matchEdge struct {
	src, dst string
	typ      int32 // unsigned
	rank     int64
	props    []value.Prop // nil unless the hop asked for properties
	val      value.Value
	built    bool
}

// same reports whether a and b are one stored edge (found from either end).
func (a *matchEdge) same(b *matchEdge) bool {
	return a.typ == b.typ && a.rank == b.rank && a.src == b.src && a.dst == b.dst
}

// bindings are the rows between two clauses.
type bindings struct {
	cols []bindCol
	rows [][]value.Value
}

// matchRun is one execution of a matchPlan. It owns the vertex and edge
// tables the rows index into.
type matchRun struct {
	r      *runState
	p      *matchPlan
	t      *traversal // space, vids, fetched tags, budget
	verts  []matchVertex
	vertAt map[string]int32
	edges  []matchEdge
	// edgeProps are the property refs of every edge type, in one request
	// order, for hops that read edge properties.
	edgeProps []*storagepb.PropRef
}

func (r *runState) match(ctx context.Context, s *ast.MatchStmt) (*table, error) {
	p, err := r.planMatch(s)
	if err != nil {
		return nil, err
	}
	t, err := r.newTraversal(ctx, s, "MATCH", true)
	if err != nil {
		return nil, err
	}
	t.useEdges(nil) // the tags' property refs, for fetched vertices
	m := &matchRun{r: r, p: p, t: t, vertAt: map[string]int32{}}
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
	b := &bindings{rows: [][]value.Value{{}}}
	for _, cp := range p.clauses {
		if err := t.checkCtx(ctx); err != nil {
			return nil, err
		}
		switch c := cp.clause.(type) {
		case *ast.MatchClause:
			b, err = m.matchClause(ctx, c, cp, b)
		case *ast.UnwindClause:
			b, err = m.unwind(c, cp, b)
		case *ast.WithClause:
			b, err = m.project(ctx, c.Proj, b, false)
			if err == nil && c.Where != nil {
				b, err = m.filter(b, c.Where, "WITH ... WHERE")
			}
		}
		if err != nil {
			return nil, err
		}
	}
	start := time.Now()
	b, err = m.project(ctx, s.Return, b, true)
	if err != nil {
		return nil, err
	}
	out := newTable()
	out.mem = BudgetOf(ctx)
	for _, c := range b.cols {
		out.cols = append(out.cols, c.name)
	}
	for _, row := range b.rows {
		out.add(row...)
	}
	m.record("Project", len(out.rows), start)
	return out, nil
}

func (m *matchRun) record(name string, rows int, start time.Time) {
	m.r.prof.record(m.p.stmt, stageStat{name: name, rows: rows, took: time.Since(start)})
}

// vertex returns the index of the vertex with key, adding it.
func (m *matchRun) vertex(key []byte) int32 {
	if i, ok := m.vertAt[string(key)]; ok {
		return i
	}
	i := int32(len(m.verts))
	k := string(key)
	m.verts = append(m.verts, matchVertex{key: k})
	m.vertAt[k] = i
	return i
}

// vertexValue is vertex i as a VERTEX value.
func (m *matchRun) vertexValue(i int32) value.Value {
	v := &m.verts[i]
	if !v.built || !v.withTags {
		_, fetched := m.t.vertexTags[v.key]
		if !v.built || fetched {
			v.val = value.VertexValue(m.t.vertexValue(v.key))
			v.built, v.withTags = true, fetched
		}
	}
	return v.val
}

// edgeValue is edge i as an EDGE value.
func (m *matchRun) edgeValue(i int32) value.Value {
	e := &m.edges[i]
	if !e.built {
		ev := value.Edge{Src: m.t.vids.decode([]byte(e.src)), Dst: m.t.vids.decode([]byte(e.dst)),
			Type: m.t.edgeNames[e.typ], Rank: e.rank, Props: e.props}
		if ev.Props == nil {
			ev.Props = []value.Prop{}
		}
		e.val = value.EdgeValue(ev)
		e.built = true
	}
	return e.val
}

// materialize is the value a binding column's cell stands for.
func (m *matchRun) materialize(kind bindKind, cell value.Value) value.Value {
	if cell.IsNull() {
		return cell
	}
	switch kind {
	case bindNode:
		i, _ := cell.IntVal()
		return m.vertexValue(int32(i))
	case bindEdge:
		i, _ := cell.IntVal()
		return m.edgeValue(int32(i))
	case bindEdges:
		items, _ := cell.ListVal()
		out := make([]value.Value, len(items))
		for j, it := range items {
			i, _ := it.IntVal()
			out[j] = m.edgeValue(int32(i))
		}
		return value.List(out...)
	case bindPath:
		items, _ := cell.ListVal()
		return m.pathValue(items)
	}
	return cell
}

// pathValue builds a PATH from vertex, edge, vertex, ... indexes.
func (m *matchRun) pathValue(items []value.Value) value.Value {
	idx := func(j int) int32 { i, _ := items[j].IntVal(); return int32(i) }
	first, _ := m.vertexValue(idx(0)).VertexVal()
	p := value.Path{Src: *first}
	for j := 1; j+1 < len(items); j += 2 {
		e := &m.edges[idx(j)]
		ev, _ := m.edgeValue(idx(j)).EdgeVal()
		dst, _ := m.vertexValue(idx(j + 1)).VertexVal()
		p.Steps = append(p.Steps, value.Step{Edge: *ev, Reverse: e.src != m.verts[idx(j-1)].key, Dst: *dst})
	}
	return value.PathValue(p)
}

// matchContext evaluates an expression over one row of bindings.
type matchContext struct {
	m    *matchRun
	cols []bindCol
	row  []value.Value
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
	for i, col := range c.cols {
		if col.name == name && !col.hidden {
			return c.m.materialize(col.kind, c.row[i]), true
		}
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

func (m *matchRun) ctx(cols []bindCol, row []value.Value) *matchContext {
	return &matchContext{m: m, cols: cols, row: row}
}

// grow charges rows to the query's memory budget.
func (m *matchRun) grow(rows [][]value.Value, what string) error {
	if m.t.budget == nil || len(rows) == 0 {
		return nil
	}
	return m.t.grow(int64(len(rows))*(rowSize(rows[0])+sliceBytes), what)
}

// matchClause runs one MATCH or OPTIONAL MATCH over the rows before it.
func (m *matchRun) matchClause(ctx context.Context, c *ast.MatchClause, cp *clausePlan, in *bindings) (*bindings, error) {
	width := len(cp.cols)
	origin := len(cp.cols) // OPTIONAL: a last column with the input row's ordinal
	rows := make([][]value.Value, len(in.rows))
	for i, r := range in.rows {
		row := make([]value.Value, width, width+1)
		copy(row, r)
		if c.Optional {
			row = append(row, value.Int(int64(i)))
		}
		rows[i] = row
	}
	var err error
	bound := map[int]bool{} // columns every row has bound (or NULL, after an OPTIONAL MATCH)
	for i := range in.cols {
		bound[i] = true
	}
	for _, pp := range cp.patterns {
		if rows, err = m.matchPattern(ctx, pp, cp, rows, bound); err != nil {
			return nil, err
		}
	}
	if c.Where != nil {
		start := time.Now()
		kept := rows[:0]
		for _, row := range rows {
			ok, err := eval.Filter(m.ctx(cp.cols, row), c.Where)
			if err != nil {
				return nil, at(c.Where, "WHERE: %v", err)
			}
			if ok {
				kept = append(kept, row)
			}
		}
		rows = kept
		m.record("Filter", len(rows), start)
	}
	if c.Optional {
		start := time.Now()
		found := make([]bool, len(in.rows))
		for _, row := range rows {
			i, _ := row[origin].IntVal()
			found[i] = true
		}
		for i, r := range in.rows {
			if !found[i] {
				row := make([]value.Value, width+1)
				copy(row, r)
				rows = append(rows, row)
			}
		}
		m.record("LeftJoin", len(rows), start)
	}
	out := &bindings{rows: rows}
	for _, i := range cp.keep {
		out.cols = append(out.cols, cp.cols[i])
	}
	if len(cp.keep) != width || c.Optional {
		for j, row := range rows {
			nr := make([]value.Value, len(cp.keep))
			for k, i := range cp.keep {
				nr[k] = row[i]
			}
			rows[j] = nr
		}
	}
	return out, nil
}

// matchPattern extends rows with the matches of one pattern.
func (m *matchRun) matchPattern(ctx context.Context, pp *patternPlan, cp *clausePlan, rows [][]value.Value, bound map[int]bool) ([][]value.Value, error) {
	start := time.Now()
	anchorCol := pp.nodeCols[pp.anchor]
	var err error
	switch pp.kind {
	case anchorBound:
		// The column holds the vertex already; a NULL (from an OPTIONAL
		// MATCH before) matches nothing.
		kept := rows[:0]
		for _, row := range rows {
			if !row[anchorCol].IsNull() {
				kept = append(kept, row)
			}
		}
		rows = kept
		m.record("Argument", len(rows), start)
	case anchorIDs:
		var out [][]value.Value
		for _, row := range rows {
			v, err := eval.Eval(m.ctx(cp.cols, row), pp.ids)
			if err != nil {
				return nil, at(pp.ids, "MATCH start %s: %v", pp.ids, err)
			}
			ids := []value.Value{v}
			if pp.idsList {
				if v.IsNull() {
					continue
				}
				var ok bool
				if ids, ok = v.ListVal(); !ok {
					return nil, at(pp.ids, "id(%s) IN %s: expected a LIST, got %s", pp.pat.Nodes[pp.anchor].Var, pp.ids, v.Kind())
				}
			}
			seen := map[int32]bool{}
			for _, id := range ids {
				if id.IsNull() {
					continue
				}
				key, err := m.t.vids.encode(id)
				if err != nil {
					return nil, at(pp.ids, "MATCH start: %v", err)
				}
				vi := m.vertex(key)
				if seen[vi] {
					continue
				}
				seen[vi] = true
				nr := slices.Clone(row)
				nr[anchorCol] = value.Int(int64(vi))
				out = append(out, nr)
			}
		}
		rows = out
		m.record("StartFromIds", len(rows), start)
	case anchorIndex:
		res, err := m.r.lookup(ctx, pp.lookup)
		if err != nil {
			return nil, err
		}
		var out [][]value.Value
		for _, row := range rows {
			for _, vr := range res.rows {
				key, err := m.t.vids.encode(vr[0])
				if err != nil {
					return nil, execErrorf("MATCH index scan: %v", err)
				}
				nr := slices.Clone(row)
				nr[anchorCol] = value.Int(int64(m.vertex(key)))
				out = append(out, nr)
			}
		}
		rows = out
		m.record("IndexScan", len(rows), start)
	}
	bound[anchorCol] = true
	if err := m.grow(rows, "MATCH start rows"); err != nil {
		return nil, err
	}
	if rows, err = m.checkNode(ctx, pp, pp.anchor, cp, rows); err != nil {
		return nil, err
	}
	for _, h := range pp.hops {
		if err := m.t.checkCtx(ctx); err != nil {
			return nil, err
		}
		if pp.pat.Shortest != ast.NotShortest {
			rows, err = m.shortest(ctx, pp, h, cp, rows, bound)
		} else {
			rows, err = m.expand(ctx, pp, h, cp, rows, bound)
		}
		if err != nil {
			return nil, err
		}
		bound[pp.nodeCols[h.to]] = true
		bound[pp.relCols[h.rel]] = true
		if rows, err = m.checkNode(ctx, pp, h.to, cp, rows); err != nil {
			return nil, err
		}
	}
	if pp.pathCol >= 0 {
		want := map[string]bool{}
		for _, row := range rows {
			cell := m.pathCell(pp, row)
			row[pp.pathCol] = cell
			if pp.pathRead {
				items, _ := cell.ListVal()
				for j := 0; j < len(items); j += 2 {
					want[m.verts[mustIndex(items[j])].key] = true
				}
			}
		}
		if len(want) > 0 {
			if err := m.t.fetchVertexProps(ctx, want); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// pathCell is the named path of a matched row: vertex, edge, vertex, ...
func (m *matchRun) pathCell(pp *patternPlan, row []value.Value) value.Value {
	items := []value.Value{row[pp.nodeCols[0]]}
	for i := range pp.pat.Rels {
		cell := row[pp.relCols[i]]
		if !pp.pat.Rels[i].VarLen {
			e, _ := cell.IntVal()
			items = append(items, cell, m.otherEnd(items[len(items)-1], int32(e)))
			continue
		}
		list, _ := cell.ListVal()
		for _, it := range list {
			e, _ := it.IntVal()
			items = append(items, it, m.otherEnd(items[len(items)-1], int32(e)))
		}
	}
	return value.List(items...)
}

// otherEnd is the vertex an edge reaches from vertex cell.
func (m *matchRun) otherEnd(cell value.Value, e int32) value.Value {
	i, _ := cell.IntVal()
	edge := &m.edges[e]
	if m.verts[i].key == edge.src {
		return value.Int(int64(m.vertex([]byte(edge.dst))))
	}
	return value.Int(int64(m.vertex([]byte(edge.src))))
}

// checkNode fetches node n's vertices if the pattern reads them and keeps
// the rows whose vertex has the node's tags and property values.
func (m *matchRun) checkNode(ctx context.Context, pp *patternPlan, n int, cp *clausePlan, rows [][]value.Value) ([][]value.Value, error) {
	if !pp.fetch[n] || len(rows) == 0 {
		return rows, nil
	}
	start := time.Now()
	col := pp.nodeCols[n]
	want := map[string]bool{}
	for _, row := range rows {
		i, _ := row[col].IntVal()
		want[m.verts[i].key] = true
	}
	if err := m.t.fetchVertexProps(ctx, want); err != nil {
		return nil, err
	}
	node := pp.pat.Nodes[n]
	if len(node.Labels) == 0 {
		m.record("GetVertices", len(rows), start)
		return rows, nil
	}
	kept := rows[:0]
	for _, row := range rows {
		i, _ := row[col].IntVal()
		ok, err := m.nodeMatches(node, m.t.vertexTags[m.verts[i].key], cp, row)
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, row)
		}
	}
	m.record("GetVertices", len(kept), start)
	return kept, nil
}

// nodeMatches reports whether a vertex with tags has every tag of node
// and the values of its property maps.
func (m *matchRun) nodeMatches(node *ast.NodePattern, tags []value.TagProps, cp *clausePlan, row []value.Value) (bool, error) {
	for _, l := range node.Labels {
		var tag *value.TagProps
		for i := range tags {
			if tags[i].Name == l.Name {
				tag = &tags[i]
				break
			}
		}
		if tag == nil {
			return false, nil
		}
		if l.Props == nil {
			continue
		}
		have := tag.Map()
		for _, it := range l.Props.Items {
			want, err := eval.Eval(m.ctx(cp.cols, row), it.Value)
			if err != nil {
				return false, at(node, "%s: %v", node, err)
			}
			got, _ := have.MapGet(it.Key)
			if !value.IsTrue(value.Equal(got, want)) {
				return false, nil
			}
		}
	}
	return true, nil
}

// neighbors fetches the edges of the vertices in keys over the hop's
// types: for each vertex key, the indexes of its edges in m.edges.
func (m *matchRun) neighbors(ctx context.Context, keys []string, h hopPlan, props bool) (map[string][]int32, error) {
	out := make(map[string][]int32, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	m.t.filter = ""
	m.t.edgeProps = nil
	if props {
		m.t.edgeProps = m.edgeProps
	}
	resp, err := m.t.neighbors(ctx, keys, h.types, false, "expanding "+h.typeText)
	if err != nil {
		return nil, err
	}
	for _, vn := range resp {
		from := string(vn.Vid)
		list := out[from]
		for _, ne := range vn.Edges {
			e := matchEdge{src: from, dst: string(ne.Dst), typ: ne.EdgeType, rank: ne.Rank}
			if e.typ < 0 {
				e.src, e.dst, e.typ = e.dst, e.src, -e.typ
			}
			if props {
				e.props = []value.Prop{}
				for i, ref := range m.edgeProps {
					if ref.SchemaId == e.typ && i < len(ne.Props) {
						e.props = append(e.props, value.Prop{Name: ref.Name, Value: value.FromProto(ne.Props[i])})
					}
				}
			}
			list = append(list, int32(len(m.edges)))
			m.edges = append(m.edges, e)
		}
		out[from] = list
	}
	return out, nil
}

// usedIn reports whether row already uses edge e in a relationship of the
// clause other than the one at column skip (a MATCH uses an edge once).
func (m *matchRun) usedIn(cp *clausePlan, row []value.Value, e int32, skip int) bool {
	edge := &m.edges[e]
	for _, col := range cp.relCols {
		if col == skip {
			continue
		}
		cell := row[col]
		if cell.IsNull() {
			continue
		}
		if i, ok := cell.IntVal(); ok && cell.Kind() == value.KindInt {
			if m.edges[i].same(edge) {
				return true
			}
			continue
		}
		list, _ := cell.ListVal()
		for _, it := range list {
			i, _ := it.IntVal()
			if m.edges[i].same(edge) {
				return true
			}
		}
	}
	return false
}

// relMatches reports whether edge e has the values of rel's property map.
func (m *matchRun) relMatches(rel *ast.RelPattern, e int32, cp *clausePlan, row []value.Value) (bool, error) {
	if rel.Props == nil {
		return true, nil
	}
	have := value.Map(m.edges[e].props...)
	for _, it := range rel.Props.Items {
		want, err := eval.Eval(m.ctx(cp.cols, row), it.Value)
		if err != nil {
			return false, at(rel, "%s: %v", rel, err)
		}
		got, _ := have.MapGet(it.Key)
		if !value.IsTrue(value.Equal(got, want)) {
			return false, nil
		}
	}
	return true, nil
}

// expand follows one relationship from every row: a GetNeighbors round
// over the distinct vertices the rows are at, per hop of a
// variable-length relationship.
func (m *matchRun) expand(ctx context.Context, pp *patternPlan, h hopPlan, cp *clausePlan, rows [][]value.Value, bound map[int]bool) ([][]value.Value, error) {
	start := time.Now()
	rel := pp.pat.Rels[h.rel]
	fromCol, toCol, relCol := pp.nodeCols[h.from], pp.nodeCols[h.to], pp.relCols[h.rel]
	// toBound: the node's variable is bound before this hop (earlier in
	// the pattern, an earlier pattern or clause), so an edge must reach
	// that very vertex.
	toBound := bound[toCol]
	props := pp.relProps[h.rel]
	cache := map[string][]int32{}
	fetch := func(frontier map[string]bool) error {
		var keys []string
		for k := range frontier {
			if _, done := cache[k]; !done {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		got, err := m.neighbors(ctx, keys, h, props)
		if err != nil {
			return err
		}
		for _, k := range keys {
			cache[k] = got[k]
		}
		return nil
	}
	keyAt := func(row []value.Value, col int) string {
		i, _ := row[col].IntVal()
		return m.verts[i].key
	}
	var out [][]value.Value
	emit := func(row []value.Value, end string) error {
		vi := m.vertex([]byte(end))
		if toBound {
			if i, ok := row[toCol].IntVal(); !ok || int32(i) != vi {
				return nil
			}
		}
		nr := slices.Clone(row)
		nr[toCol] = value.Int(int64(vi))
		out = append(out, nr)
		if len(out)%batchRows == 0 {
			return m.grow(out[len(out)-batchRows:], "MATCH expanding "+rel.String())
		}
		return nil
	}
	if !rel.VarLen {
		frontier := map[string]bool{}
		for _, row := range rows {
			frontier[keyAt(row, fromCol)] = true
		}
		if err := fetch(frontier); err != nil {
			return nil, err
		}
		for _, row := range rows {
			from := keyAt(row, fromCol)
			for _, e := range cache[from] {
				if m.usedIn(cp, row, e, relCol) {
					continue
				}
				ok, err := m.relMatches(rel, e, cp, row)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				row[relCol] = value.Int(int64(e))
				end := m.edges[e].dst
				if m.edges[e].src != from {
					end = m.edges[e].src // followed against its direction
				}
				if err := emit(row, end); err != nil {
					return nil, err
				}
			}
			row[relCol] = value.Null()
		}
		m.record("Expand", len(out), start)
		return out, nil
	}
	// Variable length: grow partial paths hop by hop; each partial path
	// is a row whose relationship cell lists the edges so far and whose
	// end is where it stands.
	type partial struct {
		row   []value.Value
		edges []value.Value
		end   string
	}
	level := make([]partial, 0, len(rows))
	for _, row := range rows {
		level = append(level, partial{row: row, end: keyAt(row, fromCol)})
	}
	for hop := 0; ; hop++ {
		if hop >= rel.Min {
			for _, pt := range level {
				pt.row[relCol] = value.List(pt.edges...)
				if err := emit(pt.row, pt.end); err != nil {
					return nil, err
				}
			}
		}
		if hop == rel.Max || len(level) == 0 {
			break
		}
		frontier := map[string]bool{}
		for _, pt := range level {
			frontier[pt.end] = true
		}
		if err := fetch(frontier); err != nil {
			return nil, err
		}
		var next []partial
		for _, pt := range level {
			pt.row[relCol] = value.Null()
			for _, e := range cache[pt.end] {
				dup := false
				for _, prev := range pt.edges {
					i, _ := prev.IntVal()
					if m.edges[i].same(&m.edges[e]) {
						dup = true
						break
					}
				}
				if dup || m.usedIn(cp, pt.row, e, relCol) {
					continue
				}
				ok, err := m.relMatches(rel, e, cp, pt.row)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				end := m.edges[e].dst
				if m.edges[e].src != pt.end {
					end = m.edges[e].src // followed against its direction
				}
				edges := make([]value.Value, len(pt.edges)+1)
				copy(edges, pt.edges)
				edges[len(pt.edges)] = value.Int(int64(e))
				next = append(next, partial{row: pt.row, edges: edges, end: end})
			}
		}
		if err := m.t.grow(int64(len(next))*(sliceBytes+stringBytes+int64(hop+1)*valueStruct), "MATCH expanding "+rel.String()); err != nil {
			return nil, err
		}
		level = next
	}
	m.record("Expand", len(out), start)
	return out, nil
}

// unwind makes one row per item of the list.
func (m *matchRun) unwind(c *ast.UnwindClause, cp *clausePlan, in *bindings) (*bindings, error) {
	start := time.Now()
	out := &bindings{cols: cp.cols}
	for _, row := range in.rows {
		v, err := eval.Eval(m.ctx(in.cols, row), c.Expr)
		if err != nil {
			return nil, at(c, "UNWIND %s: %v", c.Expr, err)
		}
		items := []value.Value{v}
		if v.IsNull() {
			items = nil
		} else if l, ok := v.ListVal(); ok {
			items = l
		}
		for _, it := range items {
			nr := make([]value.Value, len(row)+1)
			copy(nr, row)
			nr[len(row)] = it
			out.rows = append(out.rows, nr)
		}
	}
	if err := m.grow(out.rows, "UNWIND"); err != nil {
		return nil, err
	}
	m.record("Unwind", len(out.rows), start)
	return out, nil
}

// filter keeps the rows for which cond holds.
func (m *matchRun) filter(b *bindings, cond ast.Expr, what string) (*bindings, error) {
	start := time.Now()
	kept := b.rows[:0]
	for _, row := range b.rows {
		ok, err := eval.Filter(m.ctx(b.cols, row), cond)
		if err != nil {
			return nil, at(cond, "%s: %v", what, err)
		}
		if ok {
			kept = append(kept, row)
		}
	}
	b.rows = kept
	m.record("Filter", len(kept), start)
	return b, nil
}

// project runs a WITH or RETURN: the items (grouped when one has an
// aggregate), DISTINCT, ORDER BY, SKIP and LIMIT. final (RETURN) makes
// every cell a value; WITH keeps nodes and edges as table indexes.
func (m *matchRun) project(ctx context.Context, pr *ast.Projection, in *bindings, final bool) (*bindings, error) {
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
	outCols := make([]bindCol, len(items))
	passCol := make([]int, len(items)) // a bare variable passed through: its input column
	names := make([]string, len(items))
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
	grouping := false
	for i, it := range items {
		e, err := rewrite(it.Expr, func(x ast.Expr) (ast.Expr, error) {
			a, ok := x.(*ast.AggregateExpr)
			if !ok {
				return nil, nil
			}
			grouping = true
			aggs = append(aggs, a)
			return &ast.LabelExpr{Pos: a.Pos, Name: fmt.Sprintf("__agg%d", len(aggs)-1)}, nil
		})
		if err != nil {
			return nil, err
		}
		exprs[i] = e
	}
	if grouping {
		for i := range passCol {
			if findAggregate(items[i].Expr) != nil {
				passCol[i] = -1
				outCols[i].kind = bindValue
			}
		}
	}
	cell := func(mc *matchContext, row []value.Value, i int) (value.Value, error) {
		if passCol[i] >= 0 {
			return row[passCol[i]], nil
		}
		v, err := eval.Eval(mc, exprs[i])
		if err != nil {
			return value.Value{}, at(items[i], "%s: %v", names[i], err)
		}
		return v, nil
	}
	type outRow struct {
		vals []value.Value
		src  []value.Value // the input row (ORDER BY may read it); nil when grouped
	}
	var rows []outRow
	if grouping {
		aggNames := make([]string, len(aggs))
		for i := range aggs {
			aggNames[i] = fmt.Sprintf("__agg%d", i)
		}
		type grp struct {
			row  []value.Value
			accs []*accumulator
		}
		groups := map[string]*grp{}
		var order []*grp
		var key []byte
		for _, row := range in.rows {
			mc := m.ctx(in.cols, row)
			key = key[:0]
			for i, it := range items {
				if findAggregate(it.Expr) != nil {
					continue
				}
				v, err := cell(mc, row, i)
				if err != nil {
					return nil, err
				}
				key = m.materialize(outCols[i].kind, v).AppendKey(key)
			}
			g := groups[string(key)]
			if g == nil {
				g = &grp{row: row, accs: make([]*accumulator, len(aggs))}
				for i, a := range aggs {
					g.accs[i] = newAccumulator(a)
				}
				groups[string(key)] = g
				order = append(order, g)
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
		if len(order) == 0 && len(items) == len(aggs) && allAggregates(items) {
			order = append(order, &grp{accs: func() []*accumulator {
				out := make([]*accumulator, len(aggs))
				for i, a := range aggs {
					out[i] = newAccumulator(a)
				}
				return out
			}()})
		}
		for _, g := range order {
			mc := m.ctx(in.cols, g.row)
			if g.row == nil {
				mc = m.ctx(nil, nil)
			}
			mc.names = aggNames
			mc.vals = make([]value.Value, len(aggs))
			for i, acc := range g.accs {
				mc.vals[i] = acc.result()
			}
			vals := make([]value.Value, len(items))
			for i := range items {
				v, err := cell(mc, g.row, i)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			rows = append(rows, outRow{vals: vals})
		}
	} else {
		for _, row := range in.rows {
			mc := m.ctx(in.cols, row)
			vals := make([]value.Value, len(items))
			for i := range items {
				v, err := cell(mc, row, i)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			rows = append(rows, outRow{vals: vals, src: row})
		}
	}
	if pr.Distinct {
		seen := map[string]bool{}
		kept := rows[:0]
		var key []byte
		for _, r := range rows {
			key = key[:0]
			for i, v := range r.vals {
				key = m.materialize(outCols[i].kind, v).AppendKey(key)
			}
			if !seen[string(key)] {
				seen[string(key)] = true
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	if len(pr.OrderBy) > 0 {
		keys := make([][]value.Value, len(rows))
		for j, r := range rows {
			mc := m.ctx(in.cols, r.src)
			if r.src == nil {
				mc = m.ctx(nil, nil)
			}
			mc.names = names
			mc.vals = make([]value.Value, len(r.vals))
			for i, v := range r.vals {
				mc.vals[i] = m.materialize(outCols[i].kind, v)
			}
			keys[j] = make([]value.Value, len(pr.OrderBy))
			for k, f := range pr.OrderBy {
				v, err := eval.Eval(mc, f.Expr)
				if err != nil {
					return nil, at(f, "ORDER BY %s: %v", f.Expr, err)
				}
				keys[j][k] = v
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
	out := &bindings{cols: outCols, rows: make([][]value.Value, len(rows))}
	for j, r := range rows {
		if final {
			for i, v := range r.vals {
				r.vals[i] = m.materialize(outCols[i].kind, v)
			}
		}
		out.rows[j] = r.vals
	}
	if final {
		for i := range out.cols {
			out.cols[i].kind = bindValue
		}
	}
	if err := m.grow(out.rows, "MATCH "+map[bool]string{true: "RETURN", false: "WITH"}[final]); err != nil {
		return nil, err
	}
	if !final {
		m.record("Project", len(out.rows), start)
	}
	return out, nil
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
