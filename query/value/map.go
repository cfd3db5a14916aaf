package value

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A MAP is string keys to values, as map literals ({a: 1, b: [1,2]}) and
// properties() give them. Its entries are kept sorted by key (bytewise) with
// no key twice, so that a map prints, hashes and travels the same whatever
// order it was built in:
//
//	{age: 42, name: "Tim"}
//
// A key prints bare when it is an identifier (letters, digits and '_', not
// starting with a digit), else as a string literal, {"a b": 1}; the parser
// reads both forms back.
//
// Maps are equal when they have the same keys and equal values (three-valued,
// like lists: NULL when no value differs but some comparison is NULL). They
// have no order: Compare reports them as not comparable, and ORDER BY falls
// back to their printed form.

// Map returns a MAP of entries. The entries are copied and sorted by key;
// when a key is given twice the last entry wins.
func Map(entries ...Prop) Value {
	props := make([]Prop, len(entries))
	copy(props, entries)
	sort.SliceStable(props, func(i, j int) bool { return props[i].Name < props[j].Name })
	out := props[:0]
	for i, p := range props {
		if i+1 < len(props) && props[i+1].Name == p.Name {
			continue // a later entry of the same key wins
		}
		out = append(out, p)
	}
	return Value{kind: KindMap, g: out}
}

// MapOf returns a MAP of the Go map m.
func MapOf(m map[string]Value) Value {
	props := make([]Prop, 0, len(m))
	for k, v := range m {
		props = append(props, Prop{Name: k, Value: v})
	}
	sort.Slice(props, func(i, j int) bool { return props[i].Name < props[j].Name })
	return Value{kind: KindMap, g: props}
}

// MapVal returns v's entries, sorted by key, and whether v is a MAP. The
// slice is shared; do not modify it.
func (v Value) MapVal() ([]Prop, bool) {
	if v.kind != KindMap {
		return nil, false
	}
	props, _ := v.g.([]Prop)
	return props, true
}

// MapGet returns the value of key in the MAP v; ok is false when v is not
// a MAP or has no such key.
func (v Value) MapGet(key string) (Value, bool) {
	props, ok := v.MapVal()
	if !ok {
		return Value{}, false
	}
	i := sort.Search(len(props), func(i int) bool { return props[i].Name >= key })
	if i < len(props) && props[i].Name == key {
		return props[i].Value, true
	}
	return Value{}, false
}

// MapKeys returns the keys of the MAP v in order, or nil when v is not one.
func (v Value) MapKeys() []string {
	props, _ := v.MapVal()
	keys := make([]string, len(props))
	for i, p := range props {
		keys[i] = p.Name
	}
	return keys
}

// KeyIsBare reports whether a map key prints without quotes: it lexes as
// one identifier. Reserved words qualify, since a key position admits any
// word.
func KeyIsBare(key string) bool {
	if key == "" {
		return false
	}
	for i, r := range key {
		if r == utf8.RuneError || (i == 0 && !identStart(r)) || !identPart(r) {
			return false
		}
	}
	return true
}

// identStart and identPart are the lexer's identifier classes
// (lexer.IsIdentStart, lexer.IsIdentPart), repeated here so that values,
// which everything imports, do not import the language's lexer;
// TestKeyIsBareAgreesWithLexer in query/lexer keeps the two in step.
func identStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }
func identPart(r rune) bool  { return identStart(r) || unicode.IsDigit(r) }

// FormatKey writes a map key: bare when KeyIsBare, else as a quoted string.
func FormatKey(b *strings.Builder, key string) {
	if KeyIsBare(key) {
		b.WriteString(key)
		return
	}
	QuoteString(b, key)
}

// formatMap writes {k: v, ...}.
func formatMap(b *strings.Builder, props []Prop) {
	b.WriteByte('{')
	for i, p := range props {
		if i > 0 {
			b.WriteString(", ")
		}
		FormatKey(b, p.Name)
		b.WriteString(": ")
		p.Value.format(b)
	}
	b.WriteByte('}')
}

// equalMaps is Equal for two MAPs.
func equalMaps(a, b []Prop) Value {
	if len(a) != len(b) {
		return Bool(false)
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return Bool(false)
		}
	}
	sawNull := false
	for i := range a {
		eq := Equal(a[i].Value, b[i].Value)
		if eq.IsNull() {
			sawNull = true
		} else if eq.i == 0 {
			return Bool(false)
		}
	}
	if sawNull {
		return Value{}
	}
	return Bool(true)
}

// Element returns x[index] for a MAP (a STRING key: its value, NULL when
// absent) or, by property name, a VERTEX or EDGE (see Attribute). ok is
// false when x is none of those kinds, so that the caller can index lists.
func Element(x, index Value) (v Value, ok bool, err error) {
	switch x.kind {
	case KindMap, KindVertex, KindEdge:
	default:
		return Value{}, false, nil
	}
	if index.IsNull() {
		return Value{}, true, nil
	}
	key, isStr := index.StrVal()
	if !isStr {
		return Value{}, true, fmt.Errorf("%w: cannot index %s with %s, only with a STRING key", ErrType, x.kind, index.kind)
	}
	v, err = Attribute(x, key)
	return v, true, err
}
