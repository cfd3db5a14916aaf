package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// FIND PATH, NebulaGraph 3.x semantics:
//
//   - The pairs are every FROM vertex with every TO vertex (each list
//     deduplicated). A path has 1 to N hops (UPTO N STEPS, default 5); a
//     vertex is never a path to itself with 0 hops.
//   - SHORTEST: for each pair, every path of the least length ≤ N. Parallel
//     edges (another type or rank) make distinct paths.
//   - ALL: every trail (no edge twice; vertices may repeat, so a path may
//     pass through its target, or its source, and go on) of ≤ N hops.
//   - NOLOOP: every path of ≤ N hops with no vertex twice.
//   - WHERE filters the edges a path may use (storage evaluates it on each
//     edge, so it may read only the edge).
//   - REVERSELY follows in-edges, BIDIRECT both; a hop against an edge's
//     direction prints as <-[:e@rank {}]-.
//   - The result is one row per path, ordered by its printed form.
//
// SHORTEST is a bidirectional BFS over destination ids only (dst_only,
// batched per round over every root's frontier): a BFS from each source and
// one (over reversed edges) from each target, always growing the side with
// the smaller frontier, until each pair meets or the depths add up to N.
// The first meeting of a pair fixes its length, since BFS levels are exact.
// Then the edges of the vertices on the pair's shortest paths (only those)
// are fetched with their type and rank — and properties, WITH PROP — to
// spell the paths out.
//
// ALL and NOLOOP first run a BFS back from the targets (dst_only) for each
// vertex's distance to the nearest target, then grow paths from the sources
// hop by hop, keeping only the partial paths that can still reach a target
// within N hops. Partial paths share prefixes (a linked list), and their
// number is bounded (maxPartialPaths), besides the query's memory budget.

// maxPartialPaths bounds the partial paths FIND ALL/NOLOOP PATH keeps, and
// the paths any FIND PATH returns.
const maxPartialPaths = 4_000_000

// traversal is what FIND PATH and GET SUBGRAPH share: the space, the edge
// types and the property requests.
type traversal struct {
	r         *runState
	snap      *catalog.Snapshot
	space     *metapb.SpaceDesc
	vids      vidCodec
	vidLen    int
	edgeNames map[int32]string // unsigned edge type → name
	filter    string           // pushed into every GetNeighbors
	withProp  bool
	edgeProps []*storagepb.PropRef // WITH PROP: every property of the edge types
	tagProps  []*storagepb.PropRef // WITH PROP: every property of every tag, then the tags' markers
	tags      []*metapb.TagDesc    // the tags of tagProps' markers, in order
	budget    *Budget
	what      string // the statement, for errors
	// props fetched WITH PROP: vertex key → its tags.
	vertexTags map[string][]value.TagProps
}

func (r *runState) newTraversal(ctx context.Context, n ast.Node, what string, withProp bool) (*traversal, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, n)
	if err != nil {
		return nil, err
	}
	vidLen := int(space.GetVidLen())
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		vidLen = 8
	}
	return &traversal{
		r: r, snap: snap, space: space, vids: vidCodec{space}, vidLen: vidLen,
		edgeNames: map[int32]string{}, withProp: withProp, budget: BudgetOf(ctx), what: what,
		vertexTags: map[string][]value.TagProps{},
	}, nil
}

// edgeByName resolves an edge type of the space.
func (t *traversal) edgeByName(n ast.Node, name string) (*metapb.EdgeDesc, error) {
	e, ok := t.snap.EdgeByName(t.space.GetSpaceId(), name)
	if !ok {
		return nil, at(n, "edge %q not found in space %q", name, t.space.GetName())
	}
	return e, nil
}

