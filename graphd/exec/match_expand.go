package exec

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// clauseRows are the rows of a MATCH clause while its patterns run: the
// bindings with the clause's columns, and for each row the input row it
// extends (origin), which OPTIONAL MATCH needs to keep the rows it finds
// nothing for.
type clauseRows struct {
	b      *bindings
	origin []int32
}

func (cr *clauseRows) gather(parents []int32) {
	cr.b = cr.b.gather(parents)
	origin := make([]int32, len(parents))
	for i, p := range parents {
		origin[i] = cr.origin[p]
	}
	cr.origin = origin
}

// matchClause runs one MATCH or OPTIONAL MATCH over the rows before it.
func (m *matchRun) matchClause(ctx context.Context, c *ast.MatchClause, cp *clausePlan, in *bindings) (*bindings, error) {
	cr := &clauseRows{b: &bindings{cols: cp.cols, vecs: make([]*bindVec, len(cp.cols)), n: in.n}, origin: make([]int32, in.n)}
	copy(cr.b.vecs, in.vecs)
	for i := len(in.vecs); i < len(cp.cols); i++ {
		cr.b.vecs[i] = newVec(cp.cols[i].kind, in.n)
	}
	for i := range cr.origin {
		cr.origin[i] = int32(i)
	}
	bound := map[int]bool{} // columns every row has bound (or NULL, after an OPTIONAL MATCH)
	for i := range in.cols {
		bound[i] = true
	}
	for _, pp := range cp.patterns {
		if err := m.matchPattern(ctx, pp, cp, cr, bound); err != nil {
			return nil, err
		}
	}
	if cp.where != nil {
		start := time.Now()
		var keep []int32
		mc := m.ctx(cr.b, 0)
		for row := 0; row < cr.b.n; row++ {
			mc.row = row
			ok, err := eval.Filter(mc, cp.where)
			if err != nil {
				return nil, at(cp.where, "WHERE: %v", err)
			}
			if ok {
				keep = append(keep, int32(row))
			}
		}
		if len(keep) != cr.b.n {
			cr.gather(keep)
		}
		m.record("Filter", cr.b.n, start)
	}
	out := cr.b
	if c.Optional {
		// Append the input rows nothing matched, their new columns NULL.
		start := time.Now()
		found := make([]bool, in.n)
		for _, o := range cr.origin {
			found[o] = true
		}
		var missing []int32
		for i, f := range found {
			if !f {
				missing = append(missing, int32(i))
			}
		}
		if len(missing) > 0 {
			parents := make([]int32, 0, out.n+len(missing))
			for i := 0; i < out.n; i++ {
				parents = append(parents, int32(i))
			}
			// Row out.n of the extended bindings is a NULL row: the
			// missing input rows copy their old columns from in.
			ext := &bindings{cols: out.cols, vecs: make([]*bindVec, len(out.vecs)), n: out.n + len(missing)}
			for col := range out.vecs {
				if col < len(in.vecs) {
					all := append(append([]int32(nil), cr.origin...), missing...)
					ext.vecs[col] = in.vecs[col].gather(all)
					continue
				}
				v := out.vecs[col].gather(parents)
				null := newVec(cp.cols[col].kind, len(missing))
				v.ids = append(v.ids, null.ids...)
				v.lists = append(v.lists, null.lists...)
				v.vals = append(v.vals, null.vals...)
				ext.vecs[col] = v
			}
			// Keep the input's order: each input row's matches, or its
			// NULL row, where the input row was.
			origins := append(append([]int32(nil), cr.origin...), missing...)
			perm := make([]int32, len(origins))
			for i := range perm {
				perm[i] = int32(i)
			}
			sort.SliceStable(perm, func(a, b int) bool { return origins[perm[a]] < origins[perm[b]] })
			out = ext.gather(perm)
		}
		m.record("LeftJoin", out.n, start)
	}
	if len(cp.keep) != len(cp.cols) {
		kept := &bindings{n: out.n}
		for _, i := range cp.keep {
			kept.cols = append(kept.cols, cp.cols[i])
			kept.vecs = append(kept.vecs, out.vecs[i])
		}
		out = kept
	}
	return out, nil
}

