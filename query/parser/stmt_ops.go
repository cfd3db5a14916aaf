package parser

import (
	"math"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// Result operators:
//
//	set      := pipeline ((UNION [DISTINCT | ALL] | INTERSECT | MINUS) pipeline)*
//	query    := ... | GROUP BY expr, ... YIELD ... | ORDER BY expr [ASC | DESC], ...
//	          | LIMIT [offset,] count | OFFSET offset LIMIT count | '(' set ')'
//	go       := GO ... [YIELD ...] [SAMPLE '[' n, ... ']' | LIMIT '[' n, ... ']']
//	call     := ... | aggregate '(' [DISTINCT] expr ')' | count '(' '*' ')'
//
// Set operators bind looser than '|', so a | b UNION c | d is
// (a | b) UNION (c | d); they chain to the left.

// parseSetOps parses the pipeline that starts with first and any set
// operators after it. With sinks, the first pipeline may end in a DELETE,
// which then cannot be combined.
func (p *parser) parseSetOps(first ast.Statement, sinks bool) ast.Statement {
	left := p.parsePipe(first, sinks)
	for {
		pos := p.pos()
		var op ast.SetOp
		switch {
		case p.is("UNION"):
			op = ast.Union
		case p.is("INTERSECT"):
			op = ast.Intersect
		case p.is("MINUS"):
			op = ast.Minus
		default:
			return left
		}
		if !isQuery(left) {
			p.fail("only GO, FETCH, LOOKUP and YIELD results can be combined with " + op.String())
		}
		p.next()
		s := &ast.SetOpStmt{Pos: pos, Op: op, Left: left}
		if op == ast.Union {
			if p.acceptKeyword("ALL") {
				s.All = true
			} else {
				p.acceptKeyword("DISTINCT")
			}
		}
		s.Right = p.parsePipe(p.parseQuery(), false)
		left = s
	}
}

// parseOpsQuery parses the queries of this file that can follow a '|' (or
// stand in parentheses), or returns nil if the current token starts none.
func (p *parser) parseOpsQuery() ast.Statement {
	switch {
	case p.at(lexer.LParen):
		return p.parseParenQuery()
	case p.is("GROUP"):
		return p.parseGroupBy()
	case p.is("ORDER"):
		return p.parseOrderBy()
	case p.is("LIMIT"), p.is("OFFSET"):
		return p.parseLimit()
	}
	return nil
}

// parseParenQuery parses '(' set ')'.
func (p *parser) parseParenQuery() ast.Statement {
	p.expect(lexer.LParen)
	p.enter()
	defer p.leave()
	s := p.parseSetOps(p.parseQuery(), false)
	p.expect(lexer.RParen)
	return s
}

// rejectUnpiped fails at LIMIT and OFFSET where a statement starts: they
// only read piped rows. (GROUP BY and ORDER BY may start a statement that
// reads a variable, as in ORDER BY $var.col.)
func (p *parser) rejectUnpiped() {
	switch {
	case p.is("LIMIT"), p.is("OFFSET") && p.peek(1).Kind == lexer.Int:
		p.fail(strings.ToUpper(p.tok().Value) + " reads piped rows: write it after '|'")
	}
}

func (p *parser) parseGroupBy() *ast.GroupByStmt {
	s := &ast.GroupByStmt{Pos: p.pos()}
	p.expectKeyword("GROUP")
	p.expectKeyword("BY")
	for {
		s.Keys = append(s.Keys, p.parseExpr())
		if !p.accept(lexer.Comma) {
			break
		}
	}
	if !p.is("YIELD") {
		p.expected("',' or YIELD")
	}
	s.Yield = p.parseYieldClause()
	return s
}

func (p *parser) parseOrderBy() *ast.OrderByStmt {
	s := &ast.OrderByStmt{Pos: p.pos()}
	p.expectKeyword("ORDER")
	p.expectKeyword("BY")
	for {
		f := &ast.OrderFactor{Pos: p.pos(), Expr: p.parseExpr()}
		switch {
		case p.acceptKeyword("ASC"), p.acceptKeyword("ASCENDING"):
		case p.acceptKeyword("DESC"), p.acceptKeyword("DESCENDING"):
			f.Desc = true
		}
		s.Factors = append(s.Factors, f)
		if !p.accept(lexer.Comma) {
			return s
		}
	}
}

// parseLimit parses LIMIT count, LIMIT offset, count or OFFSET offset
// LIMIT count.
func (p *parser) parseLimit() *ast.LimitStmt {
	s := &ast.LimitStmt{Pos: p.pos()}
	if p.acceptKeyword("OFFSET") {
		s.Offset = p.int64InRange("an offset", 0, math.MaxInt64)
		p.expectKeyword("LIMIT")
		s.Count = p.int64InRange("a row count", 0, math.MaxInt64)
		return s
	}
	p.expectKeyword("LIMIT")
	if p.at(lexer.LBracket) {
		p.fail("LIMIT [n, ...] limits the steps of GO: write it at the end of GO")
	}
	s.Count = p.int64InRange("a row count", 0, math.MaxInt64)
	if p.accept(lexer.Comma) {
		s.Offset = s.Count
		s.Count = p.int64InRange("a row count", 0, math.MaxInt64)
	}
	return s
}

// parseStepLimits parses GO's optional SAMPLE [n, ...] or LIMIT [n, ...].
func (p *parser) parseStepLimits() *ast.StepLimits {
	if !p.is("SAMPLE") && !p.is("LIMIT") {
		return nil
	}
	l := &ast.StepLimits{Pos: p.pos(), Sample: p.is("SAMPLE")}
	kw := strings.ToUpper(p.tok().Value)
	p.next()
	if !p.at(lexer.LBracket) {
		if kw == "LIMIT" {
			p.expected("'[' (GO's LIMIT takes one count per step, as in LIMIT [10, 10]; to limit rows write | LIMIT n)")
		}
		p.expected("'[' (SAMPLE takes one count per step, as in SAMPLE [10, 10])")
	}
	p.next()
	for {
		l.Counts = append(l.Counts, p.int64InRange("an edge count", 0, math.MaxInt64))
		if !p.accept(lexer.Comma) {
			break
		}
	}
	if !p.accept(lexer.RBracket) {
		p.expected("',' or ']'")
	}
	return l
}

// parseAggregateCall parses the arguments of an aggregate function, the
// name already consumed and the current token '('.
func (p *parser) parseAggregateCall(pos ast.Pos, name string) *ast.AggregateExpr {
	a := &ast.AggregateExpr{Pos: pos, Name: name}
	p.expect(lexer.LParen)
	switch {
	case p.at(lexer.Star):
		if !strings.EqualFold(name, "count") {
			p.fail("only count accepts *")
		}
		p.next()
	case p.at(lexer.RParen):
		p.fail(name + "() takes one argument")
	default:
		a.Distinct = p.acceptKeyword("DISTINCT")
		a.Arg = p.parseExpr()
	}
	if p.at(lexer.Comma) {
		p.fail(name + "() takes one argument")
	}
	p.expect(lexer.RParen)
	return a
}

// chainPipe returns left | right with pipes chained to the left, as
// printing expects: a | (b | c), which means the same, becomes (a | b) | c.
func chainPipe(pos ast.Pos, left, right ast.Statement) ast.Statement {
	if inner, ok := right.(*ast.PipeStmt); ok {
		return &ast.PipeStmt{Pos: inner.Pos, Left: chainPipe(pos, left, inner.Left), Right: inner.Right}
	}
	return &ast.PipeStmt{Pos: pos, Left: left, Right: right}
}
