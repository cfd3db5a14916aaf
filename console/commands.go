package console

import (
	"context"
	"embed"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/novagraph/novagraph/client"
)

// Console commands, as NebulaGraph's console has them, are statements that
// start with ':' (see splitter). They run in the console; graphd never sees
// them. A failing command prints its error and the prompt goes on; in a
// script (-e, -f) it fails the script like a failing statement.

const commandHelp = `Console commands (names are case-insensitive; a command ends at the end of its line or at ';'):
  :param name => value   set the query parameter $name to an nGQL value ("player100", 3, [1, 2], date("2024-01-02"), $other + 1)
  :param name =>         remove $name
  :params [name]         show the parameters (or one)
  :csv <file>            also write the next statement's result to <file> as CSV
  :json <file>           also write the next statement's result to <file> as JSON
  :json                  toggle printing results as JSON (one object per statement)
  :format table|csv|json print results in this format
  :repeat N              run the next statement N times and print the average time
  :sleep N               wait N seconds (a script's pause)
  :play <demo>           load a demo graph shipped with the console (` + "%s" + `)
  :help                  this help
  :exit, :quit           leave the console (so do exit, quit and Ctrl-D)
`

// demos are the graphs :play loads: demos/<name>.ngql, each a script of
// statements ended by ';', embedded so that the binary works anywhere.
//
//go:embed demos/*.ngql
var demos embed.FS

// demoNames lists the demos :play knows, sorted.
func demoNames() []string {
	entries, err := demos.ReadDir("demos")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".ngql"); ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// commandError is a console command that failed; it names the command.
type commandError struct {
	cmd string // without the ':'
	msg string
}

func (e *commandError) Error() string {
	if e.cmd == "" {
		return e.msg
	}
	return ":" + e.cmd + ": " + e.msg
}

func commandErrorf(cmd, format string, args ...any) error {
	return &commandError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// isCommand reports whether stmt is a console command.
func isCommand(stmt string) bool { return strings.HasPrefix(stmt, ":") }

// splitCommand splits ":name args" into the lower-cased name and the
// arguments, trimmed.
func splitCommand(stmt string) (name, args string) {
	text := strings.TrimPrefix(stmt, ":")
	end := strings.IndexFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if end < 0 {
		return strings.ToLower(text), ""
	}
	return strings.ToLower(text[:end]), strings.TrimSpace(text[end:])
}

// nextStatement is what :repeat, :csv <file> and :json <file> asked of the
// next nGQL statement; it applies once.
type nextStatement struct {
	repeat int     // runs; 0 or 1 runs once
	export *export // nil: the result is only printed
}

// export is a file that gets the next statement's result.
type export struct {
	cmd    string // "csv" or "json", for messages
	path   string
	format outputFormat
}

// command runs the console command stmt.
func (c *console) command(ctx context.Context, stmt string) error {
	name, args := splitCommand(stmt)
	noArgs := func() error {
		if args != "" {
			return commandErrorf(name, "takes no arguments, got %q", args)
		}
		return nil
	}
	switch name {
	case "help", "h", "?":
		if err := noArgs(); err != nil {
			return err
		}
		fmt.Fprintf(c.info(), commandHelp, strings.Join(demoNames(), ", "))
		return nil
	case "param":
		return c.setParam(args)
	case "params":
		return c.showParams(args)
	case "csv":
		return c.armExport(name, args, formatCSV)
	case "json":
		if args == "" {
			c.toggleJSON()
			return nil
		}
		return c.armExport(name, args, formatJSON)
	case "format":
		f, err := parseFormat(args)
		if err != nil {
			return commandErrorf(name, "%v", err)
		}
		c.setFormat(f)
		return nil
	case "repeat":
		n, err := strconv.Atoi(args)
		if err != nil || n < 1 {
			return commandErrorf(name, "want :repeat N with N a positive integer, got %q", args)
		}
		c.next.repeat = n
		return nil
	case "sleep":
		return c.sleepCommand(ctx, args)
	case "play":
		return c.play(ctx, args)
	case "":
		return commandErrorf(name, "a lone ':' is not a command (:help lists the commands)")
	}
	return commandErrorf(name, "unknown command (:help lists the commands)")
}

// info is where the console's own messages go: stdout next to the
// results, except with JSON and CSV results, whose stdout stays JSON Lines
// or CSV that a pipe or a file can take as it is.
func (c *console) info() io.Writer {
	if c.format == formatJSON || c.format == formatCSV {
		return c.stderr
	}
	return c.stdout
}

func (c *console) setFormat(f outputFormat) {
	if f != formatJSON {
		c.textFormat = f
	}
	c.format = f
	fmt.Fprintf(c.info(), "Results print as %s.\n", f)
}

// toggleJSON switches between JSON and the text format used before.
func (c *console) toggleJSON() {
	if c.format == formatJSON {
		c.setFormat(c.textFormat)
		return
	}
	c.setFormat(formatJSON)
}

// armExport makes the next statement's result go to the file in args too.
func (c *console) armExport(cmd, args string, format outputFormat) error {
	path := unquote(args)
	if path == "" {
		return commandErrorf(cmd, "want :%s <file>", cmd)
	}
	// Fail now, not after the statement ran, if the file cannot be made.
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return commandErrorf(cmd, "cannot write %s: directory %s does not exist", path, filepath.Dir(path))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return commandErrorf(cmd, "cannot write %s: it is a directory", path)
	}
	c.next.export = &export{cmd: cmd, path: path, format: format}
	fmt.Fprintf(c.info(), "The next statement's result also goes to %s.\n", path)
	return nil
}