// matchPattern extends the clause's rows with the matches of one pattern.
func (m *matchRun) matchPattern(ctx context.Context, pp *patternPlan, cp *clausePlan, cr *clauseRows, bound map[int]bool) error {
	start := time.Now()
	anchorCol := pp.nodeCols[pp.anchor]
	switch pp.kind {
	case anchorBound:
		// The column holds the vertex already; a NULL (from an OPTIONAL
		// MATCH before) matches nothing.
		ids := cr.b.vecs[anchorCol].ids
		var keep []int32
		for row, id := range ids {
			if id != noCell {
				keep = append(keep, int32(row))
			}
		}
		if len(keep) != cr.b.n {
			cr.gather(keep)
		}
		m.record("Argument", cr.b.n, start)
	case anchorIDs:
		var parents, starts []int32
		mc := m.ctx(cr.b, 0)
		for row := 0; row < cr.b.n; row++ {
			mc.row = row
			v, err := eval.Eval(mc, pp.ids)
			if err != nil {
				return at(pp.ids, "MATCH start %s: %v", pp.ids, err)
			}
			ids := []value.Value{v}
			if pp.idsList {
				if v.IsNull() {
					continue
				}
				var ok bool
				if ids, ok = v.ListVal(); !ok {
					return at(pp.ids, "id(%s) IN %s: expected a LIST, got %s", pp.pat.Nodes[pp.anchor].Var, pp.ids, v.Kind())
				}
			}
			seen := map[int32]bool{}
			for _, id := range ids {
				if id.IsNull() {
					continue
				}
				key, err := m.t.vids.encode(id)
				if err != nil {
					return at(pp.ids, "MATCH start: %v", err)
				}
				vi := m.vertex(key)
				if !seen[vi] {
					seen[vi] = true
					parents = append(parents, int32(row))
					starts = append(starts, vi)
				}
			}
		}
		cr.gather(parents)
		cr.b.vecs[anchorCol] = idsVec(bindNode, starts)
		m.record("StartFromIds", cr.b.n, start)
	case anchorIndex:
		res, err := m.r.lookup(ctx, pp.lookup)
		if err != nil {
			return err
		}
		var parents, starts []int32
		for row := 0; row < cr.b.n; row++ {
			for _, vr := range res.rows {
				key, err := m.t.vids.encode(vr[0])
				if err != nil {
					return execErrorf("MATCH index scan: %v", err)
				}
				parents = append(parents, int32(row))
				starts = append(starts, m.vertex(key))
			}
		}
		cr.gather(parents)
		cr.b.vecs[anchorCol] = idsVec(bindNode, starts)
		m.record("IndexScan", cr.b.n, start)
	}
	bound[anchorCol] = true
	if err := m.grow(cr.b.n, len(cr.b.vecs), "MATCH start rows"); err != nil {
		return err
	}
	if err := m.checkNode(ctx, pp, pp.anchor, cp, cr); err != nil {
		return err
	}
	for _, h := range pp.hops {
		if err := m.t.checkCtx(ctx); err != nil {
			return err
		}
		var err error
		if pp.pat.Shortest != ast.NotShortest {
			err = m.shortest(ctx, pp, h, cp, cr, bound)
		} else {
			err = m.expand(ctx, pp, h, cp, cr, bound)
		}
		if err != nil {
			return err
		}
		bound[pp.nodeCols[h.to]] = true
		bound[pp.relCols[h.rel]] = true
		if err := m.checkNode(ctx, pp, h.to, cp, cr); err != nil {
			return err
		}
	}
	if pp.pathCol >= 0 {
		paths := make([][]int32, cr.b.n)
		want := map[string]bool{}
		for row := range paths {
			paths[row] = m.pathCell(pp, cr.b, row)
			if pp.pathRead {
				for j := 0; j < len(paths[row]); j += 2 {
					want[m.verts.key(paths[row][j])] = true
				}
			}
		}
		cr.b.vecs[pp.pathCol] = listsVec(bindPath, paths)
		if len(want) > 0 {
			if err := m.t.fetchVertexProps(ctx, want); err != nil {
				return err
			}
		}
	}
	return nil
}

