package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
	"github.com/novagraph/novagraph/query/value"
)

// Expression grammar, loosest binding first (as NebulaGraph's grammar has
// it; all binary operators associate to the left):
//
//	cond ? a : b                          conditional, associates to the right
//	OR XOR
//	AND
//	NOT                                   prefix
//	== != <> < <= > >= =~ [NOT] IN, [NOT] CONTAINS, [NOT] STARTS WITH, [NOT] ENDS WITH,
//	IS [NOT] NULL, IS [NOT] EMPTY
//	& ^                                   bitwise, of integers
//	+ -
//	* / %
//	- + !                                 prefix
//	.name [index] [from..to]              postfix
//	literals, lists, list comprehensions, maps, (expr), CASE, calls (with
//	all/any/none/single(x IN l WHERE c) and reduce(a = i, x IN l | e)),
//	property references, $param

func (p *parser) parseExpr() ast.Expr {
	if p.depth == 0 {
		p.operators = 0
	}
	p.enter()
	defer p.leave()
	cond := p.parseOr()
	if !p.at(lexer.Question) {
		return cond
	}
	pos := p.pos()
	p.next()
	p.operator()
	then := p.parseExpr()
	p.expect(lexer.Colon)
	return &ast.CaseExpr{Pos: pos, Whens: []ast.CaseWhen{{When: cond, Then: then}}, Else: p.parseExpr(), Ternary: true}
}

// operator counts one binary operator of the current top-level expression.
// A chain such as a+b+c+… nests to the left without recursing in the
// parser, but evaluating and printing it recurses once per operator, so
// its length is bounded like nesting is.
func (p *parser) operator() {
	p.operators++
	if p.operators > maxOperators {
		p.fail(fmt.Sprintf("expression has more than %d operators", maxOperators))
	}
}

func (p *parser) parseOr() ast.Expr {
	l := p.parseAnd()
	for {
		var op ast.BinaryOp
		switch {
		case p.is("OR"):
			op = ast.OpOr
		case p.is("XOR"):
			op = ast.OpXor
		default:
			return l
		}
		pos := p.pos()
		p.next()
		p.operator()
		l = &ast.BinaryExpr{Pos: pos, Op: op, L: l, R: p.parseAnd()}
	}
}

func (p *parser) parseAnd() ast.Expr {
	l := p.parseNot()
	for p.is("AND") {
		pos := p.pos()
		p.next()
		p.operator()
		l = &ast.BinaryExpr{Pos: pos, Op: ast.OpAnd, L: l, R: p.parseNot()}
	}
	return l
}

func (p *parser) parseNot() ast.Expr {
	if !p.is("NOT") {
		return p.parseComparison()
	}
	pos := p.pos()
	p.next()
	p.enter()
	defer p.leave()
	return &ast.UnaryExpr{Pos: pos, Op: ast.OpNot, X: p.parseNot()}
}

func (p *parser) parseComparison() ast.Expr {
	l := p.parseBitwise()
	for {
		pos := p.pos()
		var op ast.BinaryOp
		switch t := p.tok(); {
		case t.Kind == lexer.Eq:
			op = ast.OpEq
		case t.Kind == lexer.Ne:
			op = ast.OpNe
		case t.Kind == lexer.Lt:
			op = ast.OpLt
		case t.Kind == lexer.Le:
			op = ast.OpLe
		case t.Kind == lexer.Gt:
			op = ast.OpGt
		case t.Kind == lexer.Ge:
			op = ast.OpGe
		case t.Kind == lexer.Match:
			op = ast.OpRegex
		case t.Is("IN"):
			op = ast.OpIn
		case t.Is("NOT") && p.peek(1).Is("IN"):
			p.next()
			op = ast.OpNotIn
		case t.Is("NOT") && p.peek(1).Is("CONTAINS"):
			p.next()
			op = ast.OpNotContains
		case t.Is("NOT") && (p.peek(1).Is("STARTS") || p.peek(1).Is("ENDS")):
			p.next()
			op = ast.OpNotStartsWith
			if p.is("ENDS") {
				op = ast.OpNotEndsWith
			}
			p.next()
			if !p.is("WITH") {
				p.expected("WITH")
			}
		case t.Is("CONTAINS"):
			op = ast.OpContains
		case t.Is("STARTS"):
			p.next()
			if !p.is("WITH") {
				p.expected("WITH")
			}
			op = ast.OpStartsWith
		case t.Is("ENDS"):
			p.next()
			if !p.is("WITH") {
				p.expected("WITH")
			}
			op = ast.OpEndsWith
		case t.Is("IS"):
			p.next()
			u := &ast.UnaryExpr{Pos: pos, Op: ast.OpIsNull, X: l}
			not := p.acceptKeyword("NOT")
			if not {
				u.Op = ast.OpIsNotNull
			}
			switch {
			case p.acceptKeyword("EMPTY"):
				u.Op = ast.OpIsEmpty
				if not {
					u.Op = ast.OpIsNotEmpty
				}
			default:
				if !p.acceptKeyword("NULL") {
					p.expected("NULL or EMPTY")
				}
			}
			// A chain of IS NULL nests without recursing here, but
			// evaluating and printing it recurse: bounded like a+b+c.
			p.operator()
			l = u
			continue
		default:
			return l
		}
		p.next()
		p.operator()
		l = &ast.BinaryExpr{Pos: pos, Op: op, L: l, R: p.parseBitwise()}
	}
}

