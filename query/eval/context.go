// Package eval evaluates nGQL expressions against a row supplied by the
// executor; it also lists the properties an expression reads, so that the
// planner can ask storage for exactly those.
package eval

import (
	"fmt"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Reserved property names. Edges have the key fields _src, _dst, _rank and
// _type (as storage's PropRef has them); vertices have _vid. They are
// readable as e._src etc., and src(edge), dst(edge), rank(edge), type(edge),
// id($^) and id($$) are evaluated through them.
const (
	PropSrc  = "_src"
	PropDst  = "_dst"
	PropRank = "_rank"
	PropType = "_type"
	PropVID  = "_vid"
)

// AnyEdge is the edge name under which src(edge) and friends ask for the
// row's edge, whatever its type. AnyTag is the tag name under which id($^)
// and id($$) ask for a vertex's id, which belongs to no tag.
const (
	AnyEdge = ""
	AnyTag  = ""
)

// IsReservedProp reports whether name is one of the reserved key-field
// properties, which storage returns without reading a property row.
func IsReservedProp(name string) bool {
	switch name {
	case PropSrc, PropDst, PropRank, PropType, PropVID:
		return true
	}
	return false
}

// Context supplies the values that an expression refers to, for one row.
// The executor implements it; a missing property of an existing schema
// should be NULL (e.g. edge.prop on a row whose edge is of another type, or
// $$.tag.prop when the destination vertex has no such tag), while an
// unknown name is an error.
type Context interface {
	// EdgeProp returns edge.prop for the row's edge. edge is AnyEdge for
	// src/dst/rank/type(edge). prop may be reserved: _src and _dst are the
	// edge's own stored endpoints (also when traversed in reverse), _rank
	// its rank, and _type the name of its type as a STRING, which is what
	// NebulaGraph's type(edge) returns.
	EdgeProp(edge, prop string) (value.Value, error)
	// SrcProp returns $^.tag.prop, a property of the vertex the step leaves
	// from; tag is AnyTag and prop PropVID for id($^). In FETCH PROP ON
	// tags the fetched vertex plays $^, so id(vertex) asks here too.
	SrcProp(tag, prop string) (value.Value, error)
	// DstProp returns $$.tag.prop, a property of the vertex the step
	// reaches; tag is AnyTag and prop PropVID for id($$).
	DstProp(tag, prop string) (value.Value, error)
	// InputProp returns $-.col, a column of the piped-in row.
	InputProp(col string) (value.Value, error)
	// VarProp returns $variable.col, a column of the row of variable.
	VarProp(variable, col string) (value.Value, error)
}

// Scope names the edge or vertex of a row that properties() reads whole.
type Scope uint8

// The scopes of properties(EDGE), properties($^) and properties($$).
// properties(VERTEX), the vertex of a FETCH PROP ON tags row, is ScopeSrc,
// as id(VERTEX) reads $^.
const (
	ScopeEdge Scope = iota + 1
	ScopeSrc
	ScopeDst
)

// String is the argument of properties() that reads the scope.
func (s Scope) String() string {
	switch s {
	case ScopeEdge:
		return "EDGE"
	case ScopeSrc:
		return "$^"
	case ScopeDst:
		return "$$"
	}
	return "?"
}

// PropsSource is implemented by a Context that can give every property of
// the row's edge or of one of its vertices at once, for properties(EDGE),
// properties($^), properties($$) and properties(VERTEX) without .prop. It
// is separate from Context so that contexts which cannot need not
// implement it: properties() of a whole edge or vertex evaluated in such a
// context is an error. (properties(EDGE).p and the like are plain property
// reads, which the executor rewrites before evaluation.)
type PropsSource interface {
	// AllProps returns the properties as a MAP: for ScopeEdge those of the
	// row's edge, by name; for a vertex those of every tag it has, merged
	// (a name in several tags takes the value of the first tag by name),
	// or NULL when the vertex has none of the space's tags.
	AllProps(scope Scope) (value.Value, error)
}

// GraphSource is implemented by a Context that can give the row's vertices
// and edge whole, as VERTEX and EDGE values, for a bare VERTEX, $^, $$ or
// EDGE in a YIELD (NebulaGraph's FETCH ... YIELD vertex AS v). CollectProps
// marks such an expression as reading every property (AllSrc, AllDst,
// AllEdge), so the planner fetches what the value holds.
type GraphSource interface {
	// VertexOf returns the vertex of ScopeSrc ($^, VERTEX) or ScopeDst ($$)
	// with the tags it has and their properties.
	VertexOf(scope Scope) (value.Value, error)
	// EdgeOf returns the row's edge with its properties.
	EdgeOf() (value.Value, error)
}

// evalAllProps is properties(EDGE), properties($^), properties($$) or
// properties(VERTEX).
func evalAllProps(ctx Context, c *ast.FuncCall, scope Scope) (value.Value, error) {
	ps, ok := ctx.(PropsSource)
	if !ok {
		return value.Value{}, fail(c, fmt.Errorf("%s is not available here", c))
	}
	return ps.AllProps(scope)
}

// ParamSource is implemented by a Context that can read query parameters
// ($name, sent by the client with the statement). It is separate from
// Context so that contexts without parameters need not implement it: a
// parameter evaluated in such a context is an error.
type ParamSource interface {
	// Param returns the parameter name (without the '$'); ok is false
	// when the statement was sent without it.
	Param(name string) (v value.Value, ok bool)
}

// Params is a ParamSource over a map.
type Params map[string]value.Value

// Param implements ParamSource.
func (p Params) Param(name string) (value.Value, bool) {
	v, ok := p[name]
	return v, ok
}

// ParamNotSetError is the error of evaluating a parameter that the
// statement was sent without (wrapped in an *Error).
type ParamNotSetError struct{ Name string }

func (e *ParamNotSetError) Error() string {
	return fmt.Sprintf("query parameter $%s is not set", e.Name)
}

// evalParam reads $name from ctx.
func evalParam(ctx Context, e *ast.ParamExpr) (value.Value, error) {
	ps, ok := ctx.(ParamSource)
	if !ok {
		return value.Value{}, fail(e, fmt.Errorf("query parameter $%s cannot be used here", e.Name))
	}
	v, ok := ps.Param(e.Name)
	if !ok {
		return value.Value{}, fail(e, &ParamNotSetError{Name: e.Name})
	}
	return v, nil
}

// noContext is the Context of constant expressions, such as INSERT values:
// any reference to a row is an error.
type noContext struct{}

func (noContext) EdgeProp(edge, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("edge property %s.%s is not available here", edge, prop)
}

func (noContext) SrcProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$^.%s.%s is not available here", tag, prop)
}

