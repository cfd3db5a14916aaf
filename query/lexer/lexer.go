package lexer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Lexer produces the tokens of one source text.
type Lexer struct {
	src       string
	off       int // byte offset of the next unread character
	line, col int // position of the next unread character
	lastEnd   int // byte offset just after the last token (a "--" after it may not be a comment)
}

// New returns a lexer positioned at the start of src.
func New(src string) *Lexer {
	return &Lexer{src: src, line: 1, col: 1}
}

// Tokenize lexes all of src. The result ends with the first EOF or Illegal
// token, so a parser never reads past a lexical error.
func Tokenize(src string) []Token {
	l := New(src)
	var toks []Token
	for {
		t := l.Next()
		toks = append(toks, t)
		if t.Kind == EOF || t.Kind == Illegal {
			return toks
		}
	}
}

// Next returns the next token, skipping white space and comments. At the
// end of input it returns EOF, positioned just after the last character.
func (l *Lexer) Next() Token {
	t := l.next()
	l.lastEnd = l.off
	return t
}

func (l *Lexer) next() Token {
	if t, ok := l.skipSpaceAndComments(); !ok {
		return t
	}
	start := l.mark()
	if l.off >= len(l.src) {
		return l.token(start, EOF)
	}
	c := l.src[l.off]
	switch {
	case c == '"' || c == '\'':
		return l.lexString(start, c)
	case c == '`':
		return l.lexQuotedIdent(start)
	case c == '$':
		return l.lexDollar(start)
	case isDigit(c) || (c == '.' && isDigit(l.peekByte(1))):
		return l.lexNumber(start)
	}
	if r, _ := utf8.DecodeRuneInString(l.src[l.off:]); IsIdentStart(r) {
		for l.off < len(l.src) {
			r, _ := utf8.DecodeRuneInString(l.src[l.off:])
			if !IsIdentPart(r) {
				break
			}
			l.advance()
		}
		t := l.token(start, Ident)
		t.Value = t.Text
		return t
	}
	return l.lexPunctuation(start)
}

// position is a saved lexer position, the start of a token.
type position struct{ off, line, col int }

func (l *Lexer) mark() position { return position{l.off, l.line, l.col} }

func (l *Lexer) token(start position, k Kind) Token {
	return Token{
		Kind: k, Line: start.line, Col: start.col,
		Offset: start.off, End: l.off, Text: l.src[start.off:l.off],
	}
}

func (l *Lexer) illegal(start position, format string, args ...any) Token {
	t := l.token(start, Illegal)
	t.Err = fmt.Sprintf(format, args...)
	return t
}

// advance consumes one character (rune; a byte of invalid UTF-8 counts as
// one character) and keeps line and column up to date.
func (l *Lexer) advance() {
	r, size := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += size
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
}

func (l *Lexer) peekByte(ahead int) byte {
	if l.off+ahead < len(l.src) {
		return l.src[l.off+ahead]
	}
	return 0
}

func (l *Lexer) hasPrefix(s string) bool { return strings.HasPrefix(l.src[l.off:], s) }

// skipSpaceAndComments consumes blanks and the four comment forms of nGQL:
// "-- ", "//" and "#" to the end of the line, and "/* ... */". It returns
// false and an Illegal token for an unterminated block comment.
//
// "--" starts a comment only before a blank or the end of the line (as in
// SQL), and not between two nodes (DashStartsComment): MATCH patterns
// write "-->", "(a)--(b)" and "(a)-- (b)", and 1--2 is 1 - -2.
func (l *Lexer) skipSpaceAndComments() (Token, bool) {
	for l.off < len(l.src) {
		switch c := l.src[l.off]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.advance()
		case l.hasPrefix("--") && DashStartsComment(l.lastByte(), l.src[l.off+2:]) || l.hasPrefix("//") || c == '#':
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance()
			}
		case l.hasPrefix("/*"):
			start := l.mark()
			end := strings.Index(l.src[l.off+2:], "*/")
			if end < 0 {
				for l.off < len(l.src) {
					l.advance()
				}
				return l.illegal(start, "unterminated comment"), false
			}
			for stop := l.off + 2 + end + 2; l.off < stop; {
				l.advance()
			}
		default:
			return Token{}, true
		}
	}
	return Token{}, true
}

