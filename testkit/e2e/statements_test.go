package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// expectError runs stmt and checks it fails with code and a message that
// contains every fragment.
func expectError(t *testing.T, s *client.Session, stmt string, code graphpb.QueryErrorCode, fragments ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := s.Execute(ctx, stmt)
	var qe *client.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("%s: got %v, want a %s error", stmt, err, code)
	}
	if qe.Code != code {
		t.Fatalf("%s: code %s (%s), want %s", stmt, qe.Code, qe.Msg, code)
	}
	for _, f := range fragments {
		if !strings.Contains(qe.Msg, f) {
			t.Fatalf("%s: message %q does not mention %q", stmt, qe.Msg, f)
		}
	}
}

func rows(t *testing.T, s *client.Session, stmt string) []string {
	t.Helper()
	return render(exec(t, s, stmt))
}

func expectRows(t *testing.T, s *client.Session, stmt string, want ...string) {
	t.Helper()
	got := rows(t, s, stmt)
	wantSorted := append([]string(nil), want...)
	sortStrings(wantSorted)
	if diff, ok := sameMultiset(got, wantSorted); !ok {
		t.Fatalf("%s: %s\ngot:  %q\nwant: %q", stmt, diff, got, wantSorted)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestStatements runs the statements of the walking skeleton on a small
// hand-checked graph (1-store cluster) and the errors users meet.
func TestStatements(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()

	exec(t, s, `CREATE SPACE g(partition_num=3, replica_factor=1, vid_type=FIXED_STRING(10))`)
	exec(t, s, `CREATE SPACE IF NOT EXISTS g(partition_num=3, replica_factor=1, vid_type=FIXED_STRING(10))`)
	expectError(t, s, `CREATE SPACE g(partition_num=3)`, graphpb.QueryErrorCode_E_SEMANTIC, "g")
	expectError(t, s, `CREATE SPACE big(partition_num=3, replica_factor=3)`, graphpb.QueryErrorCode_E_EXECUTION, "host")
	expectError(t, s, `GO FROM "a" OVER e`, graphpb.QueryErrorCode_E_SEMANTIC, "USE")
	expectError(t, s, `USE nope`, graphpb.QueryErrorCode_E_SEMANTIC, `"nope"`, "line 1, column 1")
	exec(t, s, `USE g`)
	exec(t, s, `CREATE TAG person(name string NOT NULL, age int DEFAULT 18, score double NULL)`)
	exec(t, s, `CREATE EDGE e(w int, note fixed_string(4) NULL)`)
	exec(t, s, `CREATE EDGE f()`)
	expectRows(t, s, `SHOW TAGS`, "person")
	expectRows(t, s, `SHOW EDGES`, "e", "f")
	expectRows(t, s, `DESCRIBE TAG person`, "age|int64|YES|18|NULL", "name|string|NO|NULL|NULL", "score|double|YES|NULL|NULL")
	expectRows(t, s, `DESCRIBE SPACE g`, "1|g|3|1|FIXED_STRING(10)")

	exec(t, s, `INSERT VERTEX person(name, age, score) VALUES "a":("Ann", 30, 1.5), "b":("Bob", 40, 2), "c":("Cid", 50, NULL)`)
	exec(t, s, `INSERT VERTEX person(name) VALUES "d":("Dee")`)
	// a→b (w 1), a→b@1 (w 2), a→c, b→c, c→a, c→x (x has no vertex data).
	exec(t, s, `INSERT EDGE e(w, note) VALUES "a"->"b":(1, "ab"), "a"->"b"@1:(2, NULL), "a"->"c":(3, "ac"), "b"->"c":(4, "bc"), "c"->"a":(5, "ca"), "c"->"x":(6, "cx")`)
	exec(t, s, `INSERT EDGE f() VALUES "b"->"d":()`)

	expectRows(t, s, `FETCH PROP ON person "a", "d", "zz"`, "a|Ann|30|1.5", "d|Dee|18|NULL")
	expectRows(t, s, `FETCH PROP ON person "b" YIELD person.name, person.age + 1 AS next`, "Bob|41")
	expectRows(t, s, `FETCH PROP ON e "a"->"b"@1, "a"->"c" YIELD src(edge), dst(edge), rank(edge), e.w`, "a|b|1|2", "a|c|0|3")
	expectRows(t, s, `FETCH PROP ON e "a"->"b"`, "a|b|0|1|ab")

	expectRows(t, s, `GO FROM "a" OVER e`, "b", "b", "c")
	expectRows(t, s, `GO FROM "a" OVER e YIELD DISTINCT dst(edge)`, "b", "c")
	expectRows(t, s, `GO FROM "a" OVER e WHERE e.w > 1 YIELD dst(edge), rank(edge), e.w, e.note`, "b|1|2|NULL", "c|0|3|ac")
	expectRows(t, s, `GO 2 STEPS FROM "a" OVER e YIELD $^.person.name, dst(edge), $$.person.name`, "Bob|c|Cid", "Cid|a|Ann", "Cid|x|NULL")
	// frontier₁ = {b, c}; step 2 from {b, c}; step 3 from {c, a, x}.
	expectRows(t, s, `GO 3 STEPS FROM "a" OVER e YIELD dst(edge)`, "a", "x", "b", "b", "c")
	expectRows(t, s, `GO 1 TO 2 STEPS FROM "a" OVER e YIELD dst(edge)`, "b", "b", "c", "c", "a", "x")
	expectRows(t, s, `GO FROM "c" OVER e REVERSELY YIELD src(edge), dst(edge), $$.person.name`, "a|c|Ann", "b|c|Bob")
	// dst(edge) is the edge's own stored destination; id($$) the vertex reached.
	expectRows(t, s, `GO FROM "b" OVER e, f BIDIRECT YIELD id($$), dst(edge), type(edge), e.w`, "a|b|e|1", "a|b|e|2", "c|c|e|4", "d|d|f|NULL")
	expectRows(t, s, `GO FROM "b" OVER * YIELD dst(edge)`, "c", "d")
	expectRows(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id | GO FROM $-.id OVER e YIELD $-.id, dst(edge)`, "b|c", "b|c", "c|a", "c|x")
	expectRows(t, s, `$v = GO FROM "a" OVER e WHERE rank(edge) == 0 YIELD dst(edge) AS id; GO FROM $v.id OVER e YIELD $v.id, dst(edge)`, "b|c", "c|a", "c|x")
	expectRows(t, s, `YIELD 1 + 2 AS three, "x"`, "3|x")
	expectRows(t, s, `YIELD pow(-1, 9223372036854775807) AS p`, "-1")
	expectRows(t, s, `$v = GO FROM "a" OVER e YIELD DISTINCT dst(edge) AS id; YIELD $v.id AS id`, "b", "c")
	expectRows(t, s, `GO 0 STEPS FROM "a" OVER e YIELD dst(edge)`)
	expectRows(t, s, `GO 0 TO 1 STEPS FROM "a" OVER e YIELD dst(edge)`, "b", "b", "c")
	expectRows(t, s, `FETCH PROP ON person "a", "b" YIELD id(vertex), person.name`, "a|Ann", "b|Bob")
	// edge._src/_dst/_type follow the traversal: from, reached, signed type;
	// src(edge)/dst(edge) stay the stored endpoints.
	expectRows(t, s, `GO FROM "c" OVER e REVERSELY YIELD e._src, e._dst, e._type < 0, src(edge), dst(edge)`, "c|a|true|a|c", "c|b|true|b|c")
	expectRows(t, s, `GO FROM "c" OVER e REVERSELY`, "a", "b")
	if got := rows(t, s, `EXPLAIN GO 2 STEPS FROM "a" OVER e YIELD $$.person.name`); len(got) < 4 {
		t.Fatalf("EXPLAIN printed %d plan rows: %q", len(got), got)
	}

	// Syntax errors name line, column and the text near them.
	expectError(t, s, "GO FORM \"a\" OVER e", graphpb.QueryErrorCode_E_SYNTAX, "line 1, column 4", "FORM")
	expectError(t, s, "GO FROM \"a\"\n  OVER e YIELD dst(edge) +", graphpb.QueryErrorCode_E_SYNTAX, "line 2")
	expectError(t, s, `INSERT VERTEX person(name) VALUES "a":("x"`, graphpb.QueryErrorCode_E_SYNTAX, "line 1")
	// Semantic errors name what is unknown.
	expectError(t, s, `GO FROM "a" OVER nope`, graphpb.QueryErrorCode_E_SEMANTIC, `edge "nope" not found`)
	expectError(t, s, `GO FROM "a" OVER e YIELD e.nope`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `GO FROM "a" OVER e YIELD $$.nope.name`, graphpb.QueryErrorCode_E_SEMANTIC, `tag "nope" not found`)
	expectError(t, s, `GO FROM "a" OVER e YIELD f.w`, graphpb.QueryErrorCode_E_SEMANTIC, `not in the OVER clause`)
	expectError(t, s, `GO FROM 1 OVER e`, graphpb.QueryErrorCode_E_SEMANTIC, "FIXED_STRING")
	expectError(t, s, `FETCH PROP ON nope "a"`, graphpb.QueryErrorCode_E_SEMANTIC, `tag "nope" not found`)
	expectError(t, s, `INSERT VERTEX person(nope) VALUES "a":(1)`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `INSERT VERTEX person(age) VALUES "a":(1)`, graphpb.QueryErrorCode_E_SEMANTIC, `"name"`, "NOT NULL")
	expectError(t, s, `INSERT VERTEX person(name) VALUES "a":(1)`, graphpb.QueryErrorCode_E_SEMANTIC, `"name"`, "string")
	expectError(t, s, `INSERT VERTEX person(name) VALUES "waytoolongvid":("x")`, graphpb.QueryErrorCode_E_SEMANTIC, "waytoolongvid")
	// A fixed_string value longer than its width is truncated, as in
	// NebulaGraph, at a character boundary.
	exec(t, s, `INSERT EDGE e(w, note) VALUES "d"->"q":(9, "toolong"), "d"->"r":(9, "héllo")`)
	expectRows(t, s, `FETCH PROP ON e "d"->"q", "d"->"r" YIELD dst(edge), e.note`, "q|tool", "r|hél")
	expectError(t, s, `GO FROM "a" OVER e YIELD nosuchfn(1)`, graphpb.QueryErrorCode_E_SEMANTIC, "nosuchfn")
	expectError(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id | GO FROM "b" OVER e YIELD $-.id`, graphpb.QueryErrorCode_E_SEMANTIC, "FROM $-")
	expectError(t, s, `GO FROM "a" OVER e YIELD dst(edge) AS id | FETCH PROP ON person "a" YIELD $-.id`, graphpb.QueryErrorCode_E_SEMANTIC, "FROM $-")
	expectError(t, s, `GO FROM "a" OVER e YIELD e`, graphpb.QueryErrorCode_E_SEMANTIC, "invalid label")
	expectError(t, s, `GO FROM "a" OVER e YIELD e.w AS x, dst(edge) AS x`, graphpb.QueryErrorCode_E_SEMANTIC, `duplicate column name "x"`)
	expectError(t, s, `GO FROM "a" OVER e YIELD id(vertex)`, graphpb.QueryErrorCode_E_SEMANTIC, "VERTEX")
	expectError(t, s, "YIELD "+strings.Repeat("1+", 6000)+"1", graphpb.QueryErrorCode_E_SYNTAX, "operators")
	// The session and the server survive all of that.
	expectRows(t, s, `GO FROM "a" OVER e WHERE rank(edge) == 1 YIELD e.w`, "2")

	exec(t, s, `DROP SPACE g`)
	expectError(t, s, `GO FROM "a" OVER e`, graphpb.QueryErrorCode_E_SEMANTIC)
	expectRows(t, s, `SHOW SPACES`)
}

// startSpace starts a 1-store cluster and creates and uses a space with
// several partitions, so that an edge's two halves mostly live in different
// partitions.
func startSpace(t *testing.T, space string, parts int) *client.Session {
	t.Helper()
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	t.Cleanup(func() { s.Close() })
	exec(t, s, fmt.Sprintf(`CREATE SPACE %s(partition_num=%d, replica_factor=1, vid_type=FIXED_STRING(8))`, space, parts))
	exec(t, s, `USE `+space)
	return s
}

// TestStatementsDelete covers DELETE TAG, DELETE VERTEX (whose edges go in
// both directions, also the halves stored in other partitions) and DELETE
// EDGE, literal and piped.
func TestStatementsDelete(t *testing.T) {
	s := startSpace(t, "del", 7)
	exec(t, s, `CREATE TAG person(name string, age int DEFAULT 0)`)
	exec(t, s, `CREATE TAG team(tname string)`)
	exec(t, s, `CREATE EDGE knows(w int)`)

	// DELETE TAG removes one tag of a multi-tag vertex; the other stays.
	exec(t, s, `INSERT VERTEX person(name, age), team(tname) VALUES "a":("Ann", 30, "red"), "b":("Bob", 40, "blue")`)
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "c":("Cid", 50), "d":("Dee", 60), "e":("Eve", 70)`)
	expectRows(t, s, `FETCH PROP ON person, team "a", "b" YIELD id(vertex), person.name, team.tname`, "a|Ann|red", "b|Bob|blue")
	exec(t, s, `DELETE TAG team FROM "a"`)
	expectRows(t, s, `FETCH PROP ON team "a", "b" YIELD id(vertex), team.tname`, "b|blue")
	expectRows(t, s, `FETCH PROP ON person, team "a" YIELD person.name, team.tname`, "Ann|NULL")
	exec(t, s, `DELETE TAG * FROM "b"`)
	expectRows(t, s, `FETCH PROP ON person, team "b"`)
	expectError(t, s, `DELETE TAG nope FROM "a"`, graphpb.QueryErrorCode_E_SEMANTIC, `tag "nope" not found`)

	// DELETE VERTEX ... WITH EDGE: c's out-edges and in-edges are gone
	// from both ends.
	exec(t, s, `INSERT EDGE knows(w) VALUES "a"->"c":(1), "b"->"c":(2), "c"->"d":(3), "c"->"e":(4), "d"->"e":(5), "e"->"a":(6)`)
	expectRows(t, s, `GO FROM "c" OVER knows`, "d", "e")
	expectRows(t, s, `GO FROM "c" OVER knows REVERSELY YIELD src(edge)`, "a", "b")
	exec(t, s, `DELETE VERTEX "c" WITH EDGE`)
	expectRows(t, s, `FETCH PROP ON person "c"`)
	expectRows(t, s, `GO FROM "c" OVER knows`)
	expectRows(t, s, `GO FROM "c" OVER knows REVERSELY`)
	expectRows(t, s, `GO FROM "a" OVER knows`)
	expectRows(t, s, `GO FROM "b" OVER knows`)
	expectRows(t, s, `GO FROM "d" OVER knows REVERSELY`)
	expectRows(t, s, `GO FROM "e" OVER knows REVERSELY YIELD src(edge), knows.w`, "d|5")
	expectRows(t, s, `FETCH PROP ON knows "a"->"c", "c"->"d" YIELD knows.w`)
	// Without WITH EDGE the edges go too.
	exec(t, s, `DELETE VERTEX "d"`)
	expectRows(t, s, `GO FROM "e" OVER knows REVERSELY`)
	expectRows(t, s, `GO FROM "e" OVER knows YIELD dst(edge), knows.w`, "a|6")

	// DELETE EDGE: one rank of two; then both directions miss it.
	exec(t, s, `INSERT EDGE knows(w) VALUES "a"->"b":(10), "a"->"b"@1:(11), "b"->"e":(12)`)
	exec(t, s, `DELETE EDGE knows "a"->"b"@1`)
	expectRows(t, s, `GO FROM "a" OVER knows YIELD dst(edge), rank(edge), knows.w`, "b|0|10")
	expectRows(t, s, `GO FROM "b" OVER knows REVERSELY YIELD src(edge), rank(edge), knows.w`, "a|0|10")
	exec(t, s, `DELETE EDGE knows "a"->"b", "a"->"zz"`)
	expectRows(t, s, `GO FROM "a" OVER knows`)
	expectRows(t, s, `GO FROM "b" OVER knows REVERSELY`)
	expectError(t, s, `DELETE EDGE nope "a"->"b"`, graphpb.QueryErrorCode_E_SEMANTIC, `edge "nope" not found`)

	// Piped: edge keys and vertex ids from $-.
	exec(t, s, `GO FROM "b" OVER knows YIELD src(edge) AS s, dst(edge) AS d, rank(edge) AS r | DELETE EDGE knows $-.s->$-.d@$-.r`)
	expectRows(t, s, `GO FROM "b" OVER knows`)
	expectRows(t, s, `GO FROM "e" OVER knows REVERSELY`)
	exec(t, s, `GO FROM "e" OVER knows YIELD dst(edge) AS id | DELETE VERTEX $-.id WITH EDGE`)
	expectRows(t, s, `FETCH PROP ON person "a"`)
	expectRows(t, s, `GO FROM "e" OVER knows`)
	expectRows(t, s, `FETCH PROP ON person "a", "b", "c", "d", "e" YIELD id(vertex)`, "e")

	// A variable's rows feed DELETE too.
	exec(t, s, `INSERT VERTEX person(name) VALUES "f":("Fay"), "g":("Gus")`)
	exec(t, s, `INSERT EDGE knows(w) VALUES "f"->"g":(1), "g"->"f":(2)`)
	exec(t, s, `$v = GO FROM "f" OVER knows YIELD dst(edge) AS id; DELETE VERTEX $v.id`)
	expectRows(t, s, `FETCH PROP ON person "f", "g" YIELD id(vertex)`, "f")
	expectRows(t, s, `GO FROM "f" OVER knows BIDIRECT`)
}

// TestStatementsUpdate covers UPDATE and UPSERT of vertices and edges.
func TestStatementsUpdate(t *testing.T) {
	s := startSpace(t, "upd", 5)
	exec(t, s, `CREATE TAG person(name string, age int DEFAULT 18, score double NULL)`)
	exec(t, s, `CREATE TAG team(tname string NULL)`)
	exec(t, s, `CREATE EDGE knows(w int, since int NULL)`)
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "a":("Ann", 30)`)
	// IF NOT EXISTS keeps what is there.
	exec(t, s, `INSERT VERTEX IF NOT EXISTS person(name, age) VALUES "a":("Nope", 1), "n":("New", 2)`)
	expectRows(t, s, `FETCH PROP ON person "a", "n" YIELD person.name, person.age`, "Ann|30", "New|2")
	exec(t, s, `INSERT EDGE knows(w) VALUES "n"->"a":(1)`)
	exec(t, s, `INSERT EDGE IF NOT EXISTS knows(w) VALUES "n"->"a":(2)`)
	expectRows(t, s, `GO FROM "a" OVER knows REVERSELY YIELD src(edge), knows.w`, "n|1")
	exec(t, s, `DELETE VERTEX "n"`)

	expectRows(t, s, `UPDATE VERTEX ON person "a" SET age = age + 1 WHEN age > 20 YIELD name AS n, age AS a`, "Ann|31")
	expectRows(t, s, `FETCH PROP ON person "a" YIELD person.age`, "31")
	// WHEN false: nothing changes, the current row is yielded.
	expectRows(t, s, `UPDATE VERTEX ON person "a" SET person.age = $^.person.age + 1 WHEN person.age > 100 YIELD $^.person.age`, "31")
	expectRows(t, s, `FETCH PROP ON person "a" YIELD person.age`, "31")
	// SET items apply in order; an int constant widens to a double.
	expectRows(t, s, `UPDATE VERTEX ON person "a" SET age = 40, score = age + 0.5, name = "A" YIELD name, age, score`, "A|40|40.5")
	exec(t, s, `UPDATE VERTEX ON person "a" SET score = 2`)
	expectRows(t, s, `FETCH PROP ON person "a"`, "a|A|40|2")
	// UPSERT of an absent vertex starts from the defaults.
	expectRows(t, s, `UPSERT VERTEX ON person "z" SET name = "Zed" YIELD name, age, score`, "Zed|18|NULL")
	expectRows(t, s, `FETCH PROP ON person "z"`, "z|Zed|18|NULL")
	expectRows(t, s, `UPSERT VERTEX ON person "z" SET age = age + 2 YIELD age`, "20")
	// UPDATE of an absent vertex (or absent tag) is an error.
	expectError(t, s, `UPDATE VERTEX ON person "nope" SET age = 1`, graphpb.QueryErrorCode_E_EXECUTION, `"nope"`, "E_NOT_FOUND")
	expectError(t, s, `UPDATE VERTEX ON team "a" SET tname = "x"`, graphpb.QueryErrorCode_E_EXECUTION, "E_NOT_FOUND")
	expectRows(t, s, `FETCH PROP ON person "nope"`)
	// Validation before anything is sent.
	expectError(t, s, `UPDATE VERTEX ON nope "a" SET age = 1`, graphpb.QueryErrorCode_E_SEMANTIC, `tag "nope" not found`)
	expectError(t, s, `UPDATE VERTEX ON person "a" SET nope = 1`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `UPDATE VERTEX ON person "a" SET team.tname = "x"`, graphpb.QueryErrorCode_E_SEMANTIC, `"team" is not the updated tag`)
	expectError(t, s, `UPDATE VERTEX ON person "a" SET age = nope + 1`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `UPDATE VERTEX ON person "a" SET age = 1 YIELD team.tname`, graphpb.QueryErrorCode_E_SEMANTIC, `"team"`)
	expectError(t, s, `UPDATE VERTEX ON person "a" SET age = "old"`, graphpb.QueryErrorCode_E_SEMANTIC, `"age"`)

	// Edges: the in-edge seen by GO REVERSELY follows the update.
	exec(t, s, `INSERT EDGE knows(w) VALUES "a"->"z":(5)`)
	expectRows(t, s, `UPDATE EDGE ON knows "a"->"z" SET w = w * 2 WHEN knows.w == 5 YIELD knows.w, src(edge), dst(edge)`, "10|a|z")
	expectRows(t, s, `GO FROM "a" OVER knows YIELD knows.w`, "10")
	expectRows(t, s, `GO FROM "z" OVER knows REVERSELY YIELD src(edge), knows.w`, "a|10")
	expectRows(t, s, `UPDATE EDGE ON knows "a"->"z" SET w = 0 WHEN w == 5 YIELD w`, "10")
	expectRows(t, s, `UPSERT EDGE ON knows "z"->"a"@2 SET w = 7 YIELD w, since`, "7|NULL")
	expectRows(t, s, `GO FROM "z" OVER knows YIELD dst(edge), rank(edge), knows.w`, "a|2|7")
	expectRows(t, s, `GO FROM "a" OVER knows REVERSELY YIELD src(edge), rank(edge), knows.w`, "z|2|7")
	expectError(t, s, `UPDATE EDGE ON knows "a"->"b" SET w = 1`, graphpb.QueryErrorCode_E_EXECUTION, "E_NOT_FOUND")
	expectRows(t, s, `GO FROM "a" OVER knows YIELD dst(edge)`, "z")
	expectError(t, s, `UPDATE EDGE ON knows "a"->"z" SET nope = 1`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `UPDATE EDGE ON knows "a"->"z" SET w = 1 YIELD $^.person.name`, graphpb.QueryErrorCode_E_SEMANTIC, "edge")
}

// TestStatementsAlter covers ALTER, DROP and TTL of tags and edge types.
func TestStatementsAlter(t *testing.T) {
	s := startSpace(t, "alt", 3)
	exec(t, s, `CREATE TAG person(name string)`)
	exec(t, s, `INSERT VERTEX person(name) VALUES "a":("Ann")`)
	exec(t, s, `ALTER TAG person ADD (age int DEFAULT 42, nick string NULL)`)
	expectRows(t, s, `DESCRIBE TAG person`, "name|string|YES|NULL|NULL", "age|int64|YES|42|NULL", "nick|string|YES|NULL|NULL")
	// A row written before the ALTER reads the new column's default.
	expectRows(t, s, `FETCH PROP ON person "a" YIELD person.name, person.age, person.nick`, "Ann|42|NULL")
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "b":("Bob", 7)`)
	expectRows(t, s, `FETCH PROP ON person "a", "b"`, "a|Ann|42|NULL", "b|Bob|7|NULL")
	exec(t, s, `ALTER TAG person DROP (nick)`)
	expectRows(t, s, `DESCRIBE TAG person`, "name|string|YES|NULL|NULL", "age|int64|YES|42|NULL")
	expectError(t, s, `FETCH PROP ON person "a" YIELD person.nick`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nick"`)
	expectRows(t, s, `FETCH PROP ON person "a", "b"`, "a|Ann|42", "b|Bob|7")
	exec(t, s, `ALTER TAG person CHANGE (age int DEFAULT 1)`)
	expectRows(t, s, `DESCRIBE TAG person`, "name|string|YES|NULL|NULL", "age|int64|YES|1|NULL")
	expectError(t, s, `ALTER TAG person DROP (zzz)`, graphpb.QueryErrorCode_E_SEMANTIC, "zzz")
	expectError(t, s, `ALTER TAG person ADD (name int)`, graphpb.QueryErrorCode_E_SEMANTIC, "name")
	expectError(t, s, `ALTER TAG nope ADD (x int)`, graphpb.QueryErrorCode_E_SEMANTIC, `tag "nope" not found`)

	exec(t, s, `CREATE EDGE e(w int)`)
	exec(t, s, `INSERT EDGE e(w) VALUES "a"->"b":(1)`)
	exec(t, s, `ALTER EDGE e ADD (x int DEFAULT 3)`)
	expectRows(t, s, `DESCRIBE EDGE e`, "w|int64|YES|NULL|NULL", "x|int64|YES|3|NULL")
	expectRows(t, s, `GO FROM "a" OVER e YIELD e.w, e.x`, "1|3")
	exec(t, s, `DROP EDGE e`)
	expectRows(t, s, `SHOW EDGES`)
	expectError(t, s, `GO FROM "a" OVER e`, graphpb.QueryErrorCode_E_SEMANTIC, `edge "e" not found`)
	exec(t, s, `DROP EDGE IF EXISTS e`)
	expectError(t, s, `DROP EDGE e`, graphpb.QueryErrorCode_E_SEMANTIC, `"e"`)
	exec(t, s, `DROP TAG person`)
	expectRows(t, s, `SHOW TAGS`)
	expectError(t, s, `FETCH PROP ON person "a"`, graphpb.QueryErrorCode_E_SEMANTIC, `tag "person" not found`)

	// TTL: storaged hides expired rows on read. "old" expired long ago;
	// "new" expires in 2100.
	exec(t, s, `CREATE TAG tmp(ts timestamp, v int) TTL_DURATION = 1, TTL_COL = "ts"`)
	exec(t, s, `INSERT VERTEX tmp(ts, v) VALUES "old":(1000, 1), "new":(4102444800, 2)`)
	expectRows(t, s, `FETCH PROP ON tmp "old", "new" YIELD id(vertex), tmp.v`, "new|2")
	// ALTER of the duration alone keeps the TTL column.
	exec(t, s, `ALTER TAG tmp TTL_DURATION = 5`)
	expectRows(t, s, `FETCH PROP ON tmp "old", "new" YIELD id(vertex), tmp.v`, "new|2")
	exec(t, s, `CREATE EDGE tmpe(ts timestamp) TTL_DURATION = 1, TTL_COL = "ts"`)
	exec(t, s, `INSERT EDGE tmpe(ts) VALUES "x"->"old":(1000), "x"->"new":(4102444800)`)
	expectRows(t, s, `FETCH PROP ON tmpe "x"->"old", "x"->"new" YIELD dst(edge)`, "new")
	expectRows(t, s, `GO FROM "x" OVER tmpe YIELD dst(edge)`, "new")
	expectError(t, s, `CREATE TAG bad(v string) TTL_DURATION = 1, TTL_COL = "v"`, graphpb.QueryErrorCode_E_SEMANTIC, "ttl_col")
}

// TestStatementsIndex covers CREATE / DROP / REBUILD / SHOW / DESCRIBE of
// indexes and LOOKUP through them.
func TestStatementsIndex(t *testing.T) {
	s := startSpace(t, "idx", 4)
	exec(t, s, `CREATE TAG person(name string, age int, score double NULL)`)
	exec(t, s, `CREATE EDGE knows(w int, note string NULL)`)
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "a":("Ann", 30), "b":("Bob", 40), "c":("Cid", 50), "d":("Dee", 40)`)
	exec(t, s, `INSERT EDGE knows(w) VALUES "a"->"b":(1), "b"->"c":(2), "c"->"d":(3), "a"->"d"@1:(2)`)
	expectError(t, s, `LOOKUP ON person WHERE person.age == 40 YIELD id(vertex)`, graphpb.QueryErrorCode_E_SEMANTIC, "There is no index to use at runtime")

	exec(t, s, `CREATE TAG INDEX p_age ON person(age)`)
	exec(t, s, `CREATE TAG INDEX p_name_age ON person(name(10), age)`)
	exec(t, s, `CREATE TAG INDEX IF NOT EXISTS p_age ON person(age)`)
	exec(t, s, `CREATE EDGE INDEX k_w ON knows(w)`)
	expectError(t, s, `CREATE TAG INDEX p_age ON person(name(4))`, graphpb.QueryErrorCode_E_SEMANTIC, "p_age")
	expectError(t, s, `CREATE TAG INDEX p_x ON person(nope)`, graphpb.QueryErrorCode_E_SEMANTIC, "nope")
	exec(t, s, `REBUILD TAG INDEX p_age, p_name_age`)
	exec(t, s, `REBUILD EDGE INDEX`)
	expectError(t, s, `REBUILD TAG INDEX k_w`, graphpb.QueryErrorCode_E_SEMANTIC, `tag index "k_w" not found`)

	expectRows(t, s, `SHOW TAG INDEXES`, "p_age|person|[age]", "p_name_age|person|[name age]")
	expectRows(t, s, `SHOW EDGE INDEXES`, "k_w|knows|[w]")
	if rs := exec(t, s, `SHOW TAG INDEXES`); strings.Join(rs.Columns(), ",") != "Index Name,By Tag,Columns" {
		t.Fatalf("SHOW TAG INDEXES columns %q", rs.Columns())
	}
	expectRows(t, s, `DESCRIBE TAG INDEX p_name_age`, "name|fixed_string(10)", "age|int64")
	expectRows(t, s, `DESCRIBE EDGE INDEX k_w`, "w|int64")
	expectError(t, s, `DESCRIBE TAG INDEX k_w`, graphpb.QueryErrorCode_E_SEMANTIC, `tag index "k_w" not found`)

	// Equality, range, both, residual filter, no WHERE, OR.
	expectRows(t, s, `LOOKUP ON person WHERE person.age == 40 YIELD id(vertex), person.name`, "b|Bob", "d|Dee")
	expectRows(t, s, `LOOKUP ON person WHERE person.age > 30 AND person.age <= 50 YIELD id(vertex) AS id`, "b", "c", "d")
	expectRows(t, s, `LOOKUP ON person WHERE person.age >= 50 YIELD id(vertex)`, "c")
	expectRows(t, s, `LOOKUP ON person WHERE person.age < 40 YIELD id(vertex)`, "a")
	expectRows(t, s, `LOOKUP ON person WHERE person.age >= 40 AND person.name != "Bob" YIELD person.name`, "Cid", "Dee")
	expectRows(t, s, `LOOKUP ON person WHERE person.name == "Ann" AND person.age == 30`, "a")
	expectRows(t, s, `LOOKUP ON person WHERE person.name > "B" AND person.name < "D" YIELD person.name, person.age`, "Bob|40", "Cid|50")
	expectRows(t, s, `LOOKUP ON person`, "a", "b", "c", "d")
	expectRows(t, s, `LOOKUP ON person WHERE person.age < 35 OR person.age > 45 YIELD id(vertex)`, "a", "c")
	expectRows(t, s, `LOOKUP ON person WHERE person.age == 40 YIELD DISTINCT person.age`, "40")
	if rs := exec(t, s, `LOOKUP ON person WHERE person.age == 30`); strings.Join(rs.Columns(), ",") != "VertexID" {
		t.Fatalf("LOOKUP columns %q", rs.Columns())
	}
	expectRows(t, s, `LOOKUP ON knows WHERE knows.w == 2 YIELD src(edge), dst(edge), rank(edge), knows.w`, "a|d|1|2", "b|c|0|2")
	expectRows(t, s, `LOOKUP ON knows WHERE knows.w > 1`, "a|d|1", "b|c|0", "c|d|0")
	// LOOKUP pipes like GO.
	expectRows(t, s, `LOOKUP ON person WHERE person.age == 40 YIELD id(vertex) AS id | GO FROM $-.id OVER knows YIELD $-.id, dst(edge)`, "b|c")
	expectRows(t, s, `$v = LOOKUP ON knows WHERE knows.w == 2 YIELD dst(edge) AS d; FETCH PROP ON person $v.d YIELD person.name`, "Cid", "Dee")

	// Writes keep the indexes current without a rebuild.
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "e":("Eve", 40)`)
	exec(t, s, `UPDATE VERTEX ON person "b" SET age = 41`)
	exec(t, s, `DELETE VERTEX "d" WITH EDGE`)
	expectRows(t, s, `LOOKUP ON person WHERE person.age == 40 YIELD id(vertex)`, "e")
	expectRows(t, s, `LOOKUP ON person WHERE person.age > 40 YIELD id(vertex), person.age`, "b|41", "c|50")
	expectRows(t, s, `LOOKUP ON knows WHERE knows.w == 2 YIELD src(edge), dst(edge)`, "b|c")

	expectError(t, s, `LOOKUP ON person WHERE person.nope == 1`, graphpb.QueryErrorCode_E_SEMANTIC, `no property "nope"`)
	expectError(t, s, `LOOKUP ON nope`, graphpb.QueryErrorCode_E_SEMANTIC, `"nope"`)
	expectError(t, s, `LOOKUP ON person YIELD knows.w`, graphpb.QueryErrorCode_E_SEMANTIC, "knows.w")
	expectError(t, s, `LOOKUP ON knows YIELD id(vertex)`, graphpb.QueryErrorCode_E_SEMANTIC, "edge type")

	expectError(t, s, `DROP TAG person`, graphpb.QueryErrorCode_E_SEMANTIC, "index")
	exec(t, s, `DROP TAG INDEX p_age`)
	expectRows(t, s, `SHOW TAG INDEXES`, "p_name_age|person|[name age]")
	expectError(t, s, `DROP TAG INDEX p_age`, graphpb.QueryErrorCode_E_SEMANTIC, "p_age")
	exec(t, s, `DROP TAG INDEX IF EXISTS p_age`)
	// The remaining index still answers, by a full scan and the filter.
	expectRows(t, s, `LOOKUP ON person WHERE person.age == 40 YIELD id(vertex)`, "e")

	// Int literals against double and timestamp fields; NULLs indexed.
	exec(t, s, `CREATE TAG m(d double NULL, ts timestamp NULL)`)
	exec(t, s, `CREATE TAG INDEX m_d ON m(d)`)
	exec(t, s, `CREATE TAG INDEX m_ts ON m(ts)`)
	exec(t, s, `INSERT VERTEX m(d, ts) VALUES "m1":(1.5, 100), "m2":(2, 200), "m3":(-3.25, 300), "m4":(NULL, NULL)`)
	expectRows(t, s, `LOOKUP ON m WHERE m.d > 1 YIELD id(vertex), m.d`, "m1|1.5", "m2|2")
	expectRows(t, s, `LOOKUP ON m WHERE m.d == 2 YIELD id(vertex)`, "m2")
	expectRows(t, s, `LOOKUP ON m WHERE m.d < 0 YIELD id(vertex)`, "m3")
	expectRows(t, s, `LOOKUP ON m WHERE m.ts >= 200 YIELD id(vertex), m.ts`, "m2|200", "m3|300")
	expectRows(t, s, `LOOKUP ON m WHERE m.ts == 100 YIELD id(vertex)`, "m1")
	expectRows(t, s, `LOOKUP ON m WHERE m.d IS NULL YIELD id(vertex)`, "m4")
	expectRows(t, s, `LOOKUP ON m YIELD id(vertex)`, "m1", "m2", "m3", "m4")

	// Strings longer than the index prefix (name(10)): exact answers.
	exec(t, s, `INSERT VERTEX person(name, age) VALUES "l1":("Christopher Columbus", 1), "l2":("Christophe", 2), "l3":("Christopher Robin", 3)`)
	expectRows(t, s, `LOOKUP ON person WHERE person.name == "Christopher Columbus" YIELD id(vertex)`, "l1")
	expectRows(t, s, `LOOKUP ON person WHERE person.name == "Christophe" YIELD id(vertex)`, "l2")
	expectRows(t, s, `LOOKUP ON person WHERE person.name > "Christopher D" YIELD id(vertex)`, "l3", "c", "e")
	expectRows(t, s, `LOOKUP ON person WHERE person.name < "Christopher D" AND person.name > "Christophe" YIELD id(vertex)`, "l1")
}
