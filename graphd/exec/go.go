package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// goPlan is a validated GO statement: what each storage round asks for and
// how result rows are built. EXPLAIN prints it; stream executes it.
type goPlan struct {
	r       *runState
	stmt    *ast.GoStmt
	space   *metapb.SpaceDesc
	version int64
	vids    vidCodec
	input   *table

	edgeNames map[int32]string // unsigned edge type → name
	edgeTypes []int32          // signed types sent to storage
	columns   []*ast.YieldColumn

	// Pushed into the final steps' GetNeighbors: properties of the vertex
	// a step leaves from, and of the edge.
	srcProps  []*storagepb.PropRef
	srcIndex  map[string]int // "tag.prop" → position in srcProps
	edgeProps []*storagepb.PropRef
	edgeIndex map[string]int // "edge.prop" → position in edgeProps
	// Fetched after the traversal, only if YIELD/WHERE read $$.tag.prop.
	dstProps []*storagepb.PropRef
	dstIndex map[string]int
	whole    *wholeProps // what properties(EDGE), ($^), ($$) read whole (properties.go)
	// pushedWhere is WHERE as storaged evaluates it, when it reads only
	// the edge and the vertex a step leaves from: storaged then drops
	// the rows graphd would throw away, before they cross the network.
	pushedWhere string
	// packedRows: the result steps ask storage for destinations only
	// (dst_only, one packed byte string per vertex instead of a message per
	// edge), because nothing the rows are built from needs more of an edge
	// than where it goes: no edge property, rank or whole edge, and one
	// signed edge type, so type and direction are known.
	packedRows bool
	// packedEdges: otherwise, with one signed edge type, no whole edge and
	// no LIMIT/SAMPLE of steps, the result steps ask for their edges in
	// columns (packed_edges: destinations, ranks and one column per edge
	// property per vertex) instead of a NeighborEdge with a Value per
	// property per edge, which cost more to build, send and decode than
	// the scan itself (GO 3 STEPS … YIELD …, follows.weight).
	packedEdges bool
	// joinsInput: YIELD or WHERE read $-/$var columns, so each result row
	// joins back to the input rows its start vertex came from. Otherwise
	// GO starts once from each distinct input vertex, as NebulaGraph does.
	joinsInput bool
}

