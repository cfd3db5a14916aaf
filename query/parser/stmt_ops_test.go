package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

// TestQueryOperators parses GROUP BY, ORDER BY, LIMIT, the set operators,
// aggregate calls and GO's SAMPLE / LIMIT lists, checks the canonical text
// and that it parses back to the same tree.
func TestQueryOperators(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// GROUP BY and aggregates.
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | GROUP BY $-.d YIELD $-.d, count(*)`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | GROUP BY $-.d YIELD $-.d, count(*)`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d, e.w AS w | group by $-.d, $-.w + 1 yield $-.d AS d, COUNT($-.w) AS n, sum($-.w), avg($-.w), min($-.w), max($-.w), collect($-.w), collect_set($-.w)`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d, e.w AS w | GROUP BY $-.d, ($-.w+1) YIELD $-.d AS d, COUNT($-.w) AS n, sum($-.w), avg($-.w), min($-.w), max($-.w), collect($-.w), collect_set($-.w)`},
		{`YIELD 1 AS x | GROUP BY $-.x YIELD DISTINCT count(distinct $-.x) * 2 AS c`,
			`YIELD 1 AS x | GROUP BY $-.x YIELD DISTINCT (count(DISTINCT $-.x)*2) AS c`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | YIELD count(*) AS n, max($-.d)`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | YIELD count(*) AS n, max($-.d)`},
		{"YIELD count(`x`.y)", "YIELD count(x.y)"},

		// ORDER BY and LIMIT.
		{`GO FROM 1 OVER e YIELD e.w AS w, dst(edge) AS d | ORDER BY $-.w DESC, $-.d ASC`,
			`GO 1 STEPS FROM 1 OVER e YIELD e.w AS w, dst(EDGE) AS d | ORDER BY $-.w DESC, $-.d`},
		{`YIELD 1 AS a | order by $-.a descending, $-.a ascending | limit 3`, `YIELD 1 AS a | ORDER BY $-.a DESC, $-.a | LIMIT 3`},
		{`YIELD 1 AS a | LIMIT 2, 3`, `YIELD 1 AS a | LIMIT 2, 3`},
		{`YIELD 1 AS a | LIMIT 0, 3`, `YIELD 1 AS a | LIMIT 3`},
		{`YIELD 1 AS a | OFFSET 2 LIMIT 3`, `YIELD 1 AS a | LIMIT 2, 3`},
		{`YIELD 1 AS a | LIMIT 0`, `YIELD 1 AS a | LIMIT 0`},
		{`ORDER BY $v.d DESC`, `ORDER BY $v.d DESC`},
		{`GROUP BY $v.d YIELD $v.d, count(*) UNION ALL (YIELD 1 AS a, 2 AS b)`, `GROUP BY $v.d YIELD $v.d, count(*) UNION ALL YIELD 1 AS a, 2 AS b`},
		{`$v = GO FROM 1 OVER e YIELD dst(edge) AS d | ORDER BY $-.d | LIMIT 1`,
			`$v = GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | ORDER BY $-.d | LIMIT 1`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | GROUP BY $-.d YIELD $-.d AS d, count(*) AS n | ORDER BY $-.n DESC, $-.d | LIMIT 1, 2 | GO FROM $-.d OVER e`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | GROUP BY $-.d YIELD $-.d AS d, count(*) AS n | ORDER BY $-.n DESC, $-.d | LIMIT 1, 2 | GO 1 STEPS FROM $-.d OVER e`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | LIMIT 2 | DELETE VERTEX $-.d`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | LIMIT 2 | DELETE VERTEX $-.d`},

		// Set operators.
		{`GO FROM 1 OVER e UNION GO FROM 2 OVER e`, `GO 1 STEPS FROM 1 OVER e UNION GO 1 STEPS FROM 2 OVER e`},
		{`GO FROM 1 OVER e UNION DISTINCT GO FROM 2 OVER e`, `GO 1 STEPS FROM 1 OVER e UNION GO 1 STEPS FROM 2 OVER e`},
		{`YIELD 1 AS a union all YIELD 2 AS b intersect YIELD 1 AS c minus YIELD 3`,
			`YIELD 1 AS a UNION ALL YIELD 2 AS b INTERSECT YIELD 1 AS c MINUS YIELD 3`},
		{`YIELD 1 AS a UNION (YIELD 2 AS a MINUS YIELD 3 AS a)`, `YIELD 1 AS a UNION (YIELD 2 AS a MINUS YIELD 3 AS a)`},
		{`(YIELD 1 AS a UNION YIELD 2 AS a) MINUS YIELD 3 AS a`, `YIELD 1 AS a UNION YIELD 2 AS a MINUS YIELD 3 AS a`},
		{`(YIELD 1 AS a)`, `YIELD 1 AS a`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | YIELD $-.d AS d UNION GO FROM 2 OVER e YIELD dst(edge) AS d | LIMIT 1`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | YIELD $-.d AS d UNION GO 1 STEPS FROM 2 OVER e YIELD dst(EDGE) AS d | LIMIT 1`},
		{`(GO FROM 1 OVER e YIELD dst(edge) AS d UNION GO FROM 2 OVER e YIELD dst(edge) AS d) | GO FROM $-.d OVER e`,
			`(GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d UNION GO 1 STEPS FROM 2 OVER e YIELD dst(EDGE) AS d) | GO 1 STEPS FROM $-.d OVER e`},
		{`YIELD 1 AS a | (YIELD $-.a AS a UNION YIELD $-.a + 1 AS a) | ORDER BY $-.a`,
			`YIELD 1 AS a | (YIELD $-.a AS a UNION YIELD ($-.a+1) AS a) | ORDER BY $-.a`},
		{`YIELD 1 AS a | (YIELD $-.a AS a | YIELD $-.a AS b | YIELD $-.b AS c)`, `YIELD 1 AS a | YIELD $-.a AS a | YIELD $-.a AS b | YIELD $-.b AS c`},
		{`$v = YIELD 1 AS a UNION ALL YIELD 1 AS a`, `$v = YIELD 1 AS a UNION ALL YIELD 1 AS a`},
		{`EXPLAIN YIELD 1 INTERSECT YIELD 1`, `EXPLAIN YIELD 1 INTERSECT YIELD 1`},

		// GO's per-step SAMPLE and LIMIT.
		{`GO 3 STEPS FROM 1 OVER e YIELD dst(edge) SAMPLE [1, 2, 3]`, `GO 3 STEPS FROM 1 OVER e YIELD dst(EDGE) SAMPLE [1, 2, 3]`},
		{`GO 2 STEPS FROM 1 OVER e WHERE e.w > 1 limit [0,10]`, `GO 2 STEPS FROM 1 OVER e WHERE (e.w>1) LIMIT [0, 10]`},
		{`GO FROM 1 OVER e sample [5] | LIMIT 1`, `GO 1 STEPS FROM 1 OVER e SAMPLE [5] | LIMIT 1`},
		{`GO 1 TO 2 STEPS FROM 1 OVER * BIDIRECT YIELD dst(edge) AS d LIMIT [2, 2] | ORDER BY $-.d`,
			`GO 1 TO 2 STEPS FROM 1 OVER * BIDIRECT YIELD dst(EDGE) AS d LIMIT [2, 2] | ORDER BY $-.d`},
		{"GO FROM 1 OVER sample YIELD sample.limit AS `limit`", "GO 1 STEPS FROM 1 OVER sample YIELD sample.`limit` AS `limit`"},
	} {
		st := parseOne(t, tc.src)
		if got := st.String(); got != tc.want {
			t.Errorf("Parse(%q).String()\n got %s\nwant %s", tc.src, got, tc.want)
			continue
		}
		again := parseOne(t, tc.want)
		if !reflect.DeepEqual(stripPos(again), stripPos(st)) {
			t.Errorf("%q: the printed form parses to a different tree", tc.src)
		}
	}
}