// parseBitwise parses & and ^ (bitwise and and exclusive or of integers).
// They bind tighter than comparisons, so a & 1 == 1 is (a & 1) == 1.
// Bitwise or is not an operator: '|' is the pipe.
func (p *parser) parseBitwise() ast.Expr {
	l := p.parseAdditive()
	for {
		var op ast.BinaryOp
		switch p.tok().Kind {
		case lexer.Amp:
			op = ast.OpBitAnd
		case lexer.Caret:
			op = ast.OpBitXor
		default:
			return l
		}
		pos := p.pos()
		p.next()
		p.operator()
		l = &ast.BinaryExpr{Pos: pos, Op: op, L: l, R: p.parseAdditive()}
	}
}

func (p *parser) parseAdditive() ast.Expr {
	l := p.parseMultiplicative()
	for {
		var op ast.BinaryOp
		switch p.tok().Kind {
		case lexer.Plus:
			op = ast.OpAdd
		case lexer.Minus:
			op = ast.OpSub
		default:
			return l
		}
		pos := p.pos()
		p.next()
		p.operator()
		l = &ast.BinaryExpr{Pos: pos, Op: op, L: l, R: p.parseMultiplicative()}
	}
}

func (p *parser) parseMultiplicative() ast.Expr {
	l := p.parseUnary()
	for {
		var op ast.BinaryOp
		switch p.tok().Kind {
		case lexer.Star:
			op = ast.OpMul
		case lexer.Slash:
			op = ast.OpDiv
		case lexer.Percent:
			op = ast.OpMod
		default:
			return l
		}
		pos := p.pos()
		p.next()
		p.operator()
		l = &ast.BinaryExpr{Pos: pos, Op: op, L: l, R: p.parseUnary()}
	}
}

func (p *parser) parseUnary() ast.Expr {
	var op ast.UnaryOp
	switch p.tok().Kind {
	case lexer.Minus:
		if k := p.peek(1).Kind; k == lexer.Int || k == lexer.Float {
			return p.parseNumber()
		}
		op = ast.OpNeg
	case lexer.Plus:
		op = ast.OpPlus
	case lexer.Bang:
		op = ast.OpNot
	default:
		return p.parsePostfix()
	}
	pos := p.pos()
	p.next()
	p.enter()
	defer p.leave()
	return &ast.UnaryExpr{Pos: pos, Op: op, X: p.parseUnary()}
}

// parsePostfix parses a primary expression followed by any number of .name
// and [index]. name.prop on a bare name is an edge property.
func (p *parser) parsePostfix() ast.Expr {
	x := p.parsePrimary()
	for {
		switch p.tok().Kind {
		case lexer.Dot:
			p.next()
			p.operator() // see the IS NULL chain in parseComparison
			name := p.nameAfterDot("a property name")
			if l, ok := x.(*ast.LabelExpr); ok {
				x = &ast.EdgePropExpr{Pos: l.Pos, Edge: l.Name, Prop: name}
			} else {
				x = &ast.AttributeExpr{Pos: x.Position(), X: x, Name: name}
			}
		case lexer.LBracket:
			p.next()
			p.operator()
			var index ast.Expr
			if !p.at(lexer.DotDot) {
				index = p.parseExpr()
			}
			if p.accept(lexer.DotDot) {
				sl := &ast.SliceExpr{Pos: x.Position(), X: x, From: index}
				if !p.at(lexer.RBracket) {
					sl.To = p.parseExpr()
				}
				x = sl
			} else {
				x = &ast.SubscriptExpr{Pos: x.Position(), X: x, Index: index}
			}
			p.expect(lexer.RBracket)
		default:
			return x
		}
	}
}