// writeExport writes rs to the file ex names.
func (c *console) writeExport(ex *export, rs *client.ResultSet, wallUS int64) error {
	if !rs.HasData() {
		fmt.Fprintf(c.info(), ":%s %s: the statement returned no result set; nothing written.\n", ex.cmd, ex.path)
		return nil
	}
	var body []byte
	switch ex.format {
	case formatJSON:
		b, err := renderJSON(rs, wallUS)
		if err != nil {
			return commandErrorf(ex.cmd, "%v", err)
		}
		body = append(b, '\n')
	default:
		s, err := renderCSV(rs)
		if err != nil {
			return commandErrorf(ex.cmd, "%v", err)
		}
		body = []byte(s)
	}
	if err := os.WriteFile(ex.path, body, 0o644); err != nil {
		return commandErrorf(ex.cmd, "%v", err)
	}
	fmt.Fprintf(c.info(), "Wrote %d rows to %s.\n\n", rs.Len(), ex.path)
	return nil
}

// unquote strips one pair of matching quotes around s, so that a file name
// with spaces can be given.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		if s[0] == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
		}
		return s[1 : len(s)-1]
	}
	return s
}

// maxSleep bounds :sleep, which cannot be interrupted but by Ctrl-C.
const maxSleep = 24 * time.Hour

func (c *console) sleepCommand(ctx context.Context, args string) error {
	secs, err := strconv.ParseFloat(args, 64)
	if err != nil || secs < 0 || math.IsNaN(secs) || secs > maxSleep.Seconds() {
		return commandErrorf("sleep", "want :sleep N with N seconds between 0 and %d, got %q", int(maxSleep.Seconds()), args)
	}
	sleep := c.sleep
	if sleep == nil {
		sleep = sleepContext
	}
	if err := sleep(ctx, time.Duration(secs*float64(time.Second))); err != nil {
		return commandErrorf("sleep", "%v", err)
	}
	return nil
}

// sleepContext waits d or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// demoAliases are other names of the demos: NebulaGraph's console calls
// its sample basketballplayer.
var demoAliases = map[string]string{"basketballplayer": "basketball"}

// demoStatements is the script of a demo, statement by statement.
func demoStatements(name string) ([]Statement, error) {
	script, err := demos.ReadFile("demos/" + name + ".ngql")
	if err != nil {
		return nil, err
	}
	split := newScriptSplitter()
	var stmts []Statement
	for _, line := range strings.Split(string(script), "\n") {
		stmts = append(stmts, split.Feed(line)...)
	}
	return append(stmts, split.Flush()...), nil
}

// DemoStatements is the script :play runs for a demo (basketball), for
// tests that load the demo graph without a console.
func DemoStatements(name string) ([]string, error) {
	stmts, err := demoStatements(name)
	if err != nil {
		return nil, fmt.Errorf("no demo %q (there is %s)", name, strings.Join(demoNames(), ", "))
	}
	out := make([]string, len(stmts))
	for i, st := range stmts {
		out[i] = st.Text
	}
	return out, nil
}

// play loads the demo named in args, without printing the statements'
// results. The session is left in the space the demo uses.
func (c *console) play(ctx context.Context, args string) error {
	names := demoNames()
	name := strings.ToLower(unquote(args))
	if alias, ok := demoAliases[name]; ok {
		name = alias
	}
	if name == "" {
		return commandErrorf("play", "which demo? There is %s", strings.Join(names, ", "))
	}
	stmts, err := demoStatements(name)
	if err != nil {
		return commandErrorf("play", "no demo %q (there is %s)", name, strings.Join(names, ", "))
	}
	fmt.Fprintf(c.info(), "Loading demo %s...\n", name)
	var latency, wall int64
	for i, stmt := range stmts {
		start := c.now()
		rs, err := c.session.Execute(ctx, stmt.Text)
		wall += c.now().Sub(start).Microseconds()
		if err != nil {
			return commandErrorf("play", "demo %s, statement %d of %d (line %d): %s", name, i+1, len(stmts), stmt.Line, formatError(err))
		}
		latency += rs.LatencyUS()
	}
	fmt.Fprintf(c.info(), "Loaded demo %s: %d statements (time spent %d/%d us).", name, len(stmts), latency, wall)
	if space := c.session.SpaceName(); space != "" {
		fmt.Fprintf(c.info(), " The session uses space %s.", space)
	}
	fmt.Fprint(c.info(), "\n\n")
	return nil
}
