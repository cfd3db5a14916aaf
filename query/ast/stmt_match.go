package ast

import (
	"strconv"
	"strings"
)

// MatchStmt is an openCypher query as NebulaGraph 3.x runs it:
//
//	[OPTIONAL] MATCH pattern, ... [WHERE expr]
//	| UNWIND expr AS name
//	| WITH [DISTINCT] item, ... [ORDER BY ...] [SKIP n] [LIMIT n] [WHERE expr]
//	...
//	RETURN [DISTINCT] item, ... | * [ORDER BY ...] [SKIP n] [LIMIT n]
//
// Clauses run in order, each over the rows the previous one produced (the
// first over one empty row); RETURN projects the last rows. The query
// starts with MATCH, UNWIND or WITH.
type MatchStmt struct {
	Pos
	Clauses []Clause
	Return  *Projection
}

// Clause is a reading clause of a MatchStmt: *MatchClause, *UnwindClause or
// *WithClause.
type Clause interface {
	Node
	clauseNode()
}

// MatchClause is [OPTIONAL] MATCH pattern, ... [WHERE expr]. An OPTIONAL
// MATCH keeps a row it finds no match for, its new variables NULL.
type MatchClause struct {
	Pos
	Optional bool
	Patterns []*Pattern
	Where    Expr // nil when absent
}

// UnwindClause is UNWIND expr AS name: one row per item of the list.
type UnwindClause struct {
	Pos
	Expr  Expr
	Alias string
}

// WithClause is WITH projection [WHERE expr]: the projection's items are
// the only variables after it; WHERE filters the projected rows.
type WithClause struct {
	Pos
	Proj  *Projection
	Where Expr
}

// Projection is the body of WITH and RETURN: the items, and the order,
// SKIP and LIMIT of the rows they make. Star is RETURN * (every variable
// in scope, in the order they were bound). An item with an aggregate
// groups the rows by the items without one.
type Projection struct {
	Pos
	Distinct bool
	Star     bool
	Items    []*YieldColumn
	OrderBy  []*OrderFactor
	Skip     Expr // nil when absent
	Limit    Expr // nil when absent
}

// Pattern is [name =] node (rel node)*: a path of node patterns joined by
// relationship patterns (len(Nodes) == len(Rels)+1). PathVar names the
// whole path.
type Pattern struct {
	Pos
	PathVar string
	Nodes   []*NodePattern
	Rels    []*RelPattern
	// Shortest is set for p = shortestPath((a)-[...]-(b)) and
	// allShortestPaths: the pattern is one relationship between two
	// nodes, and matches only the shortest paths between them (one, or
	// all of that length).
	Shortest ShortestKind
}

// ShortestKind says which shortest paths a Pattern matches.
type ShortestKind uint8

// The shortest-path functions of a pattern.
const (
	NotShortest ShortestKind = iota
	ShortestOne              // shortestPath(...)
	ShortestAll              // allShortestPaths(...)
)

// NodePattern is (name :tag {prop: expr, ...} :tag ...): every part
// optional. A label's property map belongs to that tag.
type NodePattern struct {
	Pos
	Var    string
	Labels []*NodeLabel
}

// NodeLabel is one :tag of a node pattern, with its property map.
type NodeLabel struct {
	Name  string
	Props *MapExpr // nil when absent
}

// RelDir is the direction of a relationship pattern.
type RelDir uint8

// Directions: -[]-> follows an edge from its source, <-[]- from its
// destination, -[]- either way.
const (
	RelOut RelDir = iota + 1
	RelIn
	RelBoth
)

// RelPattern is -[name :type|type {prop: expr} *min..max]-> (or <-[...]-,
// -[...]-). VarLen is set for *: the pattern matches every path of Min to
// Max such edges (a list of edges binds to the name).
type RelPattern struct {
	Pos
	Var      string
	Types    []string // empty: every edge type
	Dir      RelDir
	Props    *MapExpr // nil when absent
	VarLen   bool
	Min, Max int
}