func (r *runState) planGo(s *ast.GoStmt, input *table) (*goPlan, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	// GO 0 STEPS retrieves no edges (an empty result), and the rows of
	// M TO N STEPS start at step max(M, 1), as in NebulaGraph.
	if s.Steps.Min < 0 || s.Steps.Max < s.Steps.Min {
		return nil, at(s, "invalid step range %s", s.Steps)
	}
	if s, err = rewriteProperties(snap, space, s); err != nil {
		return nil, err
	}
	p := &goPlan{
		r: r, stmt: s, space: space, version: snap.Version(), vids: vidCodec{space}, input: input,
		edgeNames: map[int32]string{}, srcIndex: map[string]int{}, edgeIndex: map[string]int{}, dstIndex: map[string]int{},
	}
	var over []*metapb.EdgeDesc
	if s.Over.All {
		over = snap.Edges(space.GetSpaceId())
		if len(over) == 0 {
			return nil, at(s.Over, "OVER *: space %q has no edge types", space.GetName())
		}
	} else {
		for _, name := range s.Over.Edges {
			e, ok := snap.EdgeByName(space.GetSpaceId(), name)
			if !ok {
				return nil, at(s.Over, "edge %q not found in space %q", name, space.GetName())
			}
			over = append(over, e)
		}
	}
	byName := map[string]*metapb.EdgeDesc{}
	for _, e := range over {
		p.edgeNames[e.GetEdgeType()] = e.GetName()
		byName[e.GetName()] = e
		switch s.Over.Direction {
		case ast.Reversely:
			p.edgeTypes = append(p.edgeTypes, -e.GetEdgeType())
		case ast.Bidirect:
			p.edgeTypes = append(p.edgeTypes, e.GetEdgeType(), -e.GetEdgeType())
		default:
			p.edgeTypes = append(p.edgeTypes, e.GetEdgeType())
		}
	}

	if s.Yield != nil {
		p.columns = s.Yield.Columns
	} else {
		// NebulaGraph yields the destination id per edge type of OVER.
		for _, e := range over {
			p.columns = append(p.columns, &ast.YieldColumn{Pos: s.Pos, Expr: &ast.EdgePropExpr{Pos: s.Pos, Edge: e.GetName(), Prop: eval.PropDst}})
		}
	}
	exprs := []ast.Expr{s.Where}
	for _, c := range p.columns {
		exprs = append(exprs, c.Expr)
	}
	props := eval.CollectProps(exprs...)
	p.joinsInput = len(props.Input)+len(props.Var) > 0
	if err := r.checkRefs(s, props, input); err != nil {
		return nil, err
	}
	if err := checkSourceRefs(s, s.From, props); err != nil {
		return nil, err
	}
	if err := checkColumns(p.columns, exprs...); err != nil {
		return nil, err
	}
	if err := rejectVertex(exprs...); err != nil {
		return nil, err
	}
	if err := p.checkStepLimits(); err != nil {
		return nil, err
	}
	for _, ref := range props.Edge {
		if ref.Owner == eval.AnyEdge || eval.IsReservedProp(ref.Name) {
			if ref.Owner != eval.AnyEdge {
				if _, ok := byName[ref.Owner]; !ok {
					return nil, at(s, "edge %q is not in the OVER clause", ref.Owner)
				}
			}
			continue // key fields come with every edge
		}
		e, ok := byName[ref.Owner]
		if !ok {
			if _, exists := snap.EdgeByName(space.GetSpaceId(), ref.Owner); exists {
				return nil, at(s, "edge %q is not in the OVER clause", ref.Owner)
			}
			return nil, at(s, "edge %q not found in space %q", ref.Owner, space.GetName())
		}
		if !hasColumn(e.GetVersions(), ref.Name) {
			return nil, at(s, "edge %q has no property %q", ref.Owner, ref.Name)
		}
		p.edgeIndex[ref.Owner+"."+ref.Name] = len(p.edgeProps)
		p.edgeProps = append(p.edgeProps, &storagepb.PropRef{SchemaId: e.GetEdgeType(), Name: ref.Name})
	}
	resolveTags := func(refs []eval.PropRef, which string, index map[string]int, out *[]*storagepb.PropRef) error {
		for _, ref := range refs {
			if ref.Owner == eval.AnyTag {
				continue // the vertex id
			}
			tag, ok := snap.TagByName(space.GetSpaceId(), ref.Owner)
			if !ok {
				return at(s, "%s.%s.%s: tag %q not found in space %q", which, ref.Owner, ref.Name, ref.Owner, space.GetName())
			}
			if !hasColumn(tag.GetVersions(), ref.Name) {
				return at(s, "%s.%s.%s: tag %q has no property %q", which, ref.Owner, ref.Name, ref.Owner, ref.Name)
			}
			index[ref.Owner+"."+ref.Name] = len(*out)
			*out = append(*out, &storagepb.PropRef{SchemaId: tag.GetTagId(), Name: ref.Name})
		}
		return nil
	}
	if err := resolveTags(props.Src, "$^", p.srcIndex, &p.srcProps); err != nil {
		return nil, err
	}
	if err := resolveTags(props.Dst, "$$", p.dstIndex, &p.dstProps); err != nil {
		return nil, err
	}
	p.planWholeProps(snap, props, over)
	p.packedRows = len(p.edgeTypes) == 1 && len(p.edgeProps) == 0 && p.whole == nil && !readsRank(props.Edge)
	p.packedEdges = !p.packedRows && len(p.edgeTypes) == 1 && p.whole == nil && s.Limits == nil
	if s.Where != nil {
		where := eval.CollectProps(s.Where)
		// A non-deterministic WHERE (rand(), now()...) stays in graphd:
		// storaged evaluates pushed filters on whichever replica answers.
		// Nor does properties(EDGE) or properties($^) as a whole map.
		if len(where.Dst) == 0 && len(where.Input) == 0 && len(where.Var) == 0 && !where.AllEdge && !where.AllSrc && eval.IsDeterministic(s.Where) {
			// storaged has no query parameters: their values go as
			// literals, and a value without one keeps WHERE here.
			bound, ok, err := bindParams(r.params, s.Where)
			if err != nil {
				return nil, err
			}
			if ok {
				p.pushedWhere = bound.String()
			}
		}
	}
	return p, nil
}

