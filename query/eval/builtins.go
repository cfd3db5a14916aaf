package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/temporal"
)

// builtin is a scalar function on evaluated arguments. Unless keepNull is
// set, a NULL argument makes the result NULL without calling fn.
type builtin struct {
	minArgs, maxArgs int
	keepNull         bool
	volatile         volatility
	fn               func(args []value.Value) (value.Value, error)
}

// volatility says whether a function may return different results for the
// same arguments (it reads the clock or a random source).
type volatility uint8

const (
	stable         volatility = iota
	volatileAlways            // now(), rand(), rand32(), rand64()
	volatileNoArgs            // date(), time(), datetime(), timestamp(): the clock, only without an argument
)

// isVolatile reports whether a call of b with n arguments may differ from
// one evaluation to the next.
func (b builtin) isVolatile(n int) bool {
	return b.volatile == volatileAlways || (b.volatile == volatileNoArgs && n == 0)
}

func fixed(n int, fn func([]value.Value) (value.Value, error)) builtin {
	return builtin{minArgs: n, maxArgs: n, fn: fn}
}

func ranged(lo, hi int, fn func([]value.Value) (value.Value, error)) builtin {
	return builtin{minArgs: lo, maxArgs: hi, fn: fn}
}

// lookup finds a scalar function by its lower-case name. It is a switch
// rather than a map so the package holds no state.
func lookup(name string) (builtin, bool) {
	switch name {
	// Math.
	case "abs":
		return fixed(1, fnAbs), true
	case "ceil":
		return fixed(1, floatFn(math.Ceil)), true
	case "floor":
		return fixed(1, floatFn(math.Floor)), true
	case "round":
		return ranged(1, 2, fnRound), true
	case "sqrt":
		return fixed(1, floatFn(math.Sqrt)), true
	case "cbrt":
		return fixed(1, floatFn(math.Cbrt)), true
	case "exp":
		return fixed(1, floatFn(math.Exp)), true
	case "exp2":
		return fixed(1, floatFn(math.Exp2)), true
	case "log":
		return fixed(1, floatFn(math.Log)), true
	case "log2":
		return fixed(1, floatFn(math.Log2)), true
	case "log10":
		return fixed(1, floatFn(math.Log10)), true
	case "sin":
		return fixed(1, floatFn(math.Sin)), true
	case "cos":
		return fixed(1, floatFn(math.Cos)), true
	case "tan":
		return fixed(1, floatFn(math.Tan)), true
	case "asin":
		return fixed(1, floatFn(math.Asin)), true
	case "acos":
		return fixed(1, floatFn(math.Acos)), true
	case "atan":
		return fixed(1, floatFn(math.Atan)), true
	case "atan2":
		return fixed(2, fnAtan2), true
	case "radians":
		return fixed(1, floatFn(func(x float64) float64 { return x * math.Pi / 180 })), true
	case "degrees":
		return fixed(1, floatFn(func(x float64) float64 { return x * 180 / math.Pi })), true
	case "sign":
		return fixed(1, fnSign), true
	case "pow":
		return fixed(2, fnPow), true
	case "hypot":
		return fixed(2, fnHypot), true
	case "bit_and", "bit_or", "bit_xor":
		return fixed(2, bitFn(name)), true
	case "e":
		return fixed(0, constFn(value.Float(math.E))), true
	case "pi":
		return fixed(0, constFn(value.Float(math.Pi))), true
	case "rand":
		return builtin{maxArgs: 0, volatile: volatileAlways, fn: fnRand}, true
	case "rand32":
		return builtin{maxArgs: 2, volatile: volatileAlways, fn: randIntFn(math.MinInt32, math.MaxInt32)}, true
	case "rand64":
		return builtin{maxArgs: 2, volatile: volatileAlways, fn: randIntFn(math.MinInt64, math.MaxInt64)}, true
	case "hash":
		return fixed(1, fnHash), true
	// Strings.
	case "lower", "tolower":
		return fixed(1, stringFn(strings.ToLower)), true
	case "upper", "toupper":
		return fixed(1, stringFn(strings.ToUpper)), true
	case "trim":
		return fixed(1, stringFn(strings.TrimSpace)), true
	case "ltrim":
		return fixed(1, stringFn(func(s string) string { return strings.TrimLeftFunc(s, unicode.IsSpace) })), true
	case "rtrim":
		return fixed(1, stringFn(func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) })), true
	case "left":
		return fixed(2, fnLeft), true
	case "right":
		return fixed(2, fnRight), true
	case "lpad":
		return fixed(3, padFn(true)), true
	case "rpad":
		return fixed(3, padFn(false)), true
	case "substr", "substring":
		return ranged(2, 3, fnSubstr), true
	case "reverse":
		return fixed(1, fnReverse), true
	case "replace":
		return fixed(3, fnReplace), true
	case "split":
		return fixed(2, fnSplit), true
	case "concat":
		return ranged(1, math.MaxInt, fnConcat), true
	case "concat_ws":
		return builtin{minArgs: 2, maxArgs: math.MaxInt, keepNull: true, fn: fnConcatWS}, true
	case "strcasecmp":
		return fixed(2, fnStrcasecmp), true
	case "length", "size":
		return fixed(1, fnLength), true
	// Lists.
	case "range":
		return ranged(2, 3, fnRange), true
	case "head":
		return fixed(1, fnHead), true
	case "last":
		return fixed(1, fnLast), true
	case "tail":
		return fixed(1, fnTail), true
	case "coalesce":
		return builtin{minArgs: 1, maxArgs: math.MaxInt, keepNull: true, fn: fnCoalesce}, true
	// Conversion.
	case "tostring":
		return fixed(1, fnToString), true
	case "tointeger":
		return fixed(1, fnToInteger), true
	case "tofloat":
		return fixed(1, fnToFloat), true
	case "toboolean":
		return fixed(1, fnToBoolean), true
	// Time.
	case "now":
		return builtin{maxArgs: 0, volatile: volatileAlways, fn: fnNow}, true
	case "timestamp":
		return builtin{maxArgs: 1, volatile: volatileNoArgs, fn: fnTimestamp}, true
	case "date":
		return builtin{maxArgs: 1, volatile: volatileNoArgs, fn: fnDate}, true
	case "time":
		return builtin{maxArgs: 1, volatile: volatileNoArgs, fn: fnTime}, true
	case "datetime":
		return builtin{maxArgs: 1, volatile: volatileNoArgs, fn: fnDateTime}, true
	case "duration":
		return fixed(1, fnDuration), true
	// Maps.
	case "keys":
		return fixed(1, fnKeys), true
	case "properties":
		return fixed(1, fnProperties), true
	}
	return lookupGraph(name) // graphfuncs.go
}