func (*MatchStmt) stmtNode()      {}
func (*MatchClause) clauseNode()  {}
func (*UnwindClause) clauseNode() {}
func (*WithClause) clauseNode()   {}

func (s *MatchStmt) String() string {
	var b strings.Builder
	for i, c := range s.Clauses {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.String())
	}
	if s.Return != nil {
		b.WriteString(" RETURN ")
		b.WriteString(s.Return.String())
	}
	return b.String()
}

func (c *MatchClause) String() string {
	s := "MATCH " + joinNodes(c.Patterns, ", ")
	if c.Optional {
		s = "OPTIONAL " + s
	}
	if c.Where != nil {
		s += " WHERE " + c.Where.String()
	}
	return s
}

func (c *UnwindClause) String() string {
	return "UNWIND " + c.Expr.String() + " AS " + QuoteName(c.Alias)
}

func (c *WithClause) String() string {
	s := "WITH " + c.Proj.String()
	if c.Where != nil {
		s += " WHERE " + c.Where.String()
	}
	return s
}

// String prints the projection after its WITH or RETURN keyword.
func (p *Projection) String() string {
	var b strings.Builder
	if p.Distinct {
		b.WriteString("DISTINCT ")
	}
	if p.Star {
		b.WriteByte('*')
	} else {
		b.WriteString(joinNodes(p.Items, ", "))
	}
	if len(p.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		b.WriteString(joinNodes(p.OrderBy, ", "))
	}
	if p.Skip != nil {
		b.WriteString(" SKIP " + p.Skip.String())
	}
	if p.Limit != nil {
		b.WriteString(" LIMIT " + p.Limit.String())
	}
	return b.String()
}

func (p *Pattern) String() string {
	var b strings.Builder
	if p.PathVar != "" {
		b.WriteString(QuoteName(p.PathVar) + " = ")
	}
	switch p.Shortest {
	case ShortestOne:
		b.WriteString("shortestPath(")
	case ShortestAll:
		b.WriteString("allShortestPaths(")
	}
	for i, n := range p.Nodes {
		if i > 0 {
			b.WriteString(p.Rels[i-1].String())
		}
		b.WriteString(n.String())
	}
	if p.Shortest != NotShortest {
		b.WriteByte(')')
	}
	return b.String()
}

func (n *NodePattern) String() string {
	var b strings.Builder
	b.WriteByte('(')
	if n.Var != "" {
		b.WriteString(QuoteName(n.Var))
	}
	for _, l := range n.Labels {
		b.WriteByte(':')
		b.WriteString(QuoteName(l.Name))
		if l.Props != nil {
			b.WriteString(l.Props.String())
		}
	}
	b.WriteByte(')')
	return b.String()
}

func (r *RelPattern) String() string {
	var b strings.Builder
	if r.Dir == RelIn {
		b.WriteString("<-[")
	} else {
		b.WriteString("-[")
	}
	if r.Var != "" {
		b.WriteString(QuoteName(r.Var))
	}
	for i, t := range r.Types {
		if i == 0 {
			b.WriteByte(':')
		} else {
			b.WriteByte('|')
		}
		b.WriteString(QuoteName(t))
	}
	if r.Props != nil {
		b.WriteString(r.Props.String())
	}
	if r.VarLen {
		b.WriteString("*" + strconv.Itoa(r.Min) + ".." + strconv.Itoa(r.Max))
	}
	if r.Dir == RelOut {
		b.WriteString("]->")
	} else {
		b.WriteString("]-")
	}
	return b.String()
}

// Vars lists the variables a pattern binds, in order: the path's, then
// each node's and relationship's from left to right (each once).
func (p *Pattern) Vars() []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	add(p.PathVar)
	for i, n := range p.Nodes {
		if i > 0 {
			add(p.Rels[i-1].Var)
		}
		add(n.Var)
	}
	return out
}
