package ast

import "strings"

// The expressions below came with MATCH (openCypher); they are valid in
// every statement's expressions.

// CaseExpr is CASE [subject] WHEN a THEN b ... [ELSE c] END, or the
// conditional cond ? a : b (Ternary, one When, Subject nil). Without a
// subject the first true WHEN wins; with one, the first WHEN equal to it.
// Else nil is NULL.
type CaseExpr struct {
	Pos
	Subject Expr
	Whens   []CaseWhen
	Else    Expr
	Ternary bool
}

// CaseWhen is one WHEN ... THEN ... of a CaseExpr.
type CaseWhen struct {
	When, Then Expr
}

// ListComprehension is [var IN list WHERE cond | expr]: the items of list
// for which cond holds (every item without WHERE), each mapped by expr
// (kept as it is without | expr).
type ListComprehension struct {
	Pos
	Var   string
	List  Expr
	Where Expr // nil when absent
	Map   Expr // nil when absent
}

// PredicateExpr is all|any|none|single(var IN list WHERE cond): whether
// cond holds for every item, some item, no item or exactly one item.
type PredicateExpr struct {
	Pos
	Func  string // lower case: all, any, none or single
	Var   string
	List  Expr
	Where Expr
}

// ReduceExpr is reduce(acc = init, var IN list | expr): acc starts as
// init and becomes expr for each item in turn.
type ReduceExpr struct {
	Pos
	Acc  string
	Init Expr
	Var  string
	List Expr
	Map  Expr
}

// SliceExpr is x[from..to]: the items (of a list) or characters (of a
// string) from index from up to, not including, to; either bound may be
// left out (nil), and a negative one counts from the end.
type SliceExpr struct {
	Pos
	X, From, To Expr
}

func (*CaseExpr) exprNode()          {}
func (*ListComprehension) exprNode() {}
func (*PredicateExpr) exprNode()     {}
func (*ReduceExpr) exprNode()        {}
func (*SliceExpr) exprNode()         {}

func (e *CaseExpr) String() string {
	if e.Ternary && len(e.Whens) == 1 {
		s := "(" + e.Whens[0].When.String() + " ? " + e.Whens[0].Then.String() + " : "
		if e.Else != nil {
			return s + e.Else.String() + ")"
		}
		return s + "NULL)"
	}
	var b strings.Builder
	b.WriteString("CASE")
	if e.Subject != nil {
		b.WriteString(" " + e.Subject.String())
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.When.String() + " THEN " + w.Then.String())
	}
	if e.Else != nil {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (e *ListComprehension) String() string {
	s := "[" + QuoteName(e.Var) + " IN " + e.List.String()
	if e.Where != nil {
		s += " WHERE " + e.Where.String()
	}
	if e.Map != nil {
		s += " | " + e.Map.String()
	}
	return s + "]"
}

func (e *PredicateExpr) String() string {
	return e.Func + "(" + QuoteName(e.Var) + " IN " + e.List.String() + " WHERE " + e.Where.String() + ")"
}

func (e *ReduceExpr) String() string {
	return "reduce(" + QuoteName(e.Acc) + " = " + e.Init.String() + ", " + QuoteName(e.Var) + " IN " +
		e.List.String() + " | " + e.Map.String() + ")"
}

func (e *SliceExpr) String() string {
	s := e.X.String() + "["
	if e.From != nil {
		s += e.From.String()
	}
	s += ".."
	if e.To != nil {
		s += e.To.String()
	}
	return s + "]"
}
