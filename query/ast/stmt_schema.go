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
	PropDate
	PropTime
	PropDateTime
	PropDuration
)

// PropType is the declared type of a property.
type PropType struct {
	Kind PropKind
	Len  int // FIXED_STRING only
	// Bits is the declared width of an integer: 8, 16 or 32 for int8,
	// int16 and int32, 0 for int and int64 (all stored in 64 bits).
	Bits int
	// Float32: a DOUBLE declared float.
	Float32 bool
}

// String is the type as DESCRIBE prints it: int64, double, bool, string,
// fixed_string(N), timestamp, date, time, datetime, duration.
func (t PropType) String() string {
	switch t.Kind {
	case PropInt64:
		if t.Bits > 0 {
			return "int" + strconv.Itoa(t.Bits)
		}
		return "int64"
	case PropDouble:
		if t.Float32 {
			return "float"
		}
		return "double"
	case PropBool:
		return "bool"
	case PropString:
		return "string"
	case PropFixedString:
		return "fixed_string(" + strconv.Itoa(t.Len) + ")"
	case PropTimestamp:
		return "timestamp"
	case PropDate:
		return "date"
	case PropTime:
		return "time"
	case PropDateTime:
		return "datetime"
	case PropDuration:
		return "duration"
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

// TTLOptions are the TTL options of CREATE TAG / EDGE and ALTER TAG / EDGE:
//
//	TTL_DURATION = seconds, TTL_COL = "prop"
//
// in either order, each at most once; HasDuration and HasCol tell which were
// written. Duration is >= 0 (0: rows never expire). TTL_COL = "" (HasCol
// with an empty Col) removes the TTL, as in NebulaGraph. TTL_COL may also be
// written as a bare name; it prints as a string.
type TTLOptions struct {
	Pos
	Duration    int64
	Col         string
	HasDuration bool
	HasCol      bool
	// COMMENT = "…", the schema's comment, is one of these options too.
	Comment    string
	HasComment bool
}

func (o *TTLOptions) String() string {
	var parts []string
	if o.HasDuration {
		parts = append(parts, "TTL_DURATION = "+strconv.FormatInt(o.Duration, 10))
	}
	if o.HasCol {
		parts = append(parts, "TTL_COL = "+value.Str(o.Col).String())
	}
	if o.HasComment {
		parts = append(parts, "COMMENT = "+value.Str(o.Comment).String())
	}
	return strings.Join(parts, ", ")
}

// CreateSchemaStmt is
//
//	CREATE TAG | EDGE [IF NOT EXISTS] name (prop_def, ...) [ttl_options]
type CreateSchemaStmt struct {
	Pos
	Kind        SchemaKind
	IfNotExists bool
	Name        string
	Props       []*PropDef
	TTL         *TTLOptions // nil: no TTL options written
}

// AlterKind is what one operation of ALTER TAG / EDGE does.
type AlterKind uint8

// ALTER operations.
const (
	AlterAdd    AlterKind = iota + 1 // ADD (prop_def, ...)
	AlterDrop                        // DROP (name, ...)
	AlterChange                      // CHANGE (prop_def, ...)
)

func (k AlterKind) String() string {
	switch k {
	case AlterAdd:
		return "ADD"
	case AlterDrop:
		return "DROP"
	case AlterChange:
		return "CHANGE"
	}
	return "?"
}

// AlterOp is one ADD (prop_def, ...), DROP (name, ...) or CHANGE
// (prop_def, ...) of ALTER TAG / EDGE. Props is set for ADD and CHANGE,
// Names for DROP; either holds at least one entry.
type AlterOp struct {
	Pos
	Kind  AlterKind
	Props []*PropDef
	Names []string
}

func (o *AlterOp) String() string {
	if o.Kind == AlterDrop {
		return o.Kind.String() + " (" + joinNames(o.Names) + ")"
	}
	return o.Kind.String() + " (" + joinNodes(o.Props, ", ") + ")"
}

// AlterSchemaStmt is
//
//	ALTER TAG | EDGE name alter_op [, alter_op ...] [ttl_options]
//	ALTER TAG | EDGE name ttl_options
//
// At least one of Ops and TTL is present.
type AlterSchemaStmt struct {
	Pos
	Kind SchemaKind
	Name string
	Ops  []*AlterOp
	TTL  *TTLOptions // nil: no TTL options written
}

// DropSchemaStmt is DROP TAG | EDGE [IF EXISTS] name.
type DropSchemaStmt struct {
	Pos
	Kind     SchemaKind
	IfExists bool
	Name     string
}

func (*CreateSchemaStmt) stmtNode() {}
func (*AlterSchemaStmt) stmtNode()  {}
func (*DropSchemaStmt) stmtNode()   {}

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
	if s.TTL != nil {
		b.WriteByte(' ')
		b.WriteString(s.TTL.String())
	}
	return b.String()
}

func (s *AlterSchemaStmt) String() string {
	var b strings.Builder
	b.WriteString("ALTER ")
	b.WriteString(s.Kind.String())
	b.WriteByte(' ')
	b.WriteString(QuoteName(s.Name))
	if len(s.Ops) > 0 {
		b.WriteByte(' ')
		b.WriteString(joinNodes(s.Ops, ", "))
	}
	if s.TTL != nil {
		b.WriteByte(' ')
		b.WriteString(s.TTL.String())
	}
	return b.String()
}

func (s *DropSchemaStmt) String() string {
	if s.IfExists {
		return "DROP " + s.Kind.String() + " IF EXISTS " + QuoteName(s.Name)
	}
	return "DROP " + s.Kind.String() + " " + QuoteName(s.Name)
}
