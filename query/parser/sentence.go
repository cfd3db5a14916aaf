package parser

import (
	"strings"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/lexer"
)

// parseSentence parses one statement between semicolons:
//
//	sentence := (EXPLAIN | PROFILE) [FORMAT = string] pipeline | pipeline
//	pipeline := $var = set | statement ('|' query)* ['|' sink] [setop set]
//	set      := query ('|' query)* (setop query ('|' query)*)*
//	setop    := UNION [DISTINCT | ALL] | INTERSECT | MINUS
//	query    := GO | FETCH | LOOKUP | YIELD | MATCH | GROUP BY | ORDER BY | LIMIT | '(' set ')'
//	sink     := DELETE VERTEX | DELETE TAG | DELETE EDGE
//
// A sink reads the piped input ($-) but yields no result, so it can only
// end a pipeline that is not assigned or combined. See stmt_ops.go for
// GROUP BY, ORDER BY, LIMIT and the set operators.
func (p *parser) parseSentence() ast.Statement {
	if p.is("EXPLAIN") || p.is("PROFILE") {
		return p.parseExplain()
	}
	return p.parsePipeline()
}

func (p *parser) parseExplain() *ast.ExplainStmt {
	s := &ast.ExplainStmt{Pos: p.pos(), Profile: p.is("PROFILE")}
	p.next()
	if p.acceptKeyword("FORMAT") {
		p.expect(lexer.Assign)
		t := p.tok()
		format := strings.ToLower(t.Value)
		if t.Kind != lexer.String || (format != "row" && format != "dot") {
			p.expected(`"row" or "dot"`)
		}
		p.next()
		s.Format = format
	}
	if p.is("EXPLAIN") || p.is("PROFILE") {
		p.fail("EXPLAIN and PROFILE cannot be nested")
	}
	s.Stmt = p.parsePipeline()
	return s
}

func (p *parser) parsePipeline() ast.Statement {
	if p.at(lexer.Variable) && p.peek(1).Kind == lexer.Assign {
		s := &ast.AssignStmt{Pos: p.pos(), Var: p.tok().Value}
		p.next()
		p.next()
		s.Stmt = p.parseSetOps(p.parseQuery(), false)
		return s
	}
	return p.parseSetOps(p.parseStatement(), true)
}

// parsePipe parses the '|' query ... that follows left. With sinks, the
// last statement may be a DELETE.
func (p *parser) parsePipe(left ast.Statement, sinks bool) ast.Statement {
	for p.at(lexer.Pipe) {
		if !isQuery(left) {
			p.fail("only GO, FETCH, LOOKUP and YIELD results can be piped")
		}
		pos := p.pos()
		p.next()
		var right ast.Statement
		if sinks && p.is("DELETE") {
			right = p.parseDelete()
		} else if sinks {
			right = p.parseQueryOr("GO, FETCH, LOOKUP, YIELD or DELETE")
		} else {
			right = p.parseQuery()
		}
		left = chainPipe(pos, left, right)
	}
	return left
}

// isQuery reports whether s produces a result that can be piped or assigned.
func isQuery(s ast.Statement) bool {
	switch s := s.(type) {
	case *ast.GoStmt, *ast.FetchVerticesStmt, *ast.FetchEdgesStmt, *ast.LookupStmt, *ast.YieldStmt,
		*ast.GroupByStmt, *ast.OrderByStmt, *ast.LimitStmt, *ast.SetOpStmt,
		*ast.FindPathStmt, *ast.SubgraphStmt, *ast.MatchStmt:
		return true
	case *ast.PipeStmt:
		return isQuery(s.Right)
	}
	return false
}

// parseQuery parses a statement that can be piped or assigned.
func (p *parser) parseQuery() ast.Statement {
	return p.parseQueryOr("GO, FETCH, LOOKUP or YIELD")
}

// parseQueryOr is parseQuery failing with "expected <what>".
func (p *parser) parseQueryOr(what string) ast.Statement {
	if s := p.parseOpsQuery(); s != nil {
		return s
	}
	switch {
	case p.is("GO"):
		return p.parseGo()
	case p.is("FETCH"):
		return p.parseFetch()
	case p.is("LOOKUP"):
		return p.parseLookup()
	case p.is("YIELD"):
		return p.parseYieldStmt()
	case p.is("FIND"):
		return p.parseFindPath()
	case p.is("GET") && p.peek(1).Is("SUBGRAPH"):
		return p.parseGetSubgraph()
	case p.isMatchStart():
		return p.parseMatch()
	}
	p.expected(what)
	return nil
}

func (p *parser) parseStatement() ast.Statement {
	p.rejectUnsupported()
	switch {
	case p.is("GO"), p.is("FETCH"), p.is("LOOKUP"), p.is("YIELD"):
		return p.parseQuery()
	case p.is("FIND"), p.is("GET") && p.peek(1).Is("SUBGRAPH"):
		return p.parseQuery()
	case p.isMatchStart():
		return p.parseQuery()
	case p.is("CREATE"):
		return p.parseCreate()
	case p.is("ALTER"):
		return p.parseAlter()
	case p.is("DROP"):
		return p.parseDrop()
	case p.is("REBUILD"):
		return p.parseRebuild()
	case p.is("DELETE"):
		return p.parseDelete()
	case p.is("UPDATE"), p.is("UPSERT"):
		return p.parseUpdate()
	case p.is("CLEAR") && p.peek(1).Is("SPACE"):
		pos := p.pos()
		p.next()
		p.next()
		s := &ast.ClearSpaceStmt{Pos: pos}
		s.IfExists = p.ifExists()
		s.Name = p.name("space name")
		return s
	case p.is("USE"):
		pos := p.pos()
		p.next()
		return &ast.UseStmt{Pos: pos, Space: p.name("space name")}
	case p.is("SHOW"):
		return p.parseShow()
	case p.is("DESCRIBE"), p.is("DESC"):
		return p.parseDescribe()
	case p.is("INSERT"):
		return p.parseInsert()
	case p.is("SET"):
		return p.parseSetSession()
	case p.is("KILL"):
		return p.parseKillQuery()
	case p.is("GRANT"), p.is("REVOKE"):
		return p.parseGrantRevoke()
	case p.is("CHANGE") && p.peek(1).Is("PASSWORD"):
		return p.parseChangePassword()
	case p.isJobStmt():
		return p.parseJobStmt()
	case p.is("ADD") && p.peek(1).Is("HOSTS"):
		return p.parseAddHosts()
	case p.at(lexer.LParen), p.is("ORDER"), p.is("GROUP") && p.peek(1).Is("BY"):
		return p.parseOpsQuery()
	}
	p.rejectUnpiped()
	p.expected("a statement")
	return nil
}