func TestQueryOperatorFields(t *testing.T) {
	// Set operators bind looser than pipes and chain to the left.
	s := parseOne(t, `YIELD 1 AS a | YIELD $-.a AS a UNION ALL YIELD 2 AS a MINUS YIELD 3 AS a | YIELD $-.a AS a`).(*ast.SetOpStmt)
	if s.Op != ast.Minus || s.All || s.Pos != (ast.Pos{Line: 1, Col: 55}) {
		t.Errorf("outer %v all=%v at %+v", s.Op, s.All, s.Pos)
	}
	if _, ok := s.Right.(*ast.PipeStmt); !ok {
		t.Errorf("right of MINUS is %T, want a pipe", s.Right)
	}
	inner, ok := s.Left.(*ast.SetOpStmt)
	if !ok || inner.Op != ast.Union || !inner.All {
		t.Fatalf("left of MINUS is %#v", s.Left)
	}
	if _, ok := inner.Left.(*ast.PipeStmt); !ok {
		t.Errorf("left of UNION is %T, want a pipe", inner.Left)
	}

	g := parseOne(t, `YIELD 1 AS a | GROUP BY $-.a, $-.a + 1 YIELD count(DISTINCT $-.a) AS n, count(*)`).(*ast.PipeStmt).Right.(*ast.GroupByStmt)
	if len(g.Keys) != 2 || len(g.Yield.Columns) != 2 {
		t.Fatalf("group by %v", g)
	}
	a := g.Yield.Columns[0].Expr.(*ast.AggregateExpr)
	if !a.Distinct || a.Name != "count" || a.Arg.String() != "$-.a" || a.Pos != (ast.Pos{Line: 1, Col: 46}) {
		t.Errorf("aggregate %#v", a)
	}
	if star := g.Yield.Columns[1].Expr.(*ast.AggregateExpr); star.Arg != nil || g.Yield.Columns[1].Name() != "count(*)" {
		t.Errorf("count(*) %#v named %q", star, g.Yield.Columns[1].Name())
	}

	o := parseOne(t, `YIELD 1 AS a | ORDER BY $-.a DESC, $-.b`).(*ast.PipeStmt).Right.(*ast.OrderByStmt)
	if len(o.Factors) != 2 || !o.Factors[0].Desc || o.Factors[1].Desc {
		t.Errorf("order by %v", o)
	}
	for src, want := range map[string]ast.LimitStmt{
		`YIELD 1 | LIMIT 7`:           {Count: 7},
		`YIELD 1 | LIMIT 2, 7`:        {Offset: 2, Count: 7},
		`YIELD 1 | OFFSET 2 LIMIT 7 `: {Offset: 2, Count: 7},
	} {
		l := parseOne(t, src).(*ast.PipeStmt).Right.(*ast.LimitStmt)
		if l.Offset != want.Offset || l.Count != want.Count {
			t.Errorf("%s: offset %d count %d", src, l.Offset, l.Count)
		}
	}

	gs := parseOne(t, `GO 2 STEPS FROM 1 OVER e SAMPLE [3, 4]`).(*ast.GoStmt)
	if gs.Limits == nil || !gs.Limits.Sample || !reflect.DeepEqual(gs.Limits.Counts, []int64{3, 4}) || gs.Limits.Pos != (ast.Pos{Line: 1, Col: 26}) {
		t.Errorf("sample %+v", gs.Limits)
	}
	if gl := parseOne(t, `GO FROM 1 OVER e LIMIT [3]`).(*ast.GoStmt); gl.Limits == nil || gl.Limits.Sample {
		t.Errorf("limit %+v", gl.Limits)
	}
	if gn := parseOne(t, `GO FROM 1 OVER e`).(*ast.GoStmt); gn.Limits != nil {
		t.Errorf("no limits %+v", gn.Limits)
	}

	// a | (b | c) chains to the left like a | b | c.
	p := parseOne(t, `YIELD 1 AS a | (YIELD $-.a AS b | YIELD $-.b AS c)`).(*ast.PipeStmt)
	if _, ok := p.Left.(*ast.PipeStmt); !ok || p.Pos != (ast.Pos{Line: 1, Col: 33}) {
		t.Errorf("pipe %T at %+v", p.Left, p.Pos)
	}
}

func TestQueryOperatorSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		msg       string
	}{
		{"LIMIT 3", 1, 1, "LIMIT reads piped rows"},
		{"OFFSET 1 LIMIT 3", 1, 1, "OFFSET reads piped rows"},
		{"YIELD 1 | GROUP $-.a", 1, 17, "expected BY"},
		{"YIELD 1 | GROUP BY $-.a", 1, 24, "expected ',' or YIELD"},
		{"YIELD 1 | ORDER BY", 1, 19, "expected an expression"},
		{"YIELD 1 | ORDER BY $-.a DESC DESC", 1, 30, "expected ';' or end of input"},
		{"YIELD 1 | LIMIT", 1, 16, "expected a row count"},
		{"YIELD 1 | LIMIT -1", 1, 17, "a row count must be an integer from 0"},
		{"YIELD 1 | LIMIT 1, 2, 3", 1, 21, "expected ';' or end of input"},
		{"YIELD 1 | OFFSET 1", 1, 19, "expected LIMIT"},
		{"YIELD 1 | LIMIT [1]", 1, 17, "LIMIT [n, ...] limits the steps of GO"},
		{"YIELD 1 UNION", 1, 14, "expected GO, FETCH, LOOKUP or YIELD"},
		{"YIELD 1 UNION ALL ALL YIELD 1", 1, 19, "expected GO, FETCH, LOOKUP or YIELD"},
		{"YIELD 1 INTERSECT DISTINCT YIELD 1", 1, 19, "expected GO, FETCH, LOOKUP or YIELD"},
		{"USE s UNION YIELD 1", 1, 7, "only GO, FETCH, LOOKUP and YIELD results can be combined with UNION"},
		{"GO FROM 1 OVER e YIELD dst(edge) AS d | DELETE VERTEX $-.d MINUS YIELD 1", 1, 60, "combined with MINUS"},
		{"YIELD 1 UNION YIELD 2 AS d | DELETE VERTEX $-.d", 1, 30, "expected GO, FETCH, LOOKUP or YIELD"},
		{"(YIELD 1", 1, 9, "expected ')'"},
		{"(DELETE VERTEX 1)", 1, 2, "expected GO, FETCH, LOOKUP or YIELD"},
		{"YIELD count()", 1, 13, "count() takes one argument"},
		{"YIELD sum(1, 2)", 1, 12, "sum() takes one argument"},
		{"YIELD sum(*)", 1, 11, "only count accepts *"},
		{"YIELD count(DISTINCT *)", 1, 22, "expected an expression"},
		{"GO FROM 1 OVER e LIMIT 3", 1, 24, "GO's LIMIT takes one count per step"},
		{"GO FROM 1 OVER e SAMPLE 3", 1, 25, "expected '[' (SAMPLE takes one count per step"},
		{"GO FROM 1 OVER e SAMPLE []", 1, 26, "expected an edge count"},
		{"GO FROM 1 OVER e SAMPLE [1, -1]", 1, 29, "an edge count must be an integer from 0"},
		{"GO FROM 1 OVER e SAMPLE [1 2]", 1, 28, "expected ',' or ']'"},
		{"GO FROM 1 OVER e SAMPLE [1] LIMIT [1]", 1, 29, "expected ';' or end of input"},
		{"GO FROM 1 OVER e LIMIT [1] YIELD 1", 1, 28, "expected ';' or end of input"},
	} {
		_, err := Parse(tc.src)
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("Parse(%q) = %v, want a syntax error", tc.src, err)
			continue
		}
		if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%q): line %d col %d %q; want line %d col %d %q", tc.src, se.Line, se.Col, se.Msg, tc.line, tc.col, tc.msg)
		}
		checkSyntaxError(t, tc.src, err)
	}
}
