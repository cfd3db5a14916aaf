package parser

import (
	"fmt"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// maxPatternHops bounds the upper bound of a variable-length relationship
// (*m..n): the paths of n hops grow as the degree to the n-th power, and a
// k-hop beyond this is a mistake rather than a query.
const maxPatternHops = 32

// maxShortestHops bounds the relationship of shortestPath(...), which may
// also leave its upper bound out (*, *1..): a breadth-first search costs
// at most the graph, however deep.
const maxShortestHops = 1000

// isMatchStart reports whether the current token starts a MATCH query.
func (p *parser) isMatchStart() bool {
	return p.is("MATCH") || p.is("OPTIONAL") && p.peek(1).Is("MATCH") || p.is("UNWIND") ||
		p.is("WITH") && !p.peek(1).Is("PROP")
}

// parseMatch parses a MATCH query (see ast.MatchStmt):
//
//	query      := clause+ RETURN projection
//	clause     := [OPTIONAL] MATCH pattern (',' pattern)* [WHERE expr]
//	            | UNWIND expr AS name
//	            | WITH projection [WHERE expr]
//	projection := [DISTINCT] ('*' | expr [AS name] (',' expr [AS name])*)
//	              [ORDER BY expr [ASC|DESC], ...] [SKIP expr] [LIMIT expr]
func (p *parser) parseMatch() *ast.MatchStmt {
	s := &ast.MatchStmt{Pos: p.pos()}
	for {
		pos := p.pos()
		switch {
		case p.is("MATCH"), p.is("OPTIONAL"):
			c := &ast.MatchClause{Pos: pos, Optional: p.acceptKeyword("OPTIONAL")}
			p.expectKeyword("MATCH")
			for {
				c.Patterns = append(c.Patterns, p.parsePattern())
				if !p.accept(lexer.Comma) {
					break
				}
			}
			if p.acceptKeyword("WHERE") {
				c.Where = p.parseExpr()
			}
			s.Clauses = append(s.Clauses, c)
		case p.is("UNWIND"):
			p.next()
			c := &ast.UnwindClause{Pos: pos, Expr: p.parseExpr()}
			p.expectKeyword("AS")
			c.Alias = p.name("a variable name")
			s.Clauses = append(s.Clauses, c)
		case p.is("WITH"):
			p.next()
			c := &ast.WithClause{Pos: pos, Proj: p.parseProjection(pos, "WITH")}
			if p.acceptKeyword("WHERE") {
				c.Where = p.parseExpr()
			}
			s.Clauses = append(s.Clauses, c)
		case p.is("RETURN"):
			if len(s.Clauses) == 0 {
				p.fail("RETURN needs a MATCH, UNWIND or WITH before it")
			}
			p.next()
			s.Return = p.parseProjection(pos, "RETURN")
			return s
		default:
			if len(s.Clauses) == 0 {
				p.expected("MATCH")
			}
			for _, w := range []string{"SET", "DELETE", "DETACH", "CREATE", "MERGE", "REMOVE", "CALL", "FOREACH"} {
				if p.is(w) {
					p.fail(w + " in a MATCH query is not supported by novagraph: write with INSERT, UPDATE or DELETE statements")
				}
			}
			p.fail("expected MATCH, OPTIONAL MATCH, UNWIND, WITH or RETURN (a MATCH query ends with RETURN)")
		}
	}
}

func (p *parser) parseProjection(pos ast.Pos, clause string) *ast.Projection {
	pr := &ast.Projection{Pos: pos, Distinct: p.acceptKeyword("DISTINCT")}
	if p.accept(lexer.Star) {
		pr.Star = true
	} else {
		for {
			c := &ast.YieldColumn{Pos: p.pos(), Expr: p.parseExpr()}
			if p.acceptKeyword("AS") {
				c.Alias = p.name("an alias")
			}
			pr.Items = append(pr.Items, c)
			if !p.accept(lexer.Comma) {
				break
			}
		}
	}
	if p.is("ORDER") {
		pr.OrderBy = p.parseOrderBy().Factors
	}
	if p.acceptKeyword("SKIP") {
		pr.Skip = p.parseExpr()
	}
	if p.acceptKeyword("LIMIT") {
		pr.Limit = p.parseExpr()
	}
	if p.is("SKIP") {
		p.fail(fmt.Sprintf("SKIP comes before LIMIT in %s", clause))
	}
	return pr
}

// parsePattern parses [name =] node (rel node)*.
func (p *parser) parsePattern() *ast.Pattern {
	pat := &ast.Pattern{Pos: p.pos()}
	if p.tok().IsName() && p.peek(1).Kind == lexer.Assign {
		pat.PathVar = p.name("a path name")
		p.next()
	}
	switch {
	case p.is("shortestPath") && p.peek(1).Kind == lexer.LParen:
		pat.Shortest = ast.ShortestOne
	case p.is("allShortestPaths") && p.peek(1).Kind == lexer.LParen:
		pat.Shortest = ast.ShortestAll
	}
	if pat.Shortest != ast.NotShortest {
		p.next()
		p.next()
	}
	pat.Nodes = append(pat.Nodes, p.parseNodePattern())
	for p.at(lexer.Minus) || p.at(lexer.Lt) || p.at(lexer.Arrow) {
		pat.Rels = append(pat.Rels, p.parseRelPattern(pat.Shortest != ast.NotShortest))
		pat.Nodes = append(pat.Nodes, p.parseNodePattern())
	}
	if pat.Shortest != ast.NotShortest {
		if len(pat.Rels) != 1 {
			p.fail("a shortest-path pattern is one relationship between two nodes, as shortestPath((a)-[:e*..5]-(b))")
		}
		p.expect(lexer.RParen)
	}
	return pat
}

// parseNodePattern parses (name :tag {props} :tag ...).
func (p *parser) parseNodePattern() *ast.NodePattern {
	n := &ast.NodePattern{Pos: p.pos()}
	if !p.accept(lexer.LParen) {
		p.expected("'(' to start a node pattern")
	}
	if p.tok().IsName() {
		n.Var = p.name("a variable name")
	}
	for p.accept(lexer.Colon) {
		l := &ast.NodeLabel{Name: p.name("a tag name")}
		if p.at(lexer.LBrace) {
			l.Props = p.parseMap()
		}
		n.Labels = append(n.Labels, l)
	}
	if p.at(lexer.LBrace) {
		p.fail("a property map in a node pattern belongs to a tag: write (v:tag{prop: value})")
	}
	p.expect(lexer.RParen)
	return n
}

// parseRelPattern parses the relationship between two node patterns:
// -[...]->, <-[...]-, -[...]-, and the short forms -->, <--, --, <-->.
func (p *parser) parseRelPattern(shortest bool) *ast.RelPattern {
	r := &ast.RelPattern{Pos: p.pos()}
	in := false
	switch {
	case p.at(lexer.Arrow):
		p.fail("expected '-' or '<-' before a relationship")
	case p.accept(lexer.Lt):
		in = true
		p.expect(lexer.Minus)
	default:
		p.expect(lexer.Minus)
	}
	if p.accept(lexer.LBracket) {
		p.parseRelBody(r, shortest)
		p.expect(lexer.RBracket)
	}
	switch {
	case p.accept(lexer.Arrow):
		if in {
			r.Dir = ast.RelBoth // <-[]->, as <--> , either way
		} else {
			r.Dir = ast.RelOut
		}
	case p.accept(lexer.Minus):
		if in {
			r.Dir = ast.RelIn
		} else {
			r.Dir = ast.RelBoth
		}
	default:
		p.expected("'-' or '->' to end the relationship")
	}
	return r
}

// parseRelBody parses what is between the brackets of a relationship:
// [name] [:type ('|' [:]type)*] [{props}] [*[min][..[max]]] [{props}].
func (p *parser) parseRelBody(r *ast.RelPattern, shortest bool) {
	maxHops := int64(maxPatternHops)
	if shortest {
		maxHops = maxShortestHops
	}
	if p.tok().IsName() {
		r.Var = p.name("a variable name")
	}
	if p.accept(lexer.Colon) {
		r.Types = append(r.Types, p.name("an edge type"))
		for p.accept(lexer.Pipe) {
			p.accept(lexer.Colon)
			r.Types = append(r.Types, p.name("an edge type"))
		}
	}
	if p.at(lexer.LBrace) {
		r.Props = p.parseMap()
	}
	if p.at(lexer.Star) {
		p.next()
		r.VarLen = true
		r.Min, r.Max = 1, -1
		if p.at(lexer.Int) {
			r.Min = int(p.int64InRange("a number of hops", 0, maxHops))
			r.Max = r.Min
		}
		if p.accept(lexer.DotDot) {
			r.Max = -1
			if p.at(lexer.Int) {
				r.Max = int(p.int64InRange("a number of hops", 0, maxHops))
			}
		}
		if r.Max < 0 && shortest {
			r.Max = maxShortestHops
		}
		if r.Max < 0 {
			p.fail(fmt.Sprintf("a variable-length relationship needs an upper bound, as *1..3 (at most %d)", maxPatternHops))
		}
		if r.Max < r.Min {
			p.fail(fmt.Sprintf("the hops *%d..%d go down: write the smaller bound first", r.Min, r.Max))
		}
		if p.at(lexer.LBrace) {
			if r.Props != nil {
				p.fail("a relationship has one property map")
			}
			r.Props = p.parseMap()
		}
	}
}
