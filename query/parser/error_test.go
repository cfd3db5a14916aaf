package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSyntaxErrors checks that each malformed statement fails at the right
// spot: line, column, the text quoted as near, and what was expected.
func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
		near      string
		msg       string
	}{
		// The example of the design brief.
		{"GO 1 STEPS FORM 1 OVER e", 1, 12, "FORM 1", "expected FROM"},

		// Statement level.
		{"FOO", 1, 1, "FOO", "expected a statement"},
		{"SHOW SPACES extra", 1, 13, "extra", "expected ';' or end of input"},
		{"USE s t", 1, 7, "t", "expected ';' or end of input"},
		{"USE", 1, 4, "", "expected space name"},
		{"USE from", 1, 5, "from", "reserved word"},
		{"SHOW THINGS", 1, 6, "THINGS", "expected SPACES, HOSTS, PARTS, TAGS, EDGES, TAG INDEXES, EDGE INDEXES, QUERIES, SESSIONS, STATS, USERS, ROLES or CREATE"},
		{"DESCRIBE INDEX i", 1, 10, "INDEX i", "expected SPACE, TAG, EDGE or USER"},
		{"DROP INDEX i", 1, 6, "INDEX i", "expected SPACE, TAG, EDGE, USER, HOSTS or SNAPSHOT"},
		{"DROP SPACE IF s", 1, 15, "s", "expected EXISTS"},
		{"USE s | GO FROM 1 OVER e", 1, 7, "| GO", "only GO, FETCH, LOOKUP and YIELD results can be piped"},
		{"GO FROM 1 OVER e | USE s", 1, 20, "USE s", "expected GO, FETCH, LOOKUP, YIELD or DELETE"},
		{"$a = USE s", 1, 6, "USE s", "expected GO, FETCH, LOOKUP or YIELD"},
		{"$a = DELETE VERTEX 1", 1, 6, "DELETE VERTEX", "expected GO, FETCH, LOOKUP or YIELD"},
		{"$a = GO FROM 1 OVER e YIELD dst(edge) AS id | DELETE VERTEX $-.id", 1, 47, "DELETE VERTEX", "expected GO, FETCH, LOOKUP or YIELD"},
		{"DELETE VERTEX 1 | GO FROM $-.id OVER e", 1, 17, "| GO", "only GO, FETCH, LOOKUP and YIELD results can be piped"},
		{"GO FROM 1 OVER e YIELD dst(edge) AS id | DELETE VERTEX $-.id | YIELD 1", 1, 62, "| YIELD", "only GO, FETCH, LOOKUP and YIELD results can be piped"},
		{"UPDATE VERTEX ON t 1 SET a = 1 | YIELD 1", 1, 32, "| YIELD", "only GO, FETCH, LOOKUP and YIELD results can be piped"},
		{"GO FROM 1 OVER e | UPDATE VERTEX ON t 1 SET a = 1", 1, 20, "UPDATE VERTEX", "expected GO, FETCH, LOOKUP, YIELD or DELETE"},
		{"$a GO", 1, 1, "$a GO", "expected a statement"},
		{"EXPLAIN EXPLAIN SHOW SPACES", 1, 9, "EXPLAIN SHOW", "cannot be nested"},
		{"EXPLAIN FORMAT = \"json\" SHOW SPACES", 1, 18, "\"json\" SHOW", `expected "row" or "dot"`},

		// CREATE SPACE.
		{"CREATE SPACE s (partition_num = 0)", 1, 33, "0)", "partition_num must be an integer from 1"},
		{"CREATE SPACE s (partition_num = 99999999999)", 1, 33, "99999999999)", "partition_num must be"},
		{"CREATE SPACE s (replica_factor = x)", 1, 34, "x)", "expected replica_factor"},
		{"CREATE SPACE s (vid_type = STRING)", 1, 28, "STRING)", "expected INT64 or FIXED_STRING(N)"},
		{"CREATE SPACE s (vid_type = FIXED_STRING)", 1, 40, ")", "expected '('"},
		{"CREATE SPACE s (charset = utf8)", 1, 17, "charset =", "expected partition_num, replica_factor or vid_type"},
		{"CREATE SPACE s (partition_num = 1, partition_num = 2)", 1, 36, "partition_num =", "duplicate option partition_num"},
		{"CREATE SPACE s (partition_num = 1 replica_factor = 2)", 1, 35, "replica_factor =", "expected ',' or ')'"},
		{"CREATE SPACE s (partition_num = 1,)", 1, 35, ")", "expected partition_num"},
		{"CREATE SPACE IF EXISTS s", 1, 17, "EXISTS s", "expected NOT"},
		{"CREATE INDEX i", 1, 8, "INDEX i", "expected SPACE, TAG, EDGE, USER or SNAPSHOT"},

		// CREATE TAG / EDGE.
		{"CREATE TAG t", 1, 13, "", "expected '('"},
		{"CREATE TAG t(a)", 1, 15, ")", "expected a property type"},
		{"CREATE TAG t(a varchar)", 1, 16, "varchar)", "expected a property type"},
		{"CREATE TAG t(a int,)", 1, 20, ")", "expected property name"},
		{"CREATE TAG t(a int NULL NOT NULL)", 1, 25, "NOT NULL", "duplicate NULL or NOT NULL"},
		{"CREATE TAG t(a int DEFAULT 1 DEFAULT 2)", 1, 30, "DEFAULT 2", "duplicate DEFAULT"},
		{"CREATE TAG t(a int COMMENT 5)", 1, 28, "5)", "expected a string after COMMENT"},
		{"CREATE TAG t(a fixed_string(0))", 1, 29, "0)", "FIXED_STRING length must be"},
		{"CREATE EDGE e(a int NOT)", 1, 24, ")", "expected NULL"},

		// ALTER, DROP and TTL options.
		{"ALTER TAG t ADD (", 1, 18, "", "expected property name"},
		{"ALTER TAG t", 1, 12, "", "expected ADD, DROP, CHANGE, TTL_DURATION or TTL_COL"},
		{"ALTER TAG t ADD (a int),", 1, 25, "", "expected ADD, DROP, CHANGE, TTL_DURATION or TTL_COL"},
		{"ALTER SPACE s", 1, 1, "ALTER SPACE", "ALTER SPACE is not supported"},
		{"ALTER TAG t ADD a int", 1, 17, "a int", "expected '('"},
		{"ALTER TAG t ADD ()", 1, 18, ")", "expected property name"},
		{"ALTER TAG t CHANGE (a)", 1, 22, ")", "expected a property type"},
		{"ALTER TAG t DROP (a int)", 1, 21, "int)", "expected ',' or ')'"},
		{"ALTER TAG t ADD (a int) DROP (b)", 1, 25, "DROP (", "expected ';' or end of input"},
		{"ALTER TAG t RENAME (a)", 1, 13, "RENAME (", "expected ADD, DROP, CHANGE"},
		{"ALTER EDGE e TTL_DURATION = -1", 1, 29, "-1", "TTL_DURATION must be an integer from 0 to 9223372036854775807"},
		{"ALTER EDGE e TTL_DURATION = 9223372036854775808", 1, 29, "9223372036854775808", "TTL_DURATION must be an integer from 0"},
		{"ALTER EDGE e TTL_DURATION 1", 1, 27, "1", "expected '='"},
		{`ALTER TAG t TTL_COL = "a", TTL_COL = "b"`, 1, 28, "TTL_COL =", "duplicate TTL_COL"},
		{`ALTER TAG t TTL_DURATION = 1, TTL_DURATION = 2`, 1, 31, "TTL_DURATION =", "duplicate TTL_DURATION"},
		{"CREATE TAG t(a int) TTL_DURATION = 1,", 1, 38, "", "expected TTL_DURATION, TTL_COL or COMMENT"},
		{"CREATE TAG t(a int) TTL_COL = 5", 1, 31, "5", "expected a property name or string after TTL_COL ="},
		{"CREATE TAG t(a int) COMMENT = x", 1, 31, "x", "expected a string after COMMENT ="},
		{"DROP TAG", 1, 9, "", "expected tag name"},
		{"DROP EDGE IF e", 1, 14, "e", "expected EXISTS"},
		{"DROP EDGE where", 1, 11, "where", "expected edge name (WHERE is a reserved word"},

		// Indexes.
		{"CREATE TAG INDEX i ON t(name(0))", 1, 30, "0)", "index prefix length must be an integer from 1 to 32767"},
		{"CREATE TAG INDEX i ON t(name(-5))", 1, 30, "-5", "index prefix length must be an integer from 1"},
		{"CREATE TAG INDEX i ON t(name(40000))", 1, 30, "40000)", "index prefix length must be"},
		{"CREATE TAG INDEX i ON t(name(x))", 1, 30, "x)", "expected index prefix length"},
		{"CREATE TAG INDEX i t(a)", 1, 20, "t(", "expected ON"},
		{"CREATE TAG INDEX i ON t", 1, 24, "", "expected '('"},
		{"CREATE EDGE INDEX i ON e(a(10)", 1, 31, "", "expected ',' or ')'"},
		{"CREATE TAG INDEX ON t(a)", 1, 18, "ON t", "expected index name (ON is a reserved word"},
		{"CREATE TAG INDEX IF EXISTS i ON t()", 1, 21, "EXISTS i", "expected NOT"},
		{"DROP TAG INDEX", 1, 15, "", "expected index name"},
		{"REBUILD INDEX i", 1, 9, "INDEX i", "expected TAG or EDGE"},
		{"REBUILD TAG i", 1, 13, "i", "expected INDEX"},
		{"REBUILD TAG INDEX a,", 1, 21, "", "expected index name"},
		{"SHOW TAG INDEX", 1, 10, "INDEX", "expected INDEXES"},
		{"DESCRIBE TAG INDEX", 1, 19, "", "expected index name"},
		{"DESCRIBE TAG index", 1, 19, "", "expected index name"},

		// LOOKUP.
		{"LOOKUP player", 1, 8, "player", "expected ON"},
		{"LOOKUP ON", 1, 10, "", "expected tag or edge name"},
		{"LOOKUP ON player WHERE", 1, 23, "", "expected an expression"},
		{"LOOKUP ON player YIELD", 1, 23, "", "expected an expression"},
		{"LOOKUP ON player WHERE player.age > 1 player.name", 1, 39, "player.", "expected ';' or end of input"},

		// DELETE.
		{"DELETE EDGE e 1 -> ", 1, 20, "", "expected a vertex id"},
		{"DELETE EDGE e 1", 1, 16, "", "expected '->'"},
		{"DELETE EDGE e", 1, 14, "", "expected a vertex id"},
		{"DELETE EDGE e 1->2@", 1, 20, "", "expected an integer rank"},
		{"DELETE EDGE 1->2", 1, 13, "1->", "expected edge name"},
		{"DELETE EDGE e $-.s->$v.d", 1, 21, "$v.", "must all come from $- or all from the same $variable"},
		{"DELETE EDGE e $a.s->$b.d", 1, 21, "$b.", "must all come from $- or all from the same $variable"},
		{"DELETE EDGE e $-.s->$-.d@$a.r", 1, 26, "$a.", "must all come from $- or all from the same $variable"},
		{"DELETE EDGE e $-.s->2", 1, 21, "2", "expected $-.column or $variable.column"},
		{"DELETE VERTEX", 1, 14, "", "expected a vertex id"},
		{"DELETE VERTEX 1,", 1, 17, "", "expected a vertex id"},
		{"DELETE VERTEX 1 WITH", 1, 21, "", "expected EDGE"},
		{"DELETE VERTEX 1 WITH TAG", 1, 22, "TAG", "expected EDGE"},
		{"DELETE TAG t 1", 1, 14, "1", "expected FROM"},
		{"DELETE TAG FROM 1", 1, 12, "FROM 1", "expected tag name or '*' (FROM is a reserved word"},
		{"DELETE TAG * FROM", 1, 18, "", "expected a vertex id"},
		{"DELETE e 1->2", 1, 8, "e 1", "expected VERTEX, TAG or EDGE"},

		// UPDATE and UPSERT.
		{"UPDATE VERTEX ON t 1 SET", 1, 25, "", "expected property name"},
		{"UPDATE VERTEX ON t 1 SET a = 1,", 1, 32, "", "expected property name"},
		{"UPDATE VERTEX t 1 SET a = 1", 1, 15, "t 1", "expected ON"},
		{"UPDATE VERTEX ON t SET a = 1", 1, 20, "SET a", "expected a vertex id"},
		{"UPDATE VERTEX ON t 1 a = 1", 1, 22, "a =", "expected SET"},
		{"UPDATE VERTEX ON t 1 SET a == 1", 1, 28, "== 1", "expected '='"},
		{"UPDATE VERTEX ON t 1 SET a", 1, 27, "", "expected '='"},
		{"UPDATE VERTEX ON t 1 SET a = ", 1, 30, "", "expected an expression"},
		{"UPDATE VERTEX ON t 1 SET t. = 1", 1, 29, "= 1", "expected a property name"},
		{"UPDATE VERTEX ON t 1 SET a = 1 WHEN", 1, 36, "", "expected an expression"},
		{"UPDATE VERTEX ON t 1 SET a = 1 YIELD", 1, 37, "", "expected an expression"},
		{"UPDATE VERTEX ON t 1 SET a = 1 WHERE a > 1", 1, 32, "WHERE a", "expected ';' or end of input"},
		{"UPDATE EDGE ON e 1 SET a = 1", 1, 20, "SET a", "expected '->'"},
		{"UPSERT EDGE ON e 1->2@x SET a = 1", 1, 23, "x SET", "expected an integer rank"},
		{"UPSERT EDGE ON e $-.s->$-.d SET a = 1", 1, 18, "$-.", "expected a vertex id"},
		{"UPDATE t", 1, 8, "t", "expected VERTEX or EDGE"},

		// INSERT.
		{"INSERT t(a) VALUES 1:(1)", 1, 8, "t(", "expected VERTEX or EDGE"},
		{"INSERT VERTEX t(a) 1:(1)", 1, 20, "1:", "expected VALUES"},
		{"INSERT VERTEX t(a) VALUES 1:(1, 2)", 1, 29, "(1", "expected 1 values, got 2"},
		{"INSERT VERTEX t1(a), t2(b) VALUES 1:(1), (2, 3)", 1, 42, "(2", "expected 1 values for tag t2, got 2"},
		{"INSERT VERTEX t1(a), t2(b) VALUES 1:(1), (2), (3)", 1, 42, "(2", "expected one value list, or one per tag (2), got 3"},
		{"INSERT VERTEX t(a) VALUES 1.5:(1)", 1, 27, "1.5:", "expected a vertex id"},
		{"INSERT VERTEX t(a) VALUES x:(1)", 1, 27, "x:", "expected a vertex id"},
		{"INSERT VERTEX t(a) VALUES 1 (1)", 1, 29, "(1", "expected ':'"},
		{"INSERT VERTEX t(a) VALUES 1:(1", 1, 31, "", "expected ',' or ')'"},
		{"INSERT EDGE e(a) VALUES 1:(1)", 1, 26, ":(", "expected '->'"},
		{"INSERT EDGE e(a) VALUES 1->2@x:(1)", 1, 30, "x:", "expected an integer rank"},
		{"INSERT EDGE e(a, b) VALUES 1->2:(1)", 1, 33, "(1", "expected 2 values, got 1"},
		{"INSERT EDGE e(a) VALUES 1->9223372036854775808:(1)", 1, 28, "9223372036854775808:", "integer literal out of range"},

		// FETCH.
		{"FETCH ON t 1", 1, 7, "ON t", "expected PROP"},
		{"FETCH PROP t 1", 1, 12, "t 1", "expected ON"},
		{"FETCH PROP ON t", 1, 16, "", "expected a vertex id"},
		{"FETCH PROP ON t1, t2 1->2", 1, 15, "t1,", "exactly one edge type"},
		{"FETCH PROP ON * 1->2", 1, 15, "* 1", "exactly one edge type"},
		{"FETCH PROP ON e $-.a->3", 1, 23, "3", "expected $-.column or $variable.column"},
		{"FETCH PROP ON t 1 YIELD", 1, 24, "", "expected an expression"},
		{"FETCH PROP ON e $-.s->$v.d", 1, 23, "$v.", "must all come from $- or all from the same $variable"},

		// GO.
		{"GO FROM 1", 1, 10, "", "expected OVER"},
		{"GO 2 FROM 1 OVER e", 1, 6, "FROM 1", "expected STEPS"},
		{"GO 3 TO 2 STEPS FROM 1 OVER e", 1, 9, "2 STEPS", "upper bound"},
		{"GO -1 STEPS FROM 1 OVER e", 1, 4, "-1", "expected FROM"},
		{"GO 2147483647 STEPS FROM 1 OVER e", 1, 4, "2147483647 STEPS", "step count must be an integer from 0 to 1000"},
		{"GO 1 TO 1001 STEPS FROM 1 OVER e", 1, 9, "1001 STEPS", "step count must be an integer from 0 to 1000"},
		{"GO FROM OVER e", 1, 9, "OVER e", "expected a vertex id"},
		{"GO FROM 1, OVER e", 1, 12, "OVER e", "expected a vertex id"},
		{"GO FROM $-id OVER e", 1, 11, "id OVER", "expected '.'"},
		{"GO FROM 1 OVER", 1, 15, "", "expected edge name"},
		{"GO FROM 1 OVER e REVERSE", 1, 18, "REVERSE", "expected ';' or end of input"},
		{"GO FROM 1 OVER e WHERE", 1, 23, "", "expected an expression"},
		{"GO FROM 1 OVER e YIELD e.a AS", 1, 30, "", "expected an alias"},
		{"GO FROM 1 OVER e YIELD e.a e.b", 1, 28, "e.", "expected ';' or end of input"},
		{"GO FROM 1 OVER e YIELD (e.a", 1, 28, "", "expected ')'"},
		{"GO FROM 1 OVER e YIELD e.", 1, 26, "", "expected a property name"},
		{"GO FROM 1 OVER e YIELD $^.t", 1, 28, "", "expected '.'"},
		{"GO FROM 1 OVER e YIELD $v.", 1, 27, "", "expected a column name"},

		// Query parameters: $name without .col.
		{"GO FROM $p, 1 OVER e", 1, 11, ", 1", "expected OVER"},
		{"GO FROM $p.", 1, 12, "", "expected a column name"},
		{"FETCH PROP ON e $p->$q", 1, 19, "->$q", "the key of FETCH PROP ON edges cannot be a parameter"},
		{"YIELD $", 1, 7, "$", "expected a variable name"},
		{"YIELD $1", 1, 7, "$", "expected a variable name"},
		{"YIELD $p $q", 1, 10, "$q", "expected ';' or end of input"},
		{"$p", 1, 1, "$p", "expected a statement"},

		// Expressions.
		{"YIELD 1 +", 1, 10, "", "expected an expression"},
		{"YIELD [1, 2", 1, 12, "", "expected ',' or ']'"},
		{"YIELD f(1 2)", 1, 11, "2)", "expected ',' or ')'"},
		{"YIELD a STARTS b", 1, 16, "b", "expected WITH"},
		{"YIELD a IS 1", 1, 12, "1", "expected NULL"},
		{"YIELD a = 1", 1, 9, "= 1", "expected ';' or end of input"},
		{"YIELD 1e999", 1, 7, "1e999", "float literal out of range"},
		{"YIELD 9223372036854775808", 1, 7, "9223372036854775808", "integer literal out of range"},
		{"YIELD 0xFFFFFFFFFFFFFFFFF", 1, 7, "0xFFFFFFFFFFFFFFFFF", "integer literal out of range"},
		{"YIELD WHERE", 1, 7, "WHERE", "expected an expression"},
		{"YIELD " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), 1, 7 + maxDepth, "((", "nested too deeply"},
		{"YIELD " + strings.Repeat("NOT ", 300) + "true", 1, 7 + 4*maxDepth, "NOT NOT", "nested too deeply"},
		{"YIELD " + strings.Repeat("- ", 300) + "x", 1, 7 + 2*maxDepth, "- -", "nested too deeply"},
		{"YIELD -- 1", 1, 11, "", "expected an expression"}, // "-- " starts a comment

		// Lexical errors surface with the lexer's message.
		{`YIELD "abc`, 1, 7, `"abc`, "unterminated string"},
		{`YIELD "a\qb"`, 1, 9, `\q`, `invalid escape \q`},
		{"YIELD `a", 1, 7, "`a", "unterminated quoted name"},
		{"YIELD 1 /* open", 1, 9, "/* open", "unterminated comment"},
		{"YIELD 12abc", 1, 7, "12abc", "malformed number"},
		{"YIELD 1 ~ 2", 1, 9, "~", "unexpected character '~'"},
		{"YIELD 1 ? 2", 1, 12, "", "expected ':'"},

		// Positions on later lines, columns in characters.
		{"USE s;\nGO FROM 1\n  OVER e\n  YELD e.a", 4, 3, "YELD e", "expected ';' or end of input"},
		{"YIELD \"é\" ,\n\t, 1", 2, 2, ", 1", "expected an expression"},
		{"YIELD 'a\nb' x", 2, 4, "x", "expected ';' or end of input"},
		{"YIELD 1 +\n", 2, 1, "", "expected an expression"},
		{"YIELD \"" + strings.Repeat("x", 60) + "\" x", 1, 70, "x", "expected ';'"},
		{"YIELD 1 " + strings.Repeat("y", 60), 1, 9, strings.Repeat("y", 40) + "...", "expected ';'"},
	} {
		_, err := Parse(tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tc.src, err)
			continue
		}
		if se.Line != tc.line || se.Col != tc.col || se.Near != tc.near || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%q):\n got %d:%d near %q: %s\nwant %d:%d near %q: ...%s...",
				tc.src, se.Line, se.Col, se.Near, se.Msg, tc.line, tc.col, tc.near, tc.msg)
		}
	}
}

