package parser

import (
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// parseDelete parses DELETE VERTEX, DELETE TAG and DELETE EDGE.
func (p *parser) parseDelete() ast.Statement {
	pos := p.pos()
	p.next()
	switch {
	case p.acceptKeyword("VERTEX"):
		s := &ast.DeleteVertexStmt{Pos: pos, Vertices: p.parseVertexSource()}
		if p.acceptKeyword("WITH") {
			p.expectKeyword("EDGE")
			s.WithEdge = true
		}
		return s
	case p.acceptKeyword("TAG"):
		s := &ast.DeleteTagStmt{Pos: pos}
		if p.accept(lexer.Star) {
			s.All = true
		} else {
			for {
				s.Tags = append(s.Tags, p.name("tag name or '*'"))
				if !p.accept(lexer.Comma) {
					break
				}
			}
		}
		p.expectKeyword("FROM")
		s.From = p.parseVertexSource()
		return s
	case p.acceptKeyword("EDGE"):
		s := &ast.DeleteEdgeStmt{Pos: pos, Edge: p.name("edge name")}
		s.Keys = p.parseEdgeKeys()
		return s
	}
	p.expected("VERTEX, TAG or EDGE")
	return nil
}

// parseEdgeKeys parses literal keys src->dst[@rank], ... or one reference
// key $-.src->$-.dst[@$-.rank] (or with $var).
func (p *parser) parseEdgeKeys() []*ast.EdgeKey {
	if p.at(lexer.InputRef) || p.at(lexer.Variable) {
		return p.finishEdgeKeys(p.parseRef(), true)
	}
	return p.finishEdgeKeys(p.parseVID(), false)
}

// finishEdgeKeys parses the rest of a list of edge keys whose first Src,
// first, is parsed: literal keys src->dst[@rank], ... or, when isRef, the
// one reference key, whose dst and rank come from the same input as its src
// (the rank may also be an integer).
func (p *parser) finishEdgeKeys(first ast.Expr, isRef bool) []*ast.EdgeKey {
	k := &ast.EdgeKey{Pos: first.Position(), Src: first}
	if !isRef {
		keys := []*ast.EdgeKey{p.finishLiteralEdgeKey(k)}
		for p.accept(lexer.Comma) {
			keys = append(keys, p.parseLiteralEdgeKey())
		}
		return keys
	}
	p.expect(lexer.Arrow)
	k.Dst = p.parseSameRef(first)
	if p.accept(lexer.At) {
		if p.at(lexer.Int) || (p.at(lexer.Minus) && p.peek(1).Kind == lexer.Int) {
			k.Rank = p.parseNumber()
		} else {
			k.Rank = p.parseSameRef(first)
		}
	}
	return []*ast.EdgeKey{k}
}

// parseSameRef parses $-.col or $var.col that must read the same input as
// ref: $- if ref is $-.col, the same $var if ref is $var.col.
func (p *parser) parseSameRef(ref ast.Expr) ast.Expr {
	at := p.i
	r := p.parseRef()
	same := false
	switch x := ref.(type) {
	case *ast.InputPropExpr:
		_, same = r.(*ast.InputPropExpr)
	case *ast.VarPropExpr:
		v, ok := r.(*ast.VarPropExpr)
		same = ok && v.Var == x.Var
	}
	if !same {
		p.failAt(at, "the columns of an edge key must all come from $- or all from the same $variable")
	}
	return r
}

// parseUpdate parses UPDATE | UPSERT  VERTEX | EDGE  ON ....
func (p *parser) parseUpdate() ast.Statement {
	pos := p.pos()
	upsert := p.is("UPSERT")
	p.next()
	switch {
	case p.acceptKeyword("VERTEX"):
		p.expectKeyword("ON")
		s := &ast.UpdateVertexStmt{Pos: pos, Upsert: upsert, Tag: p.name("tag name")}
		s.Vid = p.parseVID()
		s.Set, s.When, s.Yield = p.parseUpdateTail()
		return s
	case p.acceptKeyword("EDGE"):
		p.expectKeyword("ON")
		s := &ast.UpdateEdgeStmt{Pos: pos, Upsert: upsert, Edge: p.name("edge name")}
		s.Key = p.parseLiteralEdgeKey()
		s.Set, s.When, s.Yield = p.parseUpdateTail()
		return s
	}
	p.expected("VERTEX or EDGE")
	return nil
}

// parseUpdateTail parses SET item, ... [WHEN expr] [YIELD ...].
func (p *parser) parseUpdateTail() (set []*ast.SetItem, when ast.Expr, yield *ast.YieldClause) {
	p.expectKeyword("SET")
	for {
		set = append(set, p.parseSetItem())
		if !p.accept(lexer.Comma) {
			break
		}
	}
	if p.acceptKeyword("WHEN") {
		when = p.parseExpr()
	}
	if p.is("YIELD") {
		yield = p.parseYieldClause()
	}
	return set, when, yield
}

// parseSetItem parses prop = expr or schema.prop = expr.
func (p *parser) parseSetItem() *ast.SetItem {
	item := &ast.SetItem{Pos: p.pos()}
	item.Prop = p.name("property name")
	if p.accept(lexer.Dot) {
		item.Schema = item.Prop
		item.Prop = p.nameAfterDot("a property name")
	}
	p.expect(lexer.Assign)
	item.Value = p.parseExpr()
	return item
}
