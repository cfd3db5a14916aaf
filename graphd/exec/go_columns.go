package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/eval"
)

// GO's result in columns, built straight from the runs.
//
// When a GO is the last statement of a request whose client reads columns,
// and each YIELD column is one property read (dst(edge), $$.tag.prop,
// edge.prop, rank(edge), …: eval.PropAccessOf), the projection appends
// each row's cells to typed column builders (commonpb.ColumnBuilder) instead of
// building a row of value.Values that toColumns then copies into columns
// again. For GO 3 STEPS … YIELD dst(edge) on soc-Slashdot0902, 75,000 rows
// a query, that is one int64 appended per row instead of an 80-byte Value,
// a row slice, one Eval and a second pass (docs/benchmarks.md, issue 22).
// WHERE still goes through Eval, row by row, before the cells are read.
//
// Everything else takes the row path (emit): YIELD DISTINCT, rows joined
// to input rows ($-, $var), expressions that compute (a + 1, properties()),
// a GO whose rows flow into a pipe, and clients that read rows.

// columnRefs resolves the YIELD columns for the columnar projection; ok is
// false when one of them is not a single property read.
func (p *goPlan) columnRefs() ([]goRef, bool) {
	refs := make([]goRef, len(p.columns))
	for i, c := range p.columns {
		a, ok := eval.PropAccessOf(c.Expr)
		if !ok {
			return nil, false
		}
		refs[i] = p.ref(a)
	}
	return refs, true
}

// keep evaluates WHERE for the row rc is on (unless storaged did).
func (p *goPlan) keep(rc *goRowContext) (bool, error) {
	if rc.row.filtered {
		return true, nil
	}
	ok, err := eval.Filter(rc, p.stmt.Where)
	if err != nil {
		return false, execErrorf("WHERE: %v", err)
	}
	return ok, nil
}

// emitColumns is emit for a result built in columns: it projects every
// traversed edge WHERE keeps into one column builder per YIELD column and
// hands the finished columns to out as the statement's table.
//
// Memory: the columns are charged as they grow, every 1,024 edges, so the
// limit stops a huge result on the way; the runs' storage answers are
// released as they are read when nothing points into them.
func (p *goPlan) emitColumns(ctx context.Context, out *tableSink, runs []goRun, rc *goRowContext, refs []goRef, start time.Time) error {
	mem := BudgetOf(ctx)
	vidLen := int(p.space.GetVidLen())
	expect := 0
	for ri := range runs {
		expect += runs[ri].edges(vidLen) * max(1, len(runs[ri].origins))
	}
	expect = min(expect, maxExpectedRows)
	builders := make([]commonpb.ColumnBuilder, len(refs))
	for j, r := range refs {
		builders[j].ValueSize = protoValueSize
		builders[j].Reserve(expect, p.expectedKind(r))
		// A $$ string column's bytes, estimated from the destinations'
		// strings, so that its string array grows once, not by
		// doubling (a copy of everything so far each time).
		if r.scope == eval.ScopeDst && r.field == fieldStored && rc.dst != nil && r.index >= 0 && r.index < len(rc.dst.cols) {
			if c := rc.dst.cols[r.index]; c.GetKind() == commonpb.ColumnKind_COL_STR && len(c.StrEnds) > 0 {
				builders[j].ReserveStrBytes(expect * (len(c.StrData)/len(c.StrEnds) + 1))
			}
		}
	}
	var charged int64
	charge := func() error {
		var total int64
		for j := range builders {
			total += builders[j].Bytes()
		}
		if err := mem.Grow(total-charged, "building the result for the client"); err != nil {
			return err
		}
		charged = total
		return nil
	}
	// check looks at the context and charges the columns once every
	// 1,024 edges read (edges: how many so far).
	nextCheck := 0
	check := func(edges int) error {
		if edges < nextCheck {
			return nil
		}
		nextCheck = edges + 1024
		if ctx.Err() != nil {
			return ctxError(ctx, "GO")
		}
		return charge()
	}
	// A run's storage answer is garbage once its edges are projected when
	// no cell points into it (vids and strings are copied into the
	// columns; a stored edge or $^ property that is not a scalar is a
	// Value of the answer's): it is released run by run, so that the
	// step's answer and the columns are not both held whole.
	release := true
	for _, r := range refs {
		if r.field == fieldStored && r.scope != eval.ScopeDst {
			release = false
		}
	}
	var row goRow
	rc.row = &row
	rows, edges := 0, 0
	for ri := range runs {
		run := &runs[ri]
		if p.rowPerEdge(run) {
			n := run.edges(vidLen)
			for lo := 0; lo < n; lo += 1024 {
				if err := check(edges + lo); err != nil {
					return err
				}
				hi := min(lo+1024, n)
				for j := range refs {
					if err := p.projectColumn(rc, run, &refs[j], &builders[j], lo, hi); err != nil {
						return execErrorf("YIELD %s: %v", p.columns[j].Name(), err)
					}
				}
			}
			rows, edges = rows+n, edges+n
		} else {
			n, err := p.projectRun(rc, run, refs, builders, &edges, check)
			if err != nil {
				return err
			}
			rows += n
		}
		if release {
			mem.Release(neighborsSize([]*storagepb.VertexNeighbors{run.vn}))
			run.vn = nil
		}
	}
	if err := charge(); err != nil {
		return err
	}
	ds := &graphpb.DataSet{ColumnNames: out.t.cols, Columns: make([]*commonpb.Column, len(builders)), NumRows: int64(rows)}
	for j := range builders {
		ds.Columns[j] = builders[j].Finish()
	}
	out.t.columns = ds
	p.record("Project", "", rows, start)
	return out.close(ctx)
}

