package parser

import (
	"errors"
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
		{"SHOW THINGS", 1, 6, "THINGS", "expected SPACES, HOSTS, PARTS, TAGS or EDGES"},
		{"DESCRIBE INDEX i", 1, 10, "INDEX i", "expected SPACE, TAG or EDGE"},
		{"DROP TAG t", 1, 6, "TAG t", "expected SPACE"},
		{"DROP SPACE IF s", 1, 15, "s", "expected EXISTS"},
		{"USE s | GO FROM 1 OVER e", 1, 7, "| GO", "only GO, FETCH and YIELD"},
		{"GO FROM 1 OVER e | USE s", 1, 20, "USE s", "expected GO, FETCH or YIELD"},
		{"$a = USE s", 1, 6, "USE s", "expected GO, FETCH or YIELD"},
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
		{"CREATE INDEX i", 1, 8, "INDEX i", "expected SPACE, TAG or EDGE"},

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

		// GO.
		{"GO FROM 1", 1, 10, "", "expected OVER"},
		{"GO 2 FROM 1 OVER e", 1, 6, "FROM 1", "expected STEPS"},
		{"GO 3 TO 2 STEPS FROM 1 OVER e", 1, 9, "2 STEPS", "upper bound"},
		{"GO -1 STEPS FROM 1 OVER e", 1, 4, "-1", "expected FROM"},
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
		{"GO FROM 1 OVER e YIELD $v", 1, 26, "", "expected '.'"},

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
		{"YIELD --1", 1, 10, "", "expected an expression"}, // "--" starts a comment

		// Lexical errors surface with the lexer's message.
		{`YIELD "abc`, 1, 7, `"abc`, "unterminated string"},
		{`YIELD "a\qb"`, 1, 9, `\q`, `invalid escape \q`},
		{"YIELD `a", 1, 7, "`a", "unterminated quoted name"},
		{"YIELD 1 /* open", 1, 9, "/* open", "unterminated comment"},
		{"YIELD 12abc", 1, 7, "12abc", "malformed number"},
		{"YIELD 1 ? 2", 1, 9, "?", "unexpected character '?'"},

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
