package parser

import (
	"math"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// schemaWhat names what a name of the given kind is, for errors.
func schemaWhat(kind ast.SchemaKind) string {
	if kind == ast.EdgeSchema {
		return "edge name"
	}
	return "tag name"
}

// parseCreateIndex parses the rest of CREATE TAG | EDGE INDEX, after INDEX:
// [IF NOT EXISTS] name ON schema(prop [(len)], ...).
func (p *parser) parseCreateIndex(pos ast.Pos, kind ast.SchemaKind) *ast.CreateIndexStmt {
	s := &ast.CreateIndexStmt{Pos: pos, Kind: kind}
	s.IfNotExists = p.ifNotExists()
	s.Name = p.name("index name")
	p.expectKeyword("ON")
	s.Schema = p.name(schemaWhat(kind))
	p.expect(lexer.LParen)
	p.parseList(lexer.RParen, func() {
		f := &ast.IndexField{Pos: p.pos(), Prop: p.name("property name")}
		if p.accept(lexer.LParen) {
			f.Len = p.intInRange("index prefix length", 1, math.MaxInt16)
			p.expect(lexer.RParen)
		}
		s.Fields = append(s.Fields, f)
	})
	return s
}

// parseDropIndex parses the rest of DROP TAG | EDGE INDEX, after INDEX.
func (p *parser) parseDropIndex(pos ast.Pos, kind ast.SchemaKind) *ast.DropIndexStmt {
	s := &ast.DropIndexStmt{Pos: pos, Kind: kind}
	s.IfExists = p.ifExists()
	s.Name = p.name("index name")
	return s
}

// parseRebuild parses REBUILD TAG | EDGE INDEX [name, ...].
func (p *parser) parseRebuild() *ast.RebuildIndexStmt {
	s := &ast.RebuildIndexStmt{Pos: p.pos()}
	p.next()
	switch {
	case p.acceptKeyword("TAG"):
		s.Kind = ast.TagSchema
	case p.acceptKeyword("EDGE"):
		s.Kind = ast.EdgeSchema
	default:
		p.expected("TAG or EDGE")
	}
	p.expectKeyword("INDEX")
	if p.tok().IsName() {
		for {
			s.Names = append(s.Names, p.name("index name"))
			if !p.accept(lexer.Comma) {
				break
			}
		}
	}
	return s
}

// parseLookup parses LOOKUP ON name [WHERE expr] [YIELD ...].
func (p *parser) parseLookup() *ast.LookupStmt {
	s := &ast.LookupStmt{Pos: p.pos()}
	p.next()
	p.expectKeyword("ON")
	s.On = p.name("tag or edge name")
	if p.acceptKeyword("WHERE") {
		s.Where = p.parseExpr()
	}
	if p.is("YIELD") {
		s.Yield = p.parseYieldClause()
	}
	return s
}