// readsRank reports whether refs read an edge's rank.
func readsRank(refs []eval.PropRef) bool {
	for _, ref := range refs {
		if ref.Name == eval.PropRank {
			return true
		}
	}
	return false
}

func hasColumn(versions []*metapb.Schema, name string) bool {
	if len(versions) == 0 {
		return false
	}
	for _, c := range versions[len(versions)-1].GetColumns() {
		if c.GetName() == name {
			return true
		}
	}
	return false
}

// checkCalls rejects unknown functions, and aggregate functions (which
// ops.go replaces where they are valid), before anything runs.
func checkCalls(e ast.Expr) error {
	var err error
	ast.Inspect(e, func(x ast.Expr) bool {
		if a, ok := x.(*ast.AggregateExpr); ok && err == nil {
			err = at(a, "aggregate function %s is only allowed in the YIELD of GROUP BY or of a YIELD that reads piped rows", a)
		}
		if c, ok := x.(*ast.FuncCall); ok && err == nil {
			if cerr := eval.CheckCall(c); cerr != nil {
				err = at(c, "%v", cerr)
			}
		}
		return err == nil
	})
	return err
}

// goRun is one vertex's edges in one result step, as storage answered
// them. A GO's result rows are its runs' edges in order, and for each edge
// one row per origin when rows join back to input rows; emit and fetchDst
// read them out one at a time (goRun.row). A step thus holds a few words
// per vertex, not a row per edge: 75,000 rows of 136 bytes at GO 3 on
// soc-Slashdot0902, whose allocation and zeroing alone were a fifth of the
// query's CPU.
type goRun struct {
	vn       *storagepb.VertexNeighbors
	edgeType int32 // the step's one signed type, when packed
	// packed: no NeighborEdge per edge, but destinations only (dst_only)
	// or the edges in columns (packed_edges: ranks and edge_columns too).
	packed   bool
	filtered bool // storaged applied WHERE to these edges already
	// origins are the start vids the paths to vn began at; nil unless
	// rows join back to input rows.
	origins []string
	// dstOrds are the ordinals in the fetched $$ properties (dstProps) of
	// the vertices the edges reach, edge by edge; nil when no $$ property
	// was fetched.
	dstOrds []int32
}

// edges is how many edges the run holds.
func (r *goRun) edges(vidLen int) int {
	if r.packed {
		return len(r.vn.PackedDsts) / vidLen
	}
	return len(r.vn.Edges)
}

// dst is the vertex edge i reaches; it aliases storage's answer.
func (r *goRun) dst(i, vidLen int) []byte {
	if r.packed {
		return r.vn.PackedDsts[i*vidLen : (i+1)*vidLen : (i+1)*vidLen]
	}
	return r.vn.Edges[i].Dst
}

// row sets row to edge i of the run (origin aside).
func (r *goRun) row(i, vidLen int, row *goRow) {
	row.from, row.fromProps, row.filtered = r.vn.Vid, r.vn.Props, r.filtered
	if r.packed {
		row.dst, row.edgeType, row.rank, row.props = r.dst(i, vidLen), r.edgeType, 0, nil
		row.cols, row.at = r.vn.EdgeColumns, i
		if i < len(r.vn.PackedRanks) {
			row.rank = r.vn.PackedRanks[i]
		}
		return
	}
	e := r.vn.Edges[i]
	row.dst, row.edgeType, row.rank, row.props = e.Dst, e.EdgeType, e.Rank, e.Props
	row.cols = nil
}

// goRow is one result row's edge, as the expressions read it: built from
// a goRun for the row being projected.
type goRow struct {
	from      []byte
	fromProps []*commonpb.Value
	dst       []byte // the vertex reached; aliases storage's answer
	edgeType  int32  // signed, as stored
	rank      int64  // 0 when the step came dst_only (nothing reads it then)
	props     []*commonpb.Value
	// cols are the edge properties when the step came in columns
	// (packed_edges): the edge's are cell at of each, props is nil.
	cols     []*commonpb.Column
	at       int
	origin   string // the start vid the path began at (for $-/$var joins)
	filtered bool   // storaged applied WHERE to this edge already
}

