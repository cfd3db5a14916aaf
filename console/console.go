// Package console is novagraph's nGQL console (cmd/nova-console): an
// interactive prompt with history and multi-line input, or a runner of
// statements given with -e or in a file with -f. Both also run
// NebulaGraph-style console commands (commands.go): query parameters
// (:param), result export (:csv, :json), :repeat, :sleep and demo graphs
// (:play).
package console

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/internal/buildinfo"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/query/value"
)

// connectTimeout bounds connecting and logging in, so that a graphd that
// drops packets fails the console instead of hanging it.
const connectTimeout = 10 * time.Second

// errShowVersion: --version was given; Run prints it and exits.
var errShowVersion = errors.New("--version")

// Exit codes of Run.
const (
	exitOK     = 0
	exitFailed = 1 // connection failure or a failing statement
	exitUsage  = 2
)

// Run runs the console with the command-line args (without the program
// name) and returns the process exit code. Statements come from -e, -f,
// a non-terminal stdin (as a script), or else an interactive prompt.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if errors.Is(err, errShowVersion) {
		fmt.Fprintln(stdout, buildinfo.Read().String("nova-console"))
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "nova-console: %v\n", err)
		return exitUsage
	}

	addr := net.JoinHostPort(opts.host, strconv.Itoa(opts.port))
	// A client certificate need not carry a novagraph role: graphd checks
	// only that it chains to the CA (nodetls.Load checks that too).
	tlsConfig, err := nodetls.LoadClient(opts.tls)
	if err != nil {
		fmt.Fprintf(stderr, "nova-console: %v\n", err)
		return exitUsage
	}
	pool, err := client.NewPool(client.Config{Addresses: []string{addr}, TLS: tlsConfig.ClientTLS()})
	if err != nil {
		fmt.Fprintf(stderr, "nova-console: %v\n", err)
		return exitUsage
	}
	defer pool.Close()
	connectCtx, cancel := context.WithTimeout(ctx, connectTimeout)
	session, err := pool.Session(connectCtx, opts.user, opts.password)
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "nova-console: cannot connect to graphd at %s: %s\n", addr, formatError(err))
		return exitFailed
	}
	defer session.Close()

	c := newConsole(session, opts.user, opts.format, stdout, stderr)
	switch {
	case opts.exec != "":
		err = c.runScript(ctx, "-e", strings.NewReader(opts.exec))
	case opts.file != "":
		err = c.runFile(ctx, opts.file)
	case !isTerminal(stdin):
		err = c.runScript(ctx, "<stdin>", stdin)
	default:
		err = c.runInteractive(ctx, opts.historyFile)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailed
	}
	return exitOK
}

// console executes statements on one session and prints their results.
type console struct {
	session    *client.Session
	user       string
	format     outputFormat
	textFormat outputFormat // the format :json toggles back to
	stdout     io.Writer
	stderr     io.Writer
	now        func() time.Time                           // injectable so that tests print fixed times
	sleep      func(context.Context, time.Duration) error // :sleep; nil: sleepContext

	params map[string]value.Value // :param, sent with every statement
	next   nextStatement          // what :repeat, :csv and :json <file> asked of the next statement
}

func newConsole(session *client.Session, user string, format outputFormat, stdout, stderr io.Writer) *console {
	c := &console{session: session, user: user, format: format, textFormat: format, stdout: stdout, stderr: stderr, now: time.Now}
	if format == formatJSON {
		c.textFormat = formatTable
	}
	return c
}