func (l *Lexer) lexPunctuation(start position) Token {
	two := func(next byte, long, short Kind) Token {
		l.advance()
		if l.off < len(l.src) && l.src[l.off] == next {
			l.advance()
			return l.token(start, long)
		}
		return l.token(start, short)
	}
	c := l.src[l.off]
	switch c {
	case '=':
		if l.peekByte(1) == '~' {
			l.advance()
			l.advance()
			return l.token(start, Match)
		}
		return two('=', Eq, Assign)
	case '.':
		return two('.', DotDot, Dot)
	case '-':
		return two('>', Arrow, Minus)
	case '>':
		return two('=', Ge, Gt)
	case '!':
		return two('=', Ne, Bang)
	case '<':
		if l.peekByte(1) == '>' {
			l.advance()
			l.advance()
			return l.token(start, Ne)
		}
		return two('=', Le, Lt)
	}
	var k Kind
	switch c {
	case '(':
		k = LParen
	case ')':
		k = RParen
	case '[':
		k = LBracket
	case ']':
		k = RBracket
	case '{':
		k = LBrace
	case '}':
		k = RBrace
	case ',':
		k = Comma
	case ':':
		k = Colon
	case ';':
		k = Semicolon
	case '@':
		k = At
	case '|':
		k = Pipe
	case '+':
		k = Plus
	case '*':
		k = Star
	case '/':
		k = Slash
	case '%':
		k = Percent
	case '?':
		k = Question
	case '&':
		k = Amp
	case '^':
		k = Caret
	default:
		r, size := utf8.DecodeRuneInString(l.src[l.off:])
		l.advance()
		if r == utf8.RuneError && size == 1 {
			return l.illegal(start, "invalid UTF-8 byte 0x%02x", c)
		}
		return l.illegal(start, "unexpected character %q", r)
	}
	l.advance()
	return l.token(start, k)
}

// lexDollar reads $-, $^, $$ and $name.
func (l *Lexer) lexDollar(start position) Token {
	l.advance()
	switch l.peekByte(0) {
	case '-':
		l.advance()
		return l.token(start, InputRef)
	case '^':
		l.advance()
		return l.token(start, SrcRef)
	case '$':
		l.advance()
		return l.token(start, DstRef)
	}
	nameStart := l.off
	for l.off < len(l.src) {
		r, _ := utf8.DecodeRuneInString(l.src[l.off:])
		if l.off == nameStart && !IsIdentStart(r) || !IsIdentPart(r) {
			break
		}
		l.advance()
	}
	if l.off == nameStart {
		return l.illegal(start, "expected a variable name, '-', '^' or '$' after '$'")
	}
	t := l.token(start, Variable)
	t.Value = l.src[nameStart:l.off]
	return t
}

// lexNumber reads an unsigned integer (decimal or 0x hex) or a float. A
// number running straight into letters, like 12ab, is illegal rather than
// two tokens.
func (l *Lexer) lexNumber(start position) Token {
	kind := Int
	if l.hasPrefix("0x") || l.hasPrefix("0X") {
		l.advance()
		l.advance()
		digits := l.off
		for l.off < len(l.src) && isHexDigit(l.src[l.off]) {
			l.advance()
		}
		if l.off == digits {
			return l.illegal(start, "malformed hex literal")
		}
	} else {
		l.skipDigits()
		if l.peekByte(0) == '.' && isDigit(l.peekByte(1)) {
			kind = Float
			l.advance()
			l.skipDigits()
		}
		if c := l.peekByte(0); c == 'e' || c == 'E' {
			sign := 0
			if c := l.peekByte(1); c == '+' || c == '-' {
				sign = 1
			}
			if isDigit(l.peekByte(1 + sign)) {
				kind = Float
				for i := 0; i <= sign; i++ {
					l.advance()
				}
				l.skipDigits()
			}
		}
	}
	if r, _ := utf8.DecodeRuneInString(l.src[l.off:]); l.off < len(l.src) && IsIdentPart(r) {
		for l.off < len(l.src) {
			r, _ := utf8.DecodeRuneInString(l.src[l.off:])
			if !IsIdentPart(r) {
				break
			}
			l.advance()
		}
		return l.illegal(start, "malformed number %q", l.src[start.off:l.off])
	}
	return l.token(start, kind)
}