// pathCell is the named path of a matched row: vertex, edge, vertex, ...
func (m *matchRun) pathCell(pp *patternPlan, b *bindings, row int) []int32 {
	items := []int32{b.vecs[pp.nodeCols[0]].ids[row]}
	step := func(e int32) {
		at := items[len(items)-1]
		other := m.edges[e].dst
		if m.edges[e].src != at {
			other = m.edges[e].src
		}
		items = append(items, e, other)
	}
	for i, rel := range pp.pat.Rels {
		v := b.vecs[pp.relCols[i]]
		if rel.VarLen {
			for _, e := range v.lists[row] {
				step(e)
			}
		} else {
			step(v.ids[row])
		}
	}
	return items
}

// checkNode fetches node n's vertices if the pattern reads them and keeps
// the rows whose vertex has the node's tags and property values.
func (m *matchRun) checkNode(ctx context.Context, pp *patternPlan, n int, cp *clausePlan, cr *clauseRows) error {
	if !pp.fetch[n] || cr.b.n == 0 {
		return nil
	}
	start := time.Now()
	ids := cr.b.vecs[pp.nodeCols[n]].ids
	node := pp.pat.Nodes[n]
	if refs := pp.slim[n]; refs != nil {
		seen := make(map[int32]bool, len(ids))
		var distinct []int32
		for _, i := range ids {
			if !seen[i] {
				seen[i] = true
				distinct = append(distinct, i)
			}
		}
		if err := m.fetchSlim(ctx, distinct, refs); err != nil {
			return err
		}
		if len(node.Labels) > 0 {
			if err := cr.keep(func(row int) (bool, error) { return m.slimNodeMatches(pp, n, ids[row], cr.b, row) }); err != nil {
				return err
			}
		}
		m.record("GetVertices", cr.b.n, start)
		return nil
	}
	want := map[string]bool{}
	for _, i := range ids {
		want[m.verts.key(i)] = true
	}
	if err := m.t.fetchVertexProps(ctx, want); err != nil {
		return err
	}
	if len(node.Labels) > 0 {
		if err := cr.keep(func(row int) (bool, error) {
			return m.nodeMatches(node, m.t.vertexTags[m.verts.key(ids[row])], cr.b, row)
		}); err != nil {
			return err
		}
	}
	m.record("GetVertices", cr.b.n, start)
	return nil
}

// keep keeps the rows for which ok holds.
func (cr *clauseRows) keep(ok func(row int) (bool, error)) error {
	var kept []int32
	for row := 0; row < cr.b.n; row++ {
		yes, err := ok(row)
		if err != nil {
			return err
		}
		if yes {
			kept = append(kept, int32(row))
		}
	}
	if len(kept) != cr.b.n {
		cr.gather(kept)
	}
	return nil
}

