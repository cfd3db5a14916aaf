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
	}
	return nil
}