func (p *parser) parsePrimary() ast.Expr {
	pos := p.pos()
	switch t := p.tok(); t.Kind {
	case lexer.Int, lexer.Float:
		return p.parseNumber()
	case lexer.String:
		return p.parseString()
	case lexer.LParen:
		p.next()
		x := p.parseExpr()
		p.expect(lexer.RParen)
		return x
	case lexer.LBracket:
		if p.peek(1).IsName() && p.peek(2).Is("IN") {
			return p.parseListComprehension()
		}
		p.next()
		l := &ast.ListExpr{Pos: pos, Items: []ast.Expr{}}
		p.parseList(lexer.RBracket, func() { l.Items = append(l.Items, p.parseExpr()) })
		return l
	case lexer.LBrace:
		return p.parseMap()
	case lexer.SrcRef, lexer.DstRef:
		p.next()
		role := ast.SrcVertex
		if t.Kind == lexer.DstRef {
			role = ast.DstVertex
		}
		if !p.accept(lexer.Dot) {
			return &ast.VertexExpr{Pos: pos, Role: role}
		}
		tag := p.nameAfterDot("a tag name")
		p.expect(lexer.Dot)
		prop := p.nameAfterDot("a property name")
		if role == ast.DstVertex {
			return &ast.DstPropExpr{Pos: pos, Tag: tag, Prop: prop}
		}
		return &ast.SrcPropExpr{Pos: pos, Tag: tag, Prop: prop}
	case lexer.Variable:
		if p.atParam() {
			return p.parseParam()
		}
		return p.parseRef()
	case lexer.InputRef:
		return p.parseRef()
	case lexer.Ident:
		switch {
		case t.Is("TRUE"), t.Is("FALSE"):
			p.next()
			return &ast.Literal{Pos: pos, Value: value.Bool(t.Is("TRUE"))}
		case t.Is("NULL"):
			p.next()
			return &ast.Literal{Pos: pos, Value: value.Null()}
		case t.Is("EDGE"):
			p.next()
			return &ast.EdgeExpr{Pos: pos}
		case t.Is("VERTEX"):
			p.next()
			return &ast.VertexExpr{Pos: pos, Role: ast.RowVertex}
		case t.Is("CASE"):
			return p.parseCase()
		case t.IsName():
			p.next()
			if p.at(lexer.LParen) {
				if ast.IsAggregateName(t.Value) {
					return p.parseAggregateCall(pos, t.Value)
				}
				if e := p.parseListFunc(pos, t); e != nil {
					return e
				}
				return p.parseCall(pos, t.Value)
			}
			return &ast.LabelExpr{Pos: pos, Name: t.Value}
		}
	}
	p.expected("an expression")
	return nil
}

// parseMap parses a map literal, {key: expr, ...}. A key is a name (any
// word, reserved or not, or a back-quoted name) or a string literal; a key
// given twice is an error.
func (p *parser) parseMap() *ast.MapExpr {
	m := &ast.MapExpr{Pos: p.pos(), Items: []ast.MapItem{}}
	p.expect(lexer.LBrace)
	seen := map[string]bool{}
	p.parseList(lexer.RBrace, func() {
		t := p.tok()
		if t.Kind != lexer.Ident && t.Kind != lexer.String {
			p.expected("a map key (a name or a string)")
		}
		if seen[t.Value] {
			p.fail(fmt.Sprintf("map key %q given twice", t.Value))
		}
		seen[t.Value] = true
		p.next()
		p.expect(lexer.Colon)
		m.Items = append(m.Items, ast.MapItem{Key: t.Value, Value: p.parseExpr()})
	})
	return m
}

func (p *parser) parseCall(pos ast.Pos, name string) *ast.FuncCall {
	c := &ast.FuncCall{Pos: pos, Name: name, Args: []ast.Expr{}}
	p.expect(lexer.LParen)
	p.parseList(lexer.RParen, func() { c.Args = append(c.Args, p.parseExpr()) })
	return c
}

func (p *parser) parseString() *ast.Literal {
	t := p.tok()
	p.next()
	return &ast.Literal{Pos: ast.Pos{Line: t.Line, Col: t.Col}, Value: value.Str(t.Value)}
}

