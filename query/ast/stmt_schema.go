package ast

import (
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/query/value"
)

// PropKind is the storage type of a property. Several nGQL type names map to
// one kind: int, int8, int16, int32 and int64 are INT64; float and double
// are DOUBLE.
type PropKind uint8

// Property kinds, matching metapb.PropType.
const (
	PropInt64 PropKind = iota + 1
	PropDouble
	PropBool
	PropString
	PropFixedString
	PropTimestamp
)

// PropType is the declared type of a property.
type PropType struct {
	Kind PropKind
	Len  int // FIXED_STRING only
}

// String is the type as DESCRIBE prints it: int64, double, bool, string,
// fixed_string(N), timestamp.
func (t PropType) String() string {
	switch t.Kind {
	case PropInt64:
		return "int64"
	case PropDouble:
		return "double"
	case PropBool:
		return "bool"
	case PropString:
		return "string"
	case PropFixedString:
		return "fixed_string(" + strconv.Itoa(t.Len) + ")"
	case PropTimestamp:
		return "timestamp"
	}
	return "?"
}

// PropDef declares one property in CREATE TAG / CREATE EDGE:
//
//	name type [NULL | NOT NULL] [DEFAULT expr] [COMMENT 'text']
//
// Properties are nullable unless declared NOT NULL.
type PropDef struct {
	Pos
	Name     string
	Type     PropType
	Nullable bool
	Default  Expr   // nil: no default
	Comment  string // "": none
}

func (d *PropDef) String() string {
	var b strings.Builder
	b.WriteString(QuoteName(d.Name))
	b.WriteByte(' ')
	b.WriteString(d.Type.String())
	if !d.Nullable {
		b.WriteString(" NOT NULL")
	}
	if d.Default != nil {
		b.WriteString(" DEFAULT ")
		b.WriteString(d.Default.String())
	}
	if d.Comment != "" {
		b.WriteString(" COMMENT ")
		b.WriteString(value.Str(d.Comment).String())
	}
	return b.String()
}

// CreateSchemaStmt is CREATE TAG | EDGE [IF NOT EXISTS] name (prop_def, ...).
type CreateSchemaStmt struct {
	Pos
	Kind        SchemaKind
	IfNotExists bool
	Name        string
	Props       []*PropDef
}

func (*CreateSchemaStmt) stmtNode() {}

func (s *CreateSchemaStmt) String() string {
	var b strings.Builder
	b.WriteString("CREATE ")
	b.WriteString(s.Kind.String())
	b.WriteByte(' ')
	if s.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(QuoteName(s.Name))
	b.WriteByte('(')
	b.WriteString(joinNodes(s.Props, ", "))
	b.WriteByte(')')
	return b.String()
}
