package ast

import "github.com/novagraph/novagraph/query/value"

// PipeStmt is Left | Right: Right reads Left's result as $-. Pipes chain to
// the left, so a | b | c is Pipe{Pipe{a, b}, c}. Left is GO, FETCH, LOOKUP,
// YIELD or another pipe whose Right is one of those; Right is GO, FETCH,
// LOOKUP, YIELD or, only as the last statement of a pipeline that is not
// assigned, DELETE VERTEX / TAG / EDGE (which yield no result). Pos is the
// position of the '|'. Either side may also be GROUP BY, ORDER BY, LIMIT
// or a parenthesised set operation (stmt_ops.go).
type PipeStmt struct {
	Pos
	Left, Right Statement
}

// AssignStmt is $Var = Stmt; later statements read the result as $Var.col.
// Stmt is GO, FETCH, LOOKUP, YIELD or a pipe of them.
type AssignStmt struct {
	Pos
	Var  string // without the '$'
	Stmt Statement
}

// ExplainStmt is EXPLAIN [FORMAT = "row" | "dot"] stmt, or PROFILE with the
// same syntax: print the plan of Stmt (and, for PROFILE, run it and print
// rows and time per plan node).
type ExplainStmt struct {
	Pos
	Profile bool
	Format  string // "row" or "dot", lower case; "" when not given
	Stmt    Statement
}

func (*PipeStmt) stmtNode()    {}
func (*AssignStmt) stmtNode()  {}
func (*ExplainStmt) stmtNode() {}

func (s *PipeStmt) String() string   { return parenSet(s.Left) + " | " + parenSet(s.Right) }
func (s *AssignStmt) String() string { return "$" + s.Var + " = " + s.Stmt.String() }

func (s *ExplainStmt) String() string {
	verb := "EXPLAIN "
	if s.Profile {
		verb = "PROFILE "
	}
	if s.Format != "" {
		verb += "FORMAT = " + value.Str(s.Format).String() + " "
	}
	return verb + s.Stmt.String()
}
