package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// fetchVertices runs FETCH PROP ON tag, ... vids [YIELD ...]. In its YIELD,
// tag.prop reads a property of the fetched vertex (it parses as edge.prop
// syntax; FETCH gives it the tag meaning, as NebulaGraph does). Without
// YIELD the columns are the vertex id and every property of every tag.
func (r *runState) fetchVertices(ctx context.Context, s *ast.FetchVerticesStmt, input *table) (*table, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	var tags []*metapb.TagDesc
	if s.AllTags {
		tags = snap.Tags(space.GetSpaceId())
	} else {
		for _, name := range s.Tags {
			t, ok := snap.TagByName(space.GetSpaceId(), name)
			if !ok {
				return nil, at(s, "tag %q not found in space %q", name, space.GetName())
			}
			tags = append(tags, t)
		}
	}
	byName := map[string]*metapb.TagDesc{}
	for _, t := range tags {
		byName[t.GetName()] = t
	}
	var refs []*storagepb.PropRef
	index := map[string]int{}
	addRef := func(t *metapb.TagDesc, prop string) {
		key := t.GetName() + "." + prop
		if _, ok := index[key]; !ok {
			index[key] = len(refs)
			refs = append(refs, &storagepb.PropRef{SchemaId: t.GetTagId(), Name: prop})
		}
	}
	columns := []*ast.YieldColumn(nil)
	var whole *wholeProps // properties(VERTEX) (properties.go)
	if s.Yield != nil {
		columns = s.Yield.Columns
		var exprs []ast.Expr
		for _, c := range columns {
			exprs = append(exprs, c.Expr)
		}
		props := eval.CollectProps(exprs...)
		for _, ref := range props.Src {
			// id(vertex) arrives as the source vertex's id.
			if ref.Owner != eval.AnyTag || ref.Name != eval.PropVID {
				return nil, at(s, "$^.%s.%s: FETCH PROP ON a tag reads tag.prop and id(vertex)", ref.Owner, ref.Name)
			}
		}
		if len(props.Dst) > 0 {
			return nil, at(s, "FETCH PROP ON a tag reads tag.prop and id(vertex), not $$")
		}
		if err := r.checkRefs(s, props, input); err != nil {
			return nil, err
		}
		if err := checkSourceRefs(s, s.Vertices, props); err != nil {
			return nil, err
		}
		if err := checkColumns(columns, exprs...); err != nil {
			return nil, err
		}
		for _, ref := range props.Edge {
			if ref.Owner == eval.AnyEdge {
				return nil, at(s, "%s(edge) has no meaning in FETCH PROP ON a tag: there is no edge", strings.TrimPrefix(ref.Name, "_"))
			}
			if eval.IsReservedProp(ref.Name) {
				continue
			}
			t, ok := byName[ref.Owner]
			if !ok {
				return nil, at(s, "tag %q is not fetched by this statement", ref.Owner)
			}
			if !hasColumn(t.GetVersions(), ref.Name) {
				return nil, at(s, "tag %q has no property %q", ref.Owner, ref.Name)
			}
			addRef(t, ref.Name)
		}
		if props.AllEdge {
			return nil, at(s, "properties(edge) has no meaning in FETCH PROP ON a tag: there is no edge")
		}
		if props.AllSrc {
			whole = &wholeProps{tags: wholeTagsOf(tags)}
			for _, wt := range whole.tags {
				for _, c := range wt.props {
					addRef(byName[wt.name], c)
				}
			}
		}
	} else {
		vidCol := &ast.YieldColumn{Pos: s.Pos, Expr: &ast.EdgePropExpr{Pos: s.Pos, Edge: eval.AnyEdge, Prop: eval.PropVID}, Alias: "VertexID"}
		columns = append(columns, vidCol)
		for _, t := range tags {
			vs := t.GetVersions()
			for _, c := range vs[len(vs)-1].GetColumns() {
				addRef(t, c.GetName())
				columns = append(columns, &ast.YieldColumn{Pos: s.Pos, Expr: &ast.EdgePropExpr{Pos: s.Pos, Edge: t.GetName(), Prop: c.GetName()}})
			}
		}
	}
	// A tag with no property requested still decides whether the vertex is
	// returned: ask storage for its existence marker.
	for _, t := range tags {
		addRef(t, "_tag")
	}
	vids := vidCodec{space}
	set, err := r.startVids(vids, s.Vertices, input)
	if err != nil {
		return nil, err
	}
	parts := map[int32]*storagepb.VidList{}
	for _, v := range set.vids {
		pt := vids.part(v)
		if parts[pt] == nil {
			parts[pt] = &storagepb.VidList{}
		}
		parts[pt].Vids = append(parts[pt].Vids, v)
	}
	out := newTable()
	for _, c := range columns {
		out.cols = append(out.cols, c.Name())
	}
	if len(parts) == 0 {
		return out, nil
	}
	res, err := r.x.storage.GetProps(ctx, &storagepb.GetPropsReq{SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version(), Props: refs}, parts, nil)
	if err != nil {
		return nil, storageError("FETCH", err)
	}
	if out.mem = BudgetOf(ctx); out.mem != nil {
		if err := out.mem.Grow(propRowsSize(res), "receiving FETCH results from storage"); err != nil {
			return nil, err
		}
	}
	rc := &fetchContext{vids: vids, index: index, whole: whole}
	rc.rowContext = rowContext{input: input, vars: r.vars, params: r.params}
	for _, row := range res {
		rc.vid, rc.values = row.Vid, row.Values
		emitRows := [][]value.Value{nil}
		if set.src != nil {
			emitRows = nil
			for _, i := range set.origins[string(row.Vid)] {
				emitRows = append(emitRows, set.src.rows[i])
			}
		}
		for _, src := range emitRows {
			if set.varName != "" {
				rc.varName, rc.varRow = set.varName, src
			} else {
				rc.inputRow = src
			}
			vals := make([]value.Value, len(columns))
			for i, c := range columns {
				if vals[i], err = eval.Eval(rc, c.Expr); err != nil {
					return nil, execErrorf("YIELD %s: %v", c.Name(), err)
				}
			}
			out.add(vals...)
		}
	}
	if s.Yield != nil && s.Yield.Distinct {
		out.rows = distinctRows(out.rows)
	}
	return out, nil
}