// stageStat is one plan node's profile: rows out and time spent.
type stageStat struct {
	name string
	info string
	rows int
	took time.Duration
}

// stream executes the plan and passes the result rows to out in batches
// (stream.go), in three parts: the step loop walks the edges (traverse),
// the destination fetch reads the $$ properties the YIELD and WHERE need
// (fetchDst), and the projection builds and emits the rows (emit). Under
// PROFILE each part records its rows and time.
func (p *goPlan) stream(ctx context.Context, out rowSink) error {
	// Open the rest of the pipe first: its semantic errors come before
	// any storage work.
	cols := make([]string, len(p.columns))
	for i, c := range p.columns {
		cols[i] = c.Name()
	}
	if err := out.open(ctx, cols); err != nil {
		return err
	}
	start := time.Now()
	set, err := p.r.startVids(p.vids, p.stmt.From, p.input)
	if err != nil {
		return err
	}
	p.record("Start", "", len(set.vids), start)
	if !p.joinsInput {
		set.src = nil // the distinct start vertices are all GO needs
	}
	runs, err := p.traverse(ctx, set)
	if err != nil {
		return err
	}
	var dstVals *dstProps
	if len(p.dstProps) > 0 && len(runs) > 0 {
		start := time.Now()
		if dstVals, err = p.fetchDst(ctx, runs); err != nil {
			return err
		}
		p.record("GetDstProps", "", dstVals.len(), start)
	}
	return p.emit(ctx, out, set, runs, dstVals)
}

// record adds one stage's figures to PROFILE's (nothing without PROFILE).
func (p *goPlan) record(name, info string, rows int, start time.Time) {
	p.r.prof.record(p.stmt, stageStat{name: name, info: info, rows: rows, took: time.Since(start)})
}

// goWalk is the state of GO's step loop between two steps.
//
// Memory (budget.go): storage responses are charged as they stream in,
// then rows and frontier structures as they are built. held is what lives
// only until the next step ends: a step's frontier structures (whose vids
// are copies, so a step's response that no result row points into is
// released when the step ends).
type goWalk struct {
	frontier [][]byte
	// origins maps each frontier vertex to the start vertices whose paths
	// reach it; nil unless result rows join back to input rows.
	origins map[string]originSet
	runs    []goRun // the result steps' edges so far
	held    int64
}

// traverse runs the steps from the start vertices and returns the edges of
// the result steps (M TO N: steps M..N), one goRun per vertex and step
// with, when rows join back to input rows, the start vertices the
// vertex's paths came from.
func (p *goPlan) traverse(ctx context.Context, set *startSet) ([]goRun, error) {
	t := &goWalk{frontier: set.vids}
	if set.src != nil {
		t.origins = map[string]originSet{}
		for _, v := range set.vids {
			t.origins[string(v)] = originSet{string(v): {}}
		}
	}
	mem := BudgetOf(ctx)
	for step := 1; step <= p.stmt.Steps.Max && len(t.frontier) > 0; step++ {
		if err := ctx.Err(); err != nil {
			return nil, ctxError(ctx, fmt.Sprintf("GO step %d", step))
		}
		if p.stepSkipped(step) {
			break // SAMPLE / LIMIT 0: this step traverses nothing
		}
		if err := p.step(ctx, t, step); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, ctxError(ctx, fmt.Sprintf("GO step %d", step))
		}
	}
	mem.Release(t.held)
	return t.runs, nil
}

// stepRequest is step's GetNeighbors request, less its vertices.
func (p *goPlan) stepRequest(step int) *storagepb.GetNeighborsReq {
	req := &storagepb.GetNeighborsReq{SpaceId: p.space.GetSpaceId(), CatalogVersion: p.version, EdgeTypes: p.edgeTypes, PackedStrings: true}
	p.pushStepLimit(req, step)
	if step < p.stmt.Steps.Min {
		req.DstOnly = true
		return req
	}
	req.VertexProps, req.EdgeProps = p.srcProps, p.edgeProps
	req.DstOnly, req.PackedEdges = p.packedRows, p.packedEdges
	// WHERE filters result rows, never the traversal: a result step
	// before the last (M TO N) continues from every edge, so only the
	// last step's rows are filtered by storaged.
	if step == p.stmt.Steps.Max {
		req.Filter = p.pushedWhere
	}
	return req
}