// useEdges records the edge types traversed, and WITH PROP asks for all
// their properties.
func (t *traversal) useEdges(edges []*metapb.EdgeDesc) {
	for _, e := range edges {
		if _, dup := t.edgeNames[e.GetEdgeType()]; dup {
			continue
		}
		t.edgeNames[e.GetEdgeType()] = e.GetName()
		if t.withProp {
			vs := e.GetVersions()
			if len(vs) == 0 {
				continue
			}
			for _, c := range vs[len(vs)-1].GetColumns() {
				t.edgeProps = append(t.edgeProps, &storagepb.PropRef{SchemaId: e.GetEdgeType(), Name: c.GetName()})
			}
		}
	}
	if t.withProp && t.tags == nil {
		t.tags = t.snap.Tags(t.space.GetSpaceId())
		for _, tag := range t.tags {
			vs := tag.GetVersions()
			if len(vs) == 0 {
				continue
			}
			for _, c := range vs[len(vs)-1].GetColumns() {
				t.tagProps = append(t.tagProps, &storagepb.PropRef{SchemaId: tag.GetTagId(), Name: c.GetName()})
			}
		}
		for _, tag := range t.tags {
			t.tagProps = append(t.tagProps, &storagepb.PropRef{SchemaId: tag.GetTagId(), Name: "_tag"})
		}
	}
}

// checkEdgeFilter validates a FIND PATH WHERE: it may read only the
// properties of the traversed edges, since storage evaluates it on each
// edge, whichever way a search follows it.
func (t *traversal) checkEdgeFilter(where ast.Expr, over map[string]*metapb.EdgeDesc) error {
	if where == nil {
		return nil
	}
	props := eval.CollectProps(where)
	if len(props.Src)+len(props.Dst) > 0 {
		return at(where, "the WHERE of %s can only filter edge properties, not $^ or $$", t.what)
	}
	if props.AllEdge {
		return at(where, "the WHERE of %s reads edge properties as edge.prop, not through properties(edge)", t.what)
	}
	if len(props.Input)+len(props.Var) > 0 {
		return at(where, "the WHERE of %s cannot read $- or variables", t.what)
	}
	if err := checkCalls(where); err != nil {
		return err
	}
	var bad error
	ast.Inspect(where, func(x ast.Expr) bool {
		switch x := x.(type) {
		case *ast.LabelExpr:
			bad = at(x, "invalid label %q: name an edge property as edge.prop", x.Name)
		case *ast.VertexExpr:
			bad = at(x, "the WHERE of %s can only filter edge properties", t.what)
		}
		return bad == nil
	})
	if bad != nil {
		return bad
	}
	for _, ref := range props.Edge {
		if ref.Owner == eval.AnyEdge {
			continue
		}
		e, ok := over[ref.Owner]
		if !ok {
			if _, exists := t.snap.EdgeByName(t.space.GetSpaceId(), ref.Owner); exists {
				return at(where, "edge %q is not in the OVER clause", ref.Owner)
			}
			return at(where, "edge %q not found in space %q", ref.Owner, t.space.GetName())
		}
		if !eval.IsReservedProp(ref.Name) && !hasColumn(e.GetVersions(), ref.Name) {
			return at(where, "edge %q has no property %q", ref.Owner, ref.Name)
		}
	}
	t.filter = where.String()
	return nil
}

func (t *traversal) grow(n int64, what string) error {
	return t.budget.Grow(n, what)
}

func (t *traversal) checkCtx(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctxError(ctx, t.what)
	}
	return nil
}

// neighbors runs one GetNeighbors for vs, grouped by partition: dst_only,
// or every edge with its type, rank and (WITH PROP) properties.
func (t *traversal) neighbors(ctx context.Context, vs []string, types []int32, dstOnly bool, what string) ([]*storagepb.VertexNeighbors, error) {
	if len(vs) == 0 || len(types) == 0 {
		return nil, nil
	}
	parts := map[int32]*storagepb.VidList{}
	for _, v := range vs {
		b := []byte(v)
		pt := t.vids.part(b)
		if parts[pt] == nil {
			parts[pt] = &storagepb.VidList{}
		}
		parts[pt].Vids = append(parts[pt].Vids, b)
	}
	req := &storagepb.GetNeighborsReq{SpaceId: t.space.GetSpaceId(), CatalogVersion: t.snap.Version(),
		EdgeTypes: types, Filter: t.filter, DstOnly: dstOnly}
	if !dstOnly {
		req.EdgeProps = t.edgeProps
	}
	resp, err := t.r.x.storage.GetNeighbors(ctx, req, parts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx, t.what)
		}
		return nil, storageError(t.what+" "+what, err)
	}
	if err := t.grow(neighborsSize(resp), "receiving "+t.what+" "+what+" from storage"); err != nil {
		return nil, err
	}
	return resp, nil
}