// IsDeterministic reports whether evaluating e twice on the same row must
// give the same result: false when e calls now(), rand(), rand32(),
// rand64(), or date(), time(), datetime() or timestamp() without an
// argument. Whatever storaged evaluates (pushed filters, UPDATE) must be
// deterministic, since each replica evaluates it on its own; graphd keeps
// other expressions, or evaluates their volatile calls once and ships the
// result.
func IsDeterministic(e ast.Expr) bool {
	det := true
	ast.Inspect(e, func(x ast.Expr) bool {
		if c, ok := x.(*ast.FuncCall); ok && IsVolatileCall(c) {
			det = false
		}
		return det
	})
	return det
}

// Clock is implemented by a Context whose clock functions (now(), and
// timestamp(), date(), time(), datetime() without an argument) must read a
// given instant rather than the wall clock: a raft apply evaluates with
// its command's time, so that every replica computes the same value.
type Clock interface {
	Now() temporal.DateTime
}

// clockCall returns the value of a clock function call at at; ok false if
// c is not one.
func clockCall(name string, nargs int, at temporal.DateTime) (value.Value, bool) {
	if nargs != 0 {
		return value.Value{}, false
	}
	switch name {
	case "now":
		return value.Int(at.Unix()), true
	case "timestamp":
		return value.Timestamp(at.Unix()), true
	case "date":
		return value.Date(at.Date()), true
	case "time":
		return value.Time(at.Time()), true
	case "datetime":
		return value.DateTime(at), true
	}
	return value.Value{}, false
}

