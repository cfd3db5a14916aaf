package console

import (
	"reflect"
	"strings"
	"testing"
)

// splitAll feeds input line by line to s and flushes at the end.
func splitAll(s *splitter, input string) []Statement {
	var got []Statement
	for _, line := range strings.Split(input, "\n") {
		got = append(got, s.Feed(line)...)
	}
	return append(got, s.Flush()...)
}

func TestPromptSplitter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []Statement
	}{
		{"one per line", "SHOW SPACES\nUSE nba",
			[]Statement{{"SHOW SPACES", 1}, {"USE nba", 2}}},
		{"semicolons on a line", "USE nba; SHOW TAGS;  ;SHOW EDGES;",
			[]Statement{{"USE nba", 1}, {"SHOW TAGS", 1}, {"SHOW EDGES", 1}}},
		{"semicolons in quotes", `INSERT VERTEX t(s) VALUES "a":("x;y"), "b":('p;"q')`,
			[]Statement{{`INSERT VERTEX t(s) VALUES "a":("x;y"), "b":('p;"q')`, 1}}},
		{"escaped quote", `RETURN "a\";b"; RETURN 1`,
			[]Statement{{`RETURN "a\";b"`, 1}, {"RETURN 1", 1}}},
		{"backquoted name", "USE `my;space`; SHOW TAGS",
			[]Statement{{"USE `my;space`", 1}, {"SHOW TAGS", 1}}},
		// MATCH's relationships are not comments; "-- " elsewhere is.
		{"match arrows", "MATCH (a)-->(b)<--(c)-- (d) RETURN a -- note\nYIELD 1 --1",
			[]Statement{{"MATCH (a)-->(b)<--(c)-- (d) RETURN a", 1}, {"YIELD 1 --1", 2}}},
		{"trailing backslash", "GO FROM \"a\" \\\n  OVER follow \\  \nYIELD dst(edge)\nRETURN 1",
			[]Statement{{"GO FROM \"a\" \n  OVER follow \nYIELD dst(edge)", 1}, {"RETURN 1", 4}}},
		{"open paren continues", "INSERT VERTEX player(name) VALUES\n\"a\":(\n\"Tim\"\n)",
			[]Statement{{"INSERT VERTEX player(name) VALUES", 1}, {"\"a\":(\n\"Tim\"\n)", 2}}},
		{"open quote continues", "RETURN \"two\nlines\"; RETURN 2",
			[]Statement{{"RETURN \"two\nlines\"", 1}, {"RETURN 2", 2}}},
		{"line comments", "# setup\nUSE nba # pick the space; not a statement\nRETURN 1 // done;",
			[]Statement{{"USE nba", 2}, {"RETURN 1", 3}}},
		{"comment markers in quotes", `RETURN "#1 // not /* a comment */"`,
			[]Statement{{`RETURN "#1 // not /* a comment */"`, 1}}},
		{"block comment", "RETURN /* a;\nb */ 1; RETURN 2",
			[]Statement{{"RETURN \n  1", 1}, {"RETURN 2", 2}}},
		{"double dash comment", "RETURN 1 -- it's one; really",
			[]Statement{{"RETURN 1", 1}}},
		{"blank and comment-only lines", "\n   \n# nothing\n/* nor */\n",
			nil},
		{"unclosed quote is flushed", "RETURN \"oops",
			[]Statement{{"RETURN \"oops", 1}}},
		{"stray closer", "RETURN 1)\nRETURN (2)",
			[]Statement{{"RETURN 1)", 1}, {"RETURN (2)", 2}}},
		{"crlf", "USE nba\r\nRETURN 1\r\n",
			[]Statement{{"USE nba", 1}, {"RETURN 1", 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitAll(newPromptSplitter(), tc.input); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("split(%q)\n got %+v\nwant %+v", tc.input, got, tc.want)
			}
		})
	}
}

func TestScriptSplitter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []Statement
	}{
		{"statements span lines until ';'", `-- the demo's shape
USE nba;
INSERT VERTEX player(name, age) VALUES
  "p100":("Tim Duncan", 42),
  "p101":("Tony Parker", 36);
SHOW TAGS; SHOW
  EDGES;`,
			[]Statement{
				{"USE nba", 2},
				{"INSERT VERTEX player(name, age) VALUES\n  \"p100\":(\"Tim Duncan\", 42),\n  \"p101\":(\"Tony Parker\", 36)", 3},
				{"SHOW TAGS", 6},
				{"SHOW\n  EDGES", 6},
			}},
		{"last statement needs no ';'", "USE nba;\nRETURN 1\n",
			[]Statement{{"USE nba", 1}, {"RETURN 1", 2}}},
		{"comments between statements", "USE nba; # first\n\n// then\nRETURN 1; /* done */",
			[]Statement{{"USE nba", 1}, {"RETURN 1", 4}}},
		{"trailing backslash is harmless", "GO FROM \"a\" \\\nOVER e;",
			[]Statement{{"GO FROM \"a\" \nOVER e", 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := splitAll(newScriptSplitter(), tc.input); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("split(%q)\n got %+v\nwant %+v", tc.input, got, tc.want)
			}
		})
	}
}

func TestPromptSplitterPending(t *testing.T) {
	s := newPromptSplitter()
	if got := s.Feed("MATCH (v:player"); got != nil || !s.Pending() {
		t.Fatalf("open paren: got %v, pending %v; want nothing yet, pending", got, s.Pending())
	}
	s.Reset()
	if s.Pending() {
		t.Fatal("pending after Reset")
	}
	if got := s.Feed("RETURN 1"); len(got) != 1 || got[0].Text != "RETURN 1" || s.Pending() {
		t.Errorf("after Reset: got %v, pending %v", got, s.Pending())
	}
}
