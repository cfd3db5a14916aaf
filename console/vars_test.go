package console

import (
	"context"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	ct "github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// TestVariablesGoWithTheirStatement: variables live for one request, so a
// statement assigning one is sent in one request with the statements after
// it, up to the first that assigns nothing, in scripts and at the prompt.
func TestVariablesGoWithTheirStatement(t *testing.T) {
	graphd := nbaGraphd(t)
	joined := "$a = GO FROM 1 OVER e YIELD dst(edge) AS id; $b = YIELD 2 AS id; GO FROM $a.id OVER e YIELD dst(edge)"
	graphd.Script(joined, ct.Result(10, []string{"dst(EDGE)"}, ct.Row(ct.Int(7))))
	code, stdout, stderr := runConsole(t, graphd.Addr, "",
		"-e", "USE nba; $a = GO FROM 1 OVER e YIELD dst(edge) AS id;\n$b = YIELD 2 AS id; GO FROM $a.id OVER e YIELD dst(edge); RETURN 1")
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	if got, want := graphd.Executed(), []string{"USE nba", joined, "RETURN 1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("graphd ran %q, want %q", got, want)
	}
	if !strings.Contains(stdout, "| 7 ") {
		t.Errorf("stdout lacks the last statement's result:\n%s", stdout)
	}

	// At the prompt: held across lines, dropped by ^C.
	graphd = nbaGraphd(t)
	graphd.Script("$v = RETURN 1; RETURN 1", ct.Result(10, []string{"1"}, ct.Row(ct.Int(1))))
	c, out, _ := newTestConsole(t, graphd, formatTable)
	lines := &scriptedLines{lines: []string{"$v = RETURN 1", "RETURN 1", "$w = RETURN 1", ctrlC, "RETURN 1"}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatal(err)
	}
	if got, want := graphd.Executed(), []string{"$v = RETURN 1; RETURN 1", "RETURN 1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("graphd ran %q, want %q", got, want)
	}
	if !strings.Contains(out.String(), "the variable is sent with the next statement") {
		t.Errorf("no word that the assignment waits")
	}
}

func TestIsAssignment(t *testing.T) {
	for stmt, want := range map[string]bool{
		"$v = GO FROM 1 OVER e": true, " $v_2=YIELD 1": true, "$v == 1": false, "$-.x": false,
		"YIELD $v": false, "GO FROM $v.id OVER e": false, "$v": false,
	} {
		if got := isAssignment(stmt); got != want {
			t.Errorf("isAssignment(%q) = %v, want %v", stmt, got, want)
		}
	}
}

// TestHistoryKeepsNoSecretOfAMultiLineStatement: the history gets one
// entry per statement, redacted whole, so a password on a continuation
// line is not saved.
func TestHistoryKeepsNoSecretOfAMultiLineStatement(t *testing.T) {
	graphd := nbaGraphd(t)
	c, _, _ := newTestConsole(t, graphd, formatTable)
	lines := &scriptedLines{lines: []string{`ALTER USER root WITH PASSWORD "abc`, `def"`, "RETURN 1"}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatal(err)
	}
	if len(lines.history) != 2 || lines.history[1] != "RETURN 1" {
		t.Fatalf("history %q, want the ALTER and RETURN 1", lines.history)
	}
	if h := lines.history[0]; strings.Contains(h, "abc") || strings.Contains(h, "def") || !strings.HasPrefix(h, "ALTER USER root WITH PASSWORD") {
		t.Errorf("history entry %q keeps the password", h)
	}
}

// TestCtrlCCancelsTheStatement: Ctrl-C while a statement runs at the prompt
// cancels that statement (graphd sees its context end) and the prompt goes
// on; without the console's handler SIGINT would end the test process.
func TestCtrlCCancelsTheStatement(t *testing.T) {
	graphd := nbaGraphd(t)
	started, cancelled := make(chan struct{}), make(chan struct{})
	graphd.ScriptFunc("GO 9 STEPS FROM 1 OVER e", func(ctx context.Context, _ string) *graphpb.ExecuteResp {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_KILLED, Error: "cancelled"}
	})
	go func() {
		<-started
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	c, _, errOut := newTestConsole(t, graphd, formatTable)
	lines := &scriptedLines{lines: []string{"GO 9 STEPS FROM 1 OVER e", "RETURN 1"}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("graphd never saw the statement cancelled")
	}
	if !strings.Contains(errOut.String(), "^C: statement cancelled") {
		t.Errorf("stderr %q lacks the cancellation", errOut)
	}
	if got := graphd.Executed(); len(got) != 2 || got[1] != "RETURN 1" {
		t.Errorf("graphd ran %q; the prompt should go on after ^C", got)
	}
}

// TestCtrlDSaysWhatWasNotRun: input ending inside a statement says so
// instead of dropping it without a word.
func TestCtrlDSaysWhatWasNotRun(t *testing.T) {
	c, _, errOut := newTestConsole(t, nbaGraphd(t), formatTable)
	if err := c.interact(testContext(t), &scriptedLines{lines: []string{`RETURN "open`}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "not run") {
		t.Errorf("stderr %q", errOut)
	}
}