// nodeMatches reports whether a vertex with tags has every tag of node
// and the values of its property maps.
func (m *matchRun) nodeMatches(node *ast.NodePattern, tags []value.TagProps, b *bindings, row int) (bool, error) {
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
			want, err := eval.Eval(m.ctx(b, row), it.Value)
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
// types: for each vertex, the indexes of its edges in m.edges. With one
// edge type and no properties, storage answers in columns (packed_edges),
// not a message per edge.
func (m *matchRun) neighbors(ctx context.Context, from []int32, h hopPlan, props bool) (map[int32][]int32, error) {
	out := make(map[int32][]int32, len(from))
	if len(from) == 0 || len(h.types) == 0 {
		return out, nil
	}
	parts := map[int32]*storagepb.VidList{}
	for _, v := range from {
		key := []byte(m.verts.key(v))
		pt := m.t.vids.part(key)
		if parts[pt] == nil {
			parts[pt] = &storagepb.VidList{}
		}
		parts[pt].Vids = append(parts[pt].Vids, key)
	}
	req := &storagepb.GetNeighborsReq{SpaceId: m.p.space.GetSpaceId(), CatalogVersion: m.p.snap.Version(),
		EdgeTypes: h.types, PackedStrings: true}
	if props {
		// Only the properties of the hop's own types.
		for _, ref := range m.edgeProps {
			for _, t := range h.types {
				if ref.SchemaId == t || ref.SchemaId == -t {
					req.EdgeProps = append(req.EdgeProps, ref)
					break
				}
			}
		}
	}
	// One edge type: the edges come in columns, not a message each.
	req.PackedEdges = len(h.types) == 1
	var onBatch func([]*storagepb.VertexNeighbors) error
	if m.t.budget != nil {
		what := "receiving MATCH " + h.typeText + " from storage"
		onBatch = func(batch []*storagepb.VertexNeighbors) error { return m.t.grow(neighborsSize(batch), what) }
	}
	resp, err := m.r.x.storage.GetNeighborsStream(ctx, req, parts, onBatch)
	if err != nil {
		if e, ok := isLimitError(err); ok {
			return nil, e
		}
		if ctx.Err() != nil {
			return nil, ctxError(ctx, "MATCH")
		}
		return nil, storageError("MATCH expanding "+h.typeText, err)
	}
	// Size the tables once: a hop adds an edge per answer and about as
	// many vertices.
	total := 0
	before := len(m.edges)
	for _, vn := range resp {
		if err := checkNeighbors(vn, req, m.vidLen); err != nil {
			return nil, storageError("MATCH expanding "+h.typeText, err)
		}
		total += len(vn.Edges) + len(vn.PackedDsts)/m.vidLen
	}
	m.edges = slices.Grow(m.edges, total)
	m.verts.reserve(total)
	for _, vn := range resp {
		src := m.vertex(vn.Vid)
		list := out[src]
		if list == nil {
			list = make([]int32, 0, len(vn.Edges)+len(vn.PackedDsts)/m.vidLen)
		}
		add := func(typ int32, rank int64, dst []byte, eprops []value.Prop) {
			e := matchEdge{src: src, dst: m.vertex(dst), typ: typ, rank: rank, props: eprops}
			if e.typ < 0 {
				e.src, e.dst, e.typ = e.dst, e.src, -e.typ
			}
			list = append(list, int32(len(m.edges)))
			m.edges = append(m.edges, e)
		}
		if req.PackedEdges {
			n := len(vn.PackedDsts) / m.vidLen
			var cols *edgeColumns
			if props {
				cols = &edgeColumns{refs: req.EdgeProps, cols: vn.EdgeColumns}
			}
			for i := 0; i < n; i++ {
				var rank int64
				if i < len(vn.PackedRanks) {
					rank = vn.PackedRanks[i]
				}
				add(h.types[0], rank, vn.PackedDsts[i*m.vidLen:(i+1)*m.vidLen], nil)
				if cols != nil {
					e := &m.edges[len(m.edges)-1]
					e.cols, e.at = cols, int32(i)
				}
			}
		} else {
			for _, ne := range vn.Edges {
				var eprops []value.Prop
				if props {
					typ := ne.EdgeType
					if typ < 0 {
						typ = -typ
					}
					eprops = []value.Prop{}
					for i, ref := range req.EdgeProps {
						if ref.SchemaId == typ && i < len(ne.Props) {
							eprops = append(eprops, value.Prop{Name: ref.Name, Value: value.FromProto(ne.Props[i])})
						}
					}
				}
				add(ne.EdgeType, ne.Rank, ne.Dst, eprops)
			}
		}
		out[src] = list
	}
	if err := m.t.grow(int64(len(m.edges)-before)*matchEdgeBytes, "MATCH edges"); err != nil {
		return nil, err
	}
	return out, nil
}

// matchEdgeBytes is about what one matchEdge holds.
const matchEdgeBytes = 64

// usedIn reports whether row already uses edge e in a relationship of the
// clause other than the one at column skip (a MATCH uses an edge once).
func (m *matchRun) usedIn(cp *clausePlan, b *bindings, row int, e int32, skip int) bool {
	edge := &m.edges[e]
	for _, col := range cp.relCols {
		if col == skip {
			continue
		}
		v := b.vecs[col]
		if v.kind == bindEdge {
			if i := v.ids[row]; i != noCell && m.edges[i].same(edge) {
				return true
			}
			continue
		}
		for _, i := range v.lists[row] {
			if m.edges[i].same(edge) {
				return true
			}
		}
	}
	return false
}

// relMatches reports whether edge e has the values of rel's property map.
func (m *matchRun) relMatches(rel *ast.RelPattern, e int32, b *bindings, row int) (bool, error) {
	if rel.Props == nil {
		return true, nil
	}
	for _, it := range rel.Props.Items {
		want, err := eval.Eval(m.ctx(b, row), it.Value)
		if err != nil {
			return false, at(rel, "%s: %v", rel, err)
		}
		got, _ := m.edgeProp(&m.edges[e], it.Key)
		if !value.IsTrue(value.Equal(got, want)) {
			return false, nil
		}
	}
	return true, nil
}

// otherEnd is the vertex edge e reaches from vertex from.
func (m *matchRun) otherEnd(e, from int32) int32 {
	if m.edges[e].src == from {
		return m.edges[e].dst
	}
	return m.edges[e].src
}

// fetchFrontier asks storage for the edges of the vertices of frontier not
// in cache yet, and adds them to cache.
func (m *matchRun) fetchFrontier(ctx context.Context, frontier map[int32]bool, cache map[int32][]int32, h hopPlan, props bool) error {
	var from []int32
	for v := range frontier {
		if _, done := cache[v]; !done {
			from = append(from, v)
		}
	}
	sort.Slice(from, func(i, j int) bool { return from[i] < from[j] })
	got, err := m.neighbors(ctx, from, h, props)
	if err != nil {
		return err
	}
	for _, v := range from {
		cache[v] = got[v]
	}
	return nil
}

// expand follows one relationship from every row: a GetNeighbors round
// over the distinct vertices the rows are at, per hop of a
// variable-length relationship.
func (m *matchRun) expand(ctx context.Context, pp *patternPlan, h hopPlan, cp *clausePlan, cr *clauseRows, bound map[int]bool) error {
	start := time.Now()
	rel := pp.pat.Rels[h.rel]
	fromCol, toCol, relCol := pp.nodeCols[h.from], pp.nodeCols[h.to], pp.relCols[h.rel]
	// toBound: the node's variable is bound before this hop (earlier in
	// the pattern, an earlier pattern or clause), so an edge must reach
	// that very vertex.
	toBound := bound[toCol]
	props := pp.relProps[h.rel]
	b := cr.b
	fromIDs := b.vecs[fromCol].ids
	toIDs := b.vecs[toCol].ids
	cache := map[int32][]int32{}
	what := "MATCH expanding " + rel.String()
	var parents, ends []int32
	var rels []int32    // a plain relationship: the edge per new row
	var lists [][]int32 // a variable-length one: the edges per new row
	emit := func(row int, end int32) error {
		if toBound && toIDs[row] != end {
			return nil
		}
		parents = append(parents, int32(row))
		ends = append(ends, end)
		if len(parents)%batchRows == 0 {
			// Once the frontier is cached a hop makes rows without a
			// storage call, which would notice a KILL or a timeout: look
			// here, once a batch.
			if ctx.Err() != nil {
				return ctxError(ctx, what)
			}
			return m.grow(batchRows, len(b.vecs), what)
		}
		return nil
	}
	if !rel.VarLen {
		frontier := map[int32]bool{}
		for _, v := range fromIDs {
			frontier[v] = true
		}
		if err := m.fetchFrontier(ctx, frontier, cache, h, props); err != nil {
			return err
		}
		expect := 0
		for _, from := range fromIDs {
			expect += len(cache[from])
		}
		parents, ends, rels = make([]int32, 0, expect), make([]int32, 0, expect), make([]int32, 0, expect)
		for row, from := range fromIDs {
			for _, e := range cache[from] {
				if m.usedIn(cp, b, row, e, relCol) {
					continue
				}
				if ok, err := m.relMatches(rel, e, b, row); err != nil {
					return err
				} else if !ok {
					continue
				}
				n := len(parents)
				if err := emit(row, m.otherEnd(e, from)); err != nil {
					return err
				}
				if len(parents) > n {
					rels = append(rels, e)
				}
			}
		}
	} else {
		// Variable length: grow partial paths hop by hop. A partial path is
		// the row it extends, where it stands, and its last edge with the
		// partial path it extends (an index into the level before): the
		// paths of a level share their prefixes, and an edge list is made
		// only for a path that becomes a row.
		type partial struct {
			row, end   int32
			edge, prev int32 // noCell for the empty path
		}
		levels := [][]partial{make([]partial, 0, b.n)}
		for row, from := range fromIDs {
			levels[0] = append(levels[0], partial{row: int32(row), end: from, edge: noCell, prev: noCell})
		}
		// walk calls f for each edge of the path at levels[hop][i], last first.
		walk := func(hop int, i int32, f func(e int32) bool) {
			for ; hop > 0 && i != noCell; hop-- {
				pt := levels[hop][i]
				if !f(pt.edge) {
					return
				}
				i = pt.prev
			}
		}
		var arena []int32 // the edge lists of emitted paths, allocated in chunks
		for hop := 0; ; hop++ {
			level := levels[hop]
			if hop >= rel.Min {
				for i, pt := range level {
					n := len(parents)
					if err := emit(int(pt.row), pt.end); err != nil {
						return err
					}
					if len(parents) > n {
						// The emitted lists share arrays allocated in
						// chunks, not one allocation per row.
						if arena == nil || cap(arena)-len(arena) < hop {
							// (never nil: an empty list is a 0-hop path, nil a NULL one)
							arena = make([]int32, 0, max(4096, hop*len(level)))
						}
						arena = arena[:len(arena)+hop]
						edges := arena[len(arena)-hop : len(arena) : len(arena)]
						k := hop
						walk(hop, int32(i), func(e int32) bool { k--; edges[k] = e; return true })
						if h.reverse {
							slices.Reverse(edges)
						}
						lists = append(lists, edges)
					}
				}
			}
			if hop == rel.Max || len(level) == 0 {
				break
			}
			frontier := map[int32]bool{}
			for _, pt := range level {
				frontier[pt.end] = true
			}
			if err := m.fetchFrontier(ctx, frontier, cache, h, props); err != nil {
				return err
			}
			var next []partial
			for i, pt := range level {
				if i%batchRows == 0 && ctx.Err() != nil {
					return ctxError(ctx, what)
				}
				for _, e := range cache[pt.end] {
					dup := false
					walk(hop, int32(i), func(prev int32) bool {
						dup = m.edges[prev].same(&m.edges[e])
						return !dup
					})
					if dup || m.usedIn(cp, b, int(pt.row), e, relCol) {
						continue
					}
					if ok, err := m.relMatches(rel, e, b, int(pt.row)); err != nil {
						return err
					} else if !ok {
						continue
					}
					next = append(next, partial{row: pt.row, end: m.otherEnd(e, pt.end), edge: e, prev: int32(i)})
				}
			}
			if err := m.t.grow(int64(len(next))*16, what); err != nil {
				return err
			}
			levels = append(levels, next)
		}
	}
	if rel.VarLen && !slices.IsSorted(parents) {
		// Paths came out level by level: put each row's paths back
		// together, in the order of the rows they extend. (One level,
		// as *2 is, comes out in order.)
		perm := make([]int, len(parents))
		for i := range perm {
			perm[i] = i
		}
		sort.SliceStable(perm, func(a, b int) bool { return parents[perm[a]] < parents[perm[b]] })
		p2, e2, l2 := make([]int32, len(perm)), make([]int32, len(perm)), make([][]int32, len(perm))
		for i, j := range perm {
			p2[i], e2[i], l2[i] = parents[j], ends[j], lists[j]
		}
		parents, ends, lists = p2, e2, l2
	}
	cr.gather(parents)
	if !toBound {
		cr.b.vecs[toCol] = idsVec(bindNode, ends)
	}
	if rel.VarLen {
		cr.b.vecs[relCol] = listsVec(bindEdges, lists)
	} else {
		cr.b.vecs[relCol] = idsVec(bindEdge, rels)
	}
	m.record("Expand", cr.b.n, start)
	return nil
}
