package parser

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/query/ast"
)

func TestSetSession(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		bytes     int64
		timeout   time.Duration
	}{
		{"SET QUERY_MEMORY_LIMIT = 100MB", "SET QUERY_MEMORY_LIMIT = 104857600", 100 << 20, 0},
		{"set query_memory_limit = 100 mb", "SET QUERY_MEMORY_LIMIT = 104857600", 100 << 20, 0},
		{`SET QUERY_MEMORY_LIMIT = "2GiB"`, "SET QUERY_MEMORY_LIMIT = 2147483648", 2 << 30, 0},
		{"SET QUERY_MEMORY_LIMIT = 1.5KB", "SET QUERY_MEMORY_LIMIT = 1536", 1536, 0},
		{"SET QUERY_MEMORY_LIMIT = 4096", "SET QUERY_MEMORY_LIMIT = 4096", 4096, 0},
		{"SET QUERY_MEMORY_LIMIT = 0", "SET QUERY_MEMORY_LIMIT = 0", 0, 0},
		{"SET QUERY_MEMORY_LIMIT = DEFAULT", "SET QUERY_MEMORY_LIMIT = DEFAULT", 0, 0},
		{"SET QUERY_TIMEOUT = 10s", `SET QUERY_TIMEOUT = "10s"`, 0, 10 * time.Second},
		{"SET QUERY_TIMEOUT = 1.5s", `SET QUERY_TIMEOUT = "1.5s"`, 0, 1500 * time.Millisecond},
		{"SET QUERY_TIMEOUT = 500 ms", `SET QUERY_TIMEOUT = "500ms"`, 0, 500 * time.Millisecond},
		{"SET QUERY_TIMEOUT = 1h30m", `SET QUERY_TIMEOUT = "1h30m0s"`, 0, 90 * time.Minute},
		{`SET QUERY_TIMEOUT = "2m"`, `SET QUERY_TIMEOUT = "2m0s"`, 0, 2 * time.Minute},
		{"SET QUERY_TIMEOUT = 0", "SET QUERY_TIMEOUT = 0", 0, 0},
		{"SET QUERY_TIMEOUT = default", "SET QUERY_TIMEOUT = DEFAULT", 0, 0},
	} {
		st := parseOne(t, tc.src)
		s, ok := st.(*ast.SetSessionStmt)
		if !ok {
			t.Fatalf("%q parsed as %T", tc.src, st)
		}
		if s.String() != tc.want || s.Bytes != tc.bytes || s.Timeout != tc.timeout {
			t.Fatalf("%q: got %q bytes %d timeout %v, want %q %d %v", tc.src, s.String(), s.Bytes, s.Timeout, tc.want, tc.bytes, tc.timeout)
		}
		if again := parseOne(t, s.String()); again.String() != s.String() {
			t.Fatalf("%q: %q parses back as %q", tc.src, s.String(), again.String())
		}
	}
}

// TestSetSessionGluedUnit checks that a value such as 100MB, which the lexer
// sees as a malformed number, does not lose the statements after it nor
// their positions.
func TestSetSessionGluedUnit(t *testing.T) {
	stmts, err := Parse("SET QUERY_MEMORY_LIMIT = 100MB; SET QUERY_TIMEOUT = 2s;\nGO FROM 1 OVER e")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 3 {
		t.Fatalf("%d statements, want 3", len(stmts))
	}
	if p := stmts[1].Position(); p.Line != 1 || p.Col != 33 {
		t.Fatalf("second statement at %+v, want line 1 column 33", p)
	}
	if p := stmts[2].Position(); p.Line != 2 || p.Col != 1 {
		t.Fatalf("third statement at %+v, want line 2 column 1", p)
	}
	_, err = Parse("SET QUERY_TIMEOUT = 2s; GO FORM 1 OVER e")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.Col != 28 || se.Near != "FORM 1" {
		t.Fatalf("error after a glued unit: %v, want line 1 column 28 near FORM 1", err)
	}
}

func TestKillQuery(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"KILL QUERY (session=1625553545984255, plan=163)", "KILL QUERY (session = 1625553545984255, plan = 163)"},
		{"kill query (plan = 7, session = 3)", "KILL QUERY (session = 3, plan = 7)"},
		{"KILL QUERY (plan=7)", "KILL QUERY (plan = 7)"},
	} {
		if got := parseOne(t, tc.src).String(); got != tc.want {
			t.Fatalf("%q printed %q, want %q", tc.src, got, tc.want)
		}
	}
	if got := parseOne(t, "SHOW QUERIES").String(); got != "SHOW QUERIES" {
		t.Fatalf("SHOW QUERIES printed %q", got)
	}
}

func TestSessionStatementErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"SET QUERY_MEMORY_LIMIT = 100XB", `QUERY_MEMORY_LIMIT: "100XB" is not a size`},
		{"SET QUERY_MEMORY_LIMIT = -1", "expected a size"},
		{"SET QUERY_MEMORY_LIMIT = 99999999999TB", "too large"},
		{"SET QUERY_TIMEOUT = 10", "needs a unit"},
		{"SET QUERY_TIMEOUT = 10parsecs", "not a duration"},
		{"SET QUERY_TIMEOUT", "expected '='"},
		{"SET NOTHING = 1", "expected QUERY_MEMORY_LIMIT or QUERY_TIMEOUT"},
		{"KILL QUERY (session=1)", "needs plan"},
		{"KILL QUERY (plan=1, plan=2)", "duplicate option plan"},
		{"KILL QUERY (user=1)", "expected session = <id> or plan = <id>"},
		{"KILL QUERY (plan=-1)", "plan id must be"},
		{"KILL 1", "expected QUERY"},
	} {
		_, err := Parse(tc.src)
		if err == nil {
			t.Fatalf("%q parsed", tc.src)
		}
		checkSyntaxError(t, tc.src, err)
		if !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%q: %v, want %q", tc.src, err, tc.want)
		}
	}
}
