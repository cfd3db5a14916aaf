package client

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/temporal"
)

// nullText is how NULL prints, as in NebulaGraph's console.
const nullText = "__NULL__"

// isNull treats the absent oneof and an explicit null alike, as the wire
// contract says.
func isNull(v *commonpb.Value) bool {
	switch v.GetV().(type) {
	case nil, *commonpb.Value_Null:
		return true
	}
	return false
}

func toAny(v *commonpb.Value) any {
	switch v := v.GetV().(type) {
	case *commonpb.Value_BoolVal:
		return v.BoolVal
	case *commonpb.Value_IntVal:
		return v.IntVal
	case *commonpb.Value_FloatVal:
		return v.FloatVal
	case *commonpb.Value_StrVal:
		return string(v.StrVal)
	case *commonpb.Value_TimestampVal:
		return v.TimestampVal
	case *commonpb.Value_DateVal:
		return temporal.Date(v.DateVal)
	case *commonpb.Value_TimeVal:
		return temporal.Time(v.TimeVal)
	case *commonpb.Value_DatetimeVal:
		return temporal.DateTime(v.DatetimeVal)
	case *commonpb.Value_DurationVal:
		return temporal.Duration{Months: v.DurationVal.GetMonths(), Micros: v.DurationVal.GetMicros()}
	case *commonpb.Value_ListVal:
		elems := v.ListVal.GetValues()
		list := make([]any, len(elems))
		for i, elem := range elems {
			list[i] = toAny(elem)
		}
		return list
	case *commonpb.Value_MapVal:
		return mapFromProto(v.MapVal)
	case *commonpb.Value_VertexVal:
		return vertexFromProto(v.VertexVal)
	case *commonpb.Value_EdgeVal:
		return edgeFromProto(v.EdgeVal)
	case *commonpb.Value_PathVal:
		return pathFromProto(v.PathVal)
	}
	return nil
}

// typeName names the type of a cell for error messages.
func typeName(v *commonpb.Value) string {
	switch v.GetV().(type) {
	case *commonpb.Value_BoolVal:
		return "bool"
	case *commonpb.Value_IntVal:
		return "int"
	case *commonpb.Value_FloatVal:
		return "float"
	case *commonpb.Value_StrVal:
		return "string"
	case *commonpb.Value_TimestampVal:
		return "timestamp"
	case *commonpb.Value_DateVal:
		return "date"
	case *commonpb.Value_TimeVal:
		return "time"
	case *commonpb.Value_DatetimeVal:
		return "datetime"
	case *commonpb.Value_DurationVal:
		return "duration"
	case *commonpb.Value_ListVal:
		return "list"
	case *commonpb.Value_MapVal:
		return "map"
	case *commonpb.Value_VertexVal:
		return "vertex"
	case *commonpb.Value_EdgeVal:
		return "edge"
	case *commonpb.Value_PathVal:
		return "path"
	}
	return "NULL"
}

func (r Row) typeError(j int, want string) error {
	if isNull(r.cell(j)) {
		return fmt.Errorf("column %d: %w", j, ErrNull)
	}
	return fmt.Errorf("column %d: %w: want %s, have %s", j, ErrType, want, typeName(r.cell(j)))
}

// FormatValue renders a value as Row.Value returns it the way the console
// prints it, stably across runs: nil as __NULL__, strings double-quoted
// with Go escapes, floats in the shortest form that reads back exactly
// (always with a '.' or an exponent, so 1.0 is not mistaken for an int),
// lists as [a, b], maps as {a: 1, b: "x"} (keys sorted), dates, times,
// datetimes and durations as NebulaGraph prints them (2024-01-02,
// 12:34:56.000000, 2024-01-02T12:34:56.000000, P0MT93600.000000000S),
// vertices, edges and paths as nebula-console does:
//
//	("v1" :player{age: 42, name: "Tim"})
//	[:follow "a"->"b" @0 {degree: 95}]
//	<("a" :player{name: "A"})-[:follow@0 {degree: 95}]->("b")>
func FormatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return nullText
	case string:
		return strconv.Quote(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return formatFloat(v)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		parts := make([]string, len(v))
		for i, elem := range v {
			parts[i] = FormatValue(elem)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Map:
		return v.String()
	case map[string]any:
		return Map(v).String()
	case Vertex:
		return v.String()
	case Edge:
		return v.String()
	case Path:
		return v.String()
	}
	return fmt.Sprint(v)
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	// Plain notation for everyday magnitudes, exponent beyond them, where
	// plain notation would print long runs of zeros.
	if abs := math.Abs(f); f != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