// fetchContext answers tag.prop (or edge.prop) for one fetched row.
type fetchContext struct {
	rowContext
	vids     vidCodec
	index    map[string]int
	vid      []byte
	edge     *storagepb.EdgeKey
	values   []*commonpb.Value
	edgeName string
	whole    *wholeProps // for properties(VERTEX) and properties(EDGE) (properties.go)
}

func (c *fetchContext) EdgeProp(owner, prop string) (value.Value, error) {
	if c.edge != nil {
		switch prop {
		case eval.PropSrc:
			return c.vids.decode(c.edge.Src), nil
		case eval.PropDst:
			return c.vids.decode(c.edge.Dst), nil
		case eval.PropRank:
			return value.Int(c.edge.Rank), nil
		case eval.PropType:
			if owner == eval.AnyEdge {
				return value.Str(c.edgeName), nil // type(edge)
			}
			return value.Int(int64(c.edge.EdgeType)), nil // edge._type
		}
	} else if prop == eval.PropVID {
		return c.vids.decode(c.vid), nil
	}
	i, ok := c.index[owner+"."+prop]
	if !ok || i >= len(c.values) {
		return value.Null(), nil
	}
	return value.FromProto(c.values[i]), nil
}

// SrcProp answers id(vertex) (and id($^)) with the fetched vertex's id;
// FETCH has no other source vertex.
func (c *fetchContext) SrcProp(tag, prop string) (value.Value, error) {
	if tag == eval.AnyTag && prop == eval.PropVID && c.vid != nil {
		return c.vids.decode(c.vid), nil
	}
	return value.Null(), fmt.Errorf("$^.%s.%s is not available in FETCH", tag, prop)
}

func (c *fetchContext) DstProp(tag, prop string) (value.Value, error) {
	return value.Null(), fmt.Errorf("$$.%s.%s is not available in FETCH", tag, prop)
}

