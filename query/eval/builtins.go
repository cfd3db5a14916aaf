package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// builtin is a scalar function on evaluated arguments. Unless keepNull is
// set, a NULL argument makes the result NULL without calling fn.
type builtin struct {
	minArgs, maxArgs int
	keepNull         bool
	fn               func(args []value.Value) (value.Value, error)
}

// lookup finds a scalar function by its lower-case name. It is a switch
// rather than a map so the package holds no state.
func lookup(name string) (builtin, bool) {
	switch name {
	case "abs":
		return builtin{1, 1, false, fnAbs}, true
	case "ceil":
		return builtin{1, 1, false, floatFn(math.Ceil)}, true
	case "floor":
		return builtin{1, 1, false, floatFn(math.Floor)}, true
	case "round":
		return builtin{1, 1, false, floatFn(math.Round)}, true
	case "sqrt":
		return builtin{1, 1, false, floatFn(math.Sqrt)}, true
	case "pow":
		return builtin{2, 2, false, fnPow}, true
	case "lower", "tolower":
		return builtin{1, 1, false, stringFn(strings.ToLower)}, true
	case "upper", "toupper":
		return builtin{1, 1, false, stringFn(strings.ToUpper)}, true
	case "length", "size":
		return builtin{1, 1, false, fnLength}, true
	case "tostring":
		return builtin{1, 1, false, fnToString}, true
	case "tointeger":
		return builtin{1, 1, false, fnToInteger}, true
	case "tofloat":
		return builtin{1, 1, false, fnToFloat}, true
	case "coalesce":
		return builtin{1, math.MaxInt, true, fnCoalesce}, true
	}
	return builtin{}, false
}

// edgeFunctions read a key field of the row's edge: f(EDGE).
func edgeFunctionProp(name string) (string, bool) {
	switch name {
	case "src":
		return PropSrc, true
	case "dst":
		return PropDst, true
	case "rank":
		return PropRank, true
	case "type":
		return PropType, true
	}
	return "", false
}

// CheckCall reports whether name(args) is a known function called with
// the right number and form of arguments, so that the validator can reject
// a bad call before anything runs. Names are case-insensitive.
func CheckCall(c *ast.FuncCall) error {
	name := strings.ToLower(c.Name)
	if _, ok := edgeFunctionProp(name); ok {
		if len(c.Args) != 1 {
			return fmt.Errorf("%s() takes one argument, EDGE", name)
		}
		if _, ok := c.Args[0].(*ast.EdgeExpr); !ok {
			return fmt.Errorf("the argument of %s() must be EDGE, got %s", name, c.Args[0])
		}
		return nil
	}
	if name == "id" {
		if len(c.Args) != 1 {
			return fmt.Errorf("id() takes one argument, $^, $$ or VERTEX")
		}
		if _, ok := c.Args[0].(*ast.VertexExpr); !ok {
			return fmt.Errorf("the argument of id() must be $^, $$ or VERTEX, got %s", c.Args[0])
		}
		return nil
	}
	b, ok := lookup(name)
	if !ok {
		return fmt.Errorf("unknown function %s", c.Name)
	}
	if n := len(c.Args); n < b.minArgs || n > b.maxArgs {
		if b.minArgs == b.maxArgs {
			return fmt.Errorf("%s() takes %d argument(s), got %d", c.Name, b.minArgs, n)
		}
		return fmt.Errorf("%s() takes at least %d argument(s), got %d", c.Name, b.minArgs, n)
	}
	return nil
}

func evalCall(ctx Context, c *ast.FuncCall) (value.Value, error) {
	if err := CheckCall(c); err != nil {
		return value.Value{}, fail(c, err)
	}
	name := strings.ToLower(c.Name)
	if prop, ok := edgeFunctionProp(name); ok {
		return ctx.EdgeProp(AnyEdge, prop)
	}
	if name == "id" {
		if c.Args[0].(*ast.VertexExpr).Role == ast.DstVertex {
			return ctx.DstProp(AnyTag, PropVID)
		}
		return ctx.SrcProp(AnyTag, PropVID) // $^, or VERTEX, which FETCH treats as $^
	}
	b, _ := lookup(name)
	args := make([]value.Value, len(c.Args))
	for i, a := range c.Args {
		v, err := eval(ctx, a)
		if err != nil {
			return value.Value{}, err
		}
		if v.IsNull() && !b.keepNull {
			return value.Value{}, nil
		}
		args[i] = v
	}
	v, err := b.fn(args)
	if err != nil {
		return value.Value{}, fail(c, err)
	}
	return v, nil
}

func argError(want string, got value.Value) error {
	return fmt.Errorf("%w: expected %s, got %s", value.ErrType, want, got.Kind())
}

