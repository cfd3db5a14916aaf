package eval

import (
	"bytes"
	"math"
	"testing"

	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// FuzzEval parses random text as an expression and evaluates it with no
// row: evaluation must never panic, IsDeterministic and CollectProps must
// answer, and a
// result that nGQL can write as a literal (value.String) must read back, by
// parsing and evaluating that text, to the identical value. The corpus is in
// testdata/fuzz/FuzzEval.
//
//	go test ./query/eval -run='^$' -fuzz=FuzzEval -fuzztime=60s
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"1 + 2 * 3", `lpad("ab", 5, "xy") + substr("héllo", 1, 3)`, "range(1, 10, 3)",
		`date("2024-01-02") + duration("P1M2DT3H")`, `datetime("2024-01-02T12:34:56.5+08:00").hour`,
		`duration("{days: 1, hours: 2}").hours`, "round(2.345, 2) + sign(-3) + hash('x')",
		`split("a,b,c", ",")[1]`, `concat_ws("-", 1, NULL, date("2024-01-02"))`, "rand32(5, 10) < 10",
		`time("23:00:00") + duration("PT2H")`, `toBoolean("TRUE") AND toString(time("1:2:3")) == "01:02:03.000000"`,
		`reverse([1, "a", NULL])`, `tail(head([[1, 2]]))`, `timestamp("2024-01-02T00:00:00") - timestamp(0)`,
		`date("2024-03-01") - date("2024-02-01")`, `datetime("2024-01-02") - datetime("2024-01-01")`,
		`{a: 1, b: [1, 2], "c d": {e: NULL}}`, `{b: 2, a: 1} == {a: 1, b: 2}`, `keys({z: 1, a: 2})`,
		`{a: {b: [10, 20]}}.a.b[1] + size({x: 1})`, `{m: date({year: 2024, month: 2})}["m"]`,
		`duration({days: 3, hours: -1})`, "{`if`: 1, NULL: true, \"\": 'e'}", `properties({k: 'v'}).k`,
		`[{a: 1}] + {b: time({hour: 1})}`,
		// The expressions that came with MATCH.
		`CASE 2 WHEN 1 THEN "a" WHEN 2 THEN [x IN range(1, 3) WHERE x > 1 | x * 2] ELSE NULL END`,
		`reduce(s = 0, x IN [1, 2, 3] | s + x) > 2 ? all(y IN [1] WHERE y == 1) : single(z IN [] WHERE z)`,
		`"abc"[1..] =~ "b.*" AND [1, 2, 3][..-1] IS NOT EMPTY AND (6 & 3 ^ 1) == bit_or(4, 0)`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := parser.ParseExpr(src)
		if err != nil {
			return
		}
		IsDeterministic(e)
		CollectProps(e)
		v, err := Eval(nil, e)
		if err != nil || !literalKind(v) {
			return
		}
		text := v.String()
		back, err := parser.ParseExpr(text)
		if err != nil {
			t.Fatalf("%s = %s, whose text does not parse: %v", src, text, err)
		}
		w, err := Eval(nil, back)
		if err != nil {
			t.Fatalf("%s = %s, whose text does not evaluate: %v", src, text, err)
		}
		if !bytes.Equal(v.AppendKey(nil), w.AppendKey(nil)) {
			t.Fatalf("%s = %s (%s), which reads back as %s (%s)", src, text, v.Kind(), w, w.Kind())
		}
	})
}

// literalKind reports whether v's String reads back exactly: not for
// TIMESTAMP (printed as an INT), non-finite floats, or the graph kinds
// (nor lists and maps holding them).
func literalKind(v value.Value) bool {
	switch v.Kind() {
	case value.KindNull, value.KindBool, value.KindInt, value.KindString,
		value.KindDate, value.KindTime, value.KindDateTime, value.KindDuration:
		return true
	case value.KindFloat:
		f, _ := v.FloatVal()
		return !math.IsInf(f, 0) && !math.IsNaN(f)
	case value.KindList:
		items, _ := v.ListVal()
		for _, x := range items {
			if !literalKind(x) {
				return false
			}
		}
		return true
	case value.KindMap:
		props, _ := v.MapVal()
		for _, p := range props {
			if !literalKind(p.Value) {
				return false
			}
		}
		return true
	}
	return false
}
