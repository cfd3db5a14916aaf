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