// hop is one edge followed from a vertex: the vertex reached and the edge,
// typ signed relative to the traversal (< 0: against the edge's direction).
type hop struct {
	to    string
	typ   int32
	rank  int64
	props []*commonpb.Value
}

// edgeKey identifies the stored edge of a hop from `from`: the key of a
// trail's "no edge twice".
func (t *traversal) edgeKey(from string, h hop) string {
	src, dst, typ := from, h.to, h.typ
	if typ < 0 {
		src, dst, typ = h.to, from, -typ
	}
	b := make([]byte, 0, len(src)+len(dst)+12)
	b = append(b, src...)
	b = append(b, dst...)
	b = binary.BigEndian.AppendUint32(b, uint32(typ))
	b = binary.BigEndian.AppendUint64(b, uint64(h.rank))
	return string(b)
}

// edgeValue is the stored edge of a hop from `from`.
func (t *traversal) edgeValue(from string, h hop) value.Edge {
	src, dst, typ := from, h.to, h.typ
	if typ < 0 {
		src, dst, typ = h.to, from, -typ
	}
	e := value.Edge{Src: t.vids.decode([]byte(src)), Dst: t.vids.decode([]byte(dst)), Type: t.edgeNames[typ], Rank: h.rank}
	if t.withProp {
		e.Props = []value.Prop{}
		for i, ref := range t.edgeProps {
			if ref.SchemaId == typ && i < len(h.props) {
				e.Props = append(e.Props, value.Prop{Name: ref.Name, Value: value.FromProto(h.props[i])})
			}
		}
	}
	return e
}

// vertexValue is a vertex as a path or subgraph prints it: its id, and
// WITH PROP its tags (fetchVertexProps must have run).
func (t *traversal) vertexValue(v string) value.Vertex {
	out := value.Vertex{VID: t.vids.decode([]byte(v))}
	if t.withProp {
		out.Tags = t.vertexTags[v]
	}
	return out
}

// fetchVertexProps reads every tag of every vertex in vs (WITH PROP).
func (t *traversal) fetchVertexProps(ctx context.Context, vs map[string]bool) error {
	if !t.withProp || len(t.tags) == 0 {
		return nil
	}
	parts := map[int32]*storagepb.VidList{}
	for v := range vs {
		if _, done := t.vertexTags[v]; done {
			continue
		}
		b := []byte(v)
		pt := t.vids.part(b)
		if parts[pt] == nil {
			parts[pt] = &storagepb.VidList{}
		}
		parts[pt].Vids = append(parts[pt].Vids, b)
	}
	if len(parts) == 0 {
		return nil
	}
	req := &storagepb.GetPropsReq{SpaceId: t.space.GetSpaceId(), CatalogVersion: t.snap.Version(), Props: t.tagProps}
	rows, err := t.r.x.storage.GetProps(ctx, req, parts, nil)
	if err != nil {
		if ctx.Err() != nil {
			return ctxError(ctx, t.what)
		}
		return storageError(t.what+" fetching vertex properties", err)
	}
	if err := t.grow(propRowsSize(rows), "receiving "+t.what+" vertex properties from storage"); err != nil {
		return err
	}
	markers := len(t.tagProps) - len(t.tags)
	for _, row := range rows {
		var tags []value.TagProps
		for k, tag := range t.tags {
			if markers+k >= len(row.Values) || value.FromProto(row.Values[markers+k]).IsNull() {
				continue
			}
			tp := value.TagProps{Name: tag.GetName(), Props: []value.Prop{}}
			for i := 0; i < markers && i < len(row.Values); i++ {
				if t.tagProps[i].SchemaId == tag.GetTagId() {
					tp.Props = append(tp.Props, value.Prop{Name: t.tagProps[i].Name, Value: value.FromProto(row.Values[i])})
				}
			}
			tags = append(tags, tp)
		}
		t.vertexTags[string(row.Vid)] = tags
	}
	return nil
}

