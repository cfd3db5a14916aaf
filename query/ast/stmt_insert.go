package ast

import "strings"

// TagProps names a tag and the properties an INSERT VERTEX sets on it:
// tag(p1, p2).
type TagProps struct {
	Pos
	Tag   string
	Props []string
}

func (t *TagProps) String() string { return QuoteName(t.Tag) + "(" + joinNames(t.Props) + ")" }

// VertexRow is one vertex of an INSERT VERTEX: its id and, for each tag of
// the statement, the values of that tag's properties. The parser accepts
// NebulaGraph's form, one tuple with the values of all tags in order
// (vid:(a, b, c)), and also one tuple per tag (vid:(a, b), (c)); either way
// Values[i] holds exactly the values for Tags[i], in the order of its Props.
type VertexRow struct {
	Pos
	VID    Expr
	Values [][]Expr
}

// String prints the row in NebulaGraph's one-tuple form.
func (r *VertexRow) String() string {
	var all []Expr
	for _, vs := range r.Values {
		all = append(all, vs...)
	}
	return r.VID.String() + ":(" + joinNodes(all, ", ") + ")"
}

// InsertVertexStmt is
//
//	INSERT VERTEX [IF NOT EXISTS] tag(p, ...), ... VALUES vid:(v, ...), ...
//
// (VALUE is accepted for VALUES). Tags may be empty: a vertex with no tags.
type InsertVertexStmt struct {
	Pos
	IfNotExists bool
	Tags        []*TagProps
	Rows        []*VertexRow
}

// EdgeKey identifies an edge: src->dst@rank. In INSERT EDGE, UPDATE/UPSERT
// EDGE and literal FETCH / DELETE EDGE keys, Src and Dst are vid literals and
// Rank an int literal; in FETCH / DELETE EDGE from a pipe or variable Src and
// Dst are InputPropExpr or VarPropExpr (both $-, or both the same $var) and
// Rank is one of the same kind or an int literal. Rank is nil when not
// written, meaning rank 0 (or, in FETCH, 0 too, as in NebulaGraph).
type EdgeKey struct {
	Pos
	Src, Dst Expr
	Rank     Expr
}

func (k *EdgeKey) String() string {
	s := k.Src.String() + "->" + k.Dst.String()
	if k.Rank != nil {
		s += "@" + k.Rank.String()
	}
	return s
}

// EdgeRow is one edge of an INSERT EDGE and the values of its properties.
type EdgeRow struct {
	Pos
	Key    *EdgeKey
	Values []Expr
}

func (r *EdgeRow) String() string {
	return r.Key.String() + ":(" + joinNodes(r.Values, ", ") + ")"
}

// InsertEdgeStmt is
//
//	INSERT EDGE [IF NOT EXISTS] edge(p, ...) VALUES src->dst[@rank]:(v, ...), ...
type InsertEdgeStmt struct {
	Pos
	IfNotExists bool
	Edge        string
	Props       []string
	Rows        []*EdgeRow
}

func (*InsertVertexStmt) stmtNode() {}
func (*InsertEdgeStmt) stmtNode()   {}

func (s *InsertVertexStmt) String() string {
	var b strings.Builder
	b.WriteString("INSERT VERTEX ")
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	if len(s.Tags) > 0 {
		b.WriteString(joinNodes(s.Tags, ", "))
		b.WriteByte(' ')
	}
	b.WriteString("VALUES ")
	b.WriteString(joinNodes(s.Rows, ", "))
	return b.String()
}

func (s *InsertEdgeStmt) String() string {
	var b strings.Builder
	b.WriteString("INSERT EDGE ")
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(QuoteName(s.Edge))
	b.WriteString("(" + joinNames(s.Props) + ") VALUES ")
	b.WriteString(joinNodes(s.Rows, ", "))
	return b.String()
}