// TestPostfixChainsAreBounded: chains that nest without recursing in the
// parser (a.b.c…, x[0][0]…, x IS NULL IS NULL…) still make trees that
// evaluating and printing recurse through, so they count against the
// operator limit like a+b+c: a crafted statement cannot overflow graphd's
// stack.
func TestPostfixChainsAreBounded(t *testing.T) {
	for _, chain := range []string{"+1", "[0]", ".a", " IS NULL", " IS NOT NULL"} {
		if _, err := Parse("YIELD x" + strings.Repeat(chain, maxOperators)); err != nil {
			t.Errorf("%d × %q: %v", maxOperators, chain, err)
		}
		_, err := Parse("YIELD x" + strings.Repeat(chain, maxOperators+1))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d operators", maxOperators)) {
			t.Errorf("%d × %q: %v, want the operator limit", maxOperators+1, chain, err)
		}
	}
	if _, err := Parse("YIELD 'a' NOT STARTS 'b'"); err == nil || !strings.Contains(err.Error(), "expected WITH") {
		t.Errorf("NOT STARTS without WITH: %v", err)
	}
}

func TestSyntaxErrorMessage(t *testing.T) {
	_, err := Parse("GO 1 STEPS FORM 1 OVER e")
	if want := "syntax error at line 1, column 12 near 'FORM 1': expected FROM"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	_, err = Parse("GO FROM 1")
	if want := "syntax error at line 1, column 10 at end of input: expected OVER"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
