package exec

import (
	"context"
	"fmt"
	"strconv"
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
		if err := rc.emit(out, columns, set.varName, emitRows); err != nil {
			return nil, err
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
			// A row's $- or $var columns are those of the input row
			// that named its key: the keys must read that input.
			var keyExprs []ast.Expr
			for _, k := range s.Keys {
				keyExprs = append(keyExprs, k.Src, k.Dst, k.Rank)
			}
			keyProps := eval.CollectProps(keyExprs...)
			if len(props.Input) > 0 && len(keyProps.Input) == 0 {
				return nil, at(s, "YIELD reads $-, but the edge keys do not: write them as $-.src -> $-.dst")
			}
			for _, v := range props.Var {
				found := false
				for _, kv := range keyProps.Var {
					found = found || kv.Var == v.Var
				}
				if !found {
					return nil, at(s, "YIELD reads $%s, but the edge keys do not", v.Var)
				}
			}
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
	keys, err := r.fetchEdgeKeys(vids, s, input)
	if err != nil {
		return nil, err
	}
	parts := map[int32]*storagepb.EdgeKeyList{}
	for _, k := range keys.list {
		pt := vids.part(k.src)
		if parts[pt] == nil {
			parts[pt] = &storagepb.EdgeKeyList{}
		}
		parts[pt].Keys = append(parts[pt].Keys, &storagepb.EdgeKey{Src: k.src, EdgeType: edge.GetEdgeType(), Rank: k.rank, Dst: k.dst})
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
		emitRows := [][]value.Value{nil} // a constant key: one row
		if o := keys.origins[edgeKeyString(row.Edge.GetSrc(), row.Edge.GetDst(), row.Edge.GetRank())]; len(o) > 0 {
			emitRows = o // one per input row that named the key
		}
		if err := rc.emit(out, columns, keys.varName, emitRows); err != nil {
			return nil, err
		}
	}
	if s.Yield != nil && s.Yield.Distinct {
		out.rows = distinctRows(out.rows)
	}
	return out, nil
}

// fetchKeys are the edge keys of a FETCH PROP ON an edge type — listed
// keys as listed, keys from rows each once — and, for keys read from the piped input or a
// variable ($-.s -> $-.d @ $-.r), the rows each key came from, so that
// YIELD can read their columns too.
type fetchKeys struct {
	list    []fetchKey
	origins map[string][][]value.Value
	piped   bool   // keys read from $-
	varName string // keys read from $var
}

type fetchKey struct {
	src, dst []byte
	rank     int64
}

func edgeKeyString(src, dst []byte, rank int64) string {
	return string(src) + "\x00" + string(dst) + "\x00" + strconv.FormatInt(rank, 10)
}

// fetchEdgeKeys evaluates the keys of s: a key of constants once, a key
// reading $- once per input row and a key reading $var once per row of the
// variable. A row whose key is NULL fetches nothing, as in NebulaGraph.
func (r *runState) fetchEdgeKeys(vids vidCodec, s *ast.FetchEdgesStmt, input *table) (*fetchKeys, error) {
	keys := &fetchKeys{origins: map[string][][]value.Value{}}
	seen := map[string]bool{}
	add := func(src, dst []byte, rank int64, origin []value.Value) {
		if origin == nil {
			// A listed key is fetched as listed, twice if listed twice,
			// as NebulaGraph does.
			keys.list = append(keys.list, fetchKey{src, dst, rank})
			return
		}
		// A key from rows is fetched once; each row that named it gets
		// its result.
		ks := edgeKeyString(src, dst, rank)
		if !seen[ks] {
			seen[ks] = true
			keys.list = append(keys.list, fetchKey{src, dst, rank})
		}
		keys.origins[ks] = append(keys.origins[ks], origin)
	}
	for _, k := range s.Keys {
		refs := eval.CollectProps(k.Src, k.Dst, k.Rank)
		if len(refs.Input)+len(refs.Var) == 0 {
			src, dst, rank, err := r.edgeKey(vids, k)
			if err != nil {
				return nil, err
			}
			add(src, dst, rank, nil)
			continue
		}
		ctx := &rowContext{vars: r.vars, params: r.params}
		var rows [][]value.Value
		switch {
		case len(refs.Input) > 0 && len(refs.Var) > 0:
			return nil, at(k, "an edge key reads either $- or a variable, not both")
		case len(refs.Input) > 0:
			if input == nil {
				return nil, at(k, "the key reads $-, but nothing is piped in: write it after '|'")
			}
			keys.piped, ctx.input, rows = true, input, input.rows
		default:
			name := refs.Var[0].Var
			for _, v := range refs.Var {
				if v.Var != name {
					return nil, at(k, "an edge key reads one variable, not $%s and $%s", name, v.Var)
				}
			}
			t, ok := r.vars[name]
			if !ok {
				return nil, at(k, "variable $%s is not defined", name)
			}
			if keys.varName != "" && keys.varName != name {
				return nil, at(k, "the keys read one variable, not $%s and $%s", keys.varName, name)
			}
			keys.varName, rows = name, t.rows
		}
		if keys.piped && keys.varName != "" {
			return nil, at(k, "the keys read either $- or a variable, not both")
		}
		for _, row := range rows {
			if keys.varName != "" {
				ctx.varName, ctx.varRow = keys.varName, row
			} else {
				ctx.inputRow = row
			}
			src, dst, rank, ok, err := rowEdgeKey(ctx, vids, k)
			if err != nil {
				return nil, err
			}
			if ok {
				add(src, dst, rank, row)
			}
		}
	}
	return keys, nil
}

// rowEdgeKey evaluates a key's src, dst and rank against one row; ok false
// when src or dst is NULL.
func rowEdgeKey(ctx eval.Context, vids vidCodec, k *ast.EdgeKey) (src, dst []byte, rank int64, ok bool, err error) {
	sv, err := eval.Eval(ctx, k.Src)
	if err != nil {
		return nil, nil, 0, false, at(k.Src, "%v", err)
	}
	dv, err := eval.Eval(ctx, k.Dst)
	if err != nil {
		return nil, nil, 0, false, at(k.Dst, "%v", err)
	}
	if sv.IsNull() || dv.IsNull() {
		return nil, nil, 0, false, nil
	}
	if src, err = vids.encode(sv); err != nil {
		return nil, nil, 0, false, at(k.Src, "%v", err)
	}
	if dst, err = vids.encode(dv); err != nil {
		return nil, nil, 0, false, at(k.Dst, "%v", err)
	}
	if k.Rank != nil {
		rv, err := eval.Eval(ctx, k.Rank)
		if err != nil {
			return nil, nil, 0, false, at(k.Rank, "%v", err)
		}
		i, isInt := rv.IntVal()
		if !isInt || rv.Kind() != value.KindInt {
			return nil, nil, 0, false, at(k.Rank, "rank must be an int, got %s", rv)
		}
		rank = i
	}
	return src, dst, rank, true, nil
}

// emit adds to out the YIELD of the fetched row in rc once per row of
// sources, the input (or variable varName) rows that named it; a nil
// source is a listed id or key.
func (rc *fetchContext) emit(out *table, columns []*ast.YieldColumn, varName string, sources [][]value.Value) error {
	for _, src := range sources {
		if varName != "" {
			rc.varName, rc.varRow = varName, src
		} else {
			rc.inputRow = src
		}
		vals := make([]value.Value, len(columns))
		for i, c := range columns {
			var err error
			if vals[i], err = eval.Eval(rc, c.Expr); err != nil {
				return execErrorf("YIELD %s: %v", c.Name(), err)
			}
		}
		out.add(vals...)
	}
	return nil
}
