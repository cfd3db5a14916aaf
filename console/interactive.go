package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/chzyer/readline"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/query/lexer"
)

// errInterrupted is a lineReader's answer to Ctrl-C.
var errInterrupted = errors.New("interrupted")

// lineReader reads the interactive input; readline in production, a script
// in tests.
type lineReader interface {
	// ReadLine shows prompt and returns the next line without its newline,
	// io.EOF at the end of the input (Ctrl-D), or errInterrupted (Ctrl-C).
	ReadLine(prompt string) (string, error)
	// SaveHistory records one entry of the history: a whole statement,
	// its lines joined, secrets redacted.
	SaveHistory(entry string)
	Close() error
}

func isTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// runInteractive prompts on the process's terminal, which readline drives
// directly (raw mode, line editing, history search).
func (c *console) runInteractive(ctx context.Context, historyFile string) error {
	if historyFile != "" {
		// readline would create it readable by all; it holds every
		// statement typed.
		if f, err := os.OpenFile(historyFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			f.Close()
			_ = os.Chmod(historyFile, 0o600)
		}
	}
	rl, err := readline.NewEx(&readline.Config{
		HistoryFile:       historyFile,
		HistorySearchFold: true,
		// interact saves whole statements, with passwords redacted.
		DisableAutoSaveHistory: true,
		Stdout:                 c.stdout,
		Stderr:                 c.stderr,
		InterruptPrompt:        "^C",
	})
	if err != nil {
		return fmt.Errorf("nova-console: starting the line editor: %w", err)
	}
	return c.interact(ctx, readlineReader{rl})
}

// interact reads statements from lines until an exit command or the end of
// the input. Failed statements print and the prompt goes on.
func (c *console) interact(ctx context.Context, lines lineReader) error {
	defer lines.Close()
	split := newPromptSplitter()
	var vars varGrouper
	var typed []string // the lines of the statement being typed, for the history
	for {
		prompt := c.prompt()
		if split.Pending() {
			prompt = strings.Repeat(" ", len(prompt)-len("-> ")) + "-> "
		}
		line, err := lines.ReadLine(prompt)
		switch {
		case errors.Is(err, errInterrupted):
			split.Reset()
			vars = varGrouper{}
			typed = nil
			continue
		case errors.Is(err, io.EOF):
			if split.Pending() || vars.holding() {
				fmt.Fprintln(c.stderr, "(input ended inside a statement, or with an assignment waiting for one: not run)")
			}
			return nil
		case err != nil:
			return fmt.Errorf("nova-console: reading input: %w", err)
		}
		if strings.TrimSpace(line) != "" {
			typed = append(typed, strings.TrimSpace(line))
		}
		stmts := split.Feed(line)
		if !split.Pending() && len(typed) > 0 {
			// One entry per statement, redacted as a whole: a PASSWORD on
			// one line and its secret on the next are still one statement.
			// The history file outlives the session: no passwords in it.
			lines.SaveHistory(lexer.RedactSecrets(strings.Join(typed, " ")))
			typed = nil
		}
		for _, stmt := range stmts {
			if isExitCommand(stmt.Text) {
				return nil
			}
			for _, stmt := range vars.add(stmt) {
				if err := c.executeInterruptible(ctx, stmt); err != nil {
					c.printError(err)
				}
			}
		}
		if vars.holding() && !split.Pending() {
			fmt.Fprintln(c.info(), "(the variable is sent with the next statement: variables live for one request)")
		}
	}
}

// executeInterruptible runs one statement at the prompt with Ctrl-C
// cancelling it instead of ending the console: readline catches Ctrl-C
// only while it reads a line, and Go's default SIGINT handler would end
// the process, its session and its :params with it.
func (c *console) executeInterruptible(ctx context.Context, stmt Statement) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	err := c.execute(ctx, stmt)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("^C: statement cancelled: %w", err)
	}
	return err
}

func (c *console) printError(err error) {
	fmt.Fprintln(c.stderr, formatError(err))
	if client.IsSessionExpired(err) {
		fmt.Fprintln(c.stderr, "The session is gone (graphd restarted or expired it); restart the console to log in again.")
	}
}

// prompt is "(user@nova) [space]> ", NebulaGraph style.
func (c *console) prompt() string {
	space := c.session.SpaceName()
	if space == "" {
		space = "(none)"
	}
	return fmt.Sprintf("(%s@nova) [%s]> ", c.user, space)
}

// readlineReader adapts readline to lineReader.
type readlineReader struct{ rl *readline.Instance }

func (r readlineReader) ReadLine(prompt string) (string, error) {
	r.rl.SetPrompt(prompt)
	line, err := r.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", errInterrupted
	}
	return line, err
}

func (r readlineReader) SaveHistory(entry string) { _ = r.rl.SaveHistory(entry) }

func (r readlineReader) Close() error { return r.rl.Close() }
