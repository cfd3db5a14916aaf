package console

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	ct "github.com/novagraph/novagraph/client/clienttest"
)

// runConsole runs the console against addr with extra args and returns its
// exit code and output.
func runConsole(t *testing.T, addr string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args = append([]string{"-addr", host, "-port", port}, args...)
	code = Run(testContext(t), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// nbaGraphd answers the statements of the console tests.
func nbaGraphd(t *testing.T) *ct.Graphd {
	graphd := ct.Start(t)
	graphd.Script("MATCH (v:player) RETURN v.name", ct.Result(900, []string{"v.name"},
		ct.Row(ct.Str("Tim")), ct.Row(ct.Str("Tony"))))
	graphd.Script("RETURN 1", ct.Result(10, []string{"1"}, ct.Row(ct.Int(1))))
	return graphd
}

func TestExecRunsStatementsInOrder(t *testing.T) {
	graphd := nbaGraphd(t)
	code, stdout, stderr := runConsole(t, graphd.Addr, "", "-e", "USE nba; MATCH (v:player) RETURN v.name; RETURN 1")
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	want := []string{"USE nba", "MATCH (v:player) RETURN v.name", "RETURN 1"}
	if got := graphd.Executed(); !reflect.DeepEqual(got, want) {
		t.Errorf("graphd ran %q, want %q", got, want)
	}
	for _, part := range []string{"Execution succeeded (time spent 0/", `| "Tony"`, "Got 2 rows (time spent 900/", "Got 1 rows"} {
		if !strings.Contains(stdout, part) {
			t.Errorf("stdout lacks %q:\n%s", part, stdout)
		}
	}
}

func TestExecStopsAtFirstFailure(t *testing.T) {
	graphd := nbaGraphd(t)
	code, _, stderr := runConsole(t, graphd.Addr, "", "-e", "USE nba; SHOW NONSENSE; RETURN 1")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if want := "-e:1: statement 2: [ERROR (E_SYNTAX)]: "; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start with %q", stderr, want)
	}
	if got := graphd.Executed(); len(got) != 2 {
		t.Errorf("graphd ran %q; nothing after the failure should run", got)
	}
}

func TestFileRunsAndNamesTheFailingStatement(t *testing.T) {
	graphd := nbaGraphd(t)
	script := `-- load the nba space, one statement per ';'
USE nba;
MATCH (v:player)
  RETURN v.name;

/* the next one fails */
SHOW
  NONSENSE;
RETURN 1;
`
	path := filepath.Join(t.TempDir(), "nba.ngql")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runConsole(t, graphd.Addr, "", "-f", path)
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if want := path + ":7: statement 3: [ERROR (E_SYNTAX)]: "; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to start with %q", stderr, want)
	}
	if !strings.Contains(stdout, "Got 2 rows") {
		t.Errorf("stdout lacks the MATCH result:\n%s", stdout)
	}
	want := []string{"USE nba", "MATCH (v:player)\n  RETURN v.name", "SHOW\n  NONSENSE"}
	if got := graphd.Executed(); !reflect.DeepEqual(got, want) {
		t.Errorf("graphd ran %q, want %q", got, want)
	}
}

func TestFileThatDoesNotExist(t *testing.T) {
	code, _, stderr := runConsole(t, nbaGraphd(t).Addr, "", "-f", filepath.Join(t.TempDir(), "missing.ngql"))
	if code != 1 || !strings.Contains(stderr, "missing.ngql") {
		t.Errorf("exit code %d, stderr %q; want 1 naming the file", code, stderr)
	}
}

func TestStdinRunsAsScriptUntilExit(t *testing.T) {
	graphd := nbaGraphd(t)
	code, stdout, stderr := runConsole(t, graphd.Addr, "USE nba;\nRETURN\n 1;\nexit;\nRETURN never;\n")
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	if got := graphd.Executed(); len(got) != 2 {
		t.Errorf("graphd ran %q; exit should stop the script", got)
	}
	if !strings.Contains(stdout, "Got 1 rows") {
		t.Errorf("stdout lacks the result:\n%s", stdout)
	}
}

func TestCSVFormat(t *testing.T) {
	code, stdout, stderr := runConsole(t, nbaGraphd(t).Addr, "", "--format", "csv", "-e", "MATCH (v:player) RETURN v.name")
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	// stdout is CSV alone, for a pipe or a file.
	if stdout != "v.name\nTim\nTony\n" || !strings.Contains(stderr, "Got 2 rows (time spent 900/") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}

