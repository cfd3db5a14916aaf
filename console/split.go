package console

import (
	"strings"
	"unicode"

	"github.com/novagraph/novagraph/query/lexer"
)

// Statement is one statement text cut from the input.
type Statement struct {
	Text string
	Line int // 1-based input line of its first character
}

// splitter cuts input lines into statements. A statement ends at ';'
// and at the end of the input; at the interactive prompt (lineEnds) it
// also ends at the end of a line, as in NebulaGraph's console, unless the
// line ends with '\' or leaves a quote, a bracket or a block comment open.
// Scripts (-e, -f, piped stdin) end statements at ';' only, so that a long
// INSERT can span lines the way SQL files do.
//
// Quoted text ('…', "…", `…`) is opaque. Comments are dropped, matching
// graphd's lexer (query/lexer): "#", "//" and "-- " (before a blank or
// the end of the line, so MATCH's "-->" is not one) to the end of the
// line, and "/* … */".
//
// A console command (a statement whose first character is ':', such as
// ":param p => 1" or ":csv out.csv") ends at the end of its line in
// scripts too, unless the line ends with '\' or leaves a quote or bracket
// open, and its comment markers are text: "--" or "//" may be part of a
// file name.
type splitter struct {
	lineEnds bool // the end of a line ends a complete statement

	text      strings.Builder // the statement being collected
	line      int             // lines fed so far
	startLine int             // line of text's first non-space character, 0 while blank

	quote          rune // the open quote character, 0 outside quotes
	escaped        bool // the previous character was a backslash inside quotes
	inBlockComment bool
	depth          int  // open ( [ { outside quotes
	pending        bool // the last line left the statement unfinished
	command        bool // the statement is a console command
}

// newPromptSplitter returns a splitter for the interactive prompt, where
// the end of a line ends a complete statement.
func newPromptSplitter() *splitter { return &splitter{lineEnds: true} }

// newScriptSplitter returns a splitter for scripts, where only ';' and the
// end of the input end a statement.
func newScriptSplitter() *splitter { return &splitter{} }

// Feed consumes one input line (without its newline) and returns the
// statements it completes.
func (s *splitter) Feed(line string) []Statement {
	s.line++
	runes := []rune(strings.TrimRight(line, "\r"))
	lastNonSpace := len(runes) - 1
	for lastNonSpace >= 0 && unicode.IsSpace(runes[lastNonSpace]) {
		lastNonSpace--
	}
	continued := false
	var done []Statement
	for i := 0; i < len(runes); i++ {
		c, next := runes[i], rune(0)
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		switch {
		case s.inBlockComment:
			if c == '*' && next == '/' {
				s.inBlockComment = false
				s.write(' ') // keep the tokens around the comment apart
				i++
			}
		case s.quote != 0:
			s.writeQuoted(c)
		case c == '\'' || c == '"' || c == '`':
			s.quote = c
			s.write(c)
		case c == ':' && s.startLine == 0:
			s.command = true
			s.write(c)
		case s.command && c != ';' && !(c == '\\' && i == lastNonSpace):
			s.trackDepth(c)
			s.write(c)
		case c == '#' || (c == '/' && next == '/') || (c == '-' && next == '-' && s.dashComment(runes, i+2)):
			i = len(runes) // the rest of the line is a comment
		case c == '/' && next == '*':
			s.inBlockComment = true
			i++
		case c == ';' && s.depth == 0:
			done = s.emit(done)
		case c == '\\' && i == lastNonSpace:
			continued = true
			i = len(runes) // drop the trailing spaces too
		default:
			s.trackDepth(c)
			s.write(c)
		}
	}
	// A backslash inside quotes escapes the line break, not the next line.
	s.escaped = false
	open := continued || s.quote != 0 || s.inBlockComment || s.depth > 0
	s.pending = open || (!s.lineEnds && !s.command && strings.TrimSpace(s.text.String()) != "")
	if s.pending {
		s.write('\n')
		return done
	}
	return s.emit(done)
}

// Pending reports whether the statement being read continues on the next
// line.
func (s *splitter) Pending() bool { return s.pending }

// Flush returns what is left at the end of the input, even if a quote or a
// bracket is still open (graphd then reports the syntax error), and resets
// the splitter.
func (s *splitter) Flush() []Statement {
	done := s.emit(nil)
	s.Reset()
	return done
}

// Reset drops a partly read statement, as Ctrl-C does.
func (s *splitter) Reset() { *s = splitter{lineEnds: s.lineEnds, line: s.line} }

func (s *splitter) writeQuoted(c rune) {
	s.write(c)
	switch {
	case s.escaped:
		s.escaped = false
	case c == '\\' && s.quote != '`':
		s.escaped = true
	case c == s.quote:
		s.quote = 0
	}
}

func (s *splitter) trackDepth(c rune) {
	switch c {
	case '(', '[', '{':
		s.depth++
	case ')', ']', '}':
		// A stray closer is graphd's syntax error to report; it must not
		// make later openers look closed.
		s.depth = max(s.depth-1, 0)
	}
}

func (s *splitter) write(c rune) {
	if s.startLine == 0 && !unicode.IsSpace(c) {
		s.startLine = s.line
	}
	s.text.WriteRune(c)
}

// emit appends the collected statement to done, unless it is blank.
func (s *splitter) emit(done []Statement) []Statement {
	text := strings.TrimSpace(s.text.String())
	start := s.startLine
	s.text.Reset()
	s.startLine = 0
	s.command = false
	if text == "" {
		return done
	}
	return append(done, Statement{Text: text, Line: start})
}

// dashComment reports whether a "--" whose next rune is runes[at] starts
// a comment, as graphd's lexer decides it (lexer.DashStartsComment): the
// character before it is the last one of the statement so far.
func (s *splitter) dashComment(runes []rune, at int) bool {
	var prev byte
	if text := strings.TrimRight(s.text.String(), " \t\r\n"); text != "" {
		prev = text[len(text)-1]
	}
	return lexer.DashStartsComment(prev, string(runes[min(at, len(runes)):]))
}
