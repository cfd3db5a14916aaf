package exec

import (
	"math"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Query parameters ($name) arrive with the request (ExecuteWithParams).
// graphd evaluates them like any other value through rowContext, which is
// an eval.ParamSource. Expressions that storaged evaluates (GO's pushed
// WHERE, LOOKUP's filter, FIND PATH's WHERE, UPDATE's SET/WHEN/YIELD) are
// shipped as text, and storaged has no parameters: bindParams replaces each
// parameter by its value as a literal first.

// Param implements eval.ParamSource.
func (c *rowContext) Param(name string) (value.Value, bool) {
	v, ok := c.params[name]
	return v, ok
}

// checkParams rejects, before anything runs, parameters the request was
// sent without. A name that is a variable gets a hint: $v alone is read
// as a parameter, a variable's column is $v.col.
func (r *runState) checkParams(n ast.Node, names []string) error {
	for _, name := range names {
		if _, ok := r.params[name]; ok {
			continue
		}
		if _, isVar := r.vars[name]; isVar {
			return at(n, "query parameter $%s is not set ($%s is a variable: read its columns as $%s.col)", name, name, name)
		}
		return at(n, "query parameter $%s is not set", name)
	}
	return nil
}

// bindParams returns e with every parameter replaced by its value as a
// literal, for storaged. ok is false (with a nil error) when a value has
// no literal that reads back to it exactly, so the caller keeps the
// expression in graphd if it can; an unset parameter is an error.
func bindParams(params map[string]value.Value, e ast.Expr) (out ast.Expr, ok bool, err error) {
	ok = true
	out, err = rewrite(e, func(x ast.Expr) (ast.Expr, error) {
		p, isParam := x.(*ast.ParamExpr)
		if !isParam {
			return nil, nil
		}
		v, set := params[p.Name]
		if !set {
			return nil, at(p, "query parameter $%s is not set", p.Name)
		}
		if !hasLiteral(v) {
			ok = false
		}
		return &ast.Literal{Pos: p.Pos, Value: v}, nil
	})
	return out, ok && err == nil, err
}

// mustBindParams is bindParams for expressions that only storaged can
// evaluate: a value without a literal is an error.
func mustBindParams(params map[string]value.Value, e ast.Expr, what string) (ast.Expr, error) {
	out, ok, err := bindParams(params, e)
	if err != nil || ok {
		return out, err
	}
	var bad error
	ast.Inspect(e, func(x ast.Expr) bool {
		if p, isParam := x.(*ast.ParamExpr); isParam && bad == nil && !hasLiteral(params[p.Name]) {
			bad = at(p, "%s: query parameter $%s holds %s, which has no literal to send to storage", what, p.Name, params[p.Name])
		}
		return bad == nil
	})
	return nil, bad
}

// hasLiteral reports whether v prints (Value.String) as an nGQL literal
// that parses and evaluates back to v: not NaN or infinities, and not a
// timestamp, which prints as an int.
func hasLiteral(v value.Value) bool {
	switch v.Kind() {
	case value.KindNull, value.KindBool, value.KindInt, value.KindString,
		value.KindDate, value.KindTime, value.KindDateTime, value.KindDuration:
		return true
	case value.KindFloat:
		f, _ := v.FloatVal()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case value.KindList:
		items, _ := v.ListVal()
		for _, item := range items {
			if !hasLiteral(item) {
				return false
			}
		}
		return true
	case value.KindMap:
		props, _ := v.MapVal()
		for _, p := range props {
			if !hasLiteral(p.Value) {
				return false
			}
		}
		return true
	}
	return false
}

// paramVids is the start vertices a parameter holds: one vid, or a list of
// vids (NULLs skipped, as in a $-.col source).
func paramVids(params map[string]value.Value, p *ast.ParamExpr) ([]value.Value, error) {
	v, ok := params[p.Name]
	if !ok {
		return nil, at(p, "query parameter $%s is not set", p.Name)
	}
	items, isList := v.ListVal()
	if !isList {
		items = []value.Value{v}
	}
	out := make([]value.Value, 0, len(items))
	for _, item := range items {
		if !item.IsNull() {
			out = append(out, item)
		}
	}
	return out, nil
}
