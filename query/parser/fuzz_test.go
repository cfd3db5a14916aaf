package parser

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that Parse never panics, that every failure is a
// *SyntaxError positioned inside the input and quoting text from it, and
// that every success prints as text that parses back to the same text.
//
//	go test -fuzz=FuzzParse ./query/parser
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"CREATE SPACE IF NOT EXISTS s (partition_num=3, replica_factor=1, vid_type=FIXED_STRING(16))",
		"CREATE SNAPSHOT; DROP SNAPSHOT IF EXISTS SNAPSHOT_2026_01_02_03_04_05_a1b2c3; SHOW SNAPSHOTS; CLEAR SPACE IF EXISTS s; CLEAR SPACE `a b`; DROP SPACE IF EXISTS s; USE s; SHOW SPACES; SHOW HOSTS; DESC SPACE s; DESCRIBE TAG t; DESCRIBE EDGE e",
		`CREATE TAG IF NOT EXISTS t(p1 int, p2 string NULL, p3 fixed_string(10) NOT NULL DEFAULT "x" COMMENT 'c')`,
		"CREATE EDGE e(since timestamp, w double)",
		`INSERT VERTEX t1(a, b), t2(c) VALUES "v1":(1, "x", 2.5), "v2":(2, "y"), (NULL)`,
		`INSERT EDGE e(a) VALUES 1->2@-1:(true), 0x10->-3:(false)`,
		`FETCH PROP ON t1, t2 "a", "b" YIELD t1.a AS a, properties(vertex)`,
		`FETCH PROP ON e "a"->"b"@1, "c"->"d" YIELD e.w, src(edge)`,
		`$a = GO 2 TO 3 STEPS FROM "x" OVER knows REVERSELY WHERE knows.d > 1 AND $$.P.n IS NOT NULL YIELD DISTINCT dst(edge) AS id, id($$)`,
		`GO FROM $a.id OVER * BIDIRECT YIELD $-.id, [1, 2][0] | YIELD DISTINCT $-.id WHERE $-.id IN [1]`,
		"EXPLAIN FORMAT = \"dot\" GO FROM 1 OVER e YIELD -1 - -2 * (3 % 4) / 5.0e1",
		"PROFILE GO FROM 1 OVER e YIELD \"str\\n\\u00e9\" + 'x' CONTAINS `q`.r",
		"YIELD NOT a.b STARTS WITH 'x' XOR c.d ENDS WITH \"y\" OR !e.f",
		"GO 1 STEPS FORM 1 OVER e",
		"GO FROM $p OVER e WHERE e.w > $min YIELD $n + 1, $l[0], $v.c; FETCH PROP ON t $ids",
		"-- comment\n/* block */ # hash\n// slash\nYIELD 1;",
		"YIELD \"unterminated",
		"YIELD `a b`.c, $^.`x`.y, -9223372036854775808",
		`CREATE TAG t(a int, ts timestamp) TTL_DURATION = 100, TTL_COL = "ts"`,
		`ALTER TAG t ADD (a int, b string DEFAULT "x"), DROP (c), CHANGE (d double) TTL_COL = ""`,
		"ALTER EDGE e TTL_DURATION = 5; DROP TAG IF EXISTS t; DROP EDGE e",
		"CREATE TAG INDEX IF NOT EXISTS i ON t(name(10), age); CREATE EDGE INDEX j ON e()",
		"DROP TAG INDEX IF EXISTS i; REBUILD EDGE INDEX a, b; REBUILD TAG INDEX; SHOW TAG INDEXES; DESC EDGE INDEX j",
		`$a = LOOKUP ON player WHERE player.age > 40 YIELD DISTINCT id(vertex) AS id, rank(edge) | GO FROM $-.id OVER e`,
		`DELETE VERTEX 1, "a" WITH EDGE; DELETE TAG * FROM $v.id; DELETE TAG t1, t2 FROM 1`,
		`GO FROM 1 OVER e YIELD src(edge) AS s, dst(edge) AS d | DELETE EDGE e $-.s->$-.d@0; DELETE EDGE e 1->2@-1, 3->4`,
		`UPDATE VERTEX ON player "Tim" SET age = age + 1, player.name = "T" WHEN name == "Tim" YIELD name AS Name`,
		`UPSERT EDGE ON serve "a"->"b"@0 SET start_year = $^.player.age + 1 WHEN end_year > 2010 YIELD start_year`,
		"CREATE TAG INDEX i ON t(name(0))",
		`GO 2 STEPS FROM 1 OVER e YIELD dst(edge) AS d SAMPLE [1, 2] | GROUP BY $-.d YIELD $-.d, count(DISTINCT $-.d) AS n | ORDER BY $-.n DESC | LIMIT 1, 2`,
		`(YIELD 1 AS a UNION ALL YIELD 2 AS a) | YIELD count(*) INTERSECT YIELD 1 MINUS (YIELD 2 UNION YIELD 3) | OFFSET 1 LIMIT 2`,
		`$v = GO FROM 1 OVER e LIMIT [3] UNION DISTINCT YIELD sum($-.a); ORDER BY $v.a; GROUP BY $v.a YIELD collect_set($v.a)`,
		"CREATE USER IF NOT EXISTS bob WITH PASSWORD 'pw'; ALTER USER bob WITH PASSWORD \"x\"; DROP USER IF EXISTS `a b`",
		"CHANGE PASSWORD bob FROM 'a' TO 'b'; GRANT ROLE DBA ON nba TO bob; REVOKE guest ON nba FROM bob; SHOW USERS; SHOW ROLES IN nba; DESC USER bob",
		// MATCH and the expressions that came with it.
		`MATCH p = (v:player{name: "Tim"})-[e:follow|serve*1..3 {degree: 90}]->(w)<--(x)--(y) WHERE id(v) IN ["a"] RETURN DISTINCT w, count(*) AS n ORDER BY n DESC SKIP 1 LIMIT 2`,
		"OPTIONAL MATCH (a)-[*0..2]-(b), q = shortestPath((a)-[:e*..9]->(c)) WITH a, collect(b) AS bs WHERE size(bs) > 1 UNWIND bs AS b RETURN *",
		"YIELD CASE 1 WHEN 1 THEN 2 ELSE 3 END, 1 > 2 ? [x IN [1] WHERE x > 0 | x] : reduce(s = 0, x IN [1] | s + x), any(x IN [] WHERE x), 'a' =~ 'b', [1][..2], 1 IS NOT EMPTY, 3 & 1 ^ 2",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := Parse(src)
		if err != nil {
			checkSyntaxError(t, src, err)
			return
		}
		var printed []string
		for _, s := range stmts {
			printed = append(printed, s.String())
		}
		text := strings.Join(printed, ";\n")
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, text, err)
		}
		if len(again) != len(stmts) {
			t.Fatalf("%q printed as %q: %d statements became %d", src, text, len(stmts), len(again))
		}
		for i, s := range again {
			if s.String() != printed[i] {
				t.Fatalf("%q: printing is not stable: %q then %q", src, printed[i], s.String())
			}
		}
	})
}

func checkSyntaxError(t *testing.T, src string, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("Parse(%q) failed with %T %v, want *SyntaxError", src, err, err)
	}
	lines := strings.Split(src, "\n")
	if se.Line < 1 || se.Line > len(lines) {
		t.Fatalf("Parse(%q): line %d outside 1..%d", src, se.Line, len(lines))
	}
	if n := utf8.RuneCountInString(lines[se.Line-1]); se.Col < 1 || se.Col > n+1 {
		t.Fatalf("Parse(%q): column %d outside 1..%d of line %d", src, se.Col, n+1, se.Line)
	}
	if near := strings.TrimSuffix(se.Near, "..."); !strings.Contains(src, near) {
		t.Fatalf("Parse(%q): near %q is not from the input", src, se.Near)
	}
	if se.Msg == "" {
		t.Fatalf("Parse(%q): empty message", src)
	}
}
