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
		{"SHOW HOSTS META", "SHOW HOSTS META"},
		{"show hosts storage", "SHOW HOSTS"},
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
			// The declared widths are kept (stored as int64 and double).
			"CREATE TAG t(a int8, b int16, c int32, d int64, e float, f double, g bool, h timestamp)"},
		{"CREATE TAG t(a int DEFAULT -1 NOT NULL COMMENT 'age', b string DEFAULT NULL)",
			`CREATE TAG t(a int64 NOT NULL DEFAULT -1 COMMENT "age", b string DEFAULT NULL)`},
		{"CREATE EDGE e(since timestamp, w double)", "CREATE EDGE e(since timestamp, w double)"},
		{"CREATE EDGE IF NOT EXISTS e()", "CREATE EDGE IF NOT EXISTS e()"},

		// TTL options, ALTER and DROP of tags and edges.
		{`CREATE TAG t(a int, ts timestamp) TTL_DURATION = 100, TTL_COL = "ts"`,
			`CREATE TAG t(a int64, ts timestamp) TTL_DURATION = 100, TTL_COL = "ts"`},
		{`CREATE EDGE e(ts int) ttl_col = ts, ttl_duration = 0`, `CREATE EDGE e(ts int64) TTL_DURATION = 0, TTL_COL = "ts"`},
		{`CREATE TAG t(a int) TTL_COL = ""`, `CREATE TAG t(a int64) TTL_COL = ""`},
		{`ALTER TAG t ADD (a int, b string NOT NULL DEFAULT "x"), DROP (c, d), CHANGE (e double)`,
			`ALTER TAG t ADD (a int64, b string NOT NULL DEFAULT "x"), DROP (c, d), CHANGE (e double)`},
		{`alter edge e drop (w) TTL_COL = ""`, `ALTER EDGE e DROP (w) TTL_COL = ""`},
		{`ALTER TAG t TTL_DURATION = 100, TTL_COL = "created"`, `ALTER TAG t TTL_DURATION = 100, TTL_COL = "created"`},
		{`ALTER TAG t TTL_COL = 'c', TTL_DURATION = 9223372036854775807`, `ALTER TAG t TTL_DURATION = 9223372036854775807, TTL_COL = "c"`},
		{`ALTER TAG t ADD (a int), TTL_DURATION = 5`, `ALTER TAG t ADD (a int64) TTL_DURATION = 5`},
		{`ALTER TAG add ADD (change int), CHANGE (ttl_col string)`, `ALTER TAG add ADD (change int64), CHANGE (ttl_col string)`},
		{"ALTER EDGE `index` DROP (`set`)", "ALTER EDGE `index` DROP (`set`)"},
		{`DROP TAG t`, `DROP TAG t`},
		{`drop edge if exists e`, `DROP EDGE IF EXISTS e`},
		{"DROP TAG `index`", "DROP TAG `index`"},

		// Indexes.
		{`CREATE TAG INDEX i ON player(name(10), age)`, `CREATE TAG INDEX i ON player(name(10), age)`},
		{`create tag index if not exists i on t()`, `CREATE TAG INDEX IF NOT EXISTS i ON t()`},
		{`CREATE EDGE INDEX ei ON follow(degree, note(32767))`, `CREATE EDGE INDEX ei ON follow(degree, note(32767))`},
		{"CREATE TAG `index`(a int)", "CREATE TAG `index`(a int64)"},
		{"CREATE TAG INDEX `index` ON `index`(`index`(1))", "CREATE TAG INDEX `index` ON `index`(`index`(1))"},
		{`DROP TAG INDEX i`, `DROP TAG INDEX i`},
		{`DROP EDGE INDEX IF EXISTS ei`, `DROP EDGE INDEX IF EXISTS ei`},
		{`REBUILD TAG INDEX`, `REBUILD TAG INDEX`},
		{`rebuild edge index a, b`, `REBUILD EDGE INDEX a, b`},
		{`SHOW TAG INDEXES`, `SHOW TAG INDEXES`},
		{`show edge indexes`, `SHOW EDGE INDEXES`},
		{`DESCRIBE TAG INDEX i`, `DESCRIBE TAG INDEX i`},
		{`desc edge index ei`, `DESCRIBE EDGE INDEX ei`},
		{"DESCRIBE TAG `index`", "DESCRIBE TAG `index`"},

		// LOOKUP.
		{`LOOKUP ON player`, `LOOKUP ON player`},
		{`LOOKUP ON player WHERE player.age > 40 YIELD id(vertex), player.name AS name`,
			`LOOKUP ON player WHERE (player.age>40) YIELD id(VERTEX), player.name AS name`},
		{`lookup on follow where follow.degree == 90 OR follow.degree IS NULL yield distinct src(edge), dst(edge), rank(edge), follow.degree`,
			`LOOKUP ON follow WHERE ((follow.degree==90) OR (follow.degree IS NULL)) YIELD DISTINCT src(EDGE), dst(EDGE), rank(EDGE), follow.degree`},
		{`LOOKUP ON player YIELD id(vertex) AS id | GO FROM $-.id OVER follow`,
			`LOOKUP ON player YIELD id(VERTEX) AS id | GO 1 STEPS FROM $-.id OVER follow`},
		{`$a = LOOKUP ON player YIELD id(vertex) AS id`, `$a = LOOKUP ON player YIELD id(VERTEX) AS id`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS id | LOOKUP ON t`, `GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id | LOOKUP ON t`},
		{`EXPLAIN LOOKUP ON t WHERE t.a STARTS WITH "x"`, `EXPLAIN LOOKUP ON t WHERE (t.a STARTS WITH "x")`},

		// DELETE.
		{`DELETE VERTEX "a", "b"`, `DELETE VERTEX "a", "b"`},
		{`DELETE VERTEX -1 WITH EDGE`, `DELETE VERTEX -1 WITH EDGE`},
		{`delete vertex $-.id with edge`, `DELETE VERTEX $-.id WITH EDGE`},
		{`DELETE VERTEX $v.id`, `DELETE VERTEX $v.id`},
		{`DELETE TAG t1, t2 FROM "a", "b"`, `DELETE TAG t1, t2 FROM "a", "b"`},
		{`DELETE TAG * FROM 1`, `DELETE TAG * FROM 1`},
		{`DELETE TAG * FROM $v.id`, `DELETE TAG * FROM $v.id`},
		{`DELETE EDGE e 1->2, 3->4@5`, `DELETE EDGE e 1->2, 3->4@5`},
		{`DELETE EDGE e "a" -> "b" @ -1`, `DELETE EDGE e "a"->"b"@-1`},
		{`DELETE EDGE e $v.s->$v.d@0`, `DELETE EDGE e $v.s->$v.d@0`},
		{`GO FROM 1 OVER knows YIELD src(edge) AS src, dst(edge) AS dst, rank(edge) AS rank | DELETE EDGE knows $-.src -> $-.dst @ $-.rank`,
			`GO 1 STEPS FROM 1 OVER knows YIELD src(EDGE) AS src, dst(EDGE) AS dst, rank(EDGE) AS rank | DELETE EDGE knows $-.src->$-.dst@$-.rank`},
		{`LOOKUP ON player WHERE player.age > 90 YIELD id(vertex) AS id | DELETE VERTEX $-.id WITH EDGE`,
			`LOOKUP ON player WHERE (player.age>90) YIELD id(VERTEX) AS id | DELETE VERTEX $-.id WITH EDGE`},
		{`GO FROM 1 OVER e YIELD dst(edge) AS id | YIELD $-.id AS id | DELETE TAG t FROM $-.id`,
			`GO 1 STEPS FROM 1 OVER e YIELD dst(EDGE) AS id | YIELD $-.id AS id | DELETE TAG t FROM $-.id`},
		{`EXPLAIN DELETE VERTEX 1`, `EXPLAIN DELETE VERTEX 1`},

		// UPDATE and UPSERT.
		{`UPDATE VERTEX ON player "Tim" SET age = age + 1, name = "T" WHEN name == "Tim" YIELD name AS Name, age`,
			`UPDATE VERTEX ON player "Tim" SET age = (age+1), name = "T" WHEN (name=="Tim") YIELD name AS Name, age`},
		{`UPSERT VERTEX ON player 1 SET player.age = $^.player.age + 1`, `UPSERT VERTEX ON player 1 SET player.age = ($^.player.age+1)`},
		{`UPDATE EDGE ON serve "a" -> "b"@0 SET start_year = start_year + 1 WHEN end_year > 2010 YIELD start_year, serve.end_year`,
			`UPDATE EDGE ON serve "a"->"b"@0 SET start_year = (start_year+1) WHEN (end_year>2010) YIELD start_year, serve.end_year`},
		{`upsert edge on e 1->2 set w = 1`, `UPSERT EDGE ON e 1->2 SET w = 1`},
		{"UPDATE VERTEX ON t 1 SET `set` = -1, t.`when` = [1] WHEN `when` IS NULL",
			"UPDATE VERTEX ON t 1 SET `set` = -1, t.`when` = [1] WHEN (`when` IS NULL)"},

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
		// Query parameters as vertex ids, ranks and values.
		{`INSERT EDGE e(a) VALUES $s->$d@$r:($a), 1->$d:(1)`, `INSERT EDGE e(a) VALUES $s->$d@$r:($a), 1->$d:(1)`},
		{`INSERT VERTEX t(a) VALUES $id:($a + 1)`, `INSERT VERTEX t(a) VALUES $id:(($a+1))`},
		{`FETCH PROP ON t 1, $p YIELD t.a`, `FETCH PROP ON t 1, $p YIELD t.a`},

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
		{`FETCH PROP ON e $-.s->$-.d@1`, `FETCH PROP ON e $-.s->$-.d@1`},

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

		// Query parameters: $name with no .col.
		{`GO FROM $p OVER follow WHERE follow.degree > $min YIELD dst(edge), $n + 1 AS n`,
			`GO 1 STEPS FROM $p OVER follow WHERE (follow.degree>$min) YIELD dst(EDGE), ($n+1) AS n`},
		{`YIELD $n`, `YIELD $n`},
		{`FETCH PROP ON player $ids YIELD player.name`, `FETCH PROP ON player $ids YIELD player.name`},
		{`DELETE VERTEX $p`, `DELETE VERTEX $p`},
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

func TestAlterAndTTLFields(t *testing.T) {
	c := parseOne(t, `CREATE TAG t(a int, ts timestamp) TTL_COL = "ts"`).(*ast.CreateSchemaStmt)
	if want := (&ast.TTLOptions{Pos: ast.Pos{Line: 1, Col: 35}, Col: "ts", HasCol: true}); !reflect.DeepEqual(c.TTL, want) {
		t.Errorf("create ttl %+v, want %+v", c.TTL, want)
	}
	if c := parseOne(t, `CREATE TAG t(a int)`).(*ast.CreateSchemaStmt); c.TTL != nil {
		t.Errorf("create without ttl options: %+v", c.TTL)
	}

	s := parseOne(t, `ALTER EDGE e ADD (a int NOT NULL), DROP (b, c), CHANGE (d string) TTL_DURATION = 10`).(*ast.AlterSchemaStmt)
	if s.Kind != ast.EdgeSchema || s.Name != "e" || len(s.Ops) != 3 {
		t.Fatalf("got %+v", s)
	}
	add, drop, change := s.Ops[0], s.Ops[1], s.Ops[2]
	if add.Kind != ast.AlterAdd || len(add.Props) != 1 || add.Props[0].Name != "a" || add.Props[0].Nullable || add.Names != nil {
		t.Errorf("add %+v", add)
	}
	if drop.Kind != ast.AlterDrop || !reflect.DeepEqual(drop.Names, []string{"b", "c"}) || drop.Props != nil {
		t.Errorf("drop %+v", drop)
	}
	if change.Kind != ast.AlterChange || change.Props[0].Type.Kind != ast.PropString {
		t.Errorf("change %+v", change)
	}
	if drop.Pos != (ast.Pos{Line: 1, Col: 36}) {
		t.Errorf("drop at %+v", drop.Pos)
	}
	if s.TTL == nil || !s.TTL.HasDuration || s.TTL.Duration != 10 || s.TTL.HasCol {
		t.Errorf("ttl %+v", s.TTL)
	}

	o := parseOne(t, `ALTER TAG t TTL_COL = ""`).(*ast.AlterSchemaStmt)
	if o.Ops != nil || o.TTL == nil || !o.TTL.HasCol || o.TTL.Col != "" || o.TTL.HasDuration {
		t.Errorf("ttl only: %+v %+v", o, o.TTL)
	}

	d := parseOne(t, `DROP EDGE IF EXISTS e`).(*ast.DropSchemaStmt)
	if want := (&ast.DropSchemaStmt{Pos: ast.Pos{Line: 1, Col: 1}, Kind: ast.EdgeSchema, IfExists: true, Name: "e"}); !reflect.DeepEqual(d, want) {
		t.Errorf("drop %+v", d)
	}
}

func TestIndexFields(t *testing.T) {
	c := parseOne(t, `CREATE EDGE INDEX IF NOT EXISTS i ON follow(note(16), degree)`).(*ast.CreateIndexStmt)
	want := &ast.CreateIndexStmt{
		Pos: ast.Pos{Line: 1, Col: 1}, Kind: ast.EdgeSchema, IfNotExists: true, Name: "i", Schema: "follow",
		Fields: []*ast.IndexField{
			{Pos: ast.Pos{Line: 1, Col: 45}, Prop: "note", Len: 16},
			{Pos: ast.Pos{Line: 1, Col: 55}, Prop: "degree"},
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v", c)
	}
	if c := parseOne(t, `CREATE TAG INDEX i ON t()`).(*ast.CreateIndexStmt); c.Kind != ast.TagSchema || c.Fields != nil {
		t.Errorf("empty index %+v", c)
	}
	if d := parseOne(t, `DROP TAG INDEX i`).(*ast.DropIndexStmt); d.Kind != ast.TagSchema || d.IfExists || d.Name != "i" {
		t.Errorf("drop %+v", d)
	}
	if r := parseOne(t, `REBUILD EDGE INDEX`).(*ast.RebuildIndexStmt); r.Kind != ast.EdgeSchema || r.Names != nil {
		t.Errorf("rebuild all %+v", r)
	}
	if r := parseOne(t, `REBUILD TAG INDEX a, b`).(*ast.RebuildIndexStmt); !reflect.DeepEqual(r.Names, []string{"a", "b"}) {
		t.Errorf("rebuild %+v", r)
	}
	if s := parseOne(t, `SHOW EDGE INDEXES`).(*ast.ShowStmt); s.Target != ast.ShowEdgeIndexes {
		t.Errorf("show %v", s.Target)
	}
	if s := parseOne(t, `DESC TAG INDEX i`).(*ast.DescribeStmt); s.Target != ast.DescribeTagIndex || s.Name != "i" {
		t.Errorf("describe %+v", s)
	}
}

func TestLookupFields(t *testing.T) {
	s := parseOne(t, `LOOKUP ON follow WHERE follow.degree > 1 YIELD src(edge), rank(edge) AS r, id(vertex)`).(*ast.LookupStmt)
	if s.On != "follow" || s.Yield == nil || len(s.Yield.Columns) != 3 {
		t.Fatalf("got %+v", s)
	}
	where := s.Where.(*ast.BinaryExpr)
	if l, ok := where.L.(*ast.EdgePropExpr); !ok || l.Edge != "follow" || l.Prop != "degree" {
		t.Errorf("where lhs %#v", where.L)
	}
	for i, fn := range []string{"src", "rank"} {
		call, ok := s.Yield.Columns[i].Expr.(*ast.FuncCall)
		if !ok || call.Name != fn || len(call.Args) != 1 {
			t.Fatalf("column %d %#v", i, s.Yield.Columns[i].Expr)
		}
		if _, ok := call.Args[0].(*ast.EdgeExpr); !ok {
			t.Errorf("%s arg %#v", fn, call.Args[0])
		}
	}
	if v := s.Yield.Columns[2].Expr.(*ast.FuncCall).Args[0].(*ast.VertexExpr); v.Role != ast.RowVertex {
		t.Errorf("id(vertex) arg role %v", v.Role)
	}
	if s.Yield.Columns[1].Name() != "r" || s.Yield.Columns[2].Name() != "id(VERTEX)" {
		t.Errorf("column names %q %q", s.Yield.Columns[1].Name(), s.Yield.Columns[2].Name())
	}
	if l := parseOne(t, `LOOKUP ON t`).(*ast.LookupStmt); l.Where != nil || l.Yield != nil {
		t.Errorf("bare lookup %+v", l)
	}
}

func TestDeleteFields(t *testing.T) {
	v := parseOne(t, `DELETE VERTEX 1, "a" WITH EDGE`).(*ast.DeleteVertexStmt)
	if !v.WithEdge || len(v.Vertices.VIDs) != 2 || v.Vertices.Ref != nil || !isLit(v.Vertices.VIDs[1], value.Str("a")) {
		t.Errorf("delete vertex %+v", v)
	}
	if v := parseOne(t, `DELETE VERTEX $-.id`).(*ast.DeleteVertexStmt); v.WithEdge || v.Vertices.Ref.(*ast.InputPropExpr).Col != "id" {
		t.Errorf("delete vertex ref %+v", v)
	}

	tg := parseOne(t, `DELETE TAG a, b FROM $v.id`).(*ast.DeleteTagStmt)
	if tg.All || !reflect.DeepEqual(tg.Tags, []string{"a", "b"}) || tg.From.Ref.(*ast.VarPropExpr).Var != "v" {
		t.Errorf("delete tag %+v", tg)
	}
	if all := parseOne(t, `DELETE TAG * FROM 1`).(*ast.DeleteTagStmt); !all.All || all.Tags != nil || len(all.From.VIDs) != 1 {
		t.Errorf("delete tag * %+v", all)
	}

	e := parseOne(t, `DELETE EDGE e 1->2@3, "x"->"y"`).(*ast.DeleteEdgeStmt)
	if e.Edge != "e" || len(e.Keys) != 2 || !isLit(e.Keys[0].Rank, value.Int(3)) || e.Keys[1].Rank != nil || !isLit(e.Keys[1].Dst, value.Str("y")) {
		t.Errorf("delete edge %+v", e)
	}
	pipe := parseOne(t, `YIELD 1 AS s, 2 AS d | DELETE EDGE e $-.s->$-.d@$-.r`).(*ast.PipeStmt)
	r := pipe.Right.(*ast.DeleteEdgeStmt)
	if len(r.Keys) != 1 || r.Keys[0].Src.(*ast.InputPropExpr).Col != "s" || r.Keys[0].Rank.(*ast.InputPropExpr).Col != "r" {
		t.Errorf("delete edge ref %+v", r.Keys)
	}
	if k := parseOne(t, `DELETE EDGE e $v.s->$v.d@-2`).(*ast.DeleteEdgeStmt).Keys[0]; !isLit(k.Rank, value.Int(-2)) {
		t.Errorf("ref key with literal rank %v", k)
	}
}

func TestUpdateFields(t *testing.T) {
	s := parseOne(t, `UPSERT VERTEX ON player "p" SET age = age + 1, player.name = "x" WHEN age > 1 YIELD age AS a`).(*ast.UpdateVertexStmt)
	if !s.Upsert || s.Tag != "player" || !isLit(s.Vid, value.Str("p")) || len(s.Set) != 2 || s.When == nil || s.Yield == nil {
		t.Fatalf("got %+v", s)
	}
	age, name := s.Set[0], s.Set[1]
	if age.Schema != "" || age.Prop != "age" || age.Pos != (ast.Pos{Line: 1, Col: 33}) {
		t.Errorf("set age %+v", age)
	}
	if add := age.Value.(*ast.BinaryExpr); add.Op != ast.OpAdd || add.L.(*ast.LabelExpr).Name != "age" {
		t.Errorf("age value %v", age.Value)
	}
	if name.Schema != "player" || name.Prop != "name" || !isLit(name.Value, value.Str("x")) {
		t.Errorf("set name %+v", name)
	}

	e := parseOne(t, `UPDATE EDGE ON serve 1->2@7 SET serve.y = $^.player.age`).(*ast.UpdateEdgeStmt)
	if e.Upsert || e.Edge != "serve" || !isLit(e.Key.Rank, value.Int(7)) || e.When != nil || e.Yield != nil {
		t.Errorf("update edge %+v", e)
	}
	if _, ok := e.Set[0].Value.(*ast.SrcPropExpr); !ok || e.Set[0].Schema != "serve" {
		t.Errorf("update edge set %+v", e.Set[0])
	}
}
