package ast

import "strings"

// DeleteVertexStmt is DELETE VERTEX vid, ... | $-.col | $var.col [WITH EDGE].
// WithEdge records whether WITH EDGE was written (NebulaGraph 3.x deletes
// the vertex's edges only then).
type DeleteVertexStmt struct {
	Pos
	Vertices *VertexSource
	WithEdge bool
}

// DeleteTagStmt is
//
//	DELETE TAG tag, ... | * FROM vid, ... | $-.col | $var.col
//
// Tags is nil when All (DELETE TAG *).
type DeleteTagStmt struct {
	Pos
	Tags []string
	All  bool
	From *VertexSource
}

// DeleteEdgeStmt is
//
//	DELETE EDGE edge src->dst[@rank], ...
//	DELETE EDGE edge $-.src->$-.dst[@$-.rank]   (or $var.col, same $var)
//
// As in FetchEdgesStmt, literal keys hold vid literals and an int rank; a
// reference key has Src and Dst (and Rank when given) from one input, the
// rank possibly an int literal, and is then the only key. Rank nil means 0.
type DeleteEdgeStmt struct {
	Pos
	Edge string
	Keys []*EdgeKey
}

// SetItem is one prop = expr of UPDATE / UPSERT ... SET. Schema is the tag
// or edge type when written as schema.prop = expr, "" for prop = expr.
type SetItem struct {
	Pos
	Schema string
	Prop   string
	Value  Expr
}

func (i *SetItem) String() string {
	if i.Schema != "" {
		return QuoteName(i.Schema) + "." + QuoteName(i.Prop) + " = " + i.Value.String()
	}
	return QuoteName(i.Prop) + " = " + i.Value.String()
}

// UpdateVertexStmt is
//
//	UPDATE | UPSERT VERTEX ON tag vid SET prop = expr, ...
//	    [WHEN expr] [YIELD expr [AS alias], ...]
//
// Vid is a vid literal. In Set values, When and Yield, properties of the
// tag are written prop (a LabelExpr), tag.prop (an EdgePropExpr with Edge
// set to the tag) or $^.tag.prop (a SrcPropExpr); the validator resolves
// them.
type UpdateVertexStmt struct {
	Pos
	Upsert bool
	Tag    string
	Vid    Expr
	Set    []*SetItem
	When   Expr         // nil: none
	Yield  *YieldClause // nil when left out
}

// UpdateEdgeStmt is
//
//	UPDATE | UPSERT EDGE ON edge src->dst[@rank] SET prop = expr, ...
//	    [WHEN expr] [YIELD expr [AS alias], ...]
//
// Key holds vid literals and an int rank (nil: 0). Properties are written
// prop (LabelExpr) or edge.prop (EdgePropExpr).
type UpdateEdgeStmt struct {
	Pos
	Upsert bool
	Edge   string
	Key    *EdgeKey
	Set    []*SetItem
	When   Expr         // nil: none
	Yield  *YieldClause // nil when left out
}

func (*DeleteVertexStmt) stmtNode() {}
func (*DeleteTagStmt) stmtNode()    {}
func (*DeleteEdgeStmt) stmtNode()   {}
func (*UpdateVertexStmt) stmtNode() {}
func (*UpdateEdgeStmt) stmtNode()   {}

func (s *DeleteVertexStmt) String() string {
	if s.WithEdge {
		return "DELETE VERTEX " + s.Vertices.String() + " WITH EDGE"
	}
	return "DELETE VERTEX " + s.Vertices.String()
}

func (s *DeleteTagStmt) String() string {
	tags := "*"
	if !s.All {
		tags = joinNames(s.Tags)
	}
	return "DELETE TAG " + tags + " FROM " + s.From.String()
}

func (s *DeleteEdgeStmt) String() string {
	return "DELETE EDGE " + QuoteName(s.Edge) + " " + joinNodes(s.Keys, ", ")
}

// updateTail prints SET ... [WHEN ...] [YIELD ...].
func updateTail(b *strings.Builder, set []*SetItem, when Expr, yield *YieldClause) {
	b.WriteString(" SET ")
	b.WriteString(joinNodes(set, ", "))
	if when != nil {
		b.WriteString(" WHEN ")
		b.WriteString(when.String())
	}
	if yield != nil {
		b.WriteByte(' ')
		b.WriteString(yield.String())
	}
}

func updateVerb(upsert bool) string {
	if upsert {
		return "UPSERT"
	}
	return "UPDATE"
}

func (s *UpdateVertexStmt) String() string {
	var b strings.Builder
	b.WriteString(updateVerb(s.Upsert))
	b.WriteString(" VERTEX ON ")
	b.WriteString(QuoteName(s.Tag))
	b.WriteByte(' ')
	b.WriteString(s.Vid.String())
	updateTail(&b, s.Set, s.When, s.Yield)
	return b.String()
}

func (s *UpdateEdgeStmt) String() string {
	var b strings.Builder
	b.WriteString(updateVerb(s.Upsert))
	b.WriteString(" EDGE ON ")
	b.WriteString(QuoteName(s.Edge))
	b.WriteByte(' ')
	b.WriteString(s.Key.String())
	updateTail(&b, s.Set, s.When, s.Yield)
	return b.String()
}
