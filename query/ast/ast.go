// Package ast defines the syntax tree of nGQL: what the parser produces and
// the validator, planner and executor walk.
//
// Every node embeds Pos, the line and column where its text starts (for
// operators: where the operator is). Every node prints back as nGQL with
// String; for expressions that text is also the default name of a YIELD
// column, following NebulaGraph's conventions (fully parenthesised
// operators, upper-case keywords, names as written), so `YIELD knows.since`
// names its column "knows.since" and `YIELD dst(edge)` names it "dst(EDGE)".
//
// The tree holds no semantics beyond syntax: names are not resolved against
// the catalog and vertex ids are not checked against the space's vid type.
package ast

import (
	"strings"

	"github.com/novagraph/novagraph/query/lexer"
)

// Pos is a position in the query text. Line and Col are 1-based; columns
// count characters, not bytes.
type Pos struct {
	Line, Col int
}

// Position returns p; embedding Pos gives every node this method.
func (p Pos) Position() Pos { return p }

// Node is any node of the tree.
type Node interface {
	Position() Pos
	// String prints the node as nGQL that parses back to an equal tree.
	String() string
}

// Statement is a complete nGQL statement: one of the *Stmt types.
type Statement interface {
	Node
	stmtNode()
}

// Expr is an expression: one of the types in expr.go.
type Expr interface {
	Node
	exprNode()
}

// QuoteName prints a name of a space, tag, edge, property, column or alias
// as written in nGQL: bare if it lexes as a plain identifier that is not
// reserved, otherwise back-quoted.
func QuoteName(name string) string {
	if lexer.IsBareIdent(name) {
		return name
	}
	return "`" + name + "`"
}

// joinNodes prints nodes separated by sep.
func joinNodes[N Node](nodes []N, sep string) string {
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(n.String())
	}
	return b.String()
}

// joinNames prints names separated by ", ", quoting them as needed.
func joinNames(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteName(n))
	}
	return b.String()
}
