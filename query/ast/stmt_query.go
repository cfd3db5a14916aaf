package ast

import (
	"strconv"
	"strings"
)

// VertexSource is where GO starts and which vertices FETCH reads (and DELETE
// VERTEX / DELETE TAG act on): either a
// list of vid literals, or one reference to a column of the piped input
// ($-.col) or of a variable ($var.col), or a query parameter ($p) holding
// a vid or a list of vids. Exactly one of VIDs and Ref is set.
type VertexSource struct {
	Pos
	VIDs []Expr // *Literal (INT or STRING) each
	Ref  Expr   // *InputPropExpr, *VarPropExpr or *ParamExpr
}

func (s *VertexSource) String() string {
	if s.Ref != nil {
		return s.Ref.String()
	}
	return joinNodes(s.VIDs, ", ")
}

// Direction is the direction GO follows edges in.
type Direction uint8

// Directions.
const (
	Forward   Direction = iota + 1 // out-edges (the default)
	Reversely                      // in-edges: REVERSELY
	Bidirect                       // both: BIDIRECT
)

// OverClause is OVER edge, ... | * [REVERSELY | BIDIRECT].
type OverClause struct {
	Pos
	Edges     []string // empty when All
	All       bool     // OVER *
	Direction Direction
}

func (o *OverClause) String() string {
	s := "OVER "
	if o.All {
		s += "*"
	} else {
		s += joinNames(o.Edges)
	}
	switch o.Direction {
	case Reversely:
		s += " REVERSELY"
	case Bidirect:
		s += " BIDIRECT"
	}
	return s
}

// StepRange is the [N STEPS | M TO N STEPS] of GO; Min == Max for N STEPS
// and both are 1 when the clause is left out. The result holds the rows of
// every step from Min to Max.
type StepRange struct {
	Min, Max int
}

func (r StepRange) String() string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Max) + " STEPS"
	}
	return strconv.Itoa(r.Min) + " TO " + strconv.Itoa(r.Max) + " STEPS"
}

// YieldColumn is one expr [AS alias] of a YIELD clause.
type YieldColumn struct {
	Pos
	Expr  Expr
	Alias string // "" when not given
}

// Name is the column's name in the result: its alias, or else its
// expression printed as nGQL, as NebulaGraph names it.
func (c *YieldColumn) Name() string {
	if c.Alias != "" {
		return c.Alias
	}
	return c.Expr.String()
}

func (c *YieldColumn) String() string {
	if c.Alias != "" {
		return c.Expr.String() + " AS " + QuoteName(c.Alias)
	}
	return c.Expr.String()
}

// YieldClause is YIELD [DISTINCT] column, ....
type YieldClause struct {
	Pos
	Distinct bool
	Columns  []*YieldColumn
}

func (y *YieldClause) String() string {
	s := "YIELD "
	if y.Distinct {
		s += "DISTINCT "
	}
	return s + joinNodes(y.Columns, ", ")
}

// GoStmt is
//
//	GO [N STEPS | M TO N STEPS] FROM vids | $-.col | $var.col
//	    OVER edge, ... | * [REVERSELY | BIDIRECT]
//	    [WHERE expr] [YIELD [DISTINCT] expr [AS alias], ...]
//	    [SAMPLE [n, ...] | LIMIT [n, ...]]
//
// Yield is nil when left out; the planner then yields the destination ids.
type GoStmt struct {
	Pos
	Steps  StepRange
	From   *VertexSource
	Over   *OverClause
	Where  Expr // nil: none
	Yield  *YieldClause
	Limits *StepLimits // nil: none
}

// FetchVerticesStmt is FETCH PROP ON tag, ... | * vids [YIELD ...].
type FetchVerticesStmt struct {
	Pos
	Tags     []string // empty when AllTags
	AllTags  bool     // ON *
	Vertices *VertexSource
	Yield    *YieldClause // nil when left out
}

// FetchEdgesStmt is FETCH PROP ON edge src->dst[@rank], ... [YIELD ...].
// With a reference key ($-.src->$-.dst@$-.rank) Keys has exactly one entry.
type FetchEdgesStmt struct {
	Pos
	Edge  string
	Keys  []*EdgeKey
	Yield *YieldClause // nil when left out
}

// YieldStmt is YIELD [DISTINCT] expr [AS alias], ... [WHERE expr], on its
// own or after a pipe.
type YieldStmt struct {
	Pos
	Yield *YieldClause
	Where Expr // nil: none
}

func (*GoStmt) stmtNode()            {}
func (*FetchVerticesStmt) stmtNode() {}
func (*FetchEdgesStmt) stmtNode()    {}
func (*YieldStmt) stmtNode()         {}

func (s *GoStmt) String() string {
	var b strings.Builder
	b.WriteString("GO ")
	b.WriteString(s.Steps.String())
	b.WriteString(" FROM ")
	b.WriteString(s.From.String())
	b.WriteByte(' ')
	b.WriteString(s.Over.String())
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.String())
	}
	if s.Yield != nil {
		b.WriteByte(' ')
		b.WriteString(s.Yield.String())
	}
	if s.Limits != nil {
		b.WriteByte(' ')
		b.WriteString(s.Limits.String())
	}
	return b.String()
}

func (s *FetchVerticesStmt) String() string {
	var b strings.Builder
	b.WriteString("FETCH PROP ON ")
	if s.AllTags {
		b.WriteString("*")
	} else {
		b.WriteString(joinNames(s.Tags))
	}
	b.WriteByte(' ')
	b.WriteString(s.Vertices.String())
	if s.Yield != nil {
		b.WriteByte(' ')
		b.WriteString(s.Yield.String())
	}
	return b.String()
}

func (s *FetchEdgesStmt) String() string {
	var b strings.Builder
	b.WriteString("FETCH PROP ON ")
	b.WriteString(QuoteName(s.Edge))
	b.WriteByte(' ')
	b.WriteString(joinNodes(s.Keys, ", "))
	if s.Yield != nil {
		b.WriteByte(' ')
		b.WriteString(s.Yield.String())
	}
	return b.String()
}

func (s *YieldStmt) String() string {
	if s.Where != nil {
		return s.Yield.String() + " WHERE " + s.Where.String()
	}
	return s.Yield.String()
}
