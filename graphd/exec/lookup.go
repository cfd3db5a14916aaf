package exec

import (
	"context"
	"strings"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// lookupPlan is a validated LOOKUP: the index it scans, the hints that
// narrow the scan, the residual filter storaged applies to each row and the
// properties the YIELD needs.
type lookupPlan struct {
	stmt     *ast.LookupStmt
	space    *metapb.SpaceDesc
	version  int64
	isEdge   bool
	name     string
	schemaID int32
	columns  []*metapb.ColumnDef // latest version
	yield    []*ast.YieldColumn

	index  *metapb.IndexDesc
	hints  []*storagepb.IndexColumnHint
	filter string
	props  []*storagepb.PropRef
	propAt map[string]int // "name.prop" → position in props
	whole  *wholeProps    // properties(vertex) / properties(edge) in YIELD (properties.go)
}

// lookup runs LOOKUP ON tag | edge [WHERE ...] [YIELD ...]. In WHERE and
// YIELD, name.prop is a property of the tag or edge looked up (the same
// syntax as an edge property, as in FETCH); id(vertex) is the vertex's id,
// src/dst/rank(edge) the edge's key. Without YIELD a tag LOOKUP returns
// VertexID, an edge LOOKUP SrcVID, DstVID and Ranking.
func (r *runState) lookup(ctx context.Context, s *ast.LookupStmt) (*table, error) {
	p, err := r.planLookup(s)
	if err != nil {
		return nil, err
	}
	req := &storagepb.LookupIndexReq{
		SpaceId: p.space.GetSpaceId(), CatalogVersion: p.version, IndexId: p.index.GetIndexId(),
		Hints: p.hints, Props: p.props, Filter: p.filter,
	}
	res, err := r.x.storage.LookupIndex(ctx, req)
	if err != nil {
		return nil, storageError("LOOKUP", err)
	}
	out := newTable()
	if out.mem = BudgetOf(ctx); out.mem != nil {
		if err := out.mem.Grow(propRowsSize(res), "receiving LOOKUP results from storage"); err != nil {
			return nil, err
		}
	}
	for _, c := range p.yield {
		out.cols = append(out.cols, c.Name())
	}
	vids := vidCodec{p.space}
	rc := &fetchContext{vids: vids, index: p.propAt, edgeName: p.name, whole: p.whole}
	rc.rowContext = rowContext{vars: r.vars, params: r.params}
	for _, row := range res {
		if p.isEdge {
			if row.Edge == nil {
				return nil, execErrorf("LOOKUP ON %s: storage returned a row without its edge", p.name)
			}
			rc.edge = row.Edge
		} else {
			rc.vid = row.Vid
		}
		rc.values = row.Values
		vals := make([]value.Value, len(p.yield))
		for i, c := range p.yield {
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

func (r *runState) planLookup(s *ast.LookupStmt) (*lookupPlan, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	p := &lookupPlan{stmt: s, space: space, version: snap.Version(), name: s.On, propAt: map[string]int{}}
	var versions []*metapb.Schema
	if tag, ok := snap.TagByName(space.GetSpaceId(), s.On); ok {
		p.schemaID, versions = tag.GetTagId(), tag.GetVersions()
	} else if edge, ok := snap.EdgeByName(space.GetSpaceId(), s.On); ok {
		p.isEdge, p.schemaID, versions = true, edge.GetEdgeType(), edge.GetVersions()
	} else {
		return nil, at(s, "LOOKUP ON %s: no tag or edge %q in space %q", s.On, s.On, space.GetName())
	}
	p.columns = versions[len(versions)-1].GetColumns()

	if s.Yield != nil {
		p.yield = s.Yield.Columns
	} else if p.isEdge {
		for _, c := range []struct{ fn, alias string }{{"src", "SrcVID"}, {"dst", "DstVID"}, {"rank", "Ranking"}} {
			p.yield = append(p.yield, &ast.YieldColumn{Pos: s.Pos, Alias: c.alias,
				Expr: &ast.FuncCall{Pos: s.Pos, Name: c.fn, Args: []ast.Expr{&ast.EdgeExpr{Pos: s.Pos}}}})
		}
	} else {
		p.yield = []*ast.YieldColumn{{Pos: s.Pos, Alias: "VertexID",
			Expr: &ast.FuncCall{Pos: s.Pos, Name: "id", Args: []ast.Expr{&ast.VertexExpr{Pos: s.Pos, Role: ast.RowVertex}}}}}
	}
	var yieldExprs []ast.Expr
	for _, c := range p.yield {
		yieldExprs = append(yieldExprs, c.Expr)
	}
	if err := checkColumns(p.yield, append(yieldExprs, s.Where)...); err != nil {
		return nil, err
	}
	props := eval.CollectProps(append(yieldExprs, s.Where)...)
	if err := p.checkProps(props); err != nil {
		return nil, err
	}
	if err := r.checkParams(s, props.Param); err != nil {
		return nil, err
	}
	addRef := func(name string) {
		key := p.name + "." + name
		if _, ok := p.propAt[key]; !ok {
			p.propAt[key] = len(p.props)
			p.props = append(p.props, &storagepb.PropRef{SchemaId: p.schemaID, Name: name})
		}
	}
	yieldProps := eval.CollectProps(yieldExprs...)
	for _, ref := range yieldProps.Edge {
		if ref.Owner == eval.AnyEdge || eval.IsReservedProp(ref.Name) {
			continue // from the row's key
		}
		addRef(ref.Name)
	}
	// properties(vertex) of a tag, properties(edge) of an edge type: every
	// property of the latest version.
	if yieldProps.AllSrc || yieldProps.AllEdge {
		if yieldProps.AllEdge != p.isEdge {
			return nil, at(s, "LOOKUP ON %s: properties(%s) has no meaning on a %s", p.name, map[bool]string{true: "edge", false: "vertex"}[yieldProps.AllEdge], p.kind())
		}
		cols := make([]string, len(p.columns))
		for i, c := range p.columns {
			cols[i] = c.GetName()
			addRef(c.GetName())
		}
		if p.isEdge {
			p.whole = &wholeProps{edges: map[string][]string{p.name: cols}}
		} else {
			p.whole = &wholeProps{tags: []wholeTag{{name: p.name, props: cols, always: true}}}
		}
	}

	// storaged has no query parameters: their values go as literals, which
	// can then also bound the index scan.
	where, err := mustBindParams(r.params, s.Where, "LOOKUP")
	if err != nil {
		return nil, err
	}
	filter, err := p.normaliseFilter(where)
	if err != nil {
		return nil, err
	}
	p.filter = exprText(filter)

	indexes := snap.IndexesOn(space.GetSpaceId(), p.isEdge, p.schemaID)
	if len(indexes) == 0 {
		return nil, at(s, "LOOKUP ON %s: There is no index to use at runtime: create a %s index on %s first", s.On, p.kind(), s.On)
	}
	conds := p.conditions(where)
	best := -1
	for _, ix := range indexes {
		hints := hintsFor(ix, conds)
		if best < 0 || len(hints) > best || (len(hints) == best && len(ix.GetFields()) < len(p.index.GetFields())) {
			best, p.index, p.hints = len(hints), ix, hints
		}
	}
	return p, nil
}

func (p *lookupPlan) kind() string {
	if p.isEdge {
		return "edge"
	}
	return "tag"
}

func (p *lookupPlan) column(name string) *metapb.ColumnDef {
	for _, c := range p.columns {
		if c.GetName() == name {
			return c
		}
	}
	return nil
}

// checkProps rejects what a LOOKUP row does not have.
func (p *lookupPlan) checkProps(props *eval.Props) error {
	s := p.stmt
	if len(props.Input) > 0 || len(props.Var) > 0 {
		return at(s, "LOOKUP cannot read $- or variables")
	}
	if len(props.Dst) > 0 {
		return at(s, "LOOKUP ON %s: $$ is not available in LOOKUP", p.name)
	}
	for _, ref := range props.Src {
		if p.isEdge {
			return at(s, "LOOKUP ON %s: %s is an edge type: there is no vertex, use src(edge) and dst(edge)", p.name, p.name)
		}
		if ref.Owner != eval.AnyTag || ref.Name != eval.PropVID {
			return at(s, "$^.%s.%s: LOOKUP ON a tag reads %s.prop and id(vertex)", ref.Owner, ref.Name, p.name)
		}
	}
	for _, ref := range props.Edge {
		if ref.Owner == eval.AnyEdge {
			if !p.isEdge {
				return at(s, "LOOKUP ON %s: %s is a tag: %s(edge) has no meaning", p.name, p.name, strings.TrimPrefix(ref.Name, "_"))
			}
			continue
		}
		if ref.Owner != p.name {
			return at(s, "%s.%s: LOOKUP ON %s reads only properties of %s", ref.Owner, ref.Name, p.name, p.name)
		}
		if eval.IsReservedProp(ref.Name) {
			if (p.isEdge && ref.Name != eval.PropVID) || (!p.isEdge && ref.Name == eval.PropVID) {
				continue
			}
			return at(s, "%s.%s is not a property of %s %q", ref.Owner, ref.Name, p.kind(), p.name)
		}
		if p.column(ref.Name) == nil {
			return at(s, "%s %q has no property %q", p.kind(), p.name, ref.Name)
		}
	}
	return nil
}

// normaliseFilter writes the WHERE as storaged reads it: a tag's
// properties as $^.tag.prop and id(vertex) as id($^); an edge's as
// edge.prop.
func (p *lookupPlan) normaliseFilter(where ast.Expr) (ast.Expr, error) {
	if where == nil {
		return nil, nil
	}
	where, err := foldVolatile(where, false, "LOOKUP")
	if err != nil {
		return nil, err
	}
	return rewrite(where, func(x ast.Expr) (ast.Expr, error) {
		if p.isEdge {
			return nil, nil
		}
		switch x := x.(type) {
		case *ast.EdgePropExpr:
			if x.Edge == p.name && x.Prop == eval.PropVID {
				return &ast.FuncCall{Pos: x.Pos, Name: "id", Args: []ast.Expr{&ast.VertexExpr{Pos: x.Pos, Role: ast.SrcVertex}}}, nil
			}
			if x.Edge == p.name {
				return &ast.SrcPropExpr{Pos: x.Pos, Tag: x.Edge, Prop: x.Prop}, nil
			}
		case *ast.VertexExpr:
			if x.Role == ast.RowVertex {
				return &ast.VertexExpr{Pos: x.Pos, Role: ast.SrcVertex}, nil
			}
		}
		return nil, nil
	})
}

// propCond is what the WHERE's top-level conjunction says about one
// property: an equality, or bounds.
type propCond struct {
	eq       *value.Value
	lo, hi   *value.Value
	loIncl   bool
	hiIncl   bool
	isString bool
}

// conditions collects the index-usable conjuncts of where: name.prop
// compared with a literal (or a constant call, constOperand) by ==, <, <=,
// > or >=. Others are left to the
// filter.
func (p *lookupPlan) conditions(where ast.Expr) map[string]*propCond {
	conds := map[string]*propCond{}
	var walk func(e ast.Expr)
	walk = func(e ast.Expr) {
		b, ok := e.(*ast.BinaryExpr)
		if !ok {
			return
		}
		if b.Op == ast.OpAnd {
			walk(b.L)
			walk(b.R)
			return
		}
		op := b.Op
		prop, lit := b.L, b.R
		if _, isLit := constOperand(b.L); isLit {
			prop, lit = b.R, b.L
			switch op {
			case ast.OpLt:
				op = ast.OpGt
			case ast.OpLe:
				op = ast.OpGe
			case ast.OpGt:
				op = ast.OpLt
			case ast.OpGe:
				op = ast.OpLe
			}
		}
		ref, ok := prop.(*ast.EdgePropExpr)
		if !ok || ref.Edge != p.name {
			return
		}
		lv, ok := constOperand(lit)
		if !ok || lv.IsNull() {
			return
		}
		col := p.column(ref.Prop)
		if col == nil {
			return
		}
		v, ok := hintValue(lv, col)
		if !ok {
			return
		}
		c := conds[ref.Prop]
		if c == nil {
			c = &propCond{isString: col.GetType() == metapb.PropType_STRING || col.GetType() == metapb.PropType_FIXED_STRING}
			conds[ref.Prop] = c
		}
		switch op {
		case ast.OpEq:
			if c.eq == nil {
				c.eq = &v
			}
		case ast.OpGt, ast.OpGe:
			incl := op == ast.OpGe
			if c.lo == nil {
				c.lo, c.loIncl = &v, incl
			} else if cmp, ok := value.Compare(v, *c.lo); ok && (cmp > 0 || cmp == 0 && !incl) {
				c.lo, c.loIncl = &v, incl
			}
		case ast.OpLt, ast.OpLe:
			incl := op == ast.OpLe
			if c.hi == nil {
				c.hi, c.hiIncl = &v, incl
			} else if cmp, ok := value.Compare(v, *c.hi); ok && (cmp < 0 || cmp == 0 && !incl) {
				c.hi, c.hiIncl = &v, incl
			}
		}
	}
	walk(where)
	return conds
}

// constOperand is the value of a literal, or of a constant call such as
// date("2024-01-02") (deterministic, reading no row), so that it can bound
// an index scan.
func constOperand(e ast.Expr) (value.Value, bool) {
	switch e := e.(type) {
	case *ast.Literal:
		return e.Value, true
	case *ast.FuncCall:
		if !eval.IsDeterministic(e) {
			return value.Value{}, false
		}
		v, err := eval.Eval(nil, e)
		return v, err == nil
	}
	return value.Value{}, false
}

// hintValue converts a literal to the column's type for an index hint; ok
// is false when it does not convert exactly (the filter still applies).
func hintValue(v value.Value, col *metapb.ColumnDef) (value.Value, bool) {
	switch col.GetType() {
	case metapb.PropType_STRING, metapb.PropType_FIXED_STRING:
		s, ok := v.StrVal()
		if !ok || col.GetType() == metapb.PropType_FIXED_STRING && len(s) > int(col.GetFixedLen()) {
			return value.Null(), false
		}
		return v, true
	}
	out, err := schema.Coerce(v, col)
	if err != nil {
		return value.Null(), false
	}
	return out, true
}

// hintsFor is the hints an index can use: equalities on a prefix of its
// fields, then at most one range.
func hintsFor(ix *metapb.IndexDesc, conds map[string]*propCond) []*storagepb.IndexColumnHint {
	var hints []*storagepb.IndexColumnHint
	for _, f := range ix.GetFields() {
		c := conds[f.GetName()]
		if c == nil {
			break
		}
		if c.eq != nil {
			hints = append(hints, &storagepb.IndexColumnHint{Column: f.GetName(), Eq: c.eq.ToProto()})
			continue
		}
		if c.lo == nil && c.hi == nil {
			break
		}
		h := &storagepb.IndexColumnHint{Column: f.GetName()}
		// An index may hold only a prefix of a string, where an exclusive
		// bound could drop a longer value that satisfies it: string bounds
		// are sent inclusive and the filter decides.
		if c.lo != nil {
			h.Begin, h.BeginIncl = c.lo.ToProto(), c.loIncl || c.isString
		}
		if c.hi != nil {
			h.End, h.EndIncl = c.hi.ToProto(), c.hiIncl || c.isString
		}
		hints = append(hints, h)
		break
	}
	return hints
}