// execute runs one statement, or console command, and prints its result.
func (c *console) execute(ctx context.Context, stmt Statement) error {
	if isCommand(stmt.Text) {
		return c.command(ctx, stmt.Text)
	}
	next := c.next
	c.next = nextStatement{}
	runs := max(next.repeat, 1)
	var rs *client.ResultSet
	var latencyUS, wallUS, lastWallUS int64
	for run := 1; run <= runs; run++ {
		var err error
		rs, lastWallUS, err = c.run(ctx, stmt.Text)
		if err != nil {
			if runs > 1 {
				fmt.Fprintf(c.info(), ":repeat %d: run %d failed.\n", runs, run)
			}
			if next.export != nil {
				fmt.Fprintf(c.info(), ":%s %s: the statement failed; nothing written.\n", next.export.cmd, next.export.path)
			}
			return err
		}
		latencyUS += rs.LatencyUS()
		wallUS += lastWallUS
		if err := renderResult(c.stdout, c.info(), rs, c.format, lastWallUS); err != nil {
			return fmt.Errorf("printing the result: %w", err)
		}
	}
	if runs > 1 {
		n := int64(runs)
		fmt.Fprintf(c.info(), "Executed %d times, (total time spent %d/%d us), (average time spent %d/%d us)\n\n",
			runs, latencyUS, wallUS, latencyUS/n, wallUS/n)
	}
	if next.export != nil {
		return c.writeExport(next.export, rs, lastWallUS)
	}
	return nil
}

// run sends one statement with the console's parameters and returns its
// result and the client-side time it took.
func (c *console) run(ctx context.Context, stmt string) (*client.ResultSet, int64, error) {
	start := c.now()
	var rs *client.ResultSet
	var err error
	if len(c.params) == 0 {
		rs, err = c.session.Execute(ctx, stmt)
	} else {
		rs, err = c.session.ExecuteWithParams(ctx, stmt, c.paramArgs())
	}
	return rs, c.now().Sub(start).Microseconds(), err
}

func (c *console) runFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nova-console: %w", err)
	}
	defer f.Close()
	return c.runScript(ctx, path, f)
}

// scriptError is the first failing statement, or console command, of a
// script.
type scriptError struct {
	source string // file name, "-e" or "<stdin>"
	line   int
	number int // 1-based among the script's statements; 0 for a command
	err    error
}

func (e *scriptError) Error() string {
	if e.number == 0 {
		return fmt.Sprintf("%s:%d: %s", e.source, e.line, formatError(e.err))
	}
	return fmt.Sprintf("%s:%d: statement %d: %s", e.source, e.line, e.number, formatError(e.err))
}

func (e *scriptError) Unwrap() error { return e.err }

// runScript runs the statements read from src, each ended by ';' or the
// end of the input, in order, and stops at the first failure or at an exit
// command.
func (c *console) runScript(ctx context.Context, source string, src io.Reader) error {
	split := newScriptSplitter()
	var vars varGrouper
	number := 0
	run := func(stmts []Statement) (stop bool, err error) {
		var grouped []Statement
		for _, stmt := range stmts {
			grouped = append(grouped, vars.add(stmt)...)
		}
		for _, stmt := range grouped {
			if isExitCommand(stmt.Text) {
				return true, nil
			}
			if err := c.execute(ctx, stmt); err != nil {
				se := &scriptError{source: source, line: stmt.Line, err: err}
				if !isCommand(stmt.Text) {
					se.number = number + 1
				}
				return true, se
			}
			if !isCommand(stmt.Text) {
				number++
			}
		}
		return false, nil
	}

	// bufio.Reader rather than a Scanner: an INSERT line of a generated
	// script can exceed any fixed line limit.
	in := bufio.NewReader(src)
	for {
		line, readErr := in.ReadString('\n')
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return fmt.Errorf("nova-console: reading %s: %w", source, readErr)
		}
		if line != "" || readErr == nil {
			if stop, err := run(split.Feed(strings.TrimSuffix(line, "\n"))); stop {
				return err
			}
		}
		if readErr != nil { // io.EOF
			if stop, err := run(split.Flush()); stop {
				return err
			}
			_, err := run(vars.flush())
			return err
		}
	}
}

// isExitCommand reports whether stmt asks to leave the console.
func isExitCommand(stmt string) bool {
	switch strings.ToLower(stmt) {
	case "exit", "quit", ":exit", ":quit":
		return true
	}
	return false
}
