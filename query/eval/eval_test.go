package eval

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// row is a Context over maps, keyed "owner.prop" (or "col" for input).
type row struct {
	edge, src, dst, input map[string]value.Value
	vars                  map[string]value.Value // "var.col"
}

func lookupIn(m map[string]value.Value, key string) (value.Value, error) {
	if v, ok := m[key]; ok {
		return v, nil
	}
	return value.Value{}, fmt.Errorf("no %s", key)
}

func (r *row) EdgeProp(edge, prop string) (value.Value, error) {
	return lookupIn(r.edge, edge+"."+prop)
}
func (r *row) SrcProp(tag, prop string) (value.Value, error) { return lookupIn(r.src, tag+"."+prop) }
func (r *row) DstProp(tag, prop string) (value.Value, error) { return lookupIn(r.dst, tag+"."+prop) }
func (r *row) InputProp(col string) (value.Value, error)     { return lookupIn(r.input, col) }
func (r *row) VarProp(v, col string) (value.Value, error)    { return lookupIn(r.vars, v+"."+col) }

func testRow() *row {
	return &row{
		edge: map[string]value.Value{
			"knows.since": value.Int(2010), "knows.w": value.Float(0.5), "knows.note": value.Null(),
			"._src": value.Str("a"), "._dst": value.Str("b"), "._rank": value.Int(3), "._type": value.Str("knows"),
		},
		src:   map[string]value.Value{"Person.name": value.Str("Ann"), "._vid": value.Str("a")},
		dst:   map[string]value.Value{"Person.name": value.Str("Bob"), "Person.age": value.Null(), "._vid": value.Str("b")},
		input: map[string]value.Value{"id": value.Int(7), "tags": value.List(value.Str("x"), value.Str("y"))},
		vars:  map[string]value.Value{"v.n": value.Int(2)},
	}
}

func mustParse(t *testing.T, src string) ast.Expr {
	t.Helper()
	e, err := parser.ParseExpr(src)
	if err != nil {
		t.Fatalf("ParseExpr(%q): %v", src, err)
	}
	return e
}

