package clienttest

import (
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// Result is a successful answer carrying a data set.
func Result(latencyUS int64, columns []string, rows ...[]*commonpb.Value) *graphpb.ExecuteResp {
	data := &graphpb.DataSet{ColumnNames: columns}
	for _, row := range rows {
		data.Rows = append(data.Rows, &graphpb.Row{Values: row})
	}
	return &graphpb.ExecuteResp{Data: data, LatencyUs: latencyUS}
}

// Done is a successful answer without a data set, as for INSERT.
func Done(latencyUS int64) *graphpb.ExecuteResp {
	return &graphpb.ExecuteResp{LatencyUs: latencyUS}
}

// Fail is a failed answer.
func Fail(code graphpb.QueryErrorCode, msg string) *graphpb.ExecuteResp {
	return &graphpb.ExecuteResp{Code: code, Error: msg}
}

// Row builds one row of values.
func Row(values ...*commonpb.Value) []*commonpb.Value { return values }

// Int is an int value.
func Int(v int64) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: v}} }

// Float is a float value.
func Float(v float64) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: v}}
}

// Str is a string value.
func Str(v string) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(v)}}
}

// Bool is a bool value.
func Bool(v bool) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: v}} }

// Timestamp is a timestamp value, in seconds since the Unix epoch.
func Timestamp(v int64) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_TimestampVal{TimestampVal: v}}
}

// Null is an explicit NULL.
func Null() *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_Null{Null: true}} }

// List is a list value.
func List(elems ...*commonpb.Value) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_ListVal{ListVal: &commonpb.ValueList{Values: elems}}}
}

// Entry is one entry of a Map.
type Entry struct {
	Key   string
	Value *commonpb.Value
}

// KV is the entry key: v.
func KV(key string, v *commonpb.Value) Entry { return Entry{Key: key, Value: v} }

// Map is a map value, its entries in the order given (a sender sorts them
// by key; a receiver must not rely on it).
func Map(entries ...Entry) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_MapVal{MapVal: mapVal(entries)}}
}

func mapVal(entries []Entry) *commonpb.MapVal {
	m := &commonpb.MapVal{}
	for _, e := range entries {
		m.Entries = append(m.Entries, &commonpb.MapEntry{Key: []byte(e.Key), Value: e.Value})
	}
	return m
}

// Tag is one tag of a Vertex.
func Tag(name string, props ...Entry) *commonpb.TagVal {
	return &commonpb.TagVal{Name: name, Props: mapVal(props)}
}

// VertexVal is the wire vertex of Vertex, for Path.
func VertexVal(vid *commonpb.Value, tags ...*commonpb.TagVal) *commonpb.VertexVal {
	return &commonpb.VertexVal{Vid: vid, Tags: tags}
}

// Vertex is a vertex value.
func Vertex(vid *commonpb.Value, tags ...*commonpb.TagVal) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_VertexVal{VertexVal: VertexVal(vid, tags...)}}
}

// EdgeVal is the wire edge of Edge, for Path.
func EdgeVal(src, dst *commonpb.Value, typ string, rank int64, props ...Entry) *commonpb.EdgeVal {
	return &commonpb.EdgeVal{Src: src, Dst: dst, Name: typ, Rank: rank, Props: mapVal(props)}
}

// Edge is an edge value.
func Edge(src, dst *commonpb.Value, typ string, rank int64, props ...Entry) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_EdgeVal{EdgeVal: EdgeVal(src, dst, typ, rank, props...)}}
}

// Step is one hop of a Path.
func Step(edge *commonpb.EdgeVal, reverse bool, dst *commonpb.VertexVal) *commonpb.PathStep {
	return &commonpb.PathStep{Edge: edge, Reverse: reverse, Dst: dst}
}

// Path is a path value.
func Path(src *commonpb.VertexVal, steps ...*commonpb.PathStep) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_PathVal{PathVal: &commonpb.PathVal{Src: src, Steps: steps}}}
}
