package parser

import (
	"reflect"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestExprPrecedence checks grouping through the fully parenthesised form
// that String prints.
func TestExprPrecedence(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"1 + 2 * 3", "(1+(2*3))"},
		{"(1 + 2) * 3", "((1+2)*3)"},
		{"1 - 2 - 3", "((1-2)-3)"},
		{"8 / 4 % 3 * 2", "(((8/4)%3)*2)"},
		{"-a.b * 2", "(-(a.b)*2)"},
		{"-2 * 3", "(-2*3)"},
		{"- 2", "-2"},
		{"-(2)", "-(2)"},
		{"-(-2)", "-(-2)"},
		{"+1", "+(1)"},
		{"1 - -1", "(1- -1)"},
		{"1-- 1", "1"},      // "-- " starts a comment
		{"1--1", "(1- -1)"}, // "--" before anything but a blank is two minus signs
		{"a.x < b.y + 1", "(a.x<(b.y+1))"},
		{"a.x == 1 AND b.y != 2 OR c.z <> 3", "(((a.x==1) AND (b.y!=2)) OR (c.z!=3))"},
		{"a.x OR b.y AND c.z", "(a.x OR (b.y AND c.z))"},
		{"a.x XOR b.y OR c.z", "((a.x XOR b.y) OR c.z)"},
		{"NOT a.x AND b.y", "(!(a.x) AND b.y)"},
		{"NOT a.x == 1", "!((a.x==1))"},
		{"!a.x == 1", "(!(a.x)==1)"},
		{"NOT NOT true", "!(!(true))"},
		{"1 < 2 == true", "((1<2)==true)"},
		{"e.a IN [1, 2, 3]", "(e.a IN [1,2,3])"},
		{"e.a NOT IN [] AND true", "((e.a NOT IN []) AND true)"},
		{"e.a + 1 IN [2]", "((e.a+1) IN [2])"},
		{"$$.p.name CONTAINS 'a' OR $$.p.name STARTS WITH \"b\" OR $$.p.name ENDS WITH 'c'",
			`((($$.p.name CONTAINS "a") OR ($$.p.name STARTS WITH "b")) OR ($$.p.name ENDS WITH "c"))`},
		{"$$.p.name NOT CONTAINS 'a' AND $$.p.name NOT STARTS WITH 'b' OR e.a NOT ENDS WITH 'c' + 'd'",
			`((($$.p.name NOT CONTAINS "a") AND ($$.p.name NOT STARTS WITH "b")) OR (e.a NOT ENDS WITH ("c"+"d")))`},
		{"e.a IS NULL AND e.b IS NOT NULL", "((e.a IS NULL) AND (e.b IS NOT NULL))"},
		{"e.a + 1 IS NULL", "((e.a+1) IS NULL)"},
		{"NOT e.a IS NULL", "!((e.a IS NULL))"},
		{"[1, 'a', [true, NULL], 1.5]", `[1,"a",[true,NULL],1.5]`},
		{"[]", "[]"},
		{"[1,2][0]", "[1,2][0]"},
		{"f()", "f()"},
		{"abs(-1) + Pow(2, 3)", "(abs(-1)+Pow(2,3))"},
		{"properties(edge).w", "properties(EDGE).w"},
		{"src(EDGE)", "src(EDGE)"},
		{"id($$)", "id($$)"},
		{"id($^)", "id($^)"},
		{"$-.a + $v.b", "($-.a+$v.b)"},
		{"$^.Person.firstName", "$^.Person.firstName"},
		{"$$.`my tag`.`my prop`", "$$.`my tag`.`my prop`"},
		{"e.`from`", "e.`from`"},
		{"e.from", "e.`from`"},
		{"`edge name`.x", "`edge name`.x"},
		{"knows._dst", "knows._dst"},
		{"a", "a"},
		{"0x1f + 010", "(31+10)"},
		{"1.50 + 2e2 + .5", "((1.5+200.0)+0.5)"},
		{"TRUE AND false OR null", "((true AND false) OR NULL)"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"1 /* inline */ + 2 # trailing", "(1+2)"},
		{"$n + 1", "($n+1)"},
		{"e.w > $min AND $v.c == $c", "((e.w>$min) AND ($v.c==$c))"},
		{"$list[0] IN $set", "($list[0] IN $set)"},
		{"-$n", "-($n)"},
		{"abs($x)", "abs($x)"},
	} {
		e, err := ParseExpr(tc.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.src, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("ParseExpr(%q).String() = %s, want %s", tc.src, got, tc.want)
		}
	}
}