// projectRun appends the rows of run's edges that WHERE keeps, reading
// each cell through rc, and returns how many; edges counts the edges read,
// and check sees the count before each.
func (p *goPlan) projectRun(rc *goRowContext, run *goRun, refs []goRef, builders []commonpb.ColumnBuilder,
	edges *int, check func(edges int) error) (rows int, err error) {
	vidLen := int(p.space.GetVidLen())
	for i, n := 0, run.edges(vidLen); i < n; i++ {
		if err := check(*edges); err != nil {
			return rows, err
		}
		*edges++
		rc.at(run, i, vidLen)
		if ok, err := p.keep(rc); err != nil {
			return rows, err
		} else if !ok {
			continue
		}
		// Without joins to input rows, each path origin gives the same
		// row.
		for range max(1, len(run.origins)) {
			for j := range refs {
				cell, err := rc.cell(&refs[j])
				if err != nil {
					return rows, execErrorf("YIELD %s: %v", p.columns[j].Name(), err)
				}
				cell.appendTo(&builders[j], p.vids)
			}
			rows++
		}
	}
	return rows, nil
}

// rowPerEdge reports whether each of run's edges makes exactly one row:
// no WHERE left to evaluate and at most one path origin. Its rows are then
// projected a column at a time (projectColumn).
func (p *goPlan) rowPerEdge(run *goRun) bool {
	return len(run.origins) <= 1 && (run.filtered || p.stmt.Where == nil)
}

// projectColumn appends column r of the rows of run's edges [lo, hi) to
// b, as rc.cell would read them: straight from the arrays when the column
// is the int vid each edge reaches (the packed destinations), a $$
// property (gathered by ordinal) or an edge property of a packed answer,
// and cell by cell otherwise. A loop per column instead of a dispatch per
// cell: a GO 3 + props has 75,000 rows of four cells.
func (p *goPlan) projectColumn(rc *goRowContext, run *goRun, r *goRef, b *commonpb.ColumnBuilder, lo, hi int) error {
	vidLen := int(p.space.GetVidLen())
	switch {
	case p.reachedIntVid(run, r):
		for i := lo; i < hi; i++ {
			x, _ := partition.DecodeInt64Vid(run.vn.PackedDsts[i*vidLen : (i+1)*vidLen])
			b.AddInt(x)
		}
		return nil
	case r.scope == eval.ScopeDst && r.field == fieldStored && r.index >= 0 && rc.dst != nil &&
		r.index < len(rc.dst.cols) && len(run.dstOrds) >= hi:
		appendCells(b, rc.dst.cols[r.index], run.dstOrds[lo:hi], lo, hi, p.vids)
		return nil
	case r.scope == eval.ScopeEdge && r.field == fieldStored && run.packed && r.index >= 0 &&
		r.index < len(run.vn.EdgeColumns) && r.name == p.edgeNames[abs32(run.edgeType)]:
		appendCells(b, run.vn.EdgeColumns[r.index], nil, lo, hi, p.vids)
		return nil
	}
	for i := lo; i < hi; i++ {
		rc.at(run, i, vidLen)
		cell, err := rc.cell(r)
		if err != nil {
			return err
		}
		cell.appendTo(b, p.vids)
	}
	return nil
}