func TestEval(t *testing.T) {
	T, F, N := value.Bool(true), value.Bool(false), value.Null()
	for _, tc := range []struct {
		src  string
		want value.Value
	}{
		// Literals and arithmetic.
		{"1 + 2 * 3", value.Int(7)},
		{"7 / 2", value.Int(3)},
		{"7 / 2.0", value.Float(3.5)},
		{"-7 % 3", value.Int(-1)},
		{"-(1 + 1)", value.Int(-2)},
		{"+2.5", value.Float(2.5)},
		{`"a" + "b" + 1`, value.Str("ab1")},
		{"[1, 1 + 1]", value.List(value.Int(1), value.Int(2))},
		{"[1, 2, 3][1]", value.Int(2)},
		{"[1, 2, 3][-1]", value.Int(3)},
		{"[1, 2, 3][5]", N},
		{"NULL[0]", N},
		{"1 + NULL", N},
		// Comparisons.
		{"1 < 2", T},
		{"1 == 1.0", T},
		{"'a' != 'b'", T},
		{"1 == NULL", N},
		{"NULL == NULL", N},
		{"1 < 'a'", N},
		{"2 IN [1, 2]", T},
		{"3 IN [1, NULL]", N},
		{"3 NOT IN [1, 2]", T},
		{"3 NOT IN [1, NULL]", N},
		{"'abc' CONTAINS 'b'", T},
		{"'abc' STARTS WITH 'b'", F},
		{"'abc' ENDS WITH 'bc'", T},
		{"'abc' NOT CONTAINS 'b'", F},
		{"'abc' NOT STARTS WITH 'b'", T},
		{"'abc' NOT ENDS WITH 'bc'", F},
		{"NULL NOT CONTAINS 'b'", N},
		{"NULL IS NULL", T},
		{"1 IS NOT NULL", T},
		// Three-valued logic.
		{"NULL AND false", F},
		{"false AND NULL", F},
		{"NULL AND true", N},
		{"NULL OR true", T},
		{"true OR NULL", T},
		{"NULL OR false", N},
		{"NULL XOR true", N},
		{"true XOR false", T},
		{"NOT NULL", N},
		{"NOT (1 > 2)", T},
		{"!(1 < 2)", F},
		// Short circuit: the right side would fail.
		{"false AND 1 / 0 > 1", F},
		{"true OR 1 / 0 > 1", T},
		// Row references.
		{"knows.since + 1", value.Int(2011)},
		{"knows.note IS NULL", T},
		{"$^.Person.name + '->' + $$.Person.name", value.Str("Ann->Bob")},
		{"$$.Person.age > 10", N},
		{"$-.id * $v.n", value.Int(14)},
		{"$-.tags[0]", value.Str("x")},
		{"size($-.tags)", value.Int(2)},
		{"src(edge)", value.Str("a")},
		{"dst(EDGE)", value.Str("b")},
		{"rank(edge)", value.Int(3)},
		{"type(edge)", value.Str("knows")},
		{"id($^)", value.Str("a")},
		{"ID($$)", value.Str("b")},
		// Functions.
		{"abs(-3)", value.Int(3)},
		{"abs(-2.5)", value.Float(2.5)},
		{"ceil(1.2)", value.Float(2)},
		{"floor(-1.2)", value.Float(-2)},
		{"round(2.5)", value.Float(3)},
		{"sqrt(16)", value.Float(4)},
		{"pow(2, 10)", value.Int(1024)},
		{"pow(2, -1)", value.Float(0.5)},
		{"pow(2, 64)", value.Float(math.Pow(2, 64))},
		{"lower('AbC') + toUpper('x')", value.Str("abcX")},
		{"length('héllo')", value.Int(5)},
		{"toString(1.5) + toString(true)", value.Str("1.5true")},
		{"toInteger('42') + toInteger(2.9) + toInteger(' 1.5 ')", value.Int(45)},
		{"toInteger('x')", N},
		{"toFloat('2.5') + toFloat(1)", value.Float(3.5)},
		{"coalesce(NULL, knows.note, 3, 4)", value.Int(3)},
		{"abs(NULL)", N},
	} {
		got, err := Eval(testRow(), mustParse(t, tc.src))
		if err != nil {
			t.Errorf("Eval(%s): %v", tc.src, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Eval(%s) = %v (%s), want %v (%s)", tc.src, got, got.Kind(), tc.want, tc.want.Kind())
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		src     string
		is      error  // errors.Is target, or nil
		msg     string // substring of the message
		evalErr bool   // wrapped in *Error
	}{
		{"1 / 0", value.ErrDivisionByZero, "evaluating (1/0) at line 1, column 3: division by zero", true},
		{"1 + 2 % (3 - 3)", value.ErrDivisionByZero, "(2%(3-3))", true},
		{"1.5 / 0", value.ErrDivisionByZero, "", true},
		{"9223372036854775807 + 1", value.ErrOverflow, "", true},
		{"-(-9223372036854775808)", value.ErrOverflow, "", true},
		{"'a' - 1", value.ErrType, "cannot apply - to STRING and INT", true},
		{"1 AND true", value.ErrType, "AND expects BOOL", true},
		{"NOT 1", value.ErrType, "", true},
		{"+'a'", value.ErrType, "", true},
		{"1[0]", value.ErrType, "cannot index", true},
		{"$-.id.x", value.ErrType, "has no attribute", true},
		{"name", nil, "invalid label name", true},
		{"EDGE", nil, "not a value", true},
		{"nosuch(1)", nil, "unknown function nosuch", true},
		{"abs(1, 2)", nil, "abs() takes 1 argument(s), got 2", true},
		{"coalesce()", nil, "at least 1", true},
		{"src($$)", nil, "must be EDGE", true},
		{"id(edge)", nil, "must be $^, $$ or VERTEX", true},
		{"abs('x')", value.ErrType, "expected a number", true},
		{"properties(edge)", nil, "properties(EDGE) is not available here", true},
		{"properties(1)", value.ErrType, "expected a map, vertex or edge", true},
		{"{a: 1}[0]", value.ErrType, "only with a STRING key", true},
		{"{a: 1}.a.b", value.ErrType, "has no attribute", true},
		{"date({year: 'x'})", value.ErrType, "field year must be an integer", true},
		{"date({year: 2024, YEAR: 2025})", ErrArgument, "given twice", true},
		{"duration({fortnights: 1})", nil, "unknown duration field", true},
		{"src({a: 1})", value.ErrType, "expected an edge", true},
		{"tags(1)", value.ErrType, "expected a vertex", true},
		{"abs(EDGE)", nil, "EDGE is not a value", true},
		{"nosuch.prop", nil, "no nosuch.prop", false}, // the Context's own error passes through
	} {
		_, err := Eval(testRow(), mustParse(t, tc.src))
		if err == nil {
			t.Errorf("Eval(%s) succeeded, want an error", tc.src)
			continue
		}
		var ee *Error
		if errors.As(err, &ee) != tc.evalErr {
			t.Errorf("Eval(%s): error %T, *Error expected: %v", tc.src, err, tc.evalErr)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("Eval(%s) = %v, want errors.Is %v", tc.src, err, tc.is)
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Eval(%s) = %q, want it to contain %q", tc.src, err, tc.msg)
		}
	}
}

func TestEvalConstant(t *testing.T) {
	v, err := Eval(nil, mustParse(t, "[1 + 1, 'x', -0x10]"))
	if err != nil || v.String() != `[2,"x",-16]` {
		t.Errorf("Eval(nil, constant) = %v, %v", v, err)
	}
	if _, err := Eval(nil, mustParse(t, "e.x + $-.y")); err == nil || !strings.Contains(err.Error(), "not available here") {
		t.Errorf("Eval(nil) of a property should fail, got %v", err)
	}
}

func TestFilter(t *testing.T) {
	for src, want := range map[string]bool{
		"knows.since > 2000":          true,
		"knows.since > 2020":          false,
		"$$.Person.age > 10":          false, // NULL drops the row
		"NOT ($$.Person.age > 10)":    false, // so does its negation
		"$$.Person.age IS NULL":       true,
		"knows.note == NULL OR true":  true,
		"knows.note == NULL AND true": false,
	} {
		got, err := Filter(testRow(), mustParse(t, src))
		if err != nil || got != want {
			t.Errorf("Filter(%s) = %v, %v; want %v", src, got, err, want)
		}
	}
	if ok, err := Filter(testRow(), nil); !ok || err != nil {
		t.Errorf("Filter(nil) = %v, %v; want true", ok, err)
	}
	if _, err := Filter(testRow(), mustParse(t, "knows.since")); !errors.Is(err, value.ErrType) {
		t.Errorf("Filter on an INT should be a type error, got %v", err)
	}
}

func TestCollectProps(t *testing.T) {
	var exprs []ast.Expr
	for _, src := range []string{
		"knows.since > 1 AND $$.Person.age < 30 AND $^.Person.name != $$.Person.name",
		"knows.since + knows.w",
		"src(edge)", "dst(edge)", "rank(EDGE)", "type(edge)", "id($$)", "id($^)", "id(vertex)",
		"$-.id + $-.id", "$v.a + $w.b + $v.a",
		"coalesce(likes.x, [knows._dst])",
		"nosuch(knows.z)", "id(1)",
	} {
		exprs = append(exprs, mustParse(t, src))
	}
	exprs = append(exprs, nil)
	got := CollectProps(exprs...)
	want := &Props{
		Edge: []PropRef{{"knows", "since"}, {"knows", "w"}, {AnyEdge, PropSrc}, {AnyEdge, PropDst},
			{AnyEdge, PropRank}, {AnyEdge, PropType}, {"likes", "x"}, {"knows", "_dst"}, {"knows", "z"}},
		Src:   []PropRef{{"Person", "name"}, {AnyTag, PropVID}},
		Dst:   []PropRef{{"Person", "age"}, {"Person", "name"}, {AnyTag, PropVID}},
		Input: []string{"id"},
		Var:   []VarRef{{"v", "a"}, {"w", "b"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CollectProps:\n got %+v\nwant %+v", got, want)
	}
	if empty := CollectProps(); !reflect.DeepEqual(empty, &Props{}) {
		t.Errorf("CollectProps() = %+v, want empty", empty)
	}
}

func TestIsReservedProp(t *testing.T) {
	for _, p := range []string{PropSrc, PropDst, PropRank, PropType, PropVID} {
		if !IsReservedProp(p) {
			t.Errorf("%s should be reserved", p)
		}
	}
	if IsReservedProp("name") || IsReservedProp("_other") {
		t.Errorf("ordinary names are not reserved")
	}
}

func TestPowLargeExponentsAreFast(t *testing.T) {
	cases := []struct {
		src  string
		want string
	}{
		{"pow(1, 9223372036854775807)", "1"},
		{"pow(-1, 9223372036854775807)", "-1"},
		{"pow(-1, 9223372036854775806)", "1"},
		{"pow(0, 9223372036854775807)", "0"},
		{"pow(0, 0)", "1"},
		{"pow(2, 10)", "1024"},
		{"pow(-3, 3)", "-27"},
		{"pow(2, 62)", "4611686018427387904"},
	}
	for _, c := range cases {
		e, err := parser.ParseExpr(c.src)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Eval(nil, e)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if v.String() != c.want {
			t.Fatalf("%s = %s, want %s", c.src, v, c.want)
		}
	}
	// Overflow becomes FLOAT rather than an error or a wrong INT.
	e, _ := parser.ParseExpr("pow(2, 64)")
	v, err := Eval(nil, e)
	if err != nil || v.Kind() != value.KindFloat {
		t.Fatalf("pow(2, 64) = %v (%v), want a FLOAT", v, err)
	}
}

// paramRow is a row that also has query parameters.
type paramRow struct {
	*row
	Params
}

func TestEvalParams(t *testing.T) {
	ctx := paramRow{testRow(), Params{"n": value.Int(3), "ids": value.List(value.Str("a"), value.Str("b"))}}
	for _, tc := range []struct {
		src  string
		want value.Value
	}{
		{"$n + 1", value.Int(4)},
		{"$ids[1]", value.Str("b")},
		{"$-.id > $n AND knows.since > $n", value.Bool(true)},
		{"size($ids)", value.Int(2)},
	} {
		got, err := Eval(ctx, mustParse(t, tc.src))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Eval(%s) = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}

	_, err := Eval(ctx, mustParse(t, "1 + $missing"))
	var notSet *ParamNotSetError
	if !errors.As(err, &notSet) || notSet.Name != "missing" {
		t.Fatalf("unset parameter: got %v, want a ParamNotSetError naming it", err)
	}
	if want := "evaluating $missing at line 1, column 5: query parameter $missing is not set"; err.Error() != want {
		t.Errorf("unset parameter: got %q, want %q", err, want)
	}

	// Contexts without parameters keep compiling and reject them.
	for _, c := range []Context{nil, testRow()} {
		_, err := Eval(c, mustParse(t, "$n"))
		if err == nil || !strings.Contains(err.Error(), "query parameter $n cannot be used here") {
			t.Errorf("Eval($n) in %T: %v, want an error naming the parameter", c, err)
		}
	}

	if got := CollectProps(mustParse(t, "$a + $b.c + $a")).Param; !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("CollectProps.Param = %v, want [a]", got)
	}
	if !IsDeterministic(mustParse(t, "$a + 1")) {
		t.Error("a parameter is deterministic")
	}
}