func (l *Lexer) skipDigits() {
	for l.off < len(l.src) && isDigit(l.src[l.off]) {
		l.advance()
	}
}

// lexQuotedIdent reads a `back-quoted` name. It has no escapes, as in
// NebulaGraph, and may not be empty.
func (l *Lexer) lexQuotedIdent(start position) Token {
	l.advance()
	end := strings.IndexByte(l.src[l.off:], '`')
	if end < 0 {
		for l.off < len(l.src) {
			l.advance()
		}
		return l.illegal(start, "unterminated quoted name")
	}
	if end == 0 {
		l.advance()
		return l.illegal(start, "empty quoted name")
	}
	for stop := l.off + end + 1; l.off < stop; {
		l.advance()
	}
	t := l.token(start, Ident)
	t.Value = t.Text[1 : len(t.Text)-1]
	t.Quoted = true
	return t
}

// lexString reads a string quoted by q and decodes its escapes: \n \t \r
// \b \f \0 \\ \' \" \/ and \uXXXX. Strings may span lines.
func (l *Lexer) lexString(start position, q byte) Token {
	l.advance()
	var b strings.Builder
	for {
		if l.off >= len(l.src) {
			return l.illegal(start, "unterminated string")
		}
		c := l.src[l.off]
		if c == q {
			l.advance()
			t := l.token(start, String)
			t.Value = b.String()
			return t
		}
		if c != '\\' {
			r, size := utf8.DecodeRuneInString(l.src[l.off:])
			if r == utf8.RuneError && size == 1 {
				b.WriteByte(c) // keep invalid UTF-8 byte for byte
			} else {
				b.WriteRune(r)
			}
			l.advance()
			continue
		}
		esc := l.mark()
		l.advance()
		if l.off >= len(l.src) {
			return l.illegal(start, "unterminated string")
		}
		e := l.src[l.off]
		l.advance()
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		case '\\', '\'', '"', '/':
			b.WriteByte(e)
		case 'u':
			r, ok := l.hex4()
			if !ok {
				return l.illegal(esc, `invalid escape: \u needs four hex digits`)
			}
			b.WriteRune(r)
		default:
			r, _ := utf8.DecodeRuneInString(l.src[esc.off+1:])
			return l.illegal(esc, `invalid escape \%c`, r)
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func (l *Lexer) hex4() (rune, bool) {
	if l.off+4 > len(l.src) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(l.src[l.off : l.off+4]) {
		if !isHexDigit(c) {
			return 0, false
		}
		r = r<<4 | rune(hexValue(c))
	}
	for i := 0; i < 4; i++ {
		l.advance()
	}
	return r, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func hexValue(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// DashStartsComment reports whether a "--" followed by rest starts a
// comment; prev is the last character of the token before it (0 at the
// start). It does only before a blank or the end (SQL's rule), so that a
// MATCH pattern's "-->" and "--(", and the arithmetic 1--2, are
// operators; and not between a node and the next one, as in "(a)-- (b)"
// or "(a)<-- (b)": after ')', ']' or '<' with '(' next on the line. The
// console's statement splitter asks the same.
func DashStartsComment(prev byte, rest string) bool {
	if rest != "" && !isBlank(rest[0]) {
		return false
	}
	if prev == ')' || prev == ']' || prev == '<' {
		for i := 0; i < len(rest) && rest[i] != '\n'; i++ {
			if !isBlank(rest[i]) {
				return rest[i] != '('
			}
		}
	}
	return true
}

func isBlank(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// lastByte is the last character of the token before the current
// position, 0 at the start.
func (l *Lexer) lastByte() byte {
	if l.lastEnd == 0 {
		return 0
	}
	return l.src[l.lastEnd-1]
}