func (noContext) DstProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$$.%s.%s is not available here", tag, prop)
}

func (noContext) InputProp(col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$-.%s is not available here", col)
}

func (noContext) VarProp(variable, col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$%s.%s is not available here", variable, col)
}

// PropAccess is an expression that is one property read of the row and
// nothing else: Eval of it returns the matching Context method's answer
// for (Name, Prop), EdgeProp for ScopeEdge, SrcProp for ScopeSrc, DstProp
// for ScopeDst. An executor that reads such columns straight from its rows
// (graphd's GO in columns) skips Eval without changing what they read.
type PropAccess struct {
	Scope Scope
	Name  string // the edge type or tag; AnyEdge or AnyTag for the key fields
	Prop  string
}

// PropAccessOf reports whether e is a single property read: edge.prop,
// $^.tag.prop, $$.tag.prop, src/dst/rank/type(EDGE), id($^), id($$) or
// id(VERTEX) (which reads $^, as Eval does).
func PropAccessOf(e ast.Expr) (PropAccess, bool) {
	switch x := e.(type) {
	case *ast.EdgePropExpr:
		return PropAccess{ScopeEdge, x.Edge, x.Prop}, true
	case *ast.SrcPropExpr:
		return PropAccess{ScopeSrc, x.Tag, x.Prop}, true
	case *ast.DstPropExpr:
		return PropAccess{ScopeDst, x.Tag, x.Prop}, true
	case *ast.FuncCall:
		if checkCall(x, false) != nil {
			return PropAccess{}, false // Eval fails it
		}
		name := strings.ToLower(x.Name)
		if prop, ok := edgeFunctionProp(name); ok && isEdgeArg(x) {
			return PropAccess{ScopeEdge, AnyEdge, prop}, true
		}
		if name == "id" && len(x.Args) == 1 {
			if v, ok := x.Args[0].(*ast.VertexExpr); ok {
				if v.Role == ast.DstVertex {
					return PropAccess{ScopeDst, AnyTag, PropVID}, true
				}
				return PropAccess{ScopeSrc, AnyTag, PropVID}, true
			}
		}
	}
	return PropAccess{}, false
}
