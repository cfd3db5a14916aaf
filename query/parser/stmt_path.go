package parser

import (
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// parseFindPath parses
//
//	FIND SHORTEST | ALL | NOLOOP PATH [WITH PROP] FROM source TO source
//	    OVER edges [REVERSELY | BIDIRECT] [WHERE expr] [UPTO N STEPS]
//	    [YIELD path [AS alias]]
func (p *parser) parseFindPath() *ast.FindPathStmt {
	s := &ast.FindPathStmt{Pos: p.pos(), Steps: ast.DefaultPathSteps}
	p.expectKeyword("FIND")
	switch {
	case p.acceptKeyword("SHORTEST"):
		s.Kind = ast.ShortestPath
	case p.acceptKeyword("ALL"):
		s.Kind = ast.AllPaths
	case p.acceptKeyword("NOLOOP"):
		s.Kind = ast.NoLoopPaths
	default:
		p.expected("SHORTEST, ALL or NOLOOP")
	}
	p.expectKeyword("PATH")
	s.WithProp = p.acceptWithProp()
	p.expectKeyword("FROM")
	s.From = p.parseVertexSource()
	p.expectKeyword("TO")
	s.To = p.parseVertexSource()
	p.expectKeyword("OVER")
	s.Over = p.parseOver()
	if p.acceptKeyword("WHERE") {
		s.Where = p.parseExpr()
	}
	if p.acceptKeyword("UPTO") {
		s.Steps = p.intInRange("step count", 0, ast.MaxSteps)
		p.expectSteps()
	}
	if p.acceptKeyword("YIELD") {
		p.expectKeyword("PATH")
		if p.acceptKeyword("AS") {
			s.Alias = p.name("an alias")
		}
	}
	return s
}

// acceptWithProp consumes WITH PROP if it comes next.
func (p *parser) acceptWithProp() bool {
	if !p.is("WITH") {
		return false
	}
	p.next()
	p.expectKeyword("PROP")
	return true
}

// expectSteps consumes STEPS or STEP.
func (p *parser) expectSteps() {
	if !p.acceptKeyword("STEPS") && !p.acceptKeyword("STEP") {
		p.expected("STEPS")
	}
}

// parseGetSubgraph parses
//
//	GET SUBGRAPH [WITH PROP] [N STEPS] FROM source
//	    [IN edge, ...] [OUT edge, ...] [BOTH edge, ...]
//	    [YIELD VERTICES AS alias [, EDGES AS alias]]
func (p *parser) parseGetSubgraph() *ast.SubgraphStmt {
	s := &ast.SubgraphStmt{Pos: p.pos(), Steps: ast.DefaultSubgraphSteps}
	p.expectKeyword("GET")
	p.expectKeyword("SUBGRAPH")
	s.WithProp = p.acceptWithProp()
	if p.at(lexer.Int) || p.at(lexer.Minus) {
		s.Steps = p.intInRange("step count", 0, ast.MaxSteps)
		p.expectSteps()
	}
	p.expectKeyword("FROM")
	s.From = p.parseVertexSource()
	seen := map[ast.Direction]bool{}
	for p.is("IN") || p.is("OUT") || p.is("BOTH") {
		e := &ast.SubgraphEdges{Pos: p.pos(), Direction: ast.Bidirect}
		switch {
		case p.is("IN"):
			e.Direction = ast.Reversely
		case p.is("OUT"):
			e.Direction = ast.Forward
		}
		if seen[e.Direction] {
			p.fail("each of IN, OUT and BOTH may appear once")
		}
		seen[e.Direction] = true
		p.next()
		for {
			e.Edges = append(e.Edges, p.name("edge name"))
			if !p.accept(lexer.Comma) {
				break
			}
		}
		s.Edges = append(s.Edges, e)
	}
	if p.acceptKeyword("YIELD") {
		s.Yield = []*ast.SubgraphColumn{}
		seenCol := map[bool]bool{}
		for {
			c := &ast.SubgraphColumn{Pos: p.pos()}
			switch {
			case p.acceptKeyword("VERTICES"):
			case p.acceptKeyword("EDGES"):
				c.Edges = true
			default:
				p.expected("VERTICES or EDGES")
			}
			if seenCol[c.Edges] {
				p.failAt(p.i-1, "VERTICES and EDGES may each be yielded once")
			}
			seenCol[c.Edges] = true
			p.expectKeyword("AS")
			c.Alias = p.name("an alias")
			s.Yield = append(s.Yield, c)
			if !p.accept(lexer.Comma) {
				break
			}
		}
	}
	return s
}
