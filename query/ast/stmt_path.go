package ast

import (
	"strconv"
	"strings"
)

// PathKind is which paths FIND PATH returns.
type PathKind uint8

// Path kinds.
const (
	ShortestPath PathKind = iota + 1 // every shortest path of each (source, target) pair
	AllPaths                         // every trail (no edge twice) of 1 to N hops
	NoLoopPaths                      // every path of 1 to N hops with no vertex twice
)

func (k PathKind) String() string {
	switch k {
	case ShortestPath:
		return "SHORTEST"
	case AllPaths:
		return "ALL"
	case NoLoopPaths:
		return "NOLOOP"
	}
	return "?"
}

// DefaultPathSteps is the UPTO bound of FIND PATH when none is given.
const DefaultPathSteps = 5

// MaxSteps bounds every step count a statement may ask for (GO, FIND PATH,
// GET SUBGRAPH): each step is a round of storage requests, and a count
// such as 2^31 is a way to hold graphd busy, not a traversal anyone needs
// (real graphs are a few dozen hops across).
const MaxSteps = 1000

// FindPathStmt is
//
//	FIND SHORTEST | ALL | NOLOOP PATH [WITH PROP]
//	    FROM vids | $-.col | $var.col TO vids | $-.col | $var.col
//	    OVER edge, ... | * [REVERSELY | BIDIRECT]
//	    [WHERE expr] [UPTO N STEPS] [YIELD path [AS alias]]
//
// Steps is N, DefaultPathSteps when UPTO is left out. Alias names the one
// result column; "" names it "path".
type FindPathStmt struct {
	Pos
	Kind     PathKind
	WithProp bool
	From, To *VertexSource
	Over     *OverClause
	Where    Expr // nil: none; only edge properties
	Steps    int
	Alias    string
}

// Column is the name of the result column.
func (s *FindPathStmt) Column() string {
	if s.Alias != "" {
		return s.Alias
	}
	return "path"
}

func (*FindPathStmt) stmtNode() {}

func (s *FindPathStmt) String() string {
	var b strings.Builder
	b.WriteString("FIND ")
	b.WriteString(s.Kind.String())
	b.WriteString(" PATH ")
	if s.WithProp {
		b.WriteString("WITH PROP ")
	}
	b.WriteString("FROM ")
	b.WriteString(s.From.String())
	b.WriteString(" TO ")
	b.WriteString(s.To.String())
	b.WriteByte(' ')
	b.WriteString(s.Over.String())
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.String())
	}
	b.WriteString(" UPTO ")
	b.WriteString(strconv.Itoa(s.Steps))
	b.WriteString(" STEPS YIELD path")
	if s.Alias != "" {
		b.WriteString(" AS ")
		b.WriteString(QuoteName(s.Alias))
	}
	return b.String()
}

// SubgraphEdges is one IN | OUT | BOTH edge, ... clause of GET SUBGRAPH.
type SubgraphEdges struct {
	Pos
	Direction Direction // Forward (OUT), Reversely (IN) or Bidirect (BOTH)
	Edges     []string
}

func (e *SubgraphEdges) String() string {
	kw := "BOTH "
	switch e.Direction {
	case Forward:
		kw = "OUT "
	case Reversely:
		kw = "IN "
	}
	return kw + joinNames(e.Edges)
}

// SubgraphColumn is VERTICES AS alias or EDGES AS alias in GET SUBGRAPH's
// YIELD.
type SubgraphColumn struct {
	Pos
	Edges bool // EDGES; false: VERTICES
	Alias string
}

func (c *SubgraphColumn) String() string {
	what := "VERTICES"
	if c.Edges {
		what = "EDGES"
	}
	return what + " AS " + QuoteName(c.Alias)
}

// DefaultSubgraphSteps is the step count of GET SUBGRAPH when none is given.
const DefaultSubgraphSteps = 1

// SubgraphStmt is
//
//	GET SUBGRAPH [WITH PROP] [N STEPS] FROM vids | $-.col | $var.col
//	    [IN edge, ...] [OUT edge, ...] [BOTH edge, ...]
//	    [YIELD VERTICES AS alias [, EDGES AS alias]]
//
// With no IN/OUT/BOTH clause every edge type is followed both ways. With no
// YIELD the columns are _vertices and _edges (NebulaGraph 2.x's default).
type SubgraphStmt struct {
	Pos
	WithProp bool
	Steps    int
	From     *VertexSource
	Edges    []*SubgraphEdges
	Yield    []*SubgraphColumn // nil when left out
}

func (*SubgraphStmt) stmtNode() {}

func (s *SubgraphStmt) String() string {
	var b strings.Builder
	b.WriteString("GET SUBGRAPH ")
	if s.WithProp {
		b.WriteString("WITH PROP ")
	}
	b.WriteString(strconv.Itoa(s.Steps))
	b.WriteString(" STEPS FROM ")
	b.WriteString(s.From.String())
	for _, e := range s.Edges {
		b.WriteByte(' ')
		b.WriteString(e.String())
	}
	if s.Yield != nil {
		b.WriteString(" YIELD ")
		b.WriteString(joinNodes(s.Yield, ", "))
	}
	return b.String()
}