func fnAbs(args []value.Value) (value.Value, error) {
	a := args[0]
	if i, ok := a.IntVal(); ok {
		if i == math.MinInt64 {
			return value.Value{}, value.ErrOverflow
		}
		if i < 0 {
			i = -i
		}
		return value.Int(i), nil
	}
	if f, ok := a.FloatVal(); ok {
		return value.Float(math.Abs(f)), nil
	}
	return value.Value{}, argError("a number", a)
}

// floatFn lifts a float function; like NebulaGraph, ceil, floor, round and
// sqrt return FLOAT even for INT arguments.
func floatFn(f func(float64) float64) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		x, ok := toFloat(args[0])
		if !ok {
			return value.Value{}, argError("a number", args[0])
		}
		return value.Float(f(x)), nil
	}
}

// fnPow stays INT for an INT base and non-negative INT exponent when the
// result fits, and is FLOAT otherwise.
func fnPow(args []value.Value) (value.Value, error) {
	b, bInt := args[0].IntVal()
	e, eInt := args[1].IntVal()
	if bInt && eInt && e >= 0 {
		// Square and multiply: O(log e) steps whatever e is, so a huge
		// exponent cannot pin a core. Overflow falls back to FLOAT.
		if r, ok := powInt(b, e); ok {
			return value.Int(r), nil
		}
	}
	x, ok1 := toFloat(args[0])
	y, ok2 := toFloat(args[1])
	if !ok1 || !ok2 {
		return value.Value{}, fmt.Errorf("%w: pow() expects numbers, got %s and %s", value.ErrType, args[0].Kind(), args[1].Kind())
	}
	return value.Float(math.Pow(x, y)), nil
}

// powInt computes b**e for e >= 0, reporting false on int64 overflow.
func powInt(b, e int64) (int64, bool) {
	switch {
	case b == 0:
		if e == 0 {
			return 1, true
		}
		return 0, true
	case b == 1:
		return 1, true
	case b == -1:
		if e%2 == 0 {
			return 1, true
		}
		return -1, true
	}
	r := int64(1)
	for e > 0 {
		if e&1 == 1 {
			next, err := value.Mul(value.Int(r), value.Int(b))
			if err != nil {
				return 0, false
			}
			r, _ = next.IntVal()
		}
		e >>= 1
		if e > 0 {
			sq, err := value.Mul(value.Int(b), value.Int(b))
			if err != nil {
				return 0, false
			}
			b, _ = sq.IntVal()
		}
	}
	return r, true
}

func stringFn(f func(string) string) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		s, ok := args[0].StrVal()
		if !ok {
			return value.Value{}, argError("a string", args[0])
		}
		return value.Str(f(s)), nil
	}
}

// fnLength is the number of characters of a string or items of a list.
func fnLength(args []value.Value) (value.Value, error) {
	if s, ok := args[0].StrVal(); ok {
		return value.Int(int64(utf8.RuneCountInString(s))), nil
	}
	if l, ok := args[0].ListVal(); ok {
		return value.Int(int64(len(l))), nil
	}
	return value.Value{}, argError("a string or list", args[0])
}

func fnToString(args []value.Value) (value.Value, error) {
	if s, ok := args[0].StrVal(); ok {
		return value.Str(s), nil
	}
	return value.Str(args[0].String()), nil
}

// fnToInteger converts numbers (truncating floats) and numeric strings;
// a string that is not a number gives NULL.
func fnToInteger(args []value.Value) (value.Value, error) {
	a := args[0]
	if i, ok := a.IntVal(); ok {
		return value.Int(i), nil
	}
	if f, ok := a.FloatVal(); ok {
		return floatToInt(f)
	}
	if s, ok := a.StrVal(); ok {
		s = strings.TrimSpace(s)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return value.Int(i), nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return floatToInt(f)
		}
		return value.Value{}, nil
	}
	return value.Value{}, argError("a number or string", a)
}

func floatToInt(f float64) (value.Value, error) {
	t := math.Trunc(f)
	if math.IsNaN(t) || t < math.MinInt64 || t >= math.MaxInt64 {
		return value.Value{}, value.ErrOverflow
	}
	return value.Int(int64(t)), nil
}

// fnToFloat converts numbers and numeric strings; a string that is not a
// number gives NULL.
func fnToFloat(args []value.Value) (value.Value, error) {
	if f, ok := toFloat(args[0]); ok {
		return value.Float(f), nil
	}
	if s, ok := args[0].StrVal(); ok {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return value.Float(f), nil
		}
		return value.Value{}, nil
	}
	return value.Value{}, argError("a number or string", args[0])
}

func fnCoalesce(args []value.Value) (value.Value, error) {
	for _, a := range args {
		if !a.IsNull() {
			return a, nil
		}
	}
	return value.Value{}, nil
}

func toFloat(v value.Value) (float64, bool) {
	if i, ok := v.IntVal(); ok {
		return float64(i), true
	}
	return v.FloatVal()
}
