package exec

import (
	"strings"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
)

// GO reads single properties through properties(): properties(edge).p,
// properties($^).p and properties($$).p, as NebulaGraph 3 writes them. The
// planner rewrites each into the property reference it stands for, so
// that storage is asked for exactly that property:
//
//   - properties(edge).p is edge.p for the edge types of OVER that have a
//     property p (coalesce(e1.p, e2.p) for several: a row's edge has one
//     type, and the others read NULL);
//   - properties($^).p and properties($$).p are $^.tag.p and $$.tag.p for
//     the tags of the space that have p, coalesced in tag order when there
//     are several.
//
// A column keeps its name (properties(EDGE).p) unless aliased. properties()
// as a whole value (a map of every property) is not supported: the value
// model has no MAP kind.

// rewriteProperties returns s with properties(...).p replaced, or s itself
// if it has none.
func rewriteProperties(snap *metaclient.Snapshot, space *metapb.SpaceDesc, s *ast.GoStmt) (*ast.GoStmt, error) {
	var over []*metapb.EdgeDesc
	if s.Over.All {
		over = snap.Edges(space.GetSpaceId())
	} else {
		for _, name := range s.Over.Edges {
			if e, ok := snap.EdgeByName(space.GetSpaceId(), name); ok {
				over = append(over, e)
			}
		}
	}
	tags := snap.Tags(space.GetSpaceId())
	changed := false
	f := func(x ast.Expr) (ast.Expr, error) {
		a, ok := x.(*ast.AttributeExpr)
		if !ok {
			return nil, nil
		}
		c, ok := a.X.(*ast.FuncCall)
		if !ok || !strings.EqualFold(c.Name, "properties") || len(c.Args) != 1 {
			return nil, nil
		}
		var refs []ast.Expr
		switch arg := c.Args[0].(type) {
		case *ast.EdgeExpr:
			for _, e := range over {
				if hasColumn(e.GetVersions(), a.Name) {
					refs = append(refs, &ast.EdgePropExpr{Pos: a.Pos, Edge: e.GetName(), Prop: a.Name})
				}
			}
			if len(refs) == 0 {
				return nil, at(a, "%s: no edge type of OVER has a property %q", a, a.Name)
			}
		case *ast.VertexExpr:
			if arg.Role == ast.RowVertex {
				return nil, nil // rejected as VERTEX in GO
			}
			for _, t := range tags {
				if !hasColumn(t.GetVersions(), a.Name) {
					continue
				}
				if arg.Role == ast.DstVertex {
					refs = append(refs, &ast.DstPropExpr{Pos: a.Pos, Tag: t.GetName(), Prop: a.Name})
				} else {
					refs = append(refs, &ast.SrcPropExpr{Pos: a.Pos, Tag: t.GetName(), Prop: a.Name})
				}
			}
			if len(refs) == 0 {
				return nil, at(a, "%s: no tag of space %q has a property %q", a, space.GetName(), a.Name)
			}
		default:
			return nil, nil
		}
		changed = true
		if len(refs) == 1 {
			return refs[0], nil
		}
		return &ast.FuncCall{Pos: a.Pos, Name: "coalesce", Args: refs}, nil
	}
	where, err := rewrite(s.Where, f)
	if err != nil {
		return nil, err
	}
	var yield *ast.YieldClause
	if s.Yield != nil {
		yield = &ast.YieldClause{Pos: s.Yield.Pos, Distinct: s.Yield.Distinct}
		for _, col := range s.Yield.Columns {
			before := changed
			changed = false
			e, err := rewrite(col.Expr, f)
			if err != nil {
				return nil, err
			}
			nc := col
			if changed {
				nc = &ast.YieldColumn{Pos: col.Pos, Expr: e, Alias: col.Name()}
			}
			yield.Columns = append(yield.Columns, nc)
			changed = changed || before
		}
	}
	if !changed {
		return s, nil
	}
	ns := *s
	ns.Where, ns.Yield = where, yield
	return &ns, nil
}
