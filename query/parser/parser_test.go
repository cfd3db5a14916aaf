package parser

import (
	"reflect"
	"testing"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// parseOne parses src, which must hold exactly one statement.
func parseOne(t *testing.T, src string) ast.Statement {
	t.Helper()
	stmts, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements, want 1", src, len(stmts))
	}
	return stmts[0]
}

// TestStatements parses every statement form and checks the canonical text
// it prints, which spells out what the tree holds (defaults included), and
// that the text parses back to the same tree.
func TestStatements(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// Spaces.
		{"CREATE SPACE s", "CREATE SPACE s (partition_num = 10, replica_factor = 1, vid_type = FIXED_STRING(8))"},
		{"create space if not exists s (partition_num=3, replica_factor=3, vid_type=INT64)",
			"CREATE SPACE IF NOT EXISTS s (partition_num = 3, replica_factor = 3, vid_type = INT64)"},
		{"CREATE SPACE s (vid_type = fixed_string(32))", "CREATE SPACE s (partition_num = 10, replica_factor = 1, vid_type = FIXED_STRING(32))"},
		{"CREATE SPACE s (vid_type = int)", "CREATE SPACE s (partition_num = 10, replica_factor = 1, vid_type = INT64)"},
		{"CREATE SPACE s ()", "CREATE SPACE s (partition_num = 10, replica_factor = 1, vid_type = FIXED_STRING(8))"},
		{"CREATE SPACE `my space`", "CREATE SPACE `my space` (partition_num = 10, replica_factor = 1, vid_type = FIXED_STRING(8))"},
		{"DROP SPACE s", "DROP SPACE s"},
		{"drop space IF EXISTS s", "DROP SPACE IF EXISTS s"},
		{"USE s", "USE s"},
		{"use `from`", "USE `from`"},
		{"SHOW SPACES", "SHOW SPACES"},
		{"show hosts", "SHOW HOSTS"},
		{"SHOW PARTS", "SHOW PARTS"},
		{"SHOW TAGS", "SHOW TAGS"},
		{"SHOW EDGES", "SHOW EDGES"},
		{"DESCRIBE SPACE s", "DESCRIBE SPACE s"},
		{"DESC space s", "DESCRIBE SPACE s"},
		{"DESCRIBE TAG player", "DESCRIBE TAG player"},
		{"desc EDGE follow", "DESCRIBE EDGE follow"},

		// Schemas.
		{`CREATE TAG t(p1 int, p2 string NULL, p3 fixed_string(10) NOT NULL DEFAULT "x")`,
			`CREATE TAG t(p1 int64, p2 string, p3 fixed_string(10) NOT NULL DEFAULT "x")`},
		{"CREATE TAG IF NOT EXISTS t()", "CREATE TAG IF NOT EXISTS t()"},
		{"CREATE TAG t(a int8, b int16, c int32, d int64, e float, f double, g bool, h timestamp)",
			"CREATE TAG t(a int64, b int64, c int64, d int64, e double, f double, g bool, h timestamp)"},
		{"CREATE TAG t(a int DEFAULT -1 NOT NULL COMMENT 'age', b string DEFAULT NULL)",
			`CREATE TAG t(a int64 NOT NULL DEFAULT -1 COMMENT "age", b string DEFAULT NULL)`},
		{"CREATE EDGE e(since timestamp, w double)", "CREATE EDGE e(since timestamp, w double)"},
		{"CREATE EDGE IF NOT EXISTS e()", "CREATE EDGE IF NOT EXISTS e()"},

		// Inserts.
		{`INSERT VERTEX t(name, age) VALUES "a":("n", 1), "b":("m", 2)`,
			`INSERT VERTEX t(name, age) VALUES "a":("n", 1), "b":("m", 2)`},
		{`INSERT VERTEX IF NOT EXISTS t1(a), t2(b, c) VALUES 1:(1, 2, 3)`,
			`INSERT VERTEX IF NOT EXISTS t1(a), t2(b, c) VALUES 1:(1, 2, 3)`},
		{`INSERT VERTEX t1(a), t2(b, c) VALUES 1:(1), (2, 3), -2:(4, 5, 6)`,
			`INSERT VERTEX t1(a), t2(b, c) VALUES 1:(1, 2, 3), -2:(4, 5, 6)`},
		{`INSERT VERTEX t() VALUE "x":()`, `INSERT VERTEX t() VALUES "x":()`},
		{`INSERT VERTEX VALUES "x":()`, `INSERT VERTEX VALUES "x":()`},
		{`INSERT EDGE e(a, b) VALUES 1->2:(1, "x"), 1->2@7:(2, "y"), "p"->"q"@-1:(3, NULL)`,
			`INSERT EDGE e(a, b) VALUES 1->2:(1, "x"), 1->2@7:(2, "y"), "p"->"q"@-1:(3, NULL)`},
		{`INSERT EDGE IF NOT EXISTS e() VALUES 1->2:()`, `INSERT EDGE IF NOT EXISTS e() VALUES 1->2:()`},

		// FETCH.
		{`FETCH PROP ON player "a"`, `FETCH PROP ON player "a"`},
		{`FETCH PROP ON t1, t2 1, 2, -3 YIELD t1.a AS a, t2.b`, `FETCH PROP ON t1, t2 1, 2, -3 YIELD t1.a AS a, t2.b`},
		{`FETCH PROP ON * "a", "b" YIELD properties(vertex), id(VERTEX) AS id`, `FETCH PROP ON * "a", "b" YIELD properties(VERTEX), id(VERTEX) AS id`},
		{`FETCH PROP ON t $-.id YIELD t.a`, `FETCH PROP ON t $-.id YIELD t.a`},
		{`FETCH PROP ON t $v.id`, `FETCH PROP ON t $v.id`},
		{`FETCH PROP ON e "a"->"b" YIELD e.w`, `FETCH PROP ON e "a"->"b" YIELD e.w`},
		{`FETCH PROP ON e 1->2@3, 4->5 YIELD src(edge), e.w`, `FETCH PROP ON e 1->2@3, 4->5 YIELD src(EDGE), e.w`},
		{`FETCH PROP ON e $-.s->$-.d@$-.r`, `FETCH PROP ON e $-.s->$-.d@$-.r`},
		{`FETCH PROP ON e $v.s->$v.d`, `FETCH PROP ON e $v.s->$v.d`},

		// GO.
		{`GO FROM "a" OVER e`, `GO 1 STEPS FROM "a" OVER e`},
		{`GO 3 STEPS FROM 1, 2 OVER e YIELD dst(edge)`, `GO 3 STEPS FROM 1, 2 OVER e YIELD dst(EDGE)`},
		{`GO 1 STEP FROM 1 OVER e`, `GO 1 STEPS FROM 1 OVER e`},
		{`GO 2 TO 4 STEPS FROM 1 OVER e, f REVERSELY`, `GO 2 TO 4 STEPS FROM 1 OVER e, f REVERSELY`},
		{`GO 0 TO 2 STEPS FROM 1 OVER * BIDIRECT`, `GO 0 TO 2 STEPS FROM 1 OVER * BIDIRECT`},
		{`GO FROM "p" OVER knows WHERE knows.creationDate > 5 AND $$.Person.gender == "m" YIELD DISTINCT knows.creationDate, $$.Person.firstName AS name, $^.Person.id`,
			`GO 1 STEPS FROM "p" OVER knows WHERE ((knows.creationDate>5) AND ($$.Person.gender=="m")) YIELD DISTINCT knows.creationDate, $$.Person.firstName AS name, $^.Person.id`},
		{`GO FROM $-.id OVER e YIELD $-.name, e._dst`, `GO 1 STEPS FROM $-.id OVER e YIELD $-.name, e._dst`},
		{`GO FROM $friends.id OVER e`, `GO 1 STEPS FROM $friends.id OVER e`},
		{`GO FROM 1 OVER e YIELD id($$), id($^), rank(edge), type(edge)`,
			`GO 1 STEPS FROM 1 OVER e YIELD id($$), id($^), rank(EDGE), type(EDGE)`},

		// YIELD, pipes, variables, EXPLAIN.
		{`YIELD 1 + 2 AS x`, `YIELD (1+2) AS x`},
		{`YIELD $-.a WHERE $-.a > 1`, `YIELD $-.a WHERE ($-.a>1)`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS id | GO FROM $-.id OVER e YIELD dst(edge)`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id | GO 1 STEPS FROM $-.id OVER e YIELD dst(EDGE)`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS id | FETCH PROP ON t $-.id | YIELD DISTINCT $-.x`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id | FETCH PROP ON t $-.id | YIELD DISTINCT $-.x`},
		{`$a = GO FROM 1 OVER e YIELD dst(edge) AS id`, `$a = GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id`},
		{`$a = GO FROM 1 OVER e YIELD dst(edge) AS id | YIELD $-.id`,
			`$a = GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id | YIELD $-.id`},
		{`EXPLAIN GO FROM 1 OVER e`, `EXPLAIN GO 1 STEPS FROM 1 OVER e`},
		{`explain format="DOT" GO FROM 1 OVER e`, `EXPLAIN FORMAT = "dot" GO 1 STEPS FROM 1 OVER e`},
		{`PROFILE FORMAT = 'row' $a = YIELD 1`, `PROFILE FORMAT = "row" $a = YIELD 1`},
		{`EXPLAIN SHOW SPACES`, `EXPLAIN SHOW SPACES`},
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

func TestCreateSpaceFields(t *testing.T) {
	s := parseOne(t, "CREATE SPACE s (replica_factor = 3, vid_type = FIXED_STRING(20))").(*ast.CreateSpaceStmt)
	want := &ast.CreateSpaceStmt{
		Pos: ast.Pos{Line: 1, Col: 1}, Name: "s", PartitionNum: 10, ReplicaFactor: 3,
		VIDType: ast.VIDType{Kind: ast.VIDFixedString, Len: 20},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v, want %+v", s, want)
	}
}

func TestPropDefFields(t *testing.T) {
	s := parseOne(t, `CREATE EDGE e(a fixed_string(4) NOT NULL DEFAULT "ab", b int)`).(*ast.CreateSchemaStmt)
	if s.Kind != ast.EdgeSchema || s.Name != "e" || len(s.Props) != 2 {
		t.Fatalf("got %+v", s)
	}
	a, b := s.Props[0], s.Props[1]
	if a.Type != (ast.PropType{Kind: ast.PropFixedString, Len: 4}) || a.Nullable || !isLit(a.Default, value.Str("ab")) {
		t.Errorf("prop a = %+v", a)
	}
	if b.Type.Kind != ast.PropInt64 || !b.Nullable || b.Default != nil {
		t.Errorf("prop b = %+v", b)
	}
}

func TestInsertVertexSplitsValuesByTag(t *testing.T) {
	for _, src := range []string{
		`INSERT VERTEX t1(a), t2(b, c) VALUES "v":(1, 2, 3)`,
		`INSERT VERTEX t1(a), t2(b, c) VALUES "v":(1), (2, 3)`,
	} {
		s := parseOne(t, src).(*ast.InsertVertexStmt)
		row := s.Rows[0]
		if !isLit(row.VID, value.Str("v")) {
			t.Errorf("%s: vid %v", src, row.VID)
		}
		got := [][]string{}
		for _, vs := range row.Values {
			var strs []string
			for _, v := range vs {
				strs = append(strs, v.String())
			}
			got = append(got, strs)
		}
		if want := [][]string{{"1"}, {"2", "3"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: values %v, want %v", src, got, want)
		}
	}
}

func TestEdgeKeyFields(t *testing.T) {
	s := parseOne(t, `INSERT EDGE e() VALUES -9223372036854775808->0x10@-5:()`).(*ast.InsertEdgeStmt)
	k := s.Rows[0].Key
	if !isLit(k.Src, value.Int(-9223372036854775808)) ||
		!isLit(k.Dst, value.Int(16)) ||
		!isLit(k.Rank, value.Int(-5)) {
		t.Errorf("key %v", k)
	}
	f := parseOne(t, `FETCH PROP ON e $-.s->$-.d`).(*ast.FetchEdgesStmt)
	if k := f.Keys[0]; k.Rank != nil || k.Src.(*ast.InputPropExpr).Col != "s" || k.Dst.(*ast.InputPropExpr).Col != "d" {
		t.Errorf("ref key %v", k)
	}
}

func TestGoFields(t *testing.T) {
	s := parseOne(t, `GO 2 TO 3 STEPS FROM "a", "b" OVER e REVERSELY WHERE e.x > 1 YIELD e.x AS x`).(*ast.GoStmt)
	if s.Steps != (ast.StepRange{Min: 2, Max: 3}) {
		t.Errorf("steps %v", s.Steps)
	}
	if len(s.From.VIDs) != 2 || s.From.Ref != nil {
		t.Errorf("from %v", s.From)
	}
	if s.Over.Direction != ast.Reversely || s.Over.All || !reflect.DeepEqual(s.Over.Edges, []string{"e"}) {
		t.Errorf("over %+v", s.Over)
	}
	if s.Where == nil || s.Yield == nil || s.Yield.Distinct || s.Yield.Columns[0].Name() != "x" {
		t.Errorf("where/yield %v %v", s.Where, s.Yield)
	}
	g := parseOne(t, `GO FROM $-.id OVER * YIELD $$.t.p`).(*ast.GoStmt)
	if g.Steps != (ast.StepRange{Min: 1, Max: 1}) || g.Over.Direction != ast.Forward || !g.Over.All {
		t.Errorf("defaults %+v %+v", g.Steps, g.Over)
	}
	if _, ok := g.From.Ref.(*ast.InputPropExpr); !ok {
		t.Errorf("from ref %v", g.From)
	}
	if name := g.Yield.Columns[0].Name(); name != "$$.t.p" {
		t.Errorf("default column name %q", name)
	}
}

func TestPipesAssociateLeft(t *testing.T) {
	s := parseOne(t, `$v = YIELD 1 AS a | YIELD $-.a AS b | YIELD $-.b`).(*ast.AssignStmt)
	outer, ok := s.Stmt.(*ast.PipeStmt)
	if !ok || s.Var != "v" {
		t.Fatalf("got %T %q", s.Stmt, s.Var)
	}
	if _, ok := outer.Left.(*ast.PipeStmt); !ok {
		t.Errorf("left of the last pipe is %T, want *ast.PipeStmt", outer.Left)
	}
	if outer.Pos != (ast.Pos{Line: 1, Col: 37}) {
		t.Errorf("pipe position %+v", outer.Pos)
	}
}

func TestMultipleStatements(t *testing.T) {
	stmts, err := Parse("USE s; ;SHOW TAGS;\n-- done\n;")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 {
		t.Fatalf("got %d statements", len(stmts))
	}
	if stmts[1].Position() != (ast.Pos{Line: 1, Col: 9}) {
		t.Errorf("second statement at %+v", stmts[1].Position())
	}
	for _, empty := range []string{"", "  ", ";", "-- only a comment", "/* x */;;"} {
		stmts, err := Parse(empty)
		if err != nil || len(stmts) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no statements", empty, stmts, err)
		}
	}
}

func TestPositions(t *testing.T) {
	src := "GO FROM 1\n  OVER e\n  WHERE e.a > $^.t.b\n  YIELD e.a AS x, -1"
	g := parseOne(t, src).(*ast.GoStmt)
	where := g.Where.(*ast.BinaryExpr)
	for _, tc := range []struct {
		name string
		node ast.Node
		want ast.Pos
	}{
		{"stmt", g, ast.Pos{Line: 1, Col: 1}},
		{"from", g.From, ast.Pos{Line: 1, Col: 9}},
		{"vid", g.From.VIDs[0], ast.Pos{Line: 1, Col: 9}},
		{"over", g.Over, ast.Pos{Line: 2, Col: 8}},
		{"where op", where, ast.Pos{Line: 3, Col: 13}},
		{"where lhs", where.L, ast.Pos{Line: 3, Col: 9}},
		{"where rhs", where.R, ast.Pos{Line: 3, Col: 15}},
		{"yield", g.Yield, ast.Pos{Line: 4, Col: 3}},
		{"column", g.Yield.Columns[0], ast.Pos{Line: 4, Col: 9}},
		{"negative literal", g.Yield.Columns[1].Expr, ast.Pos{Line: 4, Col: 19}},
	} {
		if got := tc.node.Position(); got != tc.want {
			t.Errorf("%s at %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// stripPos returns a copy of a tree with every position zeroed, for
// comparing trees parsed from differently laid-out text.
func stripPos(x any) any {
	v := reflect.ValueOf(x)
	out := reflect.New(v.Type()).Elem()
	zeroPos(out, v)
	return out.Interface()
}

var posType = reflect.TypeOf(ast.Pos{})

func zeroPos(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		if src.Type() == reflect.TypeOf(&value.Value{}) {
			dst.Set(src)
			return
		}
		dst.Set(reflect.New(src.Elem().Type()))
		zeroPos(dst.Elem(), src.Elem())
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		e := reflect.New(src.Elem().Type()).Elem()
		zeroPos(e, src.Elem())
		dst.Set(e)
	case reflect.Struct:
		if src.Type() == posType {
			return
		}
		if src.Type() == reflect.TypeOf(value.Value{}) {
			dst.Set(src)
			return
		}
		for i := 0; i < src.NumField(); i++ {
			zeroPos(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		dst.Set(reflect.MakeSlice(src.Type(), src.Len(), src.Len()))
		for i := 0; i < src.Len(); i++ {
			zeroPos(dst.Index(i), src.Index(i))
		}
	default:
		dst.Set(src)
	}
}

// isLit reports whether e is a literal holding v.
func isLit(e ast.Expr, v value.Value) bool {
	l, ok := e.(*ast.Literal)
	return ok && reflect.DeepEqual(l.Value, v)
}