// reachedIntVid reports whether r reads the int vid edges of the packed
// run reach: dst(edge) of an out-edge, edge._dst, id($$).
func (p *goPlan) reachedIntVid(run *goRun, r *goRef) bool {
	if !p.vids.isInt() || !run.packed {
		return false
	}
	switch {
	case r.scope == eval.ScopeDst && r.field == fieldTo:
		return true
	case r.scope == eval.ScopeEdge && (r.name == eval.AnyEdge || r.name == p.edgeNames[abs32(run.edgeType)]):
		return r.field == fieldTo || (r.field == fieldStoredDst && run.edgeType > 0)
	}
	return false
}

// appendCells appends cells of col to b, as columnCell(col, ·).appendTo
// would: cells at[0..] when at is set (ordinals), else cells [lo, hi).
// A typed column without NULLs is copied with the builder's bulk appends
// (AppendAt, AppendRange), which grow its arrays once per call.
func appendCells(b *commonpb.ColumnBuilder, col *commonpb.Column, at []int32, lo, hi int, vids vidCodec) {
	idx := func(i int) int {
		if at != nil {
			return int(at[i-lo])
		}
		return i
	}
	if len(col.Nulls) == 0 && len(col.Strs) == 0 {
		switch col.GetKind() {
		case commonpb.ColumnKind_COL_INT, commonpb.ColumnKind_COL_STR, commonpb.ColumnKind_COL_FLOAT:
			if at != nil {
				b.AppendAt(col, at[:hi-lo])
			} else {
				b.AppendRange(col, lo, hi)
			}
			return
		}
	}
	for i := lo; i < hi; i++ {
		columnCell(col, idx(i)).appendTo(b, vids)
	}
}

// abs32 is |t|, an edge type without its direction.
func abs32(t int32) int32 {
	if t < 0 {
		return -t
	}
	return t
}

// expectedKind is the column kind r's cells will most likely have, to
// reserve the typed array for: COL_ANY (nothing reserved) when only the
// data can tell.
func (p *goPlan) expectedKind(r goRef) commonpb.ColumnKind {
	switch r.field {
	case fieldStoredSrc, fieldStoredDst, fieldFrom, fieldTo:
		if p.vids.isInt() {
			return commonpb.ColumnKind_COL_INT
		}
		return commonpb.ColumnKind_COL_STR
	case fieldRank, fieldTypeSigned:
		return commonpb.ColumnKind_COL_INT
	case fieldTypeName:
		return commonpb.ColumnKind_COL_STR
	}
	return commonpb.ColumnKind_COL_ANY
}

// checkNeighbors checks that a GetNeighbors answer holds what it says, so
// that a faulty storaged cannot make the projection index past an array
// or the destination dedup read a vid of the wrong length: every edge's
// destination of the space's vid length, and a packed answer's (dst_only,
// packed_edges) arrays of one length.
func checkNeighbors(vn *storagepb.VertexNeighbors, req *storagepb.GetNeighborsReq, vidLen int) error {
	if !req.DstOnly && !req.PackedEdges {
		for i, e := range vn.Edges {
			if len(e.Dst) != vidLen {
				return fmt.Errorf("vertex %x: edge %d reaches a %d-byte vid %x, want %d bytes", vn.Vid, i, len(e.Dst), e.Dst, vidLen)
			}
		}
		return nil
	}
	if len(vn.PackedDsts)%vidLen != 0 {
		return fmt.Errorf("vertex %x: %d bytes of packed destinations, not a multiple of the %d-byte vid", vn.Vid, len(vn.PackedDsts), vidLen)
	}
	n := len(vn.PackedDsts) / vidLen
	if !req.PackedEdges || n == 0 {
		return nil
	}
	if len(vn.PackedRanks) != n || len(vn.EdgeColumns) != len(req.EdgeProps) {
		return fmt.Errorf("vertex %x: %d edges with %d ranks and %d property columns, want %d columns",
			vn.Vid, n, len(vn.PackedRanks), len(vn.EdgeColumns), len(req.EdgeProps))
	}
	for j, c := range vn.EdgeColumns {
		if err := c.Check(n); err != nil {
			return fmt.Errorf("vertex %x: edge property column %d: %w", vn.Vid, j, err)
		}
	}
	return nil
}
