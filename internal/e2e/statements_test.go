package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/internal/testcluster"
	"github.com/novagraph/novagraph/proto/graphpb"
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
	expectRows(t, s, `DESCRIBE TAG person`, "age|int64|YES|18", "name|string|NO|NULL", "score|double|YES|NULL")
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
