package console

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/client"
	ct "github.com/novagraph/novagraph/client/clienttest"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/query/value"
	"github.com/novagraph/novagraph/temporal"
)

func TestSplitterCommands(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script bool
		input  string
		want   []Statement
	}{
		{"a command ends at its line in scripts", true,
			":param p => \"player100\"\nGO FROM $p\n  OVER e;\n:params\n",
			[]Statement{{`:param p => "player100"`, 1}, {"GO FROM $p\n  OVER e", 2}, {":params", 4}}},
		{"';' ends a command, also in -e", true,
			`:param p => "a;b"; :repeat 2; RETURN 1; :sleep 0`,
			[]Statement{{`:param p => "a;b"`, 1}, {":repeat 2", 1}, {"RETURN 1", 1}, {":sleep 0", 1}}},
		{"comment markers are text in a command", true,
			":csv /tmp/a--b#c//d.csv\nRETURN 1 -- one\n;",
			[]Statement{{":csv /tmp/a--b#c//d.csv", 1}, {"RETURN 1", 2}}},
		{"an open bracket or a backslash continues a command", true,
			":param l => [1,\n  2]\n:param s => \\\n  \"x\"\n",
			[]Statement{{":param l => [1,\n  2]", 1}, {":param s => \n  \"x\"", 3}}},
		{"':' inside a statement is not a command", true,
			"RETURN {a: 1}\n:csv x.csv;",
			[]Statement{{"RETURN {a: 1}\n:csv x.csv", 1}}},
		{"after a comment", false,
			"/* c */ :params\n  :JSON",
			[]Statement{{":params", 1}, {":JSON", 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newPromptSplitter()
			if tc.script {
				s = newScriptSplitter()
			}
			if got := splitAll(s, tc.input); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("split(%q)\n got %+v\nwant %+v", tc.input, got, tc.want)
			}
		})
	}
}

func TestParseParam(t *testing.T) {
	date, _ := temporal.NewDate(2024, 1, 2)
	set := map[string]value.Value{"n": value.Int(2)}
	for _, tc := range []struct {
		args string
		name string
		want *value.Value // nil: remove
	}{
		{`p => "player100"`, "p", ptr(value.Str("player100"))},
		{`n=>3`, "n", ptr(value.Int(3))},
		{`$min => 1.5`, "min", ptr(value.Float(1.5))},
		{`ids => ["a", "b"]`, "ids", ptr(value.List(value.Str("a"), value.Str("b")))},
		{`mixed => [1, [true, NULL]]`, "mixed", ptr(value.List(value.Int(1), value.List(value.Bool(true), value.Null())))},
		{`d => date("2024-01-02")`, "d", ptr(value.Date(date))},
		{`m => $n * 10 + 1`, "m", ptr(value.Int(21))},
		{`s => "a => b"`, "s", ptr(value.Str("a => b"))},
		{`_x1 =>`, "_x1", nil},
		{`p =>   `, "p", nil},
	} {
		cmd, err := parseParam(tc.args, set)
		if err != nil {
			t.Errorf("parseParam(%q): %v", tc.args, err)
			continue
		}
		if cmd.name != tc.name || !reflect.DeepEqual(cmd.value, tc.want) {
			t.Errorf("parseParam(%q) = %s %v, want %s %v", tc.args, cmd.name, cmd.value, tc.name, tc.want)
		}
	}

	for _, tc := range []struct{ args, want string }{
		{``, ":param: want :param name => value"},
		{`p "x"`, `:param: missing '=>' in "p \"x\""`},
		{`p = 1`, `:param: missing '=>'`},
		{`=> 1`, ":param: missing the parameter name"},
		{`1p => 1`, `:param: invalid parameter name "1p"`},
		{`a-b => 1`, `:param: invalid parameter name "a-b"`},
		{`p => 1 +`, ":param: $p => 1 +: syntax error at line 1, column 4 at end of input: expected an expression"},
		{`p => $q + 1`, ":param: $p => $q + 1: evaluating $q at line 1, column 1: query parameter $q is not set"},
		{`p => e.w`, ":param: $p => e.w: e.w: a parameter is a constant and cannot read properties or columns"},
		{`p => 1 / 0`, ":param: $p => 1 / 0: evaluating (1/0)"},
	} {
		_, err := parseParam(tc.args, set)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("parseParam(%q) = %v, want an error starting %q", tc.args, err, tc.want)
		}
	}
}

