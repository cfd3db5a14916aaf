package eval

import (
	"strings"

	"github.com/novagraph/novagraph/query/ast"
)

// PropRef is one property read by an expression: Owner is the edge type or
// tag it belongs to, or AnyEdge/AnyTag for the key fields read by src(edge),
// id($$) and the like (see IsReservedProp).
type PropRef struct {
	Owner, Name string
}

// VarRef is one column of a variable, $Var.Col.
type VarRef struct {
	Var, Col string
}

// Props lists what a set of expressions reads from a row, each entry once,
// in the order first met. The planner turns Edge, Src and Dst into storage
// PropRefs and fetches destination vertices only if Dst names a tag.
type Props struct {
	Edge  []PropRef // edge.prop, and src/dst/rank/type(edge) as {AnyEdge, _src} etc.
	Src   []PropRef // $^.tag.prop, and id($^) and id(vertex) as {AnyTag, _vid}
	Dst   []PropRef // $$.tag.prop, and id($$) as {AnyTag, _vid}
	Input []string  // $-.col
	Var   []VarRef  // $var.col
	Param []string  // $name, a query parameter
	// properties(EDGE), properties($^) (or properties(VERTEX)) and
	// properties($$) read every property of the row's edge or vertex, as
	// a map (see PropsSource). The last two also list {AnyTag, _vid} in
	// Src and Dst, so that a check for "reads $^" or "reads $$" sees them.
	AllEdge, AllSrc, AllDst bool
}

// CollectProps returns the properties read by exprs; nil expressions are
// skipped.
func CollectProps(exprs ...ast.Expr) *Props {
	ps := &Props{}
	for _, e := range exprs {
		ps.Collect(e)
	}
	return ps
}

// Collect adds the properties read by e.
// A name a list comprehension, predicate function or reduce binds reads
// nothing (x.prop of such an x is an attribute of the item).
func (ps *Props) Collect(e ast.Expr) {
	ast.InspectScoped(e, func(e ast.Expr, bound map[string]bool) bool {
		switch e := e.(type) {
		case *ast.EdgePropExpr:
			if bound[e.Edge] {
				return true
			}
			ps.Edge = addOnce(ps.Edge, PropRef{e.Edge, e.Prop})
		case *ast.SrcPropExpr:
			ps.Src = addOnce(ps.Src, PropRef{e.Tag, e.Prop})
		case *ast.DstPropExpr:
			ps.Dst = addOnce(ps.Dst, PropRef{e.Tag, e.Prop})
		case *ast.InputPropExpr:
			ps.Input = addOnce(ps.Input, e.Col)
		case *ast.VarPropExpr:
			ps.Var = addOnce(ps.Var, VarRef{e.Var, e.Col})
		case *ast.ParamExpr:
			ps.Param = addOnce(ps.Param, e.Name)
		case *ast.FuncCall:
			// A special form's VERTEX or EDGE argument is not a value of
			// its own: do not descend into it.
			return !ps.collectCall(e)
		case *ast.VertexExpr:
			// A bare $^, $$ or VERTEX is the whole vertex (GraphSource).
			if e.Role == ast.DstVertex {
				ps.AllDst = true
				ps.Dst = addOnce(ps.Dst, PropRef{AnyTag, PropVID})
			} else {
				ps.AllSrc = true
				ps.Src = addOnce(ps.Src, PropRef{AnyTag, PropVID})
			}
		case *ast.EdgeExpr:
			ps.AllEdge = true
			for _, k := range []string{PropSrc, PropDst, PropRank, PropType} {
				ps.Edge = addOnce(ps.Edge, PropRef{AnyEdge, k})
			}
		}
		return true
	})
}

// collectCall records the key fields read by the special forms f(EDGE),
// id($^) / id($$) and properties(EDGE | $^ | $$ | VERTEX), mirroring
// evalCall, and reports whether c was one.
func (ps *Props) collectCall(c *ast.FuncCall) bool {
	if checkCall(c, false) != nil {
		return false
	}
	name := strings.ToLower(c.Name)
	if prop, ok := edgeFunctionProp(name); ok && isEdgeArg(c) {
		ps.Edge = addOnce(ps.Edge, PropRef{AnyEdge, prop})
		return true
	}
	if scope, ok := wholePropsScope(c); ok {
		switch scope {
		case ScopeEdge:
			ps.AllEdge = true
		case ScopeSrc:
			ps.AllSrc = true
			ps.Src = addOnce(ps.Src, PropRef{AnyTag, PropVID})
		case ScopeDst:
			ps.AllDst = true
			ps.Dst = addOnce(ps.Dst, PropRef{AnyTag, PropVID})
		}
		return true
	}
	if name != "id" || len(c.Args) != 1 {
		return false // other functions may take no argument at all (now(), pi())
	}
	if v, ok := c.Args[0].(*ast.VertexExpr); ok {
		if v.Role == ast.DstVertex {
			ps.Dst = addOnce(ps.Dst, PropRef{AnyTag, PropVID})
		} else {
			ps.Src = addOnce(ps.Src, PropRef{AnyTag, PropVID})
		}
		return true
	}
	return false
}

// addOnce appends x unless present; the lists are short, so a scan is
// cheaper than a map.
func addOnce[T comparable](list []T, x T) []T {
	for _, y := range list {
		if y == x {
			return list
		}
	}
	return append(list, x)
}
