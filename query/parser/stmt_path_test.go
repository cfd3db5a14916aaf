package parser

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
)

func TestPathStatements(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`FIND SHORTEST PATH FROM "a" TO "b" OVER e YIELD path AS p`,
			`FIND SHORTEST PATH FROM "a" TO "b" OVER e UPTO 5 STEPS YIELD path AS p`},
		{`find all path with prop from 1, 2 to 3 over * bidirect where e.w > 1 upto 3 steps yield path as p`,
			`FIND ALL PATH WITH PROP FROM 1, 2 TO 3 OVER * BIDIRECT WHERE (e.w>1) UPTO 3 STEPS YIELD path AS p`},
		{`FIND NOLOOP PATH FROM $-.src TO $v.dst OVER e, f REVERSELY UPTO 1 STEP`,
			`FIND NOLOOP PATH FROM $-.src TO $v.dst OVER e, f REVERSELY UPTO 1 STEPS YIELD path`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS d | FIND SHORTEST PATH FROM 1 TO $-.d OVER e YIELD path AS p | YIELD $-.p`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS d | FIND SHORTEST PATH FROM 1 TO $-.d OVER e UPTO 5 STEPS YIELD path AS p | YIELD $-.p`},
		{`$p = FIND ALL PATH FROM 1 TO 2 OVER e YIELD path AS p`, `$p = FIND ALL PATH FROM 1 TO 2 OVER e UPTO 5 STEPS YIELD path AS p`},
		{`GET SUBGRAPH FROM "a" YIELD VERTICES AS nodes, EDGES AS relationships`,
			`GET SUBGRAPH 1 STEPS FROM "a" YIELD VERTICES AS nodes, EDGES AS relationships`},
		{`get subgraph with prop 2 steps from 1, 2 in e, f out g both h yield edges as r`,
			`GET SUBGRAPH WITH PROP 2 STEPS FROM 1, 2 IN e, f OUT g BOTH h YIELD EDGES AS r`},
		{`GET SUBGRAPH 0 STEP FROM $-.id OUT e`, `GET SUBGRAPH 0 STEPS FROM $-.id OUT e`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS id | GET SUBGRAPH FROM $-.id YIELD VERTICES AS v`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id | GET SUBGRAPH 1 STEPS FROM $-.id YIELD VERTICES AS v`},
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

func TestPathFields(t *testing.T) {
	s := parseOne(t, `FIND SHORTEST PATH WITH PROP FROM 1 TO 2, 3 OVER e BIDIRECT WHERE e.w > 0 UPTO 7 STEPS YIELD path AS p`).(*ast.FindPathStmt)
	if s.Kind != ast.ShortestPath || !s.WithProp || len(s.From.VIDs) != 1 || len(s.To.VIDs) != 2 ||
		s.Over.Direction != ast.Bidirect || s.Where == nil || s.Steps != 7 || s.Column() != "p" {
		t.Errorf("got %+v", s)
	}
	if c := parseOne(t, `FIND ALL PATH FROM 1 TO 2 OVER e`).(*ast.FindPathStmt).Column(); c != "path" {
		t.Errorf("default column %q, want path", c)
	}
	g := parseOne(t, `GET SUBGRAPH FROM 1 IN e OUT f, g`).(*ast.SubgraphStmt)
	if g.Steps != 1 || g.WithProp || len(g.Edges) != 2 || g.Edges[0].Direction != ast.Reversely ||
		g.Edges[1].Direction != ast.Forward || len(g.Edges[1].Edges) != 2 || g.Yield != nil {
		t.Errorf("got %+v", g)
	}
}

func TestPathSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		msg       string
	}{
		{`FIND PATH FROM 1 TO 2 OVER e`, 1, 6, "expected SHORTEST, ALL or NOLOOP"},
		{`FIND SHORTEST FROM 1 TO 2 OVER e`, 1, 15, "expected PATH"},
		{`FIND ALL PATH FROM 1 OVER e`, 1, 22, "expected TO"},
		{`FIND ALL PATH FROM 1 TO 2`, 1, 26, "expected OVER"},
		{`FIND ALL PATH WITH 1`, 1, 20, "expected PROP"},
		{`FIND ALL PATH FROM 1 TO 2 OVER e UPTO -1 STEPS`, 1, 39, "step count must be an integer"},
		{`FIND ALL PATH FROM 1 TO 2 OVER e UPTO 3`, 1, 40, "expected STEPS"},
		{`FIND ALL PATH FROM 1 TO 2 OVER e UPTO 1001 STEPS`, 1, 39, "step count must be an integer from 0 to 1000"},
		{`GET SUBGRAPH 5000 STEPS FROM 1`, 1, 14, "step count must be an integer from 0 to 1000"},
		{`FIND ALL PATH FROM 1 TO 2 OVER e YIELD p`, 1, 40, "expected PATH"},
		{`GET SUBGRAPH 2 FROM 1`, 1, 16, "expected STEPS"},
		{`GET SUBGRAPH FROM 1 IN e IN f`, 1, 26, "each of IN, OUT and BOTH may appear once"},
		{`GET SUBGRAPH FROM 1 YIELD NODES AS n`, 1, 27, "expected VERTICES or EDGES"},
		{`GET SUBGRAPH FROM 1 YIELD VERTICES`, 1, 35, "expected AS"},
		{`GET SUBGRAPH FROM 1 YIELD EDGES AS a, EDGES AS b`, 1, 39, "VERTICES and EDGES may each be yielded once"},
		{`GET FROM 1`, 1, 1, "expected a statement"},
	} {
		_, err := Parse(tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a syntax error", tc.src, err)
			continue
		}
		if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%s: got %d:%d %q, want %d:%d %q", tc.src, se.Line, se.Col, se.Msg, tc.line, tc.col, tc.msg)
		}
	}
}
