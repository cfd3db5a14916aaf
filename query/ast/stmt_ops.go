package ast

import (
	"strconv"
	"strings"
)

// Result operators: aggregation (GROUP BY, aggregate functions), sorting
// and paging of piped rows (ORDER BY, LIMIT), set operators (UNION,
// INTERSECT, MINUS) and GO's per-step SAMPLE / LIMIT lists.

// IsAggregateName reports whether name (in any case) is an aggregate
// function: count, sum, avg, min, max, collect or collect_set.
func IsAggregateName(name string) bool {
	switch strings.ToLower(name) {
	case "count", "sum", "avg", "min", "max", "collect", "collect_set":
		return true
	}
	return false
}

// AggregateExpr is a call of an aggregate function: name(expr),
// name(DISTINCT expr) or count(*). It is valid only in the YIELD of GROUP
// BY and in a YIELD that reads piped rows (or a variable); the validator
// rejects it anywhere else.
type AggregateExpr struct {
	Pos
	Name     string // as written; compare with strings.EqualFold
	Distinct bool
	Arg      Expr // nil for count(*)
}

func (*AggregateExpr) exprNode() {}

// String prints the call as NebulaGraph names the column: count(*),
// sum($-.w), count(DISTINCT $-.x).
func (e *AggregateExpr) String() string {
	if e.Arg == nil {
		return e.Name + "(*)"
	}
	if e.Distinct {
		return e.Name + "(DISTINCT " + e.Arg.String() + ")"
	}
	return e.Name + "(" + e.Arg.String() + ")"
}

// GroupByStmt is GROUP BY expr, ... YIELD [DISTINCT] column, ...: one
// output row per distinct combination of the keys over the piped rows.
type GroupByStmt struct {
	Pos
	Keys  []Expr
	Yield *YieldClause
}

// OrderFactor is one expr [ASC | DESC] of ORDER BY.
type OrderFactor struct {
	Pos
	Expr Expr
	Desc bool
}

func (f *OrderFactor) String() string {
	if f.Desc {
		return f.Expr.String() + " DESC"
	}
	return f.Expr.String()
}

// OrderByStmt is ORDER BY expr [ASC | DESC], ...: the piped rows sorted
// (stably) by the factors in turn.
type OrderByStmt struct {
	Pos
	Factors []*OrderFactor
}

// LimitStmt is LIMIT [offset,] count or OFFSET offset LIMIT count: the
// piped rows from offset on, at most count of them.
type LimitStmt struct {
	Pos
	Offset, Count int64
}

// SetOp is the operator of a SetOpStmt.
type SetOp uint8

// Set operators.
const (
	Union SetOp = iota + 1
	Intersect
	Minus
)

func (op SetOp) String() string {
	switch op {
	case Union:
		return "UNION"
	case Intersect:
		return "INTERSECT"
	case Minus:
		return "MINUS"
	}
	return "?"
}

// SetOpStmt is Left UNION [DISTINCT | ALL] Right, Left INTERSECT Right or
// Left MINUS Right. Set operators bind looser than '|' and chain to the
// left; parentheses group them otherwise. Pos is the operator's position.
type SetOpStmt struct {
	Pos
	Op          SetOp
	All         bool // UNION ALL; UNION alone (or UNION DISTINCT) removes duplicates
	Left, Right Statement
}

func (*GroupByStmt) stmtNode() {}
func (*OrderByStmt) stmtNode() {}
func (*LimitStmt) stmtNode()   {}
func (*SetOpStmt) stmtNode()   {}

func (s *GroupByStmt) String() string {
	return "GROUP BY " + joinNodes(s.Keys, ", ") + " " + s.Yield.String()
}

func (s *OrderByStmt) String() string { return "ORDER BY " + joinNodes(s.Factors, ", ") }

func (s *LimitStmt) String() string {
	if s.Offset != 0 {
		return "LIMIT " + strconv.FormatInt(s.Offset, 10) + ", " + strconv.FormatInt(s.Count, 10)
	}
	return "LIMIT " + strconv.FormatInt(s.Count, 10)
}

func (s *SetOpStmt) String() string {
	op := " " + s.Op.String() + " "
	if s.All {
		op = " UNION ALL "
	}
	return s.Left.String() + op + parenSet(s.Right)
}

// parenSet prints s, in parentheses if it is a set operation: as the right
// operand of a set operator or either side of a pipe it must be grouped.
func parenSet(s Statement) string {
	if _, ok := s.(*SetOpStmt); ok {
		return "(" + s.String() + ")"
	}
	return s.String()
}

// StepLimits is GO's SAMPLE [n1, n2, ...] or LIMIT [n1, n2, ...]: at step
// i, traverse at most Counts[i-1] edges in all, chosen at random for SAMPLE.
type StepLimits struct {
	Pos
	Sample bool
	Counts []int64
}

func (l *StepLimits) String() string {
	var b strings.Builder
	if l.Sample {
		b.WriteString("SAMPLE [")
	} else {
		b.WriteString("LIMIT [")
	}
	for i, n := range l.Counts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(n, 10))
	}
	b.WriteByte(']')
	return b.String()
}
