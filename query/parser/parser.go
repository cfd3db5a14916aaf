// Package parser is a hand-written recursive-descent parser for nGQL. It
// turns query text into the positioned syntax tree of package ast, or
// reports the first error as a *SyntaxError.
package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// maxDepth bounds the nesting of expressions, so that hostile input such as
// ten thousand '(' fails with an error instead of growing the stack.
const maxDepth = 200

// maxOperators bounds the binary operators of one expression (see
// parser.operator).
const maxOperators = 5000

// nearLen caps the text quoted in SyntaxError.Near, in bytes.
const nearLen = 40

// Parse parses src, one or more statements separated by ';' (a trailing ';'
// and empty statements are fine). Input with no statements, such as only a
// comment, yields an empty slice and no error. On error the result is nil
// and the error is a *SyntaxError.
func Parse(src string) (stmts []ast.Statement, err error) {
	p := newParser(src)
	defer p.recover(&err)
	for {
		for p.accept(lexer.Semicolon) {
		}
		if p.at(lexer.EOF) {
			return stmts, nil
		}
		stmts = append(stmts, p.parseSentence())
		if !p.at(lexer.Semicolon) && !p.at(lexer.EOF) {
			p.fail("expected ';' or end of input")
		}
	}
}

// ParseExpr parses src as a single expression.
func ParseExpr(src string) (e ast.Expr, err error) {
	p := newParser(src)
	defer p.recover(&err)
	e = p.parseExpr()
	if !p.at(lexer.EOF) {
		p.fail("expected an operator or end of input")
	}
	return e, nil
}

// parser holds the token stream. Errors unwind the recursive descent by
// panicking with a bailout, which Parse and ParseExpr recover; any other
// panic is a bug and is not recovered.
type parser struct {
	src       string
	toks      []lexer.Token // ends with EOF or Illegal, see lexer.Tokenize
	i         int           // index of the current token
	depth     int           // expression nesting, bounded by maxDepth
	operators int           // binary operators of the current top-level expression
}

type bailout struct{ err *SyntaxError }

func newParser(src string) *parser {
	return &parser{src: src, toks: lexer.Tokenize(src)}
}

func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		b, ok := r.(bailout)
		if !ok {
			panic(r)
		}
		*err = b.err
	}
}

// tok returns the current token.
func (p *parser) tok() lexer.Token { return p.toks[p.i] }

// peek returns the token n places ahead, or the last token (EOF or Illegal)
// if there are not that many.
func (p *parser) peek(n int) lexer.Token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() {
	if p.i < len(p.toks)-1 {
		p.i++
	}
}

func (p *parser) pos() ast.Pos {
	t := p.tok()
	return ast.Pos{Line: t.Line, Col: t.Col}
}

// at reports whether the current token is of kind k.
func (p *parser) at(k lexer.Kind) bool { return p.tok().Kind == k }

// is reports whether the current token is the keyword kw.
func (p *parser) is(kw string) bool { return p.tok().Is(kw) }

// accept consumes the current token if it is of kind k.
func (p *parser) accept(k lexer.Kind) bool {
	if p.at(k) {
		p.next()
		return true
	}
	return false
}

// acceptKeyword consumes the current token if it is the keyword kw.
func (p *parser) acceptKeyword(kw string) bool {
	if p.is(kw) {
		p.next()
		return true
	}
	return false
}

// expect consumes a token of kind k or fails.
func (p *parser) expect(k lexer.Kind) {
	if !p.accept(k) {
		p.expected(k.String())
	}
}

// expectKeyword consumes the keyword kw or fails with "expected KW".
func (p *parser) expectKeyword(kw string) {
	if !p.acceptKeyword(kw) {
		p.expected(kw)
	}
}

// name consumes a name (of a space, tag, property, ...) or fails with
// "expected <what>". Reserved words are names only when back-quoted.
func (p *parser) name(what string) string {
	t := p.tok()
	if !t.IsName() {
		if t.Kind == lexer.Ident {
			p.fail(fmt.Sprintf("expected %s (%s is a reserved word; write `%s` to use it as a name)",
				what, strings.ToUpper(t.Value), t.Value))
		}
		p.expected(what)
	}
	p.next()
	return t.Value
}

// nameAfterDot consumes the name after a '.', as in edge.prop or $-.col.
// Reserved words are allowed there: nothing else could follow the dot.
func (p *parser) nameAfterDot(what string) string {
	t := p.tok()
	if t.Kind != lexer.Ident {
		p.expected(what)
	}
	p.next()
	return t.Value
}

func (p *parser) expected(what string) { p.fail("expected " + what) }

// fail reports an error at the current token.
func (p *parser) fail(msg string) { p.failAt(p.i, msg) }

// failAt reports an error at token i. At an Illegal token the lexer's
// complaint replaces msg: it is the real problem.
func (p *parser) failAt(i int, msg string) {
	t := p.toks[i]
	if t.Kind == lexer.Illegal {
		msg = t.Err
	}
	panic(bailout{&SyntaxError{Line: t.Line, Col: t.Col, Near: p.near(i), Msg: msg}})
}

// near is the source text from token i through the token after it, if that
// one is on the same line: enough to recognise the spot, as in "FORM 1".
func (p *parser) near(i int) string {
	t := p.toks[i]
	if t.Kind == lexer.EOF {
		return ""
	}
	end := t.End
	if i+1 < len(p.toks) {
		if n := p.toks[i+1]; n.Kind != lexer.EOF && n.Line == t.Line {
			end = n.End
		}
	}
	s := p.src[t.Offset:end]
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	if len(s) > nearLen {
		cut := nearLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// enter and leave bracket every recursion that can nest without bound.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("expression nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// parseList parses "[item (',' item)*] close", the opening bracket already
// consumed.
func (p *parser) parseList(close lexer.Kind, item func()) {
	if p.accept(close) {
		return
	}
	for {
		item()
		if !p.accept(lexer.Comma) {
			break
		}
	}
	if !p.accept(close) {
		p.expected("',' or " + close.String())
	}
}
