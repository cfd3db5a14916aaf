// Package console is novagraph's nGQL console (cmd/nova-console): an
// interactive prompt with history and multi-line input, or a runner of
// statements given with -e or in a file with -f.
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
)

// connectTimeout bounds connecting and logging in, so that a graphd that
// drops packets fails the console instead of hanging it.
const connectTimeout = 10 * time.Second

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
	if err != nil {
		fmt.Fprintf(stderr, "nova-console: %v\n", err)
		return exitUsage
	}

	addr := net.JoinHostPort(opts.host, strconv.Itoa(opts.port))
	pool, err := client.NewPool(client.Config{Addresses: []string{addr}})
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

	c := &console{session: session, user: opts.user, format: opts.format, stdout: stdout, stderr: stderr, now: time.Now}
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
	session *client.Session
	user    string
	format  outputFormat
	stdout  io.Writer
	stderr  io.Writer
	now     func() time.Time // injectable so that tests print fixed times
}

// execute runs one statement and prints its result.
func (c *console) execute(ctx context.Context, stmt Statement) error {
	start := c.now()
	rs, err := c.session.Execute(ctx, stmt.Text)
	wallUS := c.now().Sub(start).Microseconds()
	if err != nil {
		return err
	}
	if err := renderResult(c.stdout, rs, c.format, wallUS); err != nil {
		return fmt.Errorf("printing the result: %w", err)
	}
	return nil
}

func (c *console) runFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nova-console: %w", err)
	}
	defer f.Close()
	return c.runScript(ctx, path, f)
}

// scriptError is the first failing statement of a script.
type scriptError struct {
	source string // file name, "-e" or "<stdin>"
	line   int
	number int // 1-based among the script's statements
	err    error
}

func (e *scriptError) Error() string {
	return fmt.Sprintf("%s:%d: statement %d: %s", e.source, e.line, e.number, formatError(e.err))
}

func (e *scriptError) Unwrap() error { return e.err }

// runScript runs the statements read from src, each ended by ';' or the
// end of the input, in order, and stops at the first failure or at an exit
// command.
func (c *console) runScript(ctx context.Context, source string, src io.Reader) error {
	split := newScriptSplitter()
	number := 0
	run := func(stmts []Statement) (stop bool, err error) {
		for _, stmt := range stmts {
			if isExitCommand(stmt.Text) {
				return true, nil
			}
			number++
			if err := c.execute(ctx, stmt); err != nil {
				return true, &scriptError{source: source, line: stmt.Line, number: number, err: err}
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
			_, err := run(split.Flush())
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