// step asks storage for the edges of t's frontier, adds the runs of a
// result step to t.runs and makes the distinct destinations the next
// frontier.
func (p *goPlan) step(ctx context.Context, t *goWalk, step int) error {
	start := time.Now()
	final := step >= p.stmt.Steps.Min
	req := p.stepRequest(step)
	parts := map[int32]*storagepb.VidList{}
	for _, v := range t.frontier {
		pt := p.vids.part(v)
		if parts[pt] == nil {
			parts[pt] = &storagepb.VidList{}
		}
		parts[pt].Vids = append(parts[pt].Vids, v)
	}
	mem := BudgetOf(ctx)
	var respBytes int64
	var onBatch func([]*storagepb.VertexNeighbors) error
	if mem != nil {
		what := fmt.Sprintf("receiving GO step %d from storage", step)
		onBatch = func(batch []*storagepb.VertexNeighbors) error {
			n := neighborsSize(batch)
			respBytes += n
			return mem.Grow(n, what)
		}
	}
	resp, err := p.r.x.storage.GetNeighborsStream(ctx, req, parts, onBatch)
	if err != nil {
		if e, ok := isLimitError(err); ok {
			return e
		}
		return storageError(fmt.Sprintf("GO step %d", step), err)
	}
	var stepBytes int64 // frontier structures built in this step
	building := fmt.Sprintf("building GO step %d", step)
	resp = p.cutStep(step, resp)
	var next [][]byte
	var vidArena []byte // next's vids, copied in chunks
	seen := map[string]bool{}
	var nextOrigins map[string]originSet
	if t.origins != nil {
		nextOrigins = map[string]originSet{}
	}
	// Steps before the result ask for destinations only (packed), and so
	// do result steps when packedRows; result steps before the last (M TO
	// N) continue from theirs. A result step keeps one goRun per vertex,
	// not a row per edge.
	vidLen := int(p.space.GetVidLen())
	if final {
		t.runs = slices.Grow(t.runs, len(resp))
	}
	edges := 0
	for _, vn := range resp {
		var grown int64
		run := goRun{vn: vn, edgeType: req.EdgeTypes[0], packed: req.DstOnly || req.PackedEdges, filtered: req.Filter != ""}
		if err := checkNeighbors(vn, req, vidLen); err != nil {
			return storageError(fmt.Sprintf("GO step %d", step), err)
		}
		n := run.edges(vidLen)
		if final {
			if t.origins != nil {
				from := t.origins[string(vn.Vid)]
				run.origins = make([]string, 0, len(from))
				for o := range from {
					run.origins = append(run.origins, o)
				}
				grown += int64(len(run.origins)) * stringBytes
			}
			t.runs = append(t.runs, run)
			grown += goRunStruct
		}
		edges += n
		if step < p.stmt.Steps.Max {
			var frontierBytes int64
			for i := range n {
				dst := run.dst(i, vidLen)
				if !seen[string(dst)] {
					seen[string(dst)] = true
					// The frontier keeps copies, not slices of the
					// response, so that a response no result row points
					// into is garbage once the step ends.
					if cap(vidArena)-len(vidArena) < len(dst) {
						vidArena = make([]byte, 0, max(64<<10, len(dst)))
					}
					vidArena = append(vidArena, dst...)
					next = append(next, vidArena[len(vidArena)-len(dst):len(vidArena):len(vidArena)])
					frontierBytes += mapEntryBytes + stringBytes + int64(len(dst)) + sliceBytes
				}
				if t.origins != nil {
					frontierBytes += addOrigins(nextOrigins, dst, t.origins[string(vn.Vid)])
				}
			}
			stepBytes += frontierBytes
			grown += frontierBytes
		}
		if grown > 0 {
			if err := mem.Grow(grown, building); err != nil {
				return err
			}
		}
	}
	p.record("GetNeighbors", fmt.Sprintf("step %d", step), edges, start)
	t.frontier, t.origins = next, nextOrigins
	// The previous step's frontier is garbage now, and so is this step's
	// response unless result rows point into it: the next step's
	// request would otherwise hold two steps' answers at once.
	mem.Release(t.held)
	t.held = stepBytes
	if !final {
		mem.Release(respBytes)
	}
	return nil
}

