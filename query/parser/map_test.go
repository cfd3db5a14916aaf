package parser

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestMapLiterals checks the map literal {k: v, ...}: its tree, its
// printed form (NebulaGraph's {k:v,...}, keys in source order) and that
// the printed form parses back to the same tree.
func TestMapLiterals(t *testing.T) {
	for src, printed := range map[string]string{
		"{}":                                  "{}",
		"{a: 1}":                              "{a:1}",
		"{b: 1 + 2, a: [1, 2], c: {d: NULL}}": "{b:(1+2),a:[1,2],c:{d:NULL}}",
		"{`a b`: 1, \"c\": 'x', \"\": true}":  `{"a b":1,c:"x","":true}`,
		"{match: 1, NULL: 2, YIELD: $$.t.p}":  "{match:1,NULL:2,YIELD:$$.t.p}",
		"{a: $p, b: properties($$).name}":     "{a:$p,b:properties($$).name}",
		"{a: {b: [10, 20]}}.a.b[1]":           "{a:{b:[10,20]}}.a.b[1]",
		`{a: 1}["a"] + size({x: 1})`:          `({a:1}["a"]+size({x:1}))`,
		"duration({days: 1, hours: -2})":      "duration({days:1,hours:-2})",
		"[{a: 1}, {}] IN {k: 'v'}":            `([{a:1},{}] IN {k:"v"})`,
		"{\"quote \\\" \\n\": 1, `é_1`: 2}":   `{"quote \" \n":1,é_1:2}`,
		"{a:1,b:2}":                           "{a:1,b:2}",
		"{ a : 1 , }":                         "", // trailing comma: an error
	} {
		e1, err := ParseExpr(src)
		if printed == "" {
			if err == nil {
				t.Errorf("ParseExpr(%q) succeeded, want an error", src)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", src, err)
			continue
		}
		if got := e1.String(); got != printed {
			t.Errorf("%q prints %q, want %q", src, got, printed)
		}
		e2, err := ParseExpr(e1.String())
		if err != nil {
			t.Errorf("%q printed as %q, which does not parse: %v", src, e1, err)
			continue
		}
		if !reflect.DeepEqual(stripPos(e1), stripPos(e2)) {
			t.Errorf("%q printed as %q, which parses to a different tree", src, e1)
		}
	}

	e, err := ParseExpr("{b: 1, a: x.y}")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := e.(*ast.MapExpr)
	if !ok || len(m.Items) != 2 || m.Items[0].Key != "b" || m.Items[1].Key != "a" || m.Pos != (ast.Pos{Line: 1, Col: 1}) {
		t.Fatalf("tree %#v", e)
	}
	if _, ok := m.Items[1].Value.(*ast.EdgePropExpr); !ok {
		t.Errorf("value %#v, want x.y", m.Items[1].Value)
	}
	var kinds []string
	ast.Inspect(e, func(x ast.Expr) bool {
		kinds = append(kinds, reflect.TypeOf(x).Elem().Name())
		return true
	})
	if want := []string{"MapExpr", "Literal", "EdgePropExpr"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("walk %v, want %v", kinds, want)
	}

	// The column name of a map is its printed form.
	st := parseOne(t, "YIELD {a: 1, b: [1,2]}, {x: 1} AS m")
	cols := st.(*ast.YieldStmt).Yield.Columns
	if cols[0].Name() != "{a:1,b:[1,2]}" || cols[1].Name() != "m" {
		t.Errorf("columns %q, %q", cols[0].Name(), cols[1].Name())
	}
}

func TestMapLiteralErrors(t *testing.T) {
	for _, tc := range []struct{ src, msg string }{
		{"{a: 1, a: 2}", `map key "a" given twice`},
		{"{`a`: 1, \"a\": 2}", `map key "a" given twice`},
		{"{1: 2}", "expected a map key (a name or a string)"},
		{"{a 1}", "expected ':'"},
		{"{a: 1", "expected ',' or '}'"},
		{"{a: }", "expected an expression"},
		{"{$a: 1}", "expected a map key"},
	} {
		_, err := ParseExpr(tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseExpr(%q) = %v, want a syntax error with %q", tc.src, err, tc.msg)
		}
	}
}