// fetchEdges runs FETCH PROP ON edge src->dst[@rank], ... [YIELD ...].
func (r *runState) fetchEdges(ctx context.Context, s *ast.FetchEdgesStmt, input *table) (*table, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	edge, ok := snap.EdgeByName(space.GetSpaceId(), s.Edge)
	if !ok {
		return nil, at(s, "edge %q not found in space %q", s.Edge, space.GetName())
	}
	var refs []*storagepb.PropRef
	index := map[string]int{}
	addRef := func(prop string) {
		key := edge.GetName() + "." + prop
		if _, ok := index[key]; !ok {
			index[key] = len(refs)
			refs = append(refs, &storagepb.PropRef{SchemaId: edge.GetEdgeType(), Name: prop})
		}
	}
	var columns []*ast.YieldColumn
	var whole *wholeProps // properties(EDGE) (properties.go)
	if s.Yield != nil {
		columns = s.Yield.Columns
		var exprs []ast.Expr
		for _, c := range columns {
			exprs = append(exprs, c.Expr)
		}
		props := eval.CollectProps(exprs...)
		if len(props.Src)+len(props.Dst) > 0 {
			return nil, at(s, "FETCH PROP ON an edge reads edge.prop and src/dst/rank/type(edge), not vertices")
		}
		if len(props.Input)+len(props.Var) > 0 {
			return nil, at(s, "FETCH PROP ON an edge cannot read $- or $var columns yet")
		}
		if err := r.checkParams(s, props.Param); err != nil {
			return nil, err
		}
		if err := checkColumns(columns, exprs...); err != nil {
			return nil, err
		}
		for _, ref := range props.Edge {
			if eval.IsReservedProp(ref.Name) {
				continue
			}
			if ref.Owner != edge.GetName() {
				return nil, at(s, "edge %q is not fetched by this statement", ref.Owner)
			}
			if !hasColumn(edge.GetVersions(), ref.Name) {
				return nil, at(s, "edge %q has no property %q", ref.Owner, ref.Name)
			}
			addRef(ref.Name)
		}
		if props.AllEdge {
			cols := latestColumns(edge.GetVersions())
			whole = &wholeProps{edges: map[string][]string{edge.GetName(): cols}}
			for _, c := range cols {
				addRef(c)
			}
		}
	} else {
		for _, k := range []string{eval.PropSrc, eval.PropDst, eval.PropRank} {
			columns = append(columns, &ast.YieldColumn{Pos: s.Pos, Expr: &ast.EdgePropExpr{Pos: s.Pos, Edge: edge.GetName(), Prop: k}})
		}
		vs := edge.GetVersions()
		for _, c := range vs[len(vs)-1].GetColumns() {
			addRef(c.GetName())
			columns = append(columns, &ast.YieldColumn{Pos: s.Pos, Expr: &ast.EdgePropExpr{Pos: s.Pos, Edge: edge.GetName(), Prop: c.GetName()}})
		}
	}
	vids := vidCodec{space}
	parts := map[int32]*storagepb.EdgeKeyList{}
	for _, k := range s.Keys {
		if _, lit := k.Src.(*ast.Literal); !lit {
			return nil, at(k, "FETCH of edges from piped keys is not supported yet; write literal src->dst@rank keys")
		}
		src, dst, rank, err := r.edgeKey(vids, k)
		if err != nil {
			return nil, err
		}
		pt := vids.part(src)
		if parts[pt] == nil {
			parts[pt] = &storagepb.EdgeKeyList{}
		}
		parts[pt].Keys = append(parts[pt].Keys, &storagepb.EdgeKey{Src: src, EdgeType: edge.GetEdgeType(), Rank: rank, Dst: dst})
	}
	out := newTable()
	for _, c := range columns {
		out.cols = append(out.cols, c.Name())
	}
	if len(parts) == 0 {
		return out, nil
	}
	res, err := r.x.storage.GetProps(ctx, &storagepb.GetPropsReq{SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version(), Props: refs}, nil, parts)
	if err != nil {
		return nil, storageError("FETCH", err)
	}
	if out.mem = BudgetOf(ctx); out.mem != nil {
		if err := out.mem.Grow(propRowsSize(res), "receiving FETCH results from storage"); err != nil {
			return nil, err
		}
	}
	rc := &fetchContext{vids: vids, index: index, edgeName: edge.GetName(), whole: whole}
	rc.rowContext = rowContext{input: input, vars: r.vars, params: r.params}
	for _, row := range res {
		rc.edge, rc.values = row.Edge, row.Values
		vals := make([]value.Value, len(columns))
		for i, c := range columns {
			if vals[i], err = eval.Eval(rc, c.Expr); err != nil {
				return nil, execErrorf("YIELD %s: %v", c.Name(), err)
			}
		}
		out.add(vals...)
	}
	if s.Yield != nil && s.Yield.Distinct {
		out.rows = distinctRows(out.rows)
	}
	return out, nil
}
