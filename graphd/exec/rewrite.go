package exec

import (
	"github.com/novagraph/novagraph/query/ast"
)

// rewrite returns a copy of e in which f replaced nodes. f sees each node
// before its children: a non-nil result replaces the node (its children
// are not visited), nil keeps it and rewrite descends into it. The input
// expression is never modified (statements may be printed afterwards).
func rewrite(e ast.Expr, f func(ast.Expr) (ast.Expr, error)) (ast.Expr, error) {
	if e == nil {
		return nil, nil
	}
	repl, err := f(e)
	if err != nil || repl != nil {
		return repl, err
	}
	switch x := e.(type) {
	case *ast.ListExpr:
		items, err := rewriteAll(x.Items, f)
		if err != nil {
			return nil, err
		}
		return &ast.ListExpr{Pos: x.Pos, Items: items}, nil
	case *ast.MapExpr:
		items := make([]ast.MapItem, len(x.Items))
		for i, item := range x.Items {
			v, err := rewrite(item.Value, f)
			if err != nil {
				return nil, err
			}
			items[i] = ast.MapItem{Key: item.Key, Value: v}
		}
		return &ast.MapExpr{Pos: x.Pos, Items: items}, nil
	case *ast.UnaryExpr:
		sub, err := rewrite(x.X, f)
		if err != nil {
			return nil, err
		}
		return &ast.UnaryExpr{Pos: x.Pos, Op: x.Op, X: sub}, nil
	case *ast.BinaryExpr:
		l, err := rewrite(x.L, f)
		if err != nil {
			return nil, err
		}
		r, err := rewrite(x.R, f)
		if err != nil {
			return nil, err
		}
		return &ast.BinaryExpr{Pos: x.Pos, Op: x.Op, L: l, R: r}, nil
	case *ast.FuncCall:
		args, err := rewriteAll(x.Args, f)
		if err != nil {
			return nil, err
		}
		return &ast.FuncCall{Pos: x.Pos, Name: x.Name, Args: args}, nil
	case *ast.AttributeExpr:
		sub, err := rewrite(x.X, f)
		if err != nil {
			return nil, err
		}
		return &ast.AttributeExpr{Pos: x.Pos, X: sub, Name: x.Name}, nil
	case *ast.SubscriptExpr:
		sub, err := rewrite(x.X, f)
		if err != nil {
			return nil, err
		}
		idx, err := rewrite(x.Index, f)
		if err != nil {
			return nil, err
		}
		return &ast.SubscriptExpr{Pos: x.Pos, X: sub, Index: idx}, nil
	case *ast.AggregateExpr:
		if x.Arg == nil {
			return x, nil
		}
		arg, err := rewrite(x.Arg, f)
		if err != nil {
			return nil, err
		}
		return &ast.AggregateExpr{Pos: x.Pos, Name: x.Name, Distinct: x.Distinct, Arg: arg}, nil
	case *ast.CaseExpr:
		out := &ast.CaseExpr{Pos: x.Pos, Ternary: x.Ternary, Whens: make([]ast.CaseWhen, len(x.Whens))}
		var err error
		if out.Subject, err = rewrite(x.Subject, f); err != nil {
			return nil, err
		}
		for i, w := range x.Whens {
			if out.Whens[i].When, err = rewrite(w.When, f); err != nil {
				return nil, err
			}
			if out.Whens[i].Then, err = rewrite(w.Then, f); err != nil {
				return nil, err
			}
		}
		if out.Else, err = rewrite(x.Else, f); err != nil {
			return nil, err
		}
		return out, nil
	case *ast.ListComprehension:
		parts, err := rewriteAll([]ast.Expr{x.List, x.Where, x.Map}, f)
		if err != nil {
			return nil, err
		}
		return &ast.ListComprehension{Pos: x.Pos, Var: x.Var, List: parts[0], Where: parts[1], Map: parts[2]}, nil
	case *ast.PredicateExpr:
		parts, err := rewriteAll([]ast.Expr{x.List, x.Where}, f)
		if err != nil {
			return nil, err
		}
		return &ast.PredicateExpr{Pos: x.Pos, Func: x.Func, Var: x.Var, List: parts[0], Where: parts[1]}, nil
	case *ast.ReduceExpr:
		parts, err := rewriteAll([]ast.Expr{x.Init, x.List, x.Map}, f)
		if err != nil {
			return nil, err
		}
		return &ast.ReduceExpr{Pos: x.Pos, Acc: x.Acc, Init: parts[0], Var: x.Var, List: parts[1], Map: parts[2]}, nil
	case *ast.SliceExpr:
		parts, err := rewriteAll([]ast.Expr{x.X, x.From, x.To}, f)
		if err != nil {
			return nil, err
		}
		return &ast.SliceExpr{Pos: x.Pos, X: parts[0], From: parts[1], To: parts[2]}, nil
	}
	return e, nil
}

func rewriteAll(es []ast.Expr, f func(ast.Expr) (ast.Expr, error)) ([]ast.Expr, error) {
	out := make([]ast.Expr, len(es))
	for i, e := range es {
		var err error
		if out[i], err = rewrite(e, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// exprText is e as nGQL text for storaged, "" for nil.
func exprText(e ast.Expr) string {
	if e == nil {
		return ""
	}
	return e.String()
}
