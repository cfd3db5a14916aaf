package ast

// Inspect walks e depth-first in source order, calling f for each
// expression before its children; when f returns false the children of that
// expression are skipped. nil expressions are not visited.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, c := range Children(e) {
		Inspect(c, f)
	}
}

// Children returns the direct subexpressions of e, in source order.
func Children(e Expr) []Expr {
	switch e := e.(type) {
	case *ListExpr:
		return e.Items
	case *MapExpr:
		out := make([]Expr, len(e.Items))
		for i, item := range e.Items {
			out[i] = item.Value
		}
		return out
	case *UnaryExpr:
		return []Expr{e.X}
	case *BinaryExpr:
		return []Expr{e.L, e.R}
	case *FuncCall:
		return e.Args
	case *AttributeExpr:
		return []Expr{e.X}
	case *SubscriptExpr:
		return []Expr{e.X, e.Index}
	case *AggregateExpr:
		if e.Arg != nil {
			return []Expr{e.Arg}
		}
	case *CaseExpr:
		var out []Expr
		if e.Subject != nil {
			out = append(out, e.Subject)
		}
		for _, w := range e.Whens {
			out = append(out, w.When, w.Then)
		}
		if e.Else != nil {
			out = append(out, e.Else)
		}
		return out
	case *ListComprehension:
		return nonNil(e.List, e.Where, e.Map)
	case *PredicateExpr:
		return nonNil(e.List, e.Where)
	case *ReduceExpr:
		return nonNil(e.Init, e.List, e.Map)
	case *SliceExpr:
		return nonNil(e.X, e.From, e.To)
	}
	return nil
}

func nonNil(es ...Expr) []Expr {
	out := es[:0]
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// BoundVars are the variables an expression binds for its subexpressions
// (the item of a list comprehension, a predicate function or reduce, and
// reduce's accumulator), "" for other expressions. A walk that resolves
// names must not take these for variables of the query.
func BoundVars(e Expr) []string {
	switch e := e.(type) {
	case *ListComprehension:
		return []string{e.Var}
	case *PredicateExpr:
		return []string{e.Var}
	case *ReduceExpr:
		return []string{e.Acc, e.Var}
	}
	return nil
}

// InspectScoped is Inspect that tracks the variables the expressions on
// the way bind (BoundVars): f sees, with each expression, the names bound
// around it, so that a walk resolving names can tell a comprehension's x
// from an edge or column named x. bound is not modified.
func InspectScoped(e Expr, f func(x Expr, bound map[string]bool) bool) {
	inspectScoped(e, nil, f)
}

func inspectScoped(e Expr, bound map[string]bool, f func(Expr, map[string]bool) bool) {
	if e == nil || !f(e, bound) {
		return
	}
	if vars := BoundVars(e); vars != nil {
		inner := make(map[string]bool, len(bound)+len(vars))
		for k := range bound {
			inner[k] = true
		}
		for _, v := range vars {
			inner[v] = true
		}
		// A reduce's initial value and every list are outside the scope
		// of its variables; the condition and the mapping inside it.
		for _, c := range Children(e) {
			if isBindingSource(e, c) {
				inspectScoped(c, bound, f)
			} else {
				inspectScoped(c, inner, f)
			}
		}
		return
	}
	for _, c := range Children(e) {
		inspectScoped(c, bound, f)
	}
}

// isBindingSource reports whether c is the list (or reduce's initial
// value) of the binding expression e, evaluated outside its variables.
func isBindingSource(e, c Expr) bool {
	switch e := e.(type) {
	case *ListComprehension:
		return c == e.List
	case *PredicateExpr:
		return c == e.List
	case *ReduceExpr:
		return c == e.List || c == e.Init
	}
	return false
}