// parseNumber parses an int or float literal, with the minus sign if the
// current token is one. The sign is taken as part of the literal so that
// -9223372036854775808 is valid though 9223372036854775808 is not.
func (p *parser) parseNumber() *ast.Literal {
	pos := p.pos()
	neg := p.accept(lexer.Minus)
	t := p.tok()
	if t.Kind == lexer.Float {
		f, err := strconv.ParseFloat(t.Text, 64)
		if err != nil {
			p.fail("float literal out of range")
		}
		p.next()
		if neg {
			f = -f
		}
		return &ast.Literal{Pos: pos, Value: value.Float(f)}
	}
	if t.Kind != lexer.Int {
		p.expected("a number")
	}
	mag, err := parseUintText(t.Text)
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	if err != nil || mag > limit {
		p.fail("integer literal out of range")
	}
	p.next()
	n := int64(mag) // MinInt64 when mag is 2^63, which negates to itself
	if neg {
		n = -n
	}
	return &ast.Literal{Pos: pos, Value: value.Int(n)}
}

// parseUintText parses the text of an Int token: decimal, or hex after 0x.
func parseUintText(text string) (uint64, error) {
	if len(text) > 2 && (strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X")) {
		return strconv.ParseUint(text[2:], 16, 64)
	}
	return strconv.ParseUint(text, 10, 64)
}

// parseIntText parses the text of an Int token as a non-negative int64.
func parseIntText(text string) (int64, error) {
	u, err := parseUintText(text)
	if err != nil {
		return 0, err
	}
	if u > math.MaxInt64 {
		return 0, strconv.ErrRange
	}
	return int64(u), nil
}

// parseCase parses CASE [subject] WHEN a THEN b ... [ELSE c] END.
func (p *parser) parseCase() *ast.CaseExpr {
	c := &ast.CaseExpr{Pos: p.pos()}
	p.expectKeyword("CASE")
	if !p.is("WHEN") {
		c.Subject = p.parseExpr()
	}
	for p.acceptKeyword("WHEN") {
		w := ast.CaseWhen{When: p.parseExpr()}
		p.expectKeyword("THEN")
		w.Then = p.parseExpr()
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		p.expected("WHEN")
	}
	if p.acceptKeyword("ELSE") {
		c.Else = p.parseExpr()
	}
	p.expectKeyword("END")
	return c
}

// parseListComprehension parses [x IN list [WHERE cond] [| expr]].
func (p *parser) parseListComprehension() *ast.ListComprehension {
	c := &ast.ListComprehension{Pos: p.pos()}
	p.expect(lexer.LBracket)
	c.Var = p.name("a variable name")
	p.expectKeyword("IN")
	c.List = p.parseExpr()
	if p.acceptKeyword("WHERE") {
		c.Where = p.parseExpr()
	}
	if p.accept(lexer.Pipe) {
		c.Map = p.parseExpr()
	}
	p.expect(lexer.RBracket)
	return c
}

// parseListFunc parses all/any/none/single(x IN list WHERE cond) and
// reduce(acc = init, x IN list | expr) when name is one of them and its
// argument has that form; it returns nil (consuming nothing) otherwise,
// so that a function of the same name with plain arguments still parses.
func (p *parser) parseListFunc(pos ast.Pos, name lexer.Token) ast.Expr {
	switch {
	case (name.Is("ALL") || name.Is("ANY") || name.Is("NONE") || name.Is("SINGLE")) &&
		p.peek(1).IsName() && p.peek(2).Is("IN"):
		e := &ast.PredicateExpr{Pos: pos, Func: strings.ToLower(name.Value)}
		p.expect(lexer.LParen)
		e.Var = p.name("a variable name")
		p.expectKeyword("IN")
		e.List = p.parseExpr()
		p.expectKeyword("WHERE")
		e.Where = p.parseExpr()
		p.expect(lexer.RParen)
		return e
	case name.Is("REDUCE") && p.peek(1).IsName() && p.peek(2).Kind == lexer.Assign:
		e := &ast.ReduceExpr{Pos: pos}
		p.expect(lexer.LParen)
		e.Acc = p.name("an accumulator name")
		p.expect(lexer.Assign)
		e.Init = p.parseExpr()
		p.expect(lexer.Comma)
		e.Var = p.name("a variable name")
		p.expectKeyword("IN")
		e.List = p.parseExpr()
		p.expect(lexer.Pipe)
		e.Map = p.parseExpr()
		p.expect(lexer.RParen)
		return e
	}
	return nil
}