// emit is the projection: it evaluates WHERE (unless storaged did) and
// YIELD over each traversed edge, once per input row the edge's path
// started from when rows join back to input rows, drops repeated rows for
// YIELD DISTINCT, and passes the rows to out in batches.
func (p *goPlan) emit(ctx context.Context, out rowSink, set *startSet, runs []goRun, dstVals *dstProps) error {
	start := time.Now()
	mem := BudgetOf(ctx)
	e := &emitter{sink: out}
	var seen map[string]struct{}
	if p.stmt.Yield != nil && p.stmt.Yield.Distinct {
		seen = map[string]struct{}{}
	}
	rc := &goRowContext{p: p, dst: dstVals}
	rc.rowContext = rowContext{input: p.input, vars: p.r.vars, params: p.r.params}
	if ts, ok := out.(*tableSink); ok && ts.columnar && seen == nil && set.src == nil {
		if refs, ok := p.columnRefs(); ok {
			return p.emitColumns(ctx, ts, runs, rc, refs, start)
		}
	}
	emitted := 0
	emitOne := func() error {
		row, ok, err := p.project(rc)
		if err != nil || !ok {
			return err
		}
		if seen != nil {
			key := rowKey(nil, row)
			if _, dup := seen[string(key)]; dup {
				return nil
			}
			seen[string(key)] = struct{}{}
			if err := mem.Grow(mapEntryBytes+stringBytes+int64(len(key)), "GO YIELD DISTINCT"); err != nil {
				return err
			}
		}
		emitted++
		return e.add(ctx, row)
	}
	var row goRow
	rc.row = &row
	vidLen := int(p.space.GetVidLen())
	if x, ok := out.(rowsExpecter); ok && set.src == nil {
		// Without joins to input rows, one row per edge at most.
		n := 0
		for ri := range runs {
			n += runs[ri].edges(vidLen) * max(1, len(runs[ri].origins))
		}
		x.expectRows(n)
	}
	edges := 0
	emitEdge := func() error {
		if set.src == nil {
			return emitOne()
		}
		// One result row per input row its path started from.
		for _, srcRow := range set.origins[row.origin] {
			rc.bindSource(set, srcRow)
			if err := emitOne(); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
runs:
	for ri := range runs {
		run := &runs[ri]
		for i, n := 0, run.edges(vidLen); i < n; i++ {
			if edges%1024 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return ctxError(ctx, "GO")
				}
				if merr := mem.Err(); merr != nil {
					return merr
				}
			}
			edges++
			rc.at(run, i, vidLen)
			if run.origins == nil {
				err = emitEdge()
			} else {
				for _, o := range run.origins {
					row.origin = o
					if err = emitEdge(); err != nil {
						break
					}
				}
			}
			if err != nil {
				break runs
			}
		}
	}
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	if err := e.flush(ctx); err != nil && !errors.Is(err, errEnough) {
		return err
	}
	p.record("Project", "", emitted, start)
	return out.close(ctx)
}

// originSet is the start vertices whose paths reach a frontier vertex.
type originSet map[string]struct{}

// addOrigins records that the paths of from reach dst, and returns an
// estimate of the bytes that took.
func addOrigins(next map[string]originSet, dst []byte, from originSet) int64 {
	var bytes int64
	set := next[string(dst)]
	if set == nil {
		set = originSet{}
		next[string(dst)] = set
		bytes += mapEntryBytes + stringBytes + int64(len(dst)) + 48 // + the set's header
	}
	for o := range from {
		if _, ok := set[o]; !ok {
			set[o] = struct{}{}
			bytes += mapEntryBytes + stringBytes
		}
	}
	return bytes
}

