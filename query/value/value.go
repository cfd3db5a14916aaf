// Package value is the runtime value of nGQL: what literals denote, what
// expressions evaluate to and what result cells hold.
//
// A Value is small and immutable; pass it by value. The zero Value is NULL.
package value

// Kind is the type of a Value.
type Kind uint8

// The kinds of Value. KindNull is the zero Kind so that the zero Value is NULL.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindString
	// KindTimestamp is seconds since the Unix epoch. It behaves as an integer
	// in arithmetic and comparisons (as NebulaGraph's timestamp does) and
	// exists as a kind of its own only so that it survives a round trip
	// through commonpb.Value.
	KindTimestamp
	KindList
	// KindMap is string keys to values (map.go).
	KindMap
)

// String names the kind as error messages and DESCRIBE output spell it.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "NULL"
	case KindBool:
		return "BOOL"
	case KindInt:
		return "INT"
	case KindFloat:
		return "FLOAT"
	case KindString:
		return "STRING"
	case KindTimestamp:
		return "TIMESTAMP"
	case KindList:
		return "LIST"
	case KindMap:
		return "MAP"
	case KindVertex, KindEdge, KindPath:
		return graphKindName(k)
	case KindDate, KindTime, KindDateTime, KindDuration:
		return temporalKindName(k)
	}
	return "UNKNOWN"
}

// Value is one nGQL value. Only the field that matches kind is meaningful:
// i holds bools (0 or 1), ints and timestamps, f floats, s strings, l lists,
// g maps and graph values.
type Value struct {
	kind Kind
	m    int32 // DURATION: months; i holds its microseconds (temporal.go)
	i    int64
	f    float64
	s    string
	l    []Value
	g    any // []Prop for MAP (map.go); *Vertex, *Edge or *Path for the graph kinds (graph.go)
}

// Null returns NULL (the same as the zero Value).
func Null() Value { return Value{} }

// Bool returns a BOOL value.
func Bool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.i = 1
	}
	return v
}

// Int returns an INT value.
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Float returns a FLOAT value.
func Float(f float64) Value { return Value{kind: KindFloat, f: f} }

// Str returns a STRING value.
func Str(s string) Value { return Value{kind: KindString, s: s} }

// Timestamp returns a TIMESTAMP value, seconds since the Unix epoch.
func Timestamp(sec int64) Value { return Value{kind: KindTimestamp, i: sec} }

// List returns a LIST value holding items. The slice is kept, not copied:
// the caller must not modify it afterwards.
func List(items ...Value) Value {
	if items == nil {
		items = []Value{}
	}
	return Value{kind: KindList, l: items}
}

// Kind reports the type of v.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.kind == KindNull }

// IsNumeric reports whether v takes part in arithmetic as a number
// (INT, FLOAT or TIMESTAMP).
func (v Value) IsNumeric() bool {
	return v.kind == KindInt || v.kind == KindFloat || v.kind == KindTimestamp
}

// BoolVal returns v's bool and whether v is a BOOL.
func (v Value) BoolVal() (bool, bool) { return v.i != 0, v.kind == KindBool }

// IntVal returns v's integer and whether v is an INT or a TIMESTAMP.
func (v Value) IntVal() (int64, bool) {
	return v.i, v.kind == KindInt || v.kind == KindTimestamp
}

// FloatVal returns v's float and whether v is a FLOAT.
func (v Value) FloatVal() (float64, bool) { return v.f, v.kind == KindFloat }

// StrVal returns v's string and whether v is a STRING.
func (v Value) StrVal() (string, bool) { return v.s, v.kind == KindString }

// ListVal returns v's items and whether v is a LIST. The slice is shared;
// do not modify it.
func (v Value) ListVal() ([]Value, bool) { return v.l, v.kind == KindList }

// number returns v as a float64 for mixed INT/FLOAT arithmetic.
func (v Value) number() float64 {
	if v.kind == KindFloat {
		return v.f
	}
	return float64(v.i)
}
