package parser

import (
	"fmt"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

func (p *parser) parseInsert() ast.Statement {
	pos := p.pos()
	p.next()
	switch {
	case p.acceptKeyword("VERTEX"):
		return p.parseInsertVertex(pos)
	case p.acceptKeyword("EDGE"):
		return p.parseInsertEdge(pos)
	}
	p.expected("VERTEX or EDGE")
	return nil
}

// expectValues consumes VALUES, or its synonym VALUE.
func (p *parser) expectValues() {
	if !p.acceptKeyword("VALUES") && !p.acceptKeyword("VALUE") {
		p.expected("VALUES")
	}
}

// parseNameList parses "(name, ...)" and returns the names.
func (p *parser) parseNameList(what string) []string {
	names := []string{}
	p.expect(lexer.LParen)
	p.parseList(lexer.RParen, func() { names = append(names, p.name(what)) })
	return names
}

// tuple is a parenthesised value list and the index of its '(' token, for
// reporting a wrong number of values.
type tuple struct {
	at     int
	values []ast.Expr
}

func (p *parser) parseTuple() tuple {
	t := tuple{at: p.i, values: []ast.Expr{}}
	p.expect(lexer.LParen)
	p.parseList(lexer.RParen, func() { t.values = append(t.values, p.parseExpr()) })
	return t
}

func (p *parser) parseInsertVertex(pos ast.Pos) *ast.InsertVertexStmt {
	s := &ast.InsertVertexStmt{Pos: pos}
	s.IfNotExists = p.ifNotExists()
	if !p.is("VALUES") && !p.is("VALUE") {
		for {
			tp := &ast.TagProps{Pos: p.pos(), Tag: p.name("tag name")}
			tp.Props = p.parseNameList("property name")
			s.Tags = append(s.Tags, tp)
			if !p.accept(lexer.Comma) {
				break
			}
		}
	}
	p.expectValues()
	for {
		s.Rows = append(s.Rows, p.parseVertexRow(s.Tags))
		if !p.accept(lexer.Comma) {
			return s
		}
	}
}

// parseVertexRow parses vid:(values) or vid:(values), (values), ... and
// splits the values by tag; see ast.VertexRow for the two accepted forms.
func (p *parser) parseVertexRow(tags []*ast.TagProps) *ast.VertexRow {
	row := &ast.VertexRow{Pos: p.pos(), VID: p.parseVID()}
	p.expect(lexer.Colon)
	tuples := []tuple{p.parseTuple()}
	for p.at(lexer.Comma) && p.peek(1).Kind == lexer.LParen {
		p.next()
		tuples = append(tuples, p.parseTuple())
	}

	row.Values = make([][]ast.Expr, len(tags))
	switch {
	case len(tuples) == 1:
		want := 0
		for _, t := range tags {
			want += len(t.Props)
		}
		if got := len(tuples[0].values); got != want {
			p.failAt(tuples[0].at, fmt.Sprintf("expected %d values, got %d", want, got))
		}
		rest := tuples[0].values
		for i, t := range tags {
			row.Values[i], rest = rest[:len(t.Props):len(t.Props)], rest[len(t.Props):]
		}
	case len(tuples) == len(tags):
		for i, t := range tags {
			if got := len(tuples[i].values); got != len(t.Props) {
				p.failAt(tuples[i].at, fmt.Sprintf("expected %d values for tag %s, got %d", len(t.Props), t.Tag, got))
			}
			row.Values[i] = tuples[i].values
		}
	default:
		p.failAt(tuples[1].at, fmt.Sprintf("expected one value list, or one per tag (%d), got %d", len(tags), len(tuples)))
	}
	return row
}

func (p *parser) parseInsertEdge(pos ast.Pos) *ast.InsertEdgeStmt {
	s := &ast.InsertEdgeStmt{Pos: pos}
	s.IfNotExists = p.ifNotExists()
	s.Edge = p.name("edge name")
	s.Props = p.parseNameList("property name")
	p.expectValues()
	for {
		row := &ast.EdgeRow{Pos: p.pos(), Key: p.parseLiteralEdgeKey()}
		p.expect(lexer.Colon)
		t := p.parseTuple()
		if len(t.values) != len(s.Props) {
			p.failAt(t.at, fmt.Sprintf("expected %d values, got %d", len(s.Props), len(t.values)))
		}
		row.Values = t.values
		s.Rows = append(s.Rows, row)
		if !p.accept(lexer.Comma) {
			return s
		}
	}
}

// parseLiteralEdgeKey parses src->dst[@rank] with vid literals and an
// integer rank.
func (p *parser) parseLiteralEdgeKey() *ast.EdgeKey {
	return p.finishLiteralEdgeKey(&ast.EdgeKey{Pos: p.pos(), Src: p.parseVID()})
}

// finishLiteralEdgeKey parses the ->dst[@rank] of a key whose Src is parsed.
func (p *parser) finishLiteralEdgeKey(k *ast.EdgeKey) *ast.EdgeKey {
	p.expect(lexer.Arrow)
	k.Dst = p.parseVID()
	if p.accept(lexer.At) {
		if p.atParam() {
			k.Rank = p.parseParam()
			return k
		}
		if !p.at(lexer.Int) && !(p.at(lexer.Minus) && p.peek(1).Kind == lexer.Int) {
			p.expected("an integer rank")
		}
		k.Rank = p.parseNumber()
	}
	return k
}

// parseVID parses a vertex id: an integer literal (possibly negative), a
// string literal, a query parameter $p, or a function call of constants
// such as hash("name"), NebulaGraph's way of making INT64 vids. Whether it
// matches the space's vid_type is the validator's call.
func (p *parser) parseVID() ast.Expr {
	switch {
	case p.at(lexer.Int), p.at(lexer.Minus) && p.peek(1).Kind == lexer.Int:
		return p.parseNumber()
	case p.at(lexer.String):
		return p.parseString()
	case p.atParam():
		return p.parseParam()
	case p.at(lexer.Ident) && p.peek(1).Kind == lexer.LParen:
		if p.depth == 0 {
			p.operators = 0
		}
		return p.parsePrimary()
	}
	p.expected("a vertex id")
	return nil
}