// findPath runs FIND SHORTEST | ALL | NOLOOP PATH.
func (r *runState) findPath(ctx context.Context, s *ast.FindPathStmt, input *table) (*table, error) {
	t, err := r.newTraversal(ctx, s, "FIND "+s.Kind.String()+" PATH", s.WithProp)
	if err != nil {
		return nil, err
	}
	var over []*metapb.EdgeDesc
	if s.Over.All {
		over = t.snap.Edges(t.space.GetSpaceId())
		if len(over) == 0 {
			return nil, at(s.Over, "OVER *: space %q has no edge types", t.space.GetName())
		}
	} else {
		for _, name := range s.Over.Edges {
			e, err := t.edgeByName(s.Over, name)
			if err != nil {
				return nil, err
			}
			over = append(over, e)
		}
	}
	t.useEdges(over)
	byName := map[string]*metapb.EdgeDesc{}
	var fwd, bwd []int32
	for _, e := range over {
		if byName[e.GetName()] != nil {
			continue
		}
		byName[e.GetName()] = e
		et := e.GetEdgeType()
		switch s.Over.Direction {
		case ast.Reversely:
			fwd, bwd = append(fwd, -et), append(bwd, et)
		case ast.Bidirect:
			fwd, bwd = append(fwd, et, -et), append(bwd, -et, et)
		default:
			fwd, bwd = append(fwd, et), append(bwd, -et)
		}
	}
	where, err := mustBindParams(r.params, s.Where, "FIND PATH")
	if err != nil {
		return nil, err
	}
	if err := t.checkEdgeFilter(where, byName); err != nil {
		return nil, err
	}
	from, err := r.startVids(t.vids, s.From, input)
	if err != nil {
		return nil, err
	}
	to, err := r.startVids(t.vids, s.To, input)
	if err != nil {
		return nil, err
	}
	var paths []value.Path
	if s.Steps > 0 && len(from.vids) > 0 && len(to.vids) > 0 {
		srcs, dsts := keysOf(from.vids), keysOf(to.vids)
		if s.Kind == ast.ShortestPath {
			paths, err = t.shortestPaths(ctx, srcs, dsts, fwd, bwd, s.Steps)
		} else {
			paths, err = t.allPaths(ctx, srcs, dsts, fwd, bwd, s.Steps, s.Kind == ast.NoLoopPaths)
		}
		if err != nil {
			return nil, err
		}
	}
	if t.withProp {
		vs := map[string]bool{}
		for i := range paths {
			// Keys of the vertices, re-encoded from the path's ids.
			for _, n := range paths[i].Nodes() {
				b, err := t.vids.encode(n.VID)
				if err == nil {
					vs[string(b)] = true
				}
			}
		}
		if err := t.fetchVertexProps(ctx, vs); err != nil {
			return nil, err
		}
		for i := range paths {
			p := &paths[i]
			p.Src = t.vertexValueOf(p.Src.VID)
			for j := range p.Steps {
				p.Steps[j].Dst = t.vertexValueOf(p.Steps[j].Dst.VID)
			}
		}
	}
	out := newTable(s.Column())
	for _, p := range paths {
		out.add(value.PathValue(p))
	}
	sort.SliceStable(out.rows, func(i, j int) bool { return out.rows[i][0].String() < out.rows[j][0].String() })
	if err := t.grow(tableSize(out), "building the "+t.what+" result"); err != nil {
		return nil, err
	}
	return out, nil
}

func (t *traversal) vertexValueOf(vid value.Value) value.Vertex {
	b, err := t.vids.encode(vid)
	if err != nil {
		return value.Vertex{VID: vid}
	}
	return t.vertexValue(string(b))
}

func keysOf(vs [][]byte) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// bfsSide is one side of the bidirectional search: a BFS from each root.
type bfsSide struct {
	types   []int32
	roots   []string
	dist    []map[string]int // per root: vertex → level
	levels  [][][]string     // per root: the vertices of each level
	open    []int            // per root: pairs not yet resolved or given up
	seenBy  map[string][]int // vertex → roots whose BFS reached it
	depth   int
	forward bool
}