func TestConnectionFailureNamesAddress(t *testing.T) {
	dead := ct.DeadAddr(t)
	code, _, stderr := runConsole(t, dead, "", "-e", "RETURN 1")
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if want := "cannot connect to graphd at " + dead; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
}

func TestAuthenticationFailure(t *testing.T) {
	code, _, stderr := runConsole(t, nbaGraphd(t).Addr, "", "-p", "wrong", "-e", "RETURN 1")
	if code != 1 || !strings.Contains(stderr, "[ERROR (E_AUTH)]") {
		t.Errorf("exit code %d, stderr %q; want 1 and E_AUTH", code, stderr)
	}
}

func TestUsage(t *testing.T) {
	addr := ct.DeadAddr(t) // usage is checked before connecting
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, "Usage: nova-console"},
		{[]string{"--format", "xml"}, 2, `-format "xml": want table, csv or json`},
		{[]string{"-e", "RETURN 1", "-f", "x.ngql"}, 2, "exclusive"},
		{[]string{"RETURN 1"}, 2, "unexpected arguments"},
	} {
		code, _, stderr := runConsole(t, addr, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit code %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// scriptedLines is a lineReader that replays lines and records prompts.
type scriptedLines struct {
	lines   []string // ctrlC stands for an interrupt
	prompts []string
	history []string
}

func (s *scriptedLines) SaveHistory(entry string) { s.history = append(s.history, entry) }

const ctrlC = "\x03"

func (s *scriptedLines) ReadLine(prompt string) (string, error) {
	s.prompts = append(s.prompts, prompt)
	if len(s.lines) == 0 {
		return "", io.EOF
	}
	line := s.lines[0]
	s.lines = s.lines[1:]
	if line == ctrlC {
		return "", errInterrupted
	}
	return line, nil
}

func (s *scriptedLines) Close() error { return nil }

func TestInteractive(t *testing.T) {
	graphd := nbaGraphd(t)
	c, stdout, stderr := newTestConsole(t, graphd, formatTable)
	lines := &scriptedLines{lines: []string{
		"USE nba",
		`MATCH (v:player) \`, // continues on the next line
		"RETURN v.name",
		"RETURN (", // continues (open paren), then abandoned with Ctrl-C
		ctrlC,
		"SHOW NONSENSE; RETURN 1", // a failure does not end the session
		":exit",
		"RETURN never",
	}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatalf("interact: %v", err)
	}

	none, nba, more := "(root@nova) [(none)]> ", "(root@nova) [nba]> ", "                -> "
	wantPrompts := []string{none, nba, more, nba, more, nba, nba}
	if !reflect.DeepEqual(lines.prompts, wantPrompts) {
		t.Errorf("prompts\n got %q\nwant %q", lines.prompts, wantPrompts)
	}
	wantRan := []string{"USE nba", "MATCH (v:player) \nRETURN v.name", "SHOW NONSENSE", "RETURN 1"}
	if got := graphd.Executed(); !reflect.DeepEqual(got, wantRan) {
		t.Errorf("graphd ran %q, want %q", got, wantRan)
	}
	if !strings.HasPrefix(stderr.String(), "[ERROR (E_SYNTAX)]: ") {
		t.Errorf("stderr %q, want the E_SYNTAX error", stderr)
	}
	wantOut := `Execution succeeded (time spent 0/250 us)

+--------+
| v.name |
+--------+
| "Tim"  |
| "Tony" |
+--------+
Got 2 rows (time spent 900/250 us)

+---+
| 1 |
+---+
| 1 |
+---+
Got 1 rows (time spent 10/250 us)

`
	if stdout.String() != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, wantOut)
	}
}

func TestInteractiveEndsAtEOF(t *testing.T) {
	c, _, _ := newTestConsole(t, nbaGraphd(t), formatTable)
	if err := c.interact(testContext(t), &scriptedLines{lines: []string{"RETURN 1"}}); err != nil {
		t.Errorf("interact at EOF: %v", err)
	}
}

func TestInteractiveHintsAtExpiredSession(t *testing.T) {
	graphd := nbaGraphd(t)
	c, _, stderr := newTestConsole(t, graphd, formatTable)
	graphd.ExpireSessions()
	if err := c.interact(testContext(t), &scriptedLines{lines: []string{"RETURN 1"}}); err != nil {
		t.Fatalf("interact: %v", err)
	}
	if !strings.Contains(stderr.String(), "[ERROR (E_SESSION)]") || !strings.Contains(stderr.String(), "restart the console") {
		t.Errorf("stderr %q lacks the E_SESSION error and hint", stderr)
	}
}
