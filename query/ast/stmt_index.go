package ast

import (
	"strconv"
	"strings"
)

// IndexField is one field of CREATE TAG / EDGE INDEX: prop or prop(len).
// Len is the prefix length indexed for a string property, > 0 when given
// and 0 when not written.
type IndexField struct {
	Pos
	Prop string
	Len  int
}

func (f *IndexField) String() string {
	if f.Len > 0 {
		return QuoteName(f.Prop) + "(" + strconv.Itoa(f.Len) + ")"
	}
	return QuoteName(f.Prop)
}

// CreateIndexStmt is
//
//	CREATE TAG | EDGE INDEX [IF NOT EXISTS] name ON schema(field, ...)
//
// Schema is the tag or edge type indexed. Fields may be empty (ON t()): an
// index on the schema alone. Fields is nil when empty.
type CreateIndexStmt struct {
	Pos
	Kind        SchemaKind
	IfNotExists bool
	Name        string
	Schema      string
	Fields      []*IndexField
}

// DropIndexStmt is DROP TAG | EDGE INDEX [IF EXISTS] name.
type DropIndexStmt struct {
	Pos
	Kind     SchemaKind
	IfExists bool
	Name     string
}

// RebuildIndexStmt is REBUILD TAG | EDGE INDEX [name, ...]. Names is nil
// when none are given, meaning every index of that kind in the space.
type RebuildIndexStmt struct {
	Pos
	Kind  SchemaKind
	Names []string
}

// LookupStmt is
//
//	LOOKUP ON tag_or_edge [WHERE expr] [YIELD [DISTINCT] expr [AS alias], ...]
//
// Whether On names a tag or an edge type is for the validator to find out
// from the catalog. In Where and Yield, properties are written on.prop (an
// EdgePropExpr whose Edge is On, even for a tag), and the row's vertex or
// edge as id(vertex), src(edge), dst(edge), rank(edge) (FuncCalls). LOOKUP
// can be piped and assigned like GO.
type LookupStmt struct {
	Pos
	On    string
	Where Expr         // nil: none
	Yield *YieldClause // nil when left out
}

func (*CreateIndexStmt) stmtNode()  {}
func (*DropIndexStmt) stmtNode()    {}
func (*RebuildIndexStmt) stmtNode() {}
func (*LookupStmt) stmtNode()       {}

func (s *CreateIndexStmt) String() string {
	var b strings.Builder
	b.WriteString("CREATE ")
	b.WriteString(s.Kind.String())
	b.WriteString(" INDEX ")
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(QuoteName(s.Name))
	b.WriteString(" ON ")
	b.WriteString(QuoteName(s.Schema))
	b.WriteByte('(')
	b.WriteString(joinNodes(s.Fields, ", "))
	b.WriteByte(')')
	return b.String()
}

func (s *DropIndexStmt) String() string {
	if s.IfExists {
		return "DROP " + s.Kind.String() + " INDEX IF EXISTS " + QuoteName(s.Name)
	}
	return "DROP " + s.Kind.String() + " INDEX " + QuoteName(s.Name)
}

func (s *RebuildIndexStmt) String() string {
	if len(s.Names) == 0 {
		return "REBUILD " + s.Kind.String() + " INDEX"
	}
	return "REBUILD " + s.Kind.String() + " INDEX " + joinNames(s.Names)
}

func (s *LookupStmt) String() string {
	var b strings.Builder
	b.WriteString("LOOKUP ON ")
	b.WriteString(QuoteName(s.On))
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.String())
	}
	if s.Yield != nil {
		b.WriteByte(' ')
		b.WriteString(s.Yield.String())
	}
	return b.String()
}