func newBFSSide(roots []string, types []int32, forward bool) *bfsSide {
	b := &bfsSide{types: types, roots: roots, seenBy: map[string][]int{}, forward: forward,
		dist: make([]map[string]int, len(roots)), levels: make([][][]string, len(roots)), open: make([]int, len(roots))}
	for i, r := range roots {
		b.dist[i] = map[string]int{r: 0}
		b.levels[i] = [][]string{{r}}
		b.seenBy[r] = append(b.seenBy[r], i)
	}
	return b
}

// frontier is the union of the last level of every root still searching.
func (b *bfsSide) frontier() []string {
	seen := map[string]bool{}
	var out []string
	for i := range b.roots {
		if b.open[i] == 0 || len(b.levels[i]) <= b.depth {
			continue
		}
		for _, v := range b.levels[i][b.depth] {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// expand grows every open root by one level over adj (vertex → distinct
// neighbours) and returns the bytes of state added, for the budget.
func (b *bfsSide) expand(adj map[string][]string) int64 {
	var added int64
	for i := range b.roots {
		if b.open[i] == 0 || len(b.levels[i]) <= b.depth {
			continue
		}
		var next []string
		for _, u := range b.levels[i][b.depth] {
			for _, x := range adj[u] {
				if _, seen := b.dist[i][x]; seen {
					continue
				}
				b.dist[i][x] = b.depth + 1
				b.seenBy[x] = append(b.seenBy[x], i)
				next = append(next, x)
				added += 2*mapEntryBytes + 2*int64(len(x)) + 3*stringBytes
			}
		}
		b.levels[i] = append(b.levels[i], next)
	}
	b.depth++
	return added
}

// pairState is one (source, target) pair of SHORTEST.
type pairState struct {
	resolved bool
	dead     bool
	length   int // resolved: the shortest length
	split    int // resolved: the position on the paths where the meeting vertices are
}

// shortestPaths finds every shortest path of ≤ maxSteps hops for each pair.
func (t *traversal) shortestPaths(ctx context.Context, srcs, dsts []string, fwdTypes, bwdTypes []int32, maxSteps int) ([]value.Path, error) {
	F := newBFSSide(srcs, fwdTypes, true)
	B := newBFSSide(dsts, bwdTypes, false)
	pairs := make([][]pairState, len(srcs))
	unresolved := 0
	for i := range srcs {
		pairs[i] = make([]pairState, len(dsts))
		for j := range dsts {
			if srcs[i] == dsts[j] {
				pairs[i][j].dead = true // no 0-hop paths
				continue
			}
			F.open[i]++
			B.open[j]++
			unresolved++
		}
	}
	closePair := func(i, j int) {
		F.open[i]--
		B.open[j]--
		unresolved--
	}
	for F.depth+B.depth < maxSteps && unresolved > 0 {
		if err := t.checkCtx(ctx); err != nil {
			return nil, err
		}
		ff, bf := F.frontier(), B.frontier()
		if len(ff) == 0 || len(bf) == 0 {
			break
		}
		side, other, front := F, B, ff
		if len(bf) < len(ff) {
			side, other, front = B, F, bf
		}
		resp, err := t.neighbors(ctx, front, side.types, true, fmt.Sprintf("search step %d", F.depth+B.depth+1))
		if err != nil {
			return nil, err
		}
		adj := make(map[string][]string, len(resp))
		for _, vn := range resp {
			var list []string
			seen := map[string]bool{}
			for _, d := range vn.DstList(t.vidLen) {
				if !seen[string(d)] {
					seen[string(d)] = true
					list = append(list, string(d))
				}
			}
			adj[string(vn.Vid)] = append(adj[string(vn.Vid)], list...)
		}
		t.budget.Release(neighborsSize(resp))
		if err := t.grow(side.expand(adj), "keeping the "+t.what+" search state"); err != nil {
			return nil, err
		}
		// Pairs that meet at the new level: their least length.
		best := map[[2]int]int{}
		k := side.depth
		for a := range side.roots {
			if len(side.levels[a]) <= k {
				continue
			}
			for _, x := range side.levels[a][k] {
				for _, b := range other.seenBy[x] {
					i, j := a, b
					if !side.forward {
						i, j = b, a
					}
					ps := &pairs[i][j]
					if ps.resolved || ps.dead {
						continue
					}
					l := k + other.dist[b][x]
					if cur, ok := best[[2]int{i, j}]; !ok || l < cur {
						best[[2]int{i, j}] = l
					}
				}
			}
		}
		for ij, l := range best {
			ps := &pairs[ij[0]][ij[1]]
			ps.resolved, ps.length = true, l
			if side.forward {
				ps.split = k
			} else {
				ps.split = l - k
			}
			closePair(ij[0], ij[1])
		}
		// A root whose BFS ran out reached everything it can: its open pairs
		// have no path.
		for a := range side.roots {
			if side.open[a] == 0 || len(side.levels[a][k]) > 0 {
				continue
			}
			for o := range other.roots {
				i, j := a, o
				if !side.forward {
					i, j = o, a
				}
				if ps := &pairs[i][j]; !ps.resolved && !ps.dead {
					ps.dead = true
					closePair(i, j)
				}
			}
		}
	}
	return t.spellShortest(ctx, F, B, pairs)
}

// spellShortest fetches the edges of the vertices on each resolved pair's
// shortest paths and lists the paths.
func (t *traversal) spellShortest(ctx context.Context, F, B *bfsSide, pairs [][]pairState) ([]value.Path, error) {
	type job struct {
		i, j       int
		meet       []string
		fset, bset map[string]bool // the DAG level being discovered on each half
		fk, bk     int             // their levels: distance from source, to target
	}
	var jobs []*job
	for i := range pairs {
		for j := range pairs[i] {
			ps := pairs[i][j]
			if !ps.resolved {
				continue
			}
			jb := &job{i: i, j: j, fk: ps.split, bk: ps.length - ps.split, fset: map[string]bool{}, bset: map[string]bool{}}
			for _, x := range F.levels[i][ps.split] {
				if d, ok := B.dist[j][x]; ok && d == jb.bk {
					jb.meet = append(jb.meet, x)
					jb.fset[x], jb.bset[x] = true, true
				}
			}
			jobs = append(jobs, jb)
		}
	}
	// preds[v]: hops into v (fetched with the reversed types); succs[v]:
	// hops out of v. Only the vertices on shortest paths are fetched, one
	// GetNeighbors per direction and round for all pairs.
	preds, succs := map[string][]hop{}, map[string][]hop{}
	for round := 1; ; round++ {
		if err := t.checkCtx(ctx); err != nil {
			return nil, err
		}
		needP, needS := map[string]bool{}, map[string]bool{}
		for _, jb := range jobs {
			if jb.fk > 0 {
				for v := range jb.fset {
					if _, ok := preds[v]; !ok {
						needP[v] = true
					}
				}
			}
			if jb.bk > 0 {
				for v := range jb.bset {
					if _, ok := succs[v]; !ok {
						needS[v] = true
					}
				}
			}
		}
		if err := t.fetchHops(ctx, needP, B.types, true, preds, fmt.Sprintf("path edges (round %d)", round)); err != nil {
			return nil, err
		}
		if err := t.fetchHops(ctx, needS, F.types, false, succs, fmt.Sprintf("path edges (round %d)", round)); err != nil {
			return nil, err
		}
		more := false
		for _, jb := range jobs {
			if jb.fk > 0 {
				next := map[string]bool{}
				for v := range jb.fset {
					for _, h := range preds[v] {
						if d, ok := F.dist[jb.i][h.to]; ok && d == jb.fk-1 {
							next[h.to] = true
						}
					}
				}
				jb.fset, jb.fk = next, jb.fk-1
			}
			if jb.bk > 0 {
				next := map[string]bool{}
				for v := range jb.bset {
					for _, h := range succs[v] {
						if d, ok := B.dist[jb.j][h.to]; ok && d == jb.bk-1 {
							next[h.to] = true
						}
					}
				}
				jb.bset, jb.bk = next, jb.bk-1
			}
			more = more || jb.fk > 0 || jb.bk > 0
		}
		if !more {
			break
		}
	}

	// prefix is a path from a source, as a list linked backwards.
	type prefix struct {
		prev *prefix
		from string // the vertex the hop leaves
		h    hop
	}
	// suffix is a path to a target, linked forwards.
	type suffix struct {
		from string
		h    hop
		next *suffix
	}
	prefixMemo := map[int]map[string][]*prefix{}
	var prefixes func(i int, v string, k int) []*prefix
	prefixes = func(i int, v string, k int) []*prefix {
		if k == 0 {
			return []*prefix{nil}
		}
		m := prefixMemo[i]
		if m == nil {
			m = map[string][]*prefix{}
			prefixMemo[i] = m
		}
		if got, ok := m[v]; ok {
			return got
		}
		var out []*prefix
		for _, h := range preds[v] {
			// h is stored as the hop into v, h.to the vertex it leaves.
			if d, ok := F.dist[i][h.to]; !ok || d != k-1 {
				continue
			}
			fwd := hop{to: v, typ: h.typ, rank: h.rank, props: h.props}
			for _, p := range prefixes(i, h.to, k-1) {
				out = append(out, &prefix{prev: p, from: h.to, h: fwd})
			}
		}
		m[v] = out
		return out
	}
	suffixMemo := map[int]map[string][]*suffix{}
	var suffixes func(j int, v string, k int) []*suffix
	suffixes = func(j int, v string, k int) []*suffix {
		if k == 0 {
			return []*suffix{nil}
		}
		m := suffixMemo[j]
		if m == nil {
			m = map[string][]*suffix{}
			suffixMemo[j] = m
		}
		if got, ok := m[v]; ok {
			return got
		}
		var out []*suffix
		for _, h := range succs[v] {
			if d, ok := B.dist[j][h.to]; !ok || d != k-1 {
				continue
			}
			for _, s := range suffixes(j, h.to, k-1) {
				out = append(out, &suffix{from: v, h: h, next: s})
			}
		}
		m[v] = out
		return out
	}

	var paths []value.Path
	for _, jb := range jobs {
		ps := pairs[jb.i][jb.j]
		for _, x := range jb.meet {
			pres := prefixes(jb.i, x, ps.split)
			sufs := suffixes(jb.j, x, ps.length-ps.split)
			if len(paths)+len(pres)*len(sufs) > maxPartialPaths {
				return nil, execErrorf("%s: more than %d paths; narrow the query", t.what, maxPartialPaths)
			}
			for _, pre := range pres {
				for _, suf := range sufs {
					p := value.Path{Src: t.vertexValue(F.roots[jb.i]), Steps: make([]value.Step, ps.length)}
					n := ps.split
					for q := pre; q != nil; q = q.prev {
						n--
						p.Steps[n] = value.Step{Edge: t.edgeValue(q.from, q.h), Reverse: q.h.typ < 0, Dst: t.vertexValue(q.h.to)}
					}
					n = ps.split
					for q := suf; q != nil; q = q.next {
						p.Steps[n] = value.Step{Edge: t.edgeValue(q.from, q.h), Reverse: q.h.typ < 0, Dst: t.vertexValue(q.h.to)}
						n++
					}
					paths = append(paths, p)
				}
			}
		}
	}
	return paths, nil
}

// fetchHops reads the full edges of the vertices in need into cache. With
// reversed, types are the reversed traversal's, and each edge is stored as
// the forward hop into the vertex (hop.to = the vertex it leaves).
func (t *traversal) fetchHops(ctx context.Context, need map[string]bool, types []int32, reversed bool, cache map[string][]hop, what string) error {
	if len(need) == 0 {
		return nil
	}
	vs := make([]string, 0, len(need))
	for v := range need {
		vs = append(vs, v)
		cache[v] = nil // fetched, even if it has no edges
	}
	resp, err := t.neighbors(ctx, vs, types, false, what)
	if err != nil {
		return err
	}
	for _, vn := range resp {
		v := string(vn.Vid)
		for _, e := range vn.Edges {
			h := hop{to: string(e.Dst), typ: e.EdgeType, rank: e.Rank, props: e.Props}
			if reversed {
				h.typ = -e.EdgeType
			}
			cache[v] = append(cache[v], h)
		}
	}
	return nil
}

// allPaths lists every trail (noLoop: every path without a repeated
// vertex) of 1 to maxSteps hops from a source to a target.
func (t *traversal) allPaths(ctx context.Context, srcs, dsts []string, fwdTypes, bwdTypes []int32, maxSteps int, noLoop bool) ([]value.Path, error) {
	// Distance of each vertex to the nearest target, up to maxSteps-1.
	toTarget := map[string]int{}
	var frontier []string
	for _, d := range dsts {
		if _, dup := toTarget[d]; !dup {
			toTarget[d] = 0
			frontier = append(frontier, d)
		}
	}
	for depth := 1; depth < maxSteps && len(frontier) > 0; depth++ {
		if err := t.checkCtx(ctx); err != nil {
			return nil, err
		}
		resp, err := t.neighbors(ctx, frontier, bwdTypes, true, fmt.Sprintf("target search step %d", depth))
		if err != nil {
			return nil, err
		}
		var next []string
		for _, vn := range resp {
			for _, d := range vn.DstList(t.vidLen) {
				if _, seen := toTarget[string(d)]; !seen {
					toTarget[string(d)] = depth
					next = append(next, string(d))
				}
			}
		}
		t.budget.Release(neighborsSize(resp))
		if err := t.grow(int64(len(next))*(mapEntryBytes+int64(t.vidLen)+2*stringBytes), "keeping the "+t.what+" search state"); err != nil {
			return nil, err
		}
		frontier = next
	}
	isTarget := map[string]bool{}
	for _, d := range dsts {
		isTarget[d] = true
	}

	// node is a partial path, linked back to its start.
	type node struct {
		prev  *node
		v     string // the vertex the path ends at
		h     hop    // the hop into v (none for a start)
		key   string // the stored edge of h (ALL: no edge twice)
		depth int
	}
	var level []*node
	for _, s := range srcs {
		level = append(level, &node{v: s})
	}
	var found []*node
	kept := 0
	cache := map[string][]hop{}
	nodeBytes := int64(64 + t.vidLen)
	for depth := 0; depth < maxSteps && len(level) > 0; depth++ {
		if err := t.checkCtx(ctx); err != nil {
			return nil, err
		}
		need := map[string]bool{}
		for _, n := range level {
			if _, ok := cache[n.v]; !ok {
				need[n.v] = true
			}
		}
		if err := t.fetchHops(ctx, need, fwdTypes, false, cache, fmt.Sprintf("step %d", depth+1)); err != nil {
			return nil, err
		}
		var next []*node
		for c, n := range level {
			if c%4096 == 0 {
				if err := t.checkCtx(ctx); err != nil {
					return nil, err
				}
			}
		hops:
			for _, h := range cache[n.v] {
				if dt, ok := toTarget[h.to]; !ok || depth+1+dt > maxSteps {
					continue
				}
				if noLoop {
					for q := n; q != nil; q = q.prev {
						if q.v == h.to {
							continue hops
						}
					}
				}
				var key string
				if !noLoop {
					key = t.edgeKey(n.v, h)
					for q := n; q.prev != nil; q = q.prev {
						if q.key == key {
							continue hops
						}
					}
				}
				m := &node{prev: n, v: h.to, h: h, key: key, depth: depth + 1}
				kept++
				if kept > maxPartialPaths {
					return nil, execErrorf("%s: more than %d partial paths; narrow the query (fewer steps, a WHERE, fewer vertices)", t.what, maxPartialPaths)
				}
				if isTarget[h.to] {
					found = append(found, m)
				}
				if depth+1 < maxSteps {
					next = append(next, m)
				}
			}
		}
		if err := t.grow(int64(len(next))*nodeBytes, "keeping the "+t.what+" partial paths"); err != nil {
			return nil, err
		}
		level = next
	}
	paths := make([]value.Path, len(found))
	for i, n := range found {
		steps := make([]value.Step, n.depth)
		q := n
		for k := n.depth - 1; k >= 0; k-- {
			steps[k] = value.Step{Edge: t.edgeValue(q.prev.v, q.h), Reverse: q.h.typ < 0, Dst: t.vertexValue(q.v)}
			q = q.prev
		}
		paths[i] = value.Path{Src: t.vertexValue(q.v), Steps: steps}
	}
	return paths, nil
}