// project builds the result row of the edge rc is on; ok is false when
// WHERE drops it.
func (p *goPlan) project(rc *goRowContext) (row []value.Value, ok bool, err error) {
	if ok, err := p.keep(rc); !ok || err != nil {
		return nil, false, err
	}
	row = make([]value.Value, len(p.columns))
	for i, c := range p.columns {
		if row[i], err = eval.Eval(rc, c.Expr); err != nil {
			return nil, false, execErrorf("YIELD %s: %v", c.Name(), err)
		}
	}
	return row, true, nil
}

// goRowContext answers the expressions of one GO result row.
type goRowContext struct {
	rowContext
	p   *goPlan
	row *goRow
	dst *dstProps // the $$ properties by destination; nil if none were read
	// run and edge are where at put the row: the row's destination's
	// entry in dst is run.dstOrds[edge] (go_dst.go: dstEntry).
	run  *goRun
	edge int
}

// at moves the context to edge i of run.
func (c *goRowContext) at(run *goRun, i, vidLen int) {
	run.row(i, vidLen, c.row)
	c.run, c.edge = run, i
}

func (c *goRowContext) bindSource(set *startSet, srcRow int) {
	if set.varName != "" {
		c.varName, c.varRow = set.varName, set.src.rows[srcRow]
		return
	}
	c.inputRow = set.src.rows[srcRow]
}

func (c *goRowContext) EdgeProp(edge, prop string) (value.Value, error) {
	return c.prop(eval.PropAccess{Scope: eval.ScopeEdge, Name: edge, Prop: prop})
}

func (c *goRowContext) SrcProp(tag, prop string) (value.Value, error) {
	return c.prop(eval.PropAccess{Scope: eval.ScopeSrc, Name: tag, Prop: prop})
}

func (c *goRowContext) DstProp(tag, prop string) (value.Value, error) {
	return c.prop(eval.PropAccess{Scope: eval.ScopeDst, Name: tag, Prop: prop})
}

// describe lists the plan's nodes for EXPLAIN, leaf first.
func (p *goPlan) describe() []stageStat {
	dir := "OUT"
	switch p.stmt.Over.Direction {
	case ast.Reversely:
		dir = "IN"
	case ast.Bidirect:
		dir = "BOTH"
	}
	var names []string
	for _, t := range p.edgeTypes {
		abs := t
		if abs < 0 {
			abs = -abs
		}
		names = append(names, fmt.Sprintf("%s(%d)", p.edgeNames[abs], t))
	}
	nodes := []stageStat{{name: "Start", info: "from: " + p.stmt.From.String()}}
	for step := 1; step <= p.stmt.Steps.Max; step++ {
		info := fmt.Sprintf("step: %d, edges: [%s], direction: %s", step, strings.Join(names, ", "), dir)
		info += p.stepLimitInfo(step)
		if step < p.stmt.Steps.Min {
			info += ", dstOnly: true"
		} else {
			info += fmt.Sprintf(", vertexProps: %s, edgeProps: %s", refsString(p.srcProps), refsString(p.edgeProps))
			if p.packedRows {
				info += ", dstOnly: true"
			}
			if p.packedEdges {
				info += ", packedEdges: true"
			}
			if p.pushedWhere != "" && step == p.stmt.Steps.Max {
				info += ", filter: " + p.pushedWhere
			}
		}
		nodes = append(nodes, stageStat{name: "GetNeighbors", info: info})
	}
	if len(p.dstProps) > 0 {
		nodes = append(nodes, stageStat{name: "GetDstProps", info: "props: " + refsString(p.dstProps)})
	}
	if p.stmt.Where != nil && (p.pushedWhere == "" || p.stmt.Steps.Min < p.stmt.Steps.Max) {
		// Also when storaged filters the last step: the earlier result
		// steps of M TO N are filtered here.
		nodes = append(nodes, stageStat{name: "Filter", info: "condition: " + p.stmt.Where.String()})
	}
	var cols []string
	for _, c := range p.columns {
		cols = append(cols, c.String())
	}
	nodes = append(nodes, stageStat{name: "Project", info: "columns: [" + strings.Join(cols, ", ") + "]"})
	if p.stmt.Yield != nil && p.stmt.Yield.Distinct {
		nodes = append(nodes, stageStat{name: "Dedup"})
	}
	return nodes
}

func refsString(refs []*storagepb.PropRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = fmt.Sprintf("%d.%s", r.SchemaId, r.Name)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
