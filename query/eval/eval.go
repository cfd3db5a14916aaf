package eval

import (
	"fmt"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// Error is a failure to evaluate an expression, such as a division by zero
// or a type mismatch. Errors returned by the Context are passed through
// unwrapped.
type Error struct {
	Pos  ast.Pos
	Expr string // the failing (sub)expression, as nGQL
	Err  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("evaluating %s at line %d, column %d: %v", e.Expr, e.Pos.Line, e.Pos.Col, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func fail(e ast.Expr, err error) error {
	return &Error{Pos: e.Position(), Expr: e.String(), Err: err}
}

// Eval evaluates e for the row that ctx describes. A nil ctx evaluates
// constant expressions: any property reference is then an error.
func Eval(ctx Context, e ast.Expr) (value.Value, error) {
	if ctx == nil {
		ctx = noContext{}
	}
	return eval(ctx, e)
}

// Filter evaluates a WHERE condition: the row passes only if e is true; NULL
// drops it like false. A condition that is neither BOOL nor NULL is an
// error. A nil e passes every row.
func Filter(ctx Context, e ast.Expr) (bool, error) {
	if e == nil {
		return true, nil
	}
	v, err := Eval(ctx, e)
	if err != nil {
		return false, err
	}
	if k := v.Kind(); k != value.KindBool && k != value.KindNull {
		return false, fail(e, fmt.Errorf("%w: a condition must be BOOL, got %s", value.ErrType, k))
	}
	return value.IsTrue(v), nil
}

func eval(ctx Context, e ast.Expr) (value.Value, error) {
	switch e := e.(type) {
	case *ast.Literal:
		return e.Value, nil
	case *ast.ListExpr:
		items := make([]value.Value, len(e.Items))
		for i, item := range e.Items {
			v, err := eval(ctx, item)
			if err != nil {
				return value.Value{}, err
			}
			items[i] = v
		}
		return value.List(items...), nil
	case *ast.MapExpr:
		return evalMap(ctx, e) // maps.go
	case *ast.UnaryExpr:
		return evalUnary(ctx, e)
	case *ast.BinaryExpr:
		return evalBinary(ctx, e)
	case *ast.FuncCall:
		return evalCall(ctx, e)
	case *ast.EdgePropExpr:
		if v, ok, err := variableAttribute(ctx, e); ok {
			return v, err
		}
		return ctx.EdgeProp(e.Edge, e.Prop)
	case *ast.SrcPropExpr:
		return ctx.SrcProp(e.Tag, e.Prop)
	case *ast.DstPropExpr:
		return ctx.DstProp(e.Tag, e.Prop)
	case *ast.InputPropExpr:
		return ctx.InputProp(e.Col)
	case *ast.VarPropExpr:
		return ctx.VarProp(e.Var, e.Col)
	case *ast.ParamExpr:
		return evalParam(ctx, e)
	case *ast.SubscriptExpr:
		return evalSubscript(ctx, e)
	case *ast.AttributeExpr:
		if ep, ok := e.X.(*ast.EdgePropExpr); ok {
			if ts, ok := ctx.(TagPropSource); ok {
				if v, ok := ts.TagProp(ep.Edge, ep.Prop, e.Name); ok {
					return v, nil
				}
			}
		}
		x, err := eval(ctx, e.X)
		if err != nil || x.IsNull() {
			return value.Value{}, err
		}
		// d.year, time(...).hour, duration(...).days; m.key of a map;
		// v.prop and e.prop of a vertex or edge value. Other kinds have
		// no attributes.
		v, err := value.Attribute(x, e.Name)
		if err != nil {
			return value.Value{}, fail(e, err)
		}
		return v, nil
	case *ast.LabelExpr:
		return evalVariable(ctx, e) // cypher.go
	case *ast.CaseExpr:
		return evalCase(ctx, e)
	case *ast.ListComprehension:
		return evalListComprehension(ctx, e)
	case *ast.PredicateExpr:
		return evalPredicate(ctx, e)
	case *ast.ReduceExpr:
		return evalReduce(ctx, e)
	case *ast.SliceExpr:
		return evalSlice(ctx, e)
	case *ast.EdgeExpr:
		if gs, ok := ctx.(GraphSource); ok {
			return gs.EdgeOf()
		}
		return value.Value{}, fail(e, fmt.Errorf("%s is not a value here; use src(), dst(), rank(), type(), id() or properties()", e))
	case *ast.VertexExpr:
		if gs, ok := ctx.(GraphSource); ok {
			scope := ScopeSrc
			if e.Role == ast.DstVertex {
				scope = ScopeDst
			}
			return gs.VertexOf(scope)
		}
		return value.Value{}, fail(e, fmt.Errorf("%s is not a value here; use src(), dst(), rank(), type(), id() or properties()", e))
	}
	return value.Value{}, fail(e, fmt.Errorf("unsupported expression %T", e))
}

func evalUnary(ctx Context, e *ast.UnaryExpr) (value.Value, error) {
	x, err := eval(ctx, e.X)
	if err != nil {
		return value.Value{}, err
	}
	var v value.Value
	switch e.Op {
	case ast.OpNeg:
		v, err = value.Neg(x)
	case ast.OpPlus:
		if !x.IsNull() && !x.IsNumeric() {
			err = fmt.Errorf("%w: unary + expects a number, got %s", value.ErrType, x.Kind())
		}
		v = x
	case ast.OpNot:
		v, err = value.Not(x)
	case ast.OpIsNull:
		v = value.Bool(x.IsNull())
	case ast.OpIsNotNull:
		v = value.Bool(!x.IsNull())
	case ast.OpIsEmpty:
		v = value.Bool(isEmpty(x))
	case ast.OpIsNotEmpty:
		v = value.Bool(!isEmpty(x))
	default:
		err = fmt.Errorf("unknown unary operator %d", e.Op)
	}
	if err != nil {
		return value.Value{}, fail(e, err)
	}
	return v, nil
}

func evalBinary(ctx Context, e *ast.BinaryExpr) (value.Value, error) {
	l, err := eval(ctx, e.L)
	if err != nil {
		return value.Value{}, err
	}
	// AND and OR short-circuit once the left side decides the result (false
	// AND x is false even if x is NULL), so the right side may be one that
	// would fail, as in x != 0 AND 1/x > 2.
	if b, ok := l.BoolVal(); ok && ((e.Op == ast.OpAnd && !b) || (e.Op == ast.OpOr && b)) {
		return l, nil
	}
	r, err := eval(ctx, e.R)
	if err != nil {
		return value.Value{}, err
	}
	var v value.Value
	if e.Op == ast.OpRegex {
		v, err = regexMatch(ctx, l, r) // cypher.go
	} else {
		v, err = apply(e.Op, l, r)
	}
	if err != nil {
		return value.Value{}, fail(e, err)
	}
	return v, nil
}

func apply(op ast.BinaryOp, l, r value.Value) (value.Value, error) {
	switch op {
	case ast.OpAdd:
		return value.Add(l, r)
	case ast.OpSub:
		return value.Sub(l, r)
	case ast.OpMul:
		return value.Mul(l, r)
	case ast.OpDiv:
		return value.Div(l, r)
	case ast.OpMod:
		return value.Mod(l, r)
	case ast.OpEq:
		return value.Equal(l, r), nil
	case ast.OpNe:
		return value.NotEqual(l, r), nil
	case ast.OpLt:
		return value.Less(l, r), nil
	case ast.OpLe:
		return value.LessEqual(l, r), nil
	case ast.OpGt:
		return value.Greater(l, r), nil
	case ast.OpGe:
		return value.GreaterEqual(l, r), nil
	case ast.OpIn:
		return value.In(l, r), nil
	case ast.OpNotIn:
		return value.Not(value.In(l, r))
	case ast.OpContains:
		return value.Contains(l, r), nil
	case ast.OpStartsWith:
		return value.StartsWith(l, r), nil
	case ast.OpEndsWith:
		return value.EndsWith(l, r), nil
	case ast.OpNotContains:
		return value.Not(value.Contains(l, r))
	case ast.OpNotStartsWith:
		return value.Not(value.StartsWith(l, r))
	case ast.OpNotEndsWith:
		return value.Not(value.EndsWith(l, r))
	case ast.OpAnd:
		return value.And(l, r)
	case ast.OpOr:
		return value.Or(l, r)
	case ast.OpXor:
		return value.Xor(l, r)
	case ast.OpBitAnd, ast.OpBitXor:
		return bitwise(op, l, r)
	}
	return value.Value{}, fmt.Errorf("unknown binary operator %d", op)
}

// evalSubscript indexes a list; negative indexes count from the end and an
// index out of range gives NULL, as in Cypher. A map (or a vertex or edge
// value) is indexed by a STRING key: m["key"], NULL when absent.
func evalSubscript(ctx Context, e *ast.SubscriptExpr) (value.Value, error) {
	x, err := eval(ctx, e.X)
	if err != nil {
		return value.Value{}, err
	}
	idx, err := eval(ctx, e.Index)
	if err != nil {
		return value.Value{}, err
	}
	if x.IsNull() || idx.IsNull() {
		return value.Value{}, nil
	}
	if v, ok, err := value.Element(x, idx); ok {
		if err != nil {
			return value.Value{}, fail(e, err)
		}
		return v, nil
	}
	items, ok := x.ListVal()
	i, isInt := idx.IntVal()
	if !ok || !isInt {
		return value.Value{}, fail(e, fmt.Errorf("%w: cannot index %s with %s", value.ErrType, x.Kind(), idx.Kind()))
	}
	if i < 0 {
		i += int64(len(items))
	}
	if i < 0 || i >= int64(len(items)) {
		return value.Value{}, nil
	}
	return items[i], nil
}
