package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// parseSetSession parses SET QUERY_MEMORY_LIMIT = size | DEFAULT and
// SET QUERY_TIMEOUT = duration | DEFAULT (see ast.SetSessionStmt).
func (p *parser) parseSetSession() *ast.SetSessionStmt {
	s := &ast.SetSessionStmt{Pos: p.pos()}
	p.next()
	switch {
	case p.is(ast.SetQueryMemoryLimit):
		s.Name = ast.SetQueryMemoryLimit
	case p.is(ast.SetQueryTimeout):
		s.Name = ast.SetQueryTimeout
	default:
		p.expected("QUERY_MEMORY_LIMIT or QUERY_TIMEOUT")
	}
	p.next()
	p.expect(lexer.Assign)
	if p.acceptKeyword("DEFAULT") {
		s.Default = true
		return s
	}
	at := p.i
	text := p.limitValue(s.Name)
	var err error
	if s.Name == ast.SetQueryMemoryLimit {
		s.Bytes, err = bytesize.Parse(text)
	} else {
		s.Timeout, err = ParseTimeout(text)
	}
	if err != nil {
		p.failAt(at, fmt.Sprintf("%s: %v", s.Name, err))
	}
	return s
}

// limitValue consumes the value of a SET: a string ("100MB"), a number with
// an optional unit word (100 MB), or a number glued to its unit (100MB,
// 1.5s, 1h30m). The lexer reads the glued form as a malformed number and
// stops there, so that token is taken as the value and the rest of the
// input is lexed again after it.
func (p *parser) limitValue(name string) string {
	t := p.tok()
	switch t.Kind {
	case lexer.String:
		p.next()
		return t.Value
	case lexer.Int, lexer.Float:
		p.next()
		if u := p.tok(); u.Kind == lexer.Ident && !u.Quoted {
			p.next()
			return t.Text + u.Value
		}
		return t.Text
	case lexer.Illegal:
		if !gluedUnit(t.Text) {
			break
		}
		rest := lexer.Tokenize(p.src[t.End:])
		col := t.Col + utf8.RuneCountInString(t.Text)
		for i := range rest {
			if rest[i].Line == 1 {
				rest[i].Col += col - 1
			}
			rest[i].Line += t.Line - 1
			rest[i].Offset += t.End
			rest[i].End += t.End
		}
		p.toks = append(p.toks[:p.i+1:p.i+1], rest...)
		p.toks[p.i].Kind, p.toks[p.i].Value, p.toks[p.i].Err = lexer.String, t.Text, ""
		p.next()
		return t.Text
	}
	if name == ast.SetQueryMemoryLimit {
		p.expected("a size such as 100MB, 2GiB or 0 (no limit), or DEFAULT")
	}
	p.expected("a duration such as 500ms, 10s, 2m or 0 (no limit), or DEFAULT")
	return ""
}

// gluedUnit reports whether text is digits followed by letters and more
// digits, as in 100MB or 1h30m.
func gluedUnit(text string) bool {
	if text == "" || text[0] < '0' || text[0] > '9' {
		return false
	}
	for _, r := range text {
		if !(r >= '0' && r <= '9' || r == '.' || r == 'µ' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// ParseTimeout reads a query timeout: 0 (no timeout) or a duration with
// units, as in 500ms, 10s, 2m, 1h30m.
func ParseTimeout(text string) (time.Duration, error) {
	s := strings.ReplaceAll(strings.TrimSpace(text), " ", "")
	if s == "0" {
		return 0, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("%q needs a unit, as in 500ms, 10s or 2m", text)
	}
	d, err := time.ParseDuration(strings.ToLower(s))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration: write a number with a unit (ms, s, m, h), as in 500ms, 10s or 2m", text)
	}
	return d, nil
}

// parseKillQuery parses KILL QUERY (session = id, plan = id), session
// optional.
func (p *parser) parseKillQuery() ast.Statement {
	s := &ast.KillQueryStmt{Pos: p.pos()}
	p.next()
	if p.is("SESSION") || p.is("SESSIONS") {
		p.next()
		return &ast.KillSessionStmt{Pos: s.Pos, Session: p.int64InRange("a session id", 1, math.MaxInt64)}
	}
	p.expectKeyword("QUERY")
	p.expect(lexer.LParen)
	hasPlan := false
	p.parseList(lexer.RParen, func() {
		switch {
		case p.is("SESSION") && !s.HasSession:
			p.next()
			p.expect(lexer.Assign)
			s.Session, s.HasSession = p.int64InRange("session id", 0, math.MaxInt64), true
		case p.is("PLAN") && !hasPlan:
			p.next()
			p.expect(lexer.Assign)
			s.Plan, hasPlan = p.int64InRange("plan id", 0, math.MaxInt64), true
		case p.is("SESSION"), p.is("PLAN"):
			p.fail("duplicate option " + strings.ToLower(p.tok().Value))
		default:
			p.expected("session = <id> or plan = <id>")
		}
	})
	if !hasPlan {
		p.failAt(p.i-1, "KILL QUERY needs plan = <id> (the ExecutionPlanID of SHOW QUERIES)")
	}
	return s
}
