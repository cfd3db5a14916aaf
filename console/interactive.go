package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
	Close() error
}

func isTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// runInteractive prompts on the process's terminal, which readline drives
// directly (raw mode, line editing, history search).
func (c *console) runInteractive(ctx context.Context, historyFile string) error {
	rl, err := readline.NewEx(&readline.Config{
		HistoryFile:       historyFile,
		HistorySearchFold: true,
		// Lines are saved by ReadLine, with passwords redacted.
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
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("nova-console: reading input: %w", err)
		}
		for _, stmt := range split.Feed(line) {
			if isExitCommand(stmt.Text) {
				return nil
			}
			for _, stmt := range vars.add(stmt) {
				if err := c.execute(ctx, stmt); err != nil {
					c.printError(err)
				}
			}
		}
		if vars.holding() && !split.Pending() {
			fmt.Fprintln(c.info(), "(the variable is sent with the next statement: variables live for one request)")
		}
	}
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
	if err == nil && strings.TrimSpace(line) != "" {
		// The history file outlives the session: no passwords in it.
		_ = r.rl.SaveHistory(lexer.RedactSecrets(line))
	}
	return line, err
}

func (r readlineReader) Close() error { return r.rl.Close() }
