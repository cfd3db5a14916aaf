package exec

import (
	"context"
	"fmt"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// An UPDATE / UPSERT runs inside storaged's raft apply (read, test WHEN,
// assign, write, yield), so graphd only validates it and ships its
// expressions as nGQL text, normalised so that storaged need not know the
// statement's shorthand: a property of the updated tag is always
// $^.tag.prop, one of the updated edge always edge.prop.

// updateTarget is the validated schema an UPDATE changes.
type updateTarget struct {
	stmt    ast.Node
	what    string // `tag "player"`, for errors
	name    string
	isEdge  bool
	columns []*metapb.ColumnDef // of the latest version
	params  map[string]value.Value
}

func (t *updateTarget) column(name string) *metapb.ColumnDef {
	for _, c := range t.columns {
		if c.GetName() == name {
			return c
		}
	}
	return nil
}

// prop is the normalised reference to one of the target's properties.
func (t *updateTarget) prop(n ast.Node, name string) (ast.Expr, error) {
	if t.column(name) == nil && !(t.isEdge && eval.IsReservedProp(name) && name != eval.PropVID) {
		return nil, at(n, "%s has no property %q", t.what, name)
	}
	if t.isEdge {
		return &ast.EdgePropExpr{Pos: n.Position(), Edge: t.name, Prop: name}, nil
	}
	return &ast.SrcPropExpr{Pos: n.Position(), Tag: t.name, Prop: name}, nil
}

// normalise rewrites e for storaged and rejects what an update cannot read.
func (t *updateTarget) normalise(e ast.Expr) (ast.Expr, error) {
	if e == nil {
		return nil, nil
	}
	if err := checkCalls(e); err != nil {
		return nil, err
	}
	// storaged has no query parameters: their values go as literals.
	e, err := mustBindParams(t.params, e, "UPDATE")
	if err != nil {
		return nil, err
	}
	if e, err = foldVolatile(e, true, "UPDATE"); err != nil {
		return nil, err
	}
	return rewrite(e, func(x ast.Expr) (ast.Expr, error) {
		switch x := x.(type) {
		case *ast.LabelExpr:
			return t.prop(x, x.Name)
		case *ast.EdgePropExpr:
			if x.Edge == eval.AnyEdge {
				if !t.isEdge {
					return nil, at(x, "%s: there is no edge in a vertex update", x)
				}
				return x, nil // src(edge), dst(edge), rank(edge), type(edge)
			}
			if x.Edge != t.name {
				return nil, at(x, "%s: %q is not the updated %s", x, x.Edge, t.what)
			}
			return t.prop(x, x.Prop)
		case *ast.SrcPropExpr:
			if t.isEdge {
				return nil, at(x, "%s: an edge update reads only the edge's properties", x)
			}
			if x.Tag == eval.AnyTag {
				return x, nil // id($^)
			}
			if x.Tag != t.name {
				return nil, at(x, "%s: %q is not the updated %s", x, x.Tag, t.what)
			}
			return t.prop(x, x.Prop)
		case *ast.DstPropExpr:
			return nil, at(x, "%s: $$ is not available in an update", x)
		case *ast.InputPropExpr, *ast.VarPropExpr:
			return nil, at(x, "%s: an update cannot read $- or variables", x)
		case *ast.VertexExpr:
			if t.isEdge || x.Role == ast.DstVertex {
				return nil, at(x, "%s is not available in this update", x)
			}
			return &ast.VertexExpr{Pos: x.Pos, Role: ast.SrcVertex}, nil // id(vertex) is id($^)
		case *ast.EdgeExpr:
			if !t.isEdge {
				return nil, at(x, "EDGE is not available in a vertex update")
			}
		}
		return nil, nil
	})
}

// buildUpdate fills the SET, WHEN and YIELD of req and returns the YIELD
// column names.
func (t *updateTarget) buildUpdate(req *storagepb.UpdateReq, set []*ast.SetItem, when ast.Expr, yield *ast.YieldClause) ([]string, error) {
	assigned := map[string]bool{}
	for _, item := range set {
		if item.Schema != "" && item.Schema != t.name {
			return nil, at(item, "SET %s: %q is not the updated %s", item, item.Schema, t.what)
		}
		col := t.column(item.Prop)
		if col == nil {
			return nil, at(item, "SET: %s has no property %q", t.what, item.Prop)
		}
		if assigned[item.Prop] {
			return nil, at(item, "SET: property %q is assigned twice", item.Prop)
		}
		assigned[item.Prop] = true
		e, err := t.normalise(item.Value)
		if err != nil {
			return nil, err
		}
		if lit, ok := e.(*ast.Literal); ok {
			// A constant is checked (and an int widened to a double)
			// here, where the error can name the property.
			v, err := schema.Coerce(lit.Value, col)
			if err != nil {
				return nil, at(item, "SET: %s: %v", t.what, err)
			}
			if v.Kind() != value.KindTimestamp {
				e = &ast.Literal{Pos: lit.Pos, Value: v}
			}
		}
		req.Set = append(req.Set, &storagepb.UpdatedProp{Name: item.Prop, Expr: e.String()})
	}
	w, err := t.normalise(when)
	if err != nil {
		return nil, err
	}
	req.When = exprText(w)
	var cols []string
	if yield != nil {
		if yield.Distinct {
			return nil, at(yield, "YIELD DISTINCT has no meaning in an update, which yields one row")
		}
		seen := map[string]bool{}
		for _, c := range yield.Columns {
			if seen[c.Name()] {
				return nil, at(c, "duplicate column name %q", c.Name())
			}
			seen[c.Name()] = true
			e, err := t.normalise(c.Expr)
			if err != nil {
				return nil, err
			}
			req.Yield = append(req.Yield, e.String())
			cols = append(cols, c.Name())
		}
	}
	return cols, nil
}

func (r *runState) updateVertex(ctx context.Context, s *ast.UpdateVertexStmt) (*table, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	tag, ok := snap.TagByName(space.GetSpaceId(), s.Tag)
	if !ok {
		return nil, at(s, "tag %q not found in space %q", s.Tag, space.GetName())
	}
	vs := tag.GetVersions()
	t := &updateTarget{stmt: s, what: fmt.Sprintf("tag %q", s.Tag), name: s.Tag, columns: vs[len(vs)-1].GetColumns(), params: r.params}
	vids := vidCodec{space}
	v, err := constantWith(r.params, s.Vid)
	if err != nil {
		return nil, at(s.Vid, "%v", err)
	}
	vid, err := vids.encode(v)
	if err != nil {
		return nil, at(s.Vid, "%v", err)
	}
	req := &storagepb.UpdateReq{
		SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version(), PartId: vids.part(vid),
		Vid: vid, TagId: tag.GetTagId(), Insertable: s.Upsert,
	}
	cols, err := t.buildUpdate(req, s.Set, s.When, s.Yield)
	if err != nil {
		return nil, err
	}
	verb := updateVerb(s.Upsert) + " VERTEX"
	resp, err := r.x.storage.Update(ctx, req)
	if err != nil {
		return nil, updateError(verb, fmt.Sprintf("vertex %s has no tag %q", v, s.Tag), err)
	}
	return updateResult(cols, resp), nil
}

func (r *runState) updateEdge(ctx context.Context, s *ast.UpdateEdgeStmt) (*table, error) {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return nil, err
	}
	edge, ok := snap.EdgeByName(space.GetSpaceId(), s.Edge)
	if !ok {
		return nil, at(s, "edge %q not found in space %q", s.Edge, space.GetName())
	}
	vs := edge.GetVersions()
	t := &updateTarget{stmt: s, what: fmt.Sprintf("edge %q", s.Edge), name: s.Edge, isEdge: true, columns: vs[len(vs)-1].GetColumns(), params: r.params}
	vids := vidCodec{space}
	src, dst, rank, err := r.edgeKey(vids, s.Key)
	if err != nil {
		return nil, err
	}
	req := &storagepb.UpdateReq{
		SpaceId: space.GetSpaceId(), CatalogVersion: snap.Version(), PartId: vids.part(src),
		Edge: &storagepb.EdgeKey{Src: src, EdgeType: edge.GetEdgeType(), Rank: rank, Dst: dst}, Insertable: s.Upsert,
	}
	cols, err := t.buildUpdate(req, s.Set, s.When, s.Yield)
	if err != nil {
		return nil, err
	}
	verb := updateVerb(s.Upsert) + " EDGE"
	resp, err := r.x.storage.Update(ctx, req)
	if err != nil {
		return nil, updateError(verb, fmt.Sprintf("edge %s %s does not exist", s.Edge, s.Key), err)
	}
	return updateResult(cols, resp), nil
}

func updateVerb(upsert bool) string {
	if upsert {
		return "UPSERT"
	}
	return "UPDATE"
}

// updateError reports storaged's E_NOT_FOUND (UPDATE of an absent row) in
// the statement's terms.
func updateError(verb, missing string, err error) error {
	if codeOf(err) == commonpb.ErrorCode_E_NOT_FOUND {
		return execErrorf("%s failed: %s (%s)", verb, missing, commonpb.ErrorCode_E_NOT_FOUND)
	}
	return storageError(verb, err)
}

// updateResult is the YIELD row: the row after the update, or as it was
// when WHEN was false. Without YIELD there is no result.
func updateResult(cols []string, resp *storagepb.UpdateResp) *table {
	if cols == nil {
		return nil
	}
	t := newTable(cols...)
	row := make([]value.Value, len(cols))
	for i := range row {
		if i < len(resp.GetYieldValues()) {
			row[i] = value.FromProto(resp.GetYieldValues()[i])
		}
	}
	t.add(row...)
	return t
}