func ptr(v value.Value) *value.Value { return &v }

// paramsGraphd answers the statements of the parameter tests.
func paramsGraphd(t *testing.T) *ct.Graphd {
	g := nbaGraphd(t)
	g.Script("GO FROM $p OVER follow YIELD dst(edge)", ct.Result(20, []string{"dst(EDGE)"}, ct.Row(ct.Str("player101"))))
	return g
}

func TestParamCommands(t *testing.T) {
	graphd := paramsGraphd(t)
	c, stdout, stderr := newTestConsole(t, graphd, formatTable)
	lines := &scriptedLines{lines: []string{
		":params",
		`:param p => "player100"`,
		":param n => 3",
		":param ids => [1, $n]",
		":params",
		":params $n",
		"GO FROM $p OVER follow YIELD dst(edge)",
		":param p =>",
		":param p =>", // already gone: an error, and the console goes on
		":params nope",
		"RETURN 1",
		":param n =>",
		":param ids =>",
		"RETURN 1",
	}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatal(err)
	}
	wantOut := `No parameters are set (:param name => value sets one).
$ids => [1,3]
$n => 3
$p => "player100"
$n => 3
`
	if !strings.HasPrefix(stdout.String(), wantOut) {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", stdout, wantOut)
	}
	wantErr := "[ERROR (console)]: :param: $p is not set, so there is nothing to remove\n" +
		"[ERROR (console)]: :params: $nope is not set\n"
	if stderr.String() != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}

	sent := graphd.ExecutedParams()
	if len(sent) != 3 {
		t.Fatalf("graphd got %d statements, want 3", len(sent))
	}
	want := []map[string]*commonpb.Value{
		{"p": ct.Str("player100"), "n": ct.Int(3), "ids": ct.List(ct.Int(1), ct.Int(3))},
		{"n": ct.Int(3), "ids": ct.List(ct.Int(1), ct.Int(3))},
		nil, // no parameters left: a plain Execute
	}
	for i := range want {
		if !sameParams(sent[i], want[i]) {
			t.Errorf("statement %d was sent with %v, want %v", i+1, sent[i], want[i])
		}
	}
}

func sameParams(a, b map[string]*commonpb.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !proto.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestCSVAndJSONExport(t *testing.T) {
	graphd := nbaGraphd(t)
	graphd.Script("FAIL", ct.Fail(2, "no such thing"))
	dir := t.TempDir()
	csvPath, jsonPath := filepath.Join(dir, "players.csv"), filepath.Join(dir, "players json.json")
	c, stdout, stderr := newTestConsole(t, graphd, formatTable)
	script := strings.Join([]string{
		":csv " + csvPath,
		"MATCH (v:player) RETURN v.name;",
		`:json "` + jsonPath + `"`,
		"MATCH (v:player) RETURN v.name;",
		"RETURN 1;", // no longer exported
		":csv " + filepath.Join(dir, "use.csv"),
		"USE nba;", // no data set: nothing written
		":csv " + filepath.Join(dir, "fail.csv"),
		"FAIL;",
	}, "\n")
	err := c.runScript(testContext(t), "t.ngql", strings.NewReader(script))
	if err == nil || !strings.Contains(err.Error(), "t.ngql:9: statement 5: [ERROR (E_SEMANTIC)]: no such thing") {
		t.Fatalf("runScript: %v, want the failure of statement 5", err)
	}
	if got, err := os.ReadFile(csvPath); err != nil || string(got) != "v.name\nTim\nTony\n" {
		t.Errorf(":csv file: %q, %v", got, err)
	}
	if got, err := os.ReadFile(jsonPath); err != nil || string(got) != `{"columns":["v.name"],"rows":[["Tim"],["Tony"]],"latency_us":900,"wall_us":250}`+"\n" {
		t.Errorf(":json file: %q, %v", got, err)
	}
	for _, name := range []string{"use.csv", "fail.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written", name)
		}
	}
	for _, part := range []string{
		"The next statement's result also goes to " + csvPath,
		"| \"Tony\" |",
		"Wrote 2 rows to " + csvPath,
		"Wrote 2 rows to " + jsonPath,
		":csv " + filepath.Join(dir, "use.csv") + ": the statement returned no result set; nothing written.",
		":csv " + filepath.Join(dir, "fail.csv") + ": the statement failed; nothing written.",
	} {
		if !strings.Contains(stdout.String(), part) {
			t.Errorf("stdout lacks %q:\n%s", part, stdout)
		}
	}
	if strings.Count(stdout.String(), "Wrote ") != 2 {
		t.Errorf("only the statements right after :csv and :json export:\n%s", stdout)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr)
	}

	for _, tc := range []struct{ cmd, want string }{
		{":csv", ":csv: want :csv <file>"},
		{":csv " + filepath.Join(dir, "nope", "x.csv"), ":csv: cannot write " + filepath.Join(dir, "nope", "x.csv") + ": directory " + filepath.Join(dir, "nope") + " does not exist"},
		{":json " + dir, ":json: cannot write " + dir + ": it is a directory"},
	} {
		if err := c.execute(testContext(t), Statement{Text: tc.cmd}); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.cmd, err, tc.want)
		}
	}
}

