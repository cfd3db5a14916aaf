package value

import (
	"math"
	"strconv"
	"strings"
)

// String prints v as an nGQL literal: strings double-quoted and escaped,
// NULL as NULL, lists as [a,b], maps as {a: 1, b: 2} (keys sorted).
// Timestamps print as their integer seconds (nGQL has no timestamp
// literal). Calendar values print as a call of their constructor,
// date("2024-01-02"), which evaluates back to an equal value. The parser reads the output back to an equal value for every kind
// but TIMESTAMP, non-finite floats and the graph kinds, which print as
// NebulaGraph prints them (and, through evaluation, the calendar kinds).
func (v Value) String() string {
	var b strings.Builder
	v.format(&b)
	return b.String()
}

func (v Value) format(b *strings.Builder) {
	switch v.kind {
	case KindNull:
		b.WriteString("NULL")
	case KindBool:
		if v.i != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case KindInt, KindTimestamp:
		b.WriteString(strconv.FormatInt(v.i, 10))
	case KindFloat:
		b.WriteString(FormatFloat(v.f))
	case KindString:
		QuoteString(b, v.s)
	case KindMap:
		props, _ := v.MapVal()
		formatMap(b, props) // {a: 1, b: "x"} (map.go)
	case KindVertex, KindEdge, KindPath:
		b.WriteString(v.s) // printed when built (graph.go)
	case KindDate, KindTime, KindDateTime, KindDuration:
		v.formatTemporal(b) // date("2024-01-02") (temporal.go)
	case KindList:
		b.WriteByte('[')
		for i, item := range v.l {
			if i > 0 {
				b.WriteByte(',')
			}
			item.format(b)
		}
		b.WriteByte(']')
	}
}

// FormatFloat prints f in its shortest exact form, always with a '.' or an
// exponent so that it reads back as a float and not an int.
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// QuoteString writes s as a double-quoted nGQL string literal. Only the
// quote, the backslash and control characters are escaped; other bytes,
// even invalid UTF-8, are copied so the literal reads back byte for byte.
func QuoteString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
