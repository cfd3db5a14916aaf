package parser

import (
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

func (p *parser) parseGo() *ast.GoStmt {
	s := &ast.GoStmt{Pos: p.pos(), Steps: ast.StepRange{Min: 1, Max: 1}}
	p.next()
	if p.at(lexer.Int) {
		s.Steps = p.parseSteps()
	}
	p.expectKeyword("FROM")
	s.From = p.parseVertexSource()
	p.expectKeyword("OVER")
	s.Over = p.parseOver()
	if p.acceptKeyword("WHERE") {
		s.Where = p.parseExpr()
	}
	if p.is("YIELD") {
		s.Yield = p.parseYieldClause()
	}
	s.Limits = p.parseStepLimits()
	return s
}

// parseSteps parses N STEPS or M TO N STEPS (STEP is accepted for STEPS).
func (p *parser) parseSteps() ast.StepRange {
	var r ast.StepRange
	r.Min = p.intInRange("step count", 0, ast.MaxSteps)
	r.Max = r.Min
	if p.acceptKeyword("TO") {
		at := p.i
		r.Max = p.intInRange("step count", 0, ast.MaxSteps)
		if r.Max < r.Min {
			p.failAt(at, "the upper bound of M TO N STEPS must not be less than the lower")
		}
	}
	if !p.acceptKeyword("STEPS") && !p.acceptKeyword("STEP") {
		p.expected("STEPS")
	}
	return r
}

// parseVertexSource parses vid, vid, ... or a single $-.col, $var.col or
// query parameter $p.
func (p *parser) parseVertexSource() *ast.VertexSource {
	s := &ast.VertexSource{Pos: p.pos()}
	if p.atParam() {
		s.Ref = p.parseParam()
		return s
	}
	if p.at(lexer.InputRef) || p.at(lexer.Variable) {
		s.Ref = p.parseRef()
		return s
	}
	for {
		s.VIDs = append(s.VIDs, p.parseVID())
		if !p.accept(lexer.Comma) {
			return s
		}
	}
}

// atParam reports whether the next token is a query parameter: $name with
// no .col after it.
func (p *parser) atParam() bool {
	return p.at(lexer.Variable) && p.peek(1).Kind != lexer.Dot
}

// parseParam parses the query parameter $name.
func (p *parser) parseParam() *ast.ParamExpr {
	x := &ast.ParamExpr{Pos: p.pos(), Name: p.tok().Value}
	p.next()
	return x
}

// parseRef parses $-.col or $var.col.
func (p *parser) parseRef() ast.Expr {
	pos := p.pos()
	switch t := p.tok(); t.Kind {
	case lexer.InputRef:
		p.next()
		p.expect(lexer.Dot)
		return &ast.InputPropExpr{Pos: pos, Col: p.nameAfterDot("a column name")}
	case lexer.Variable:
		p.next()
		p.expect(lexer.Dot)
		return &ast.VarPropExpr{Pos: pos, Var: t.Value, Col: p.nameAfterDot("a column name")}
	}
	p.expected("$-.column or $variable.column")
	return nil
}

func (p *parser) parseOver() *ast.OverClause {
	o := &ast.OverClause{Pos: p.pos(), Direction: ast.Forward}
	if p.accept(lexer.Star) {
		o.All = true
	} else {
		for {
			o.Edges = append(o.Edges, p.name("edge name"))
			if !p.accept(lexer.Comma) {
				break
			}
		}
	}
	switch {
	case p.acceptKeyword("REVERSELY"):
		o.Direction = ast.Reversely
	case p.acceptKeyword("BIDIRECT"):
		o.Direction = ast.Bidirect
	}
	return o
}

// parseFetch parses FETCH PROP ON, for vertices or for edges. Which one it
// is shows only at the first key: an edge key has "->".
func (p *parser) parseFetch() ast.Statement {
	pos := p.pos()
	p.next()
	p.expectKeyword("PROP")
	p.expectKeyword("ON")
	namesAt := p.i
	var names []string
	all := p.accept(lexer.Star)
	if !all {
		names = append(names, p.name("tag or edge name"))
		for p.at(lexer.Comma) && p.peek(1).IsName() {
			p.next()
			names = append(names, p.name("tag name"))
		}
	}

	var first ast.Expr
	if p.atParam() {
		// FETCH PROP ON tag $p: the vertices a parameter holds.
		v := &ast.FetchVerticesStmt{Pos: pos, Tags: names, AllTags: all}
		v.Vertices = &ast.VertexSource{Pos: p.pos(), Ref: p.parseParam()}
		if p.at(lexer.Arrow) {
			p.fail("the key of FETCH PROP ON edges cannot be a parameter: write $-.src->$-.dst or literal keys")
		}
		if p.is("YIELD") {
			v.Yield = p.parseYieldClause()
		}
		return v
	}
	isRef := p.at(lexer.InputRef) || p.at(lexer.Variable)
	if isRef {
		first = p.parseRef()
	} else {
		first = p.parseVID()
	}
	if !p.at(lexer.Arrow) {
		v := &ast.FetchVerticesStmt{Pos: pos, Tags: names, AllTags: all}
		v.Vertices = &ast.VertexSource{Pos: first.Position()}
		if isRef {
			v.Vertices.Ref = first
		} else {
			v.Vertices.VIDs = []ast.Expr{first}
			for p.accept(lexer.Comma) {
				v.Vertices.VIDs = append(v.Vertices.VIDs, p.parseVID())
			}
		}
		if p.is("YIELD") {
			v.Yield = p.parseYieldClause()
		}
		return v
	}

	if all || len(names) != 1 {
		p.failAt(namesAt, "FETCH PROP ON edges takes exactly one edge type")
	}
	e := &ast.FetchEdgesStmt{Pos: pos, Edge: names[0], Keys: p.finishEdgeKeys(first, isRef)}
	if p.is("YIELD") {
		e.Yield = p.parseYieldClause()
	}
	return e
}

func (p *parser) parseYieldStmt() *ast.YieldStmt {
	s := &ast.YieldStmt{Pos: p.pos(), Yield: p.parseYieldClause()}
	if p.acceptKeyword("WHERE") {
		s.Where = p.parseExpr()
	}
	return s
}

// parseYieldClause parses YIELD [DISTINCT] expr [AS alias], ....
func (p *parser) parseYieldClause() *ast.YieldClause {
	y := &ast.YieldClause{Pos: p.pos()}
	p.expectKeyword("YIELD")
	y.Distinct = p.acceptKeyword("DISTINCT")
	for {
		c := &ast.YieldColumn{Pos: p.pos(), Expr: p.parseExpr()}
		if p.acceptKeyword("AS") {
			c.Alias = p.name("an alias")
		}
		y.Columns = append(y.Columns, c)
		if !p.accept(lexer.Comma) {
			return y
		}
	}
}