// IsClockOnly reports whether every non-deterministic call in e reads the
// clock (none is random), so that evaluating e with a Clock context makes
// it deterministic.
func IsClockOnly(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(x ast.Expr) bool {
		if c, isCall := x.(*ast.FuncCall); isCall && IsVolatileCall(c) {
			if _, clock := clockCall(strings.ToLower(c.Name), len(c.Args), 0); !clock {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// IsVolatileCall reports whether c itself (not its arguments) is a call of
// a non-deterministic function; see IsDeterministic.
func IsVolatileCall(c *ast.FuncCall) bool {
	b, ok := lookup(strings.ToLower(c.Name))
	return ok && b.isVolatile(len(c.Args))
}

// edgeFunctionProp names the key field of the row's edge that the special
// form f(EDGE) reads, for f one of src, dst, rank and type. Called with an
// edge value instead, they are ordinary functions (graphfuncs.go).
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

// isEdgeArg reports whether c's only argument is EDGE.
func isEdgeArg(c *ast.FuncCall) bool {
	if len(c.Args) != 1 {
		return false
	}
	_, ok := c.Args[0].(*ast.EdgeExpr)
	return ok
}

// wholePropsScope reports whether c is properties(EDGE), properties($^),
// properties($$) or properties(VERTEX), which read a whole edge or vertex
// of the row (see PropsSource), and which.
func wholePropsScope(c *ast.FuncCall) (Scope, bool) {
	if len(c.Args) != 1 || !strings.EqualFold(c.Name, "properties") {
		return 0, false
	}
	switch a := c.Args[0].(type) {
	case *ast.EdgeExpr:
		return ScopeEdge, true
	case *ast.VertexExpr:
		if a.Role == ast.DstVertex {
			return ScopeDst, true
		}
		return ScopeSrc, true // $^, or VERTEX, which FETCH treats as $^
	}
	return 0, false
}

// CheckCall reports whether name(args) is a known function called with
// the right number and form of arguments, so that the validator can reject
// a bad call before anything runs. Names are case-insensitive. A
// deterministic call whose arguments are all literals is also evaluated, so
// that lower(1) or date("2024-13-01") fails validation rather than the run.
func CheckCall(c *ast.FuncCall) error { return checkCall(c, true) }

// checkCall is CheckCall; evalCall, which evaluates the call anyway, skips
// the evaluation of literal arguments.
func checkCall(c *ast.FuncCall, literals bool) error {
	name := strings.ToLower(c.Name)
	if _, ok := edgeFunctionProp(name); ok {
		if len(c.Args) != 1 {
			return fmt.Errorf("%s() takes one argument, EDGE or an edge value", name)
		}
		switch c.Args[0].(type) {
		case *ast.EdgeExpr:
			return nil
		case *ast.VertexExpr:
			return fmt.Errorf("the argument of %s() must be EDGE or an edge value, got %s", name, c.Args[0])
		}
		// An expression giving an edge value: an ordinary function.
	}
	if _, ok := wholePropsScope(c); ok {
		return nil
	}
	if name == "id" {
		if len(c.Args) != 1 {
			return fmt.Errorf("id() takes one argument, $^, $$ or VERTEX")
		}
		switch c.Args[0].(type) {
		case *ast.EdgeExpr, *ast.Literal, *ast.ListExpr, *ast.MapExpr:
			return fmt.Errorf("the argument of id() must be $^, $$ or VERTEX (or a vertex value), got %s", c.Args[0])
		}
		return nil // $^, $$, VERTEX, or an expression giving a vertex (graphfuncs.go)
	}
	b, ok := lookup(name)
	if !ok {
		if notSupported(name) {
			return fmt.Errorf("function %s() is not supported by novagraph", c.Name)
		}
		return fmt.Errorf("unknown function %s", c.Name)
	}
	for _, a := range c.Args {
		switch a.(type) {
		case *ast.EdgeExpr, *ast.VertexExpr:
			return fmt.Errorf("%s is not a value: %s() cannot take it", a, c.Name)
		}
	}
	if n := len(c.Args); n < b.minArgs || n > b.maxArgs {
		switch {
		case b.minArgs == b.maxArgs:
			return fmt.Errorf("%s() takes %d argument(s), got %d", c.Name, b.minArgs, n)
		case b.maxArgs == math.MaxInt:
			return fmt.Errorf("%s() takes at least %d argument(s), got %d", c.Name, b.minArgs, n)
		}
		return fmt.Errorf("%s() takes %d to %d arguments, got %d", c.Name, b.minArgs, b.maxArgs, n)
	}
	if literals {
		return checkLiteralArgs(c, b)
	}
	return nil
}

// checkLiteralArgs evaluates a deterministic call whose arguments are all
// literals and returns its error, if any.
func checkLiteralArgs(c *ast.FuncCall, b builtin) error {
	if b.isVolatile(len(c.Args)) {
		return nil
	}
	args := make([]value.Value, len(c.Args))
	for i, a := range c.Args {
		l, ok := a.(*ast.Literal)
		if !ok {
			return nil
		}
		if l.Value.IsNull() && !b.keepNull {
			return nil // NULL in, NULL out
		}
		args[i] = l.Value
	}
	_, err := b.fn(args)
	return err
}

func evalCall(ctx Context, c *ast.FuncCall) (value.Value, error) {
	if err := checkCall(c, false); err != nil {
		return value.Value{}, fail(c, err)
	}
	name := strings.ToLower(c.Name)
	if prop, ok := edgeFunctionProp(name); ok && isEdgeArg(c) {
		return ctx.EdgeProp(AnyEdge, prop)
	}
	if scope, ok := wholePropsScope(c); ok {
		return evalAllProps(ctx, c, scope) // context.go
	}
	if name == "id" {
		if _, ok := c.Args[0].(*ast.VertexExpr); !ok {
			return idOfValue(ctx, c) // graphfuncs.go
		}
		if c.Args[0].(*ast.VertexExpr).Role == ast.DstVertex {
			return ctx.DstProp(AnyTag, PropVID)
		}
		return ctx.SrcProp(AnyTag, PropVID) // $^, or VERTEX, which FETCH treats as $^
	}
	if ck, ok := ctx.(Clock); ok {
		if v, ok := clockCall(name, len(c.Args), ck.Now()); ok {
			return v, nil
		}
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

// fnLength is the number of characters of a string, items of a list,
// entries of a map, or hops of a path.
func fnLength(args []value.Value) (value.Value, error) {
	if s, ok := args[0].StrVal(); ok {
		return value.Int(int64(utf8.RuneCountInString(s))), nil
	}
	if l, ok := args[0].ListVal(); ok {
		return value.Int(int64(len(l))), nil
	}
	if m, ok := args[0].MapVal(); ok {
		return value.Int(int64(len(m))), nil
	}
	if p, ok := args[0].PathVal(); ok {
		return value.Int(int64(p.Length())), nil // hops, as NebulaGraph's length(path)
	}
	return value.Value{}, argError("a string, list, map or path", args[0])
}

// fnToString renders any value: strings as they are, calendar values as
// NebulaGraph displays them (2024-01-02), others as nGQL prints them.
func fnToString(args []value.Value) (value.Value, error) {
	return value.Str(args[0].Text()), nil
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

// notSupported reports whether name is a NebulaGraph 3.x function
// novagraph does not have: a call says so rather than that the function is
// unknown.
func notSupported(name string) bool {
	switch name {
	case "typeid", "extract", "json_extract", "hassameedgeinpath", "none_direct_src", "none_direct_dst",
		"uuid", "is_edge", "is_vertex", "std", "udf_is_in",
		"st_point", "st_geogfromtext", "st_astext", "st_centroid", "st_isvalid", "st_intersects",
		"st_covers", "st_coveredby", "st_dwithin", "st_distance", "s2_cellidfrompoint", "s2_coveringcellids":
		return true
	}
	return false
}

func fnHypot(args []value.Value) (value.Value, error) {
	x, ok1 := numberArg(args[0])
	y, ok2 := numberArg(args[1])
	if !ok1 || !ok2 {
		return value.Value{}, fmt.Errorf("%w: hypot() takes two numbers, got %s and %s", value.ErrType, args[0].Kind(), args[1].Kind())
	}
	return value.Float(math.Hypot(x, y)), nil
}

func numberArg(v value.Value) (float64, bool) {
	if i, ok := v.IntVal(); ok && v.Kind() == value.KindInt {
		return float64(i), true
	}
	if f, ok := v.FloatVal(); ok {
		return f, true
	}
	return 0, false
}

// bitFn is bit_and, bit_or or bit_xor of two INTs (NebulaGraph's bitwise
// functions; '&' and '^' are also operators, '|' only this function since
// it is the pipe).
func bitFn(name string) func([]value.Value) (value.Value, error) {
	return func(args []value.Value) (value.Value, error) {
		x, ok1 := args[0].IntVal()
		y, ok2 := args[1].IntVal()
		if !ok1 || !ok2 || args[0].Kind() != value.KindInt || args[1].Kind() != value.KindInt {
			return value.Value{}, fmt.Errorf("%w: %s() takes two INTs, got %s and %s", value.ErrType, name, args[0].Kind(), args[1].Kind())
		}
		switch name {
		case "bit_and":
			return value.Int(x & y), nil
		case "bit_or":
			return value.Int(x | y), nil
		}
		return value.Int(x ^ y), nil
	}
}