// TestExprRoundTrip checks that printing an expression and parsing the
// text again gives the same tree.
func TestExprRoundTrip(t *testing.T) {
	for _, src := range []string{
		"1 - -1", "-(-1)", "1 - -(1)", "a.b - -9223372036854775808", "-(x.y)",
		`"quote \" backslash \\ newline \n tab \t ctrl \u0001 unicode é"`,
		"[1, [2, [3, []]], NULL, 1.0e300, -0.0]",
		"NOT (a.x IN [1] OR b.y NOT IN [2]) XOR $$.t.p IS NULL",
		"coalesce($-.a, $v.b, id($$), src(edge), properties(vertex)['x'])",
		"$^.`a b`.c", "`sel ect`.`from`", "f(1)[2].x[3]",
		"1 + 2 * 3 % 4 / 5 - 6 >= 7 AND 8 <= 9",
		"$p + $q.c - $-.x", "[$a, $b][0]", "e.w > $min",
	} {
		e1, err := ParseExpr(src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", src, err)
			continue
		}
		printed := e1.String()
		e2, err := ParseExpr(printed)
		if err != nil {
			t.Errorf("%q printed as %q, which does not parse: %v", src, printed, err)
			continue
		}
		if !reflect.DeepEqual(stripPos(e1), stripPos(e2)) {
			t.Errorf("%q printed as %q, which parses to a different tree", src, printed)
		}
		if again := e2.String(); again != printed {
			t.Errorf("%q: printing is not stable: %q then %q", src, printed, again)
		}
	}
}

// TestColumnNames pins the default names of YIELD columns to NebulaGraph's.
func TestColumnNames(t *testing.T) {
	st := parseOne(t, `GO FROM 1 OVER knows YIELD knows.creationDate, $$.Person.firstName, $^.Person.lastName,
		dst(edge), src(Edge), rank(edge), type(edge), id($$), $-.id, $var.id, knows._dst, 1+2, e.a > 1 AND true, x AS alias`)
	want := []string{
		"knows.creationDate", "$$.Person.firstName", "$^.Person.lastName",
		"dst(EDGE)", "src(EDGE)", "rank(EDGE)", "type(EDGE)", "id($$)", "$-.id", "$var.id", "knows._dst",
		"(1+2)", "((e.a>1) AND true)", "alias",
	}
	cols := st.(*ast.GoStmt).Yield.Columns
	for i, c := range cols {
		if c.Name() != want[i] {
			t.Errorf("column %d named %q, want %q", i, c.Name(), want[i])
		}
	}
}

func TestExprNodes(t *testing.T) {
	e, err := ParseExpr("$^.t.a + $$.t.b * e.c - $-.d / $v.e")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	ast.Inspect(e, func(x ast.Expr) bool {
		kinds = append(kinds, reflect.TypeOf(x).Elem().Name())
		return true
	})
	want := []string{"BinaryExpr", "BinaryExpr", "SrcPropExpr", "BinaryExpr", "DstPropExpr", "EdgePropExpr",
		"BinaryExpr", "InputPropExpr", "VarPropExpr"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("walk order %v, want %v", kinds, want)
	}
}

// TestParamExpr checks that $name without .col is a query parameter, and
// $name.col still a variable's column.
func TestParamExpr(t *testing.T) {
	e, err := ParseExpr("$p + $v.c")
	if err != nil {
		t.Fatal(err)
	}
	b := e.(*ast.BinaryExpr)
	if p, ok := b.L.(*ast.ParamExpr); !ok || p.Name != "p" || p.Pos != (ast.Pos{Line: 1, Col: 1}) {
		t.Errorf("left = %#v, want ParamExpr p at 1:1", b.L)
	}
	if v, ok := b.R.(*ast.VarPropExpr); !ok || v.Var != "v" || v.Col != "c" {
		t.Errorf("right = %#v, want VarPropExpr $v.c", b.R)
	}
	if got := (&ast.ParamExpr{Name: "min"}).String(); got != "$min" {
		t.Errorf("String() = %s, want $min", got)
	}

	stmts, err := Parse("$a = GO FROM $p OVER e YIELD dst(edge) AS id; GO FROM $a.id OVER e")
	if err != nil {
		t.Fatal(err)
	}
	from := stmts[0].(*ast.AssignStmt).Stmt.(*ast.GoStmt).From
	if p, ok := from.Ref.(*ast.ParamExpr); !ok || p.Name != "p" || from.VIDs != nil {
		t.Errorf("GO FROM $p: source %#v, want the parameter p", from)
	}
	if _, ok := stmts[1].(*ast.GoStmt).From.Ref.(*ast.VarPropExpr); !ok {
		t.Errorf("GO FROM $a.id: source %#v, want the variable's column", stmts[1].(*ast.GoStmt).From.Ref)
	}
}