func TestJSONFormat(t *testing.T) {
	graphd := nbaGraphd(t)
	graphd.Script("RETURN players", players())
	graphd.Script("MATCH (v:player) RETURN v.name LIMIT 0", ct.Result(5, []string{"v.name"}))
	c, stdout, stderr := newTestConsole(t, graphd, formatJSON)
	if err := c.runScript(testContext(t), "-e", strings.NewReader("USE nba; RETURN players; MATCH (v:player) RETURN v.name LIMIT 0")); err != nil {
		t.Fatal(err)
	}
	// One line per statement: without a data set, with rows, with none.
	want := `{"latency_us":0,"wall_us":250}
{"columns":["name","age","score","active","tags","coach"],"rows":[["Tim Duncan",42,19,true,["sa",5],null],["Shaq \"O'Neal\", big",7,0.25,false,[],"Phil"]],"latency_us":1200,"wall_us":250}
{"columns":["v.name"],"rows":[],"latency_us":5,"wall_us":250}
`
	if stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr: %s", stdout, want, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("%s: not JSON: %v", line, err)
		}
	}
}

func TestJSONValues(t *testing.T) {
	date, _ := temporal.NewDate(2024, 1, 2)
	for _, tc := range []struct {
		in   any
		want any
	}{
		{nil, nil}, {"s", "s"}, {int64(1), int64(1)}, {1.5, 1.5}, {true, true},
		{math.NaN(), "NaN"}, {math.Inf(-1), "-Inf"},
		{date, "2024-01-02"},
		{[]any{int64(1), []any{math.Inf(1)}}, []any{int64(1), []any{"Inf"}}},
	} {
		if got := client.JSONValue(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("JSONValue(%v) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestFormatFlagJSON(t *testing.T) {
	code, stdout, stderr := runConsole(t, nbaGraphd(t).Addr, "", "--format", "json", "-e", "USE nba; :param n => 1; MATCH (v:player) RETURN v.name")
	if code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], `{"columns":["v.name"],"rows":[["Tim"],["Tony"]],"latency_us":900,"wall_us":`) {
		t.Errorf("stdout is not one JSON line per statement:\n%s", stdout)
	}
}

func TestJSONToggleAndFormatCommand(t *testing.T) {
	graphd := nbaGraphd(t)
	c, stdout, stderr := newTestConsole(t, graphd, formatCSV)
	lines := &scriptedLines{lines: []string{
		":json", "RETURN 1", ":json", "RETURN 1", ":format table", "RETURN 1", ":format xml", ":json x y z/",
	}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatal(err)
	}
	// JSON and CSV keep stdout to their results; the console's messages
	// (and CSV's row count) go to stderr then.
	wantOut := `{"columns":["1"],"rows":[[1]],"latency_us":10,"wall_us":250}
1
1
Results print as table.
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
	for _, part := range []string{"Results print as json.", "Results print as csv.", "Got 1 rows (time spent 10/250 us)", `[ERROR (console)]: :format: "xml": want table, csv or json`, "[ERROR (console)]: :json: cannot write x y z/"} {
		if !strings.Contains(stderr.String(), part) {
			t.Errorf("stderr lacks %q:\n%s", part, stderr)
		}
	}
}

func TestRepeat(t *testing.T) {
	graphd := nbaGraphd(t)
	// CSV: the results on stdout, the console's messages on stderr.
	c, stdout, stderr := newTestConsole(t, graphd, formatCSV)
	if err := c.runScript(testContext(t), "-e", strings.NewReader(":repeat 3; RETURN 1; RETURN 1")); err != nil {
		t.Fatal(err)
	}
	if got := graphd.Executed(); len(got) != 4 {
		t.Errorf("graphd ran %q, want RETURN 1 three times and once more", got)
	}
	want := "Executed 3 times, (total time spent 30/750 us), (average time spent 10/250 us)\n\n"
	if strings.Count(stdout.String(), "1\n1\n") != 4 || strings.Count(stderr.String(), "Got 1 rows") != 4 || strings.Count(stderr.String(), want) != 1 {
		t.Errorf("stdout:\n%s\nstderr:\n%s\nwant 4 results and one %q", stdout, stderr, want)
	}

	for _, arg := range []string{"", "0", "-1", "x", "1.5"} {
		err := c.execute(testContext(t), Statement{Text: ":repeat " + arg})
		if want := ":repeat: want :repeat N with N a positive integer"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf(":repeat %s: %v, want %q", arg, err, want)
		}
	}

	// A failing run stops the repetition.
	graphd.Script("FAIL", ct.Fail(3, "boom"))
	before := len(graphd.Executed())
	err := c.runScript(testContext(t), "-e", strings.NewReader(":repeat 5; FAIL"))
	if err == nil || len(graphd.Executed()) != before+1 || !strings.Contains(stderr.String(), ":repeat 5: run 1 failed.") {
		t.Errorf("err %v, ran %d times; stderr:\n%s", err, len(graphd.Executed())-before, stderr)
	}
}

func TestSleep(t *testing.T) {
	c, _, _ := newTestConsole(t, nbaGraphd(t), formatTable)
	var slept []time.Duration
	c.sleep = func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		return nil
	}
	if err := c.runScript(testContext(t), "-e", strings.NewReader(":sleep 1.5; :SLEEP 0; :sleep 2")); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{1500 * time.Millisecond, 0, 2 * time.Second}; !reflect.DeepEqual(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}
	for _, arg := range []string{"", "-1", "x", "NaN", "1e9"} {
		if err := c.execute(testContext(t), Statement{Text: ":sleep " + arg}); err == nil || !strings.HasPrefix(err.Error(), ":sleep: want :sleep N") {
			t.Errorf(":sleep %s: %v", arg, err)
		}
	}

	// The real sleep ends with the context.
	c.sleep = nil
	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	if err := c.execute(ctx, Statement{Text: ":sleep 60"}); err == nil || err.Error() != ":sleep: context canceled" {
		t.Errorf(":sleep on a cancelled context: %v", err)
	}
}

// demoGraphd answers every statement of the basketball demo.
func demoGraphd(t *testing.T) (*ct.Graphd, []string) {
	graphd := nbaGraphd(t)
	script, err := demos.ReadFile("demos/basketball.ngql")
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, s := range splitAll(newScriptSplitter(), string(script)) {
		stmts = append(stmts, s.Text)
		if !isUse(s.Text) {
			graphd.Script(s.Text, ct.Done(100))
		}
	}
	return graphd, stmts
}

func isUse(s string) bool { return strings.HasPrefix(s, "USE ") }

func TestPlay(t *testing.T) {
	// NebulaGraph's console calls the sample basketballplayer.
	for _, name := range []string{"basketball", "basketballplayer"} {
		t.Run(name, func(t *testing.T) { testPlay(t, name) })
	}
}

func testPlay(t *testing.T, name string) {
	graphd, stmts := demoGraphd(t)
	c, stdout, stderr := newTestConsole(t, graphd, formatTable)
	if err := c.interact(testContext(t), &scriptedLines{lines: []string{":play " + name}}); err != nil {
		t.Fatal(err)
	}
	if got := graphd.Executed(); !reflect.DeepEqual(got, stmts) {
		t.Errorf("graphd ran %d statements, want the demo's %d", len(got), len(stmts))
	}
	if len(stmts) < 5 || !strings.HasPrefix(stmts[0], "CREATE SPACE IF NOT EXISTS basketball") {
		t.Errorf("demo statements: %q", stmts)
	}
	want := "Loading demo basketball...\nLoaded demo basketball: " + itoa(len(stmts)) + " statements (time spent " +
		itoa(100*(len(stmts)-1)) + "/" + itoa(250*len(stmts)) + " us). The session uses space basketball.\n\n"
	if stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("stdout %q\nwant   %q\nstderr %q", stdout, want, stderr)
	}
	if c.prompt() != "(root@nova) [basketball]> " {
		t.Errorf("prompt after :play: %q", c.prompt())
	}
}

func TestHelp(t *testing.T) {
	c, stdout, _ := newTestConsole(t, nbaGraphd(t), formatTable)
	if err := c.execute(testContext(t), Statement{Text: ":help"}); err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{":param name => value", ":csv <file>", ":repeat N", ":play <demo>           load a demo graph shipped with the console (basketball)"} {
		if !strings.Contains(stdout.String(), part) {
			t.Errorf(":help lacks %q:\n%s", part, stdout)
		}
	}
}

func TestPlayErrors(t *testing.T) {
	graphd := nbaGraphd(t) // answers none of the demo's statements
	c, _, _ := newTestConsole(t, graphd, formatTable)
	for _, tc := range []struct{ cmd, want string }{
		{":play", ":play: which demo? There is basketball"},
		{":play nba", `:play: no demo "nba" (there is basketball)`},
		{":play ../demos/basketball", `:play: no demo "../demos/basketball" (there is basketball)`},
		{":play basketball", ":play: demo basketball, statement 1 of "},
	} {
		if err := c.execute(testContext(t), Statement{Text: tc.cmd}); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.cmd, err, tc.want)
		}
	}
	if err := c.execute(testContext(t), Statement{Text: ":play basketball"}); err == nil ||
		!strings.Contains(err.Error(), "(line 5): [ERROR (E_SYNTAX)]: clienttest: no response scripted") {
		t.Errorf(":play with failing statements: %v", err)
	}
}

func TestBadCommandsDoNotEndTheConsole(t *testing.T) {
	graphd := nbaGraphd(t)
	c, stdout, stderr := newTestConsole(t, graphd, formatTable)
	lines := &scriptedLines{lines: []string{":nope", ":", ":repeat many", ":param", ":help me", "RETURN 1", ":QUIT", "RETURN never"}}
	if err := c.interact(testContext(t), lines); err != nil {
		t.Fatal(err)
	}
	wantErr := `[ERROR (console)]: :nope: unknown command (:help lists the commands)
[ERROR (console)]: a lone ':' is not a command (:help lists the commands)
[ERROR (console)]: :repeat: want :repeat N with N a positive integer, got "many"
[ERROR (console)]: :param: want :param name => value (an nGQL value such as "player100", 3 or [1, 2]), or :param name => to remove it
[ERROR (console)]: :help: takes no arguments, got "me"
`
	if stderr.String() != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}
	if got := graphd.Executed(); !reflect.DeepEqual(got, []string{"RETURN 1"}) {
		t.Errorf("graphd ran %q", got)
	}
	if !strings.Contains(stdout.String(), "Got 1 rows") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestScriptStopsAtBadCommand(t *testing.T) {
	graphd := nbaGraphd(t)
	code, _, stderr := runConsole(t, graphd.Addr, "", "-e", "RETURN 1; :nope; RETURN 1")
	if want := "-e:1: [ERROR (console)]: :nope: unknown command (:help lists the commands)\n"; code != 1 || stderr != want {
		t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if got := graphd.Executed(); len(got) != 1 {
		t.Errorf("graphd ran %q; nothing after the bad command should run", got)
	}
	// Statement numbers count statements only.
	code, _, stderr = runConsole(t, graphd.Addr, "", "-e", ":param n => 1; RETURN 1; SHOW NONSENSE")
	if want := "-e:1: statement 2: [ERROR (E_SYNTAX)]"; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}

func TestHistoryFileOption(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	opts, err := parseOptions(nil, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".nova_history"); opts.historyFile != want || opts.format != formatTable {
		t.Errorf("defaults: history %q, format %q; want %q, table", opts.historyFile, opts.format, want)
	}
	opts, err = parseOptions([]string{"--history-file", "", "--format", "JSON"}, new(strings.Builder))
	if err != nil || opts.historyFile != "" || opts.format != formatJSON {
		t.Errorf("--history-file '' --format JSON: %+v, %v", opts, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
