package exec

import (
	"context"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/value"
)

// The result in columns. A client that reads columns (graphpb.ExecuteReq
// columnar, set by package client) gets each result column as one typed
// array instead of a Row message and a Value message per cell: for a GO 3
// STEPS of 70,000 rows of one int that is one packed array instead of
// 140,000 messages built, marshalled and unmarshalled (issue 22). A column
// whose cells are all of one scalar kind (or NULL) is typed; any other is
// COL_ANY and keeps a Value per cell.

type columnarKey struct{}

// WithColumnarResult marks ctx's request as one whose client reads the
// result in columns (graphd sets it from the request).
func WithColumnarResult(ctx context.Context) context.Context {
	return context.WithValue(ctx, columnarKey{}, true)
}

func columnarResult(ctx context.Context) bool {
	on, _ := ctx.Value(columnarKey{}).(bool)
	return on
}

// toColumns converts the table into a columnar DataSet, charging mem as
// toDataSet does (per column here: a column is the unit that is built). A
// table GO built in columns already (go_columns.go) is returned as it is.
func (t *table) toColumns(mem *Budget) (*graphpb.DataSet, error) {
	if t.columns != nil {
		return t.columns, nil
	}
	ds := &graphpb.DataSet{ColumnNames: t.cols, Columns: make([]*commonpb.Column, len(t.cols)), NumRows: int64(len(t.rows))}
	for j := range t.cols {
		b := commonpb.ColumnBuilder{ValueSize: protoValueSize}
		for _, r := range t.rows {
			addValue(&b, r[j])
		}
		c := b.Finish()
		ds.Columns[j] = c
		if err := mem.Grow(columnSize(c), "building the result for the client"); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// addValue adds v to a column as its wire value would go; strings are
// copied (a Value's string is not to be aliased).
func addValue(b *commonpb.ColumnBuilder, v value.Value) {
	switch v.Kind() {
	case value.KindNull:
		b.AddNull()
	case value.KindInt:
		x, _ := v.IntVal()
		b.AddInt(x)
	case value.KindFloat:
		x, _ := v.FloatVal()
		b.AddFloat(x)
	case value.KindString:
		x, _ := v.StrVal()
		b.AddStr([]byte(x))
	case value.KindBool:
		x, _ := v.BoolVal()
		b.AddBool(x)
	default:
		b.AddValue(v.ToProto())
	}
}

// protoValueSize is protoValuesSize of one value.
func protoValueSize(v *commonpb.Value) int64 {
	return protoValuesSize([]*commonpb.Value{v})
}

// columnSize estimates the memory of a column as sent to the client.
func columnSize(c *commonpb.Column) int64 {
	n := int64(protoStruct) + int64(len(c.Nulls)+8*len(c.Ints)+8*len(c.Floats)+len(c.Bools)+len(c.StrData)+4*len(c.StrEnds))
	for _, s := range c.Strs {
		n += sliceBytes + int64(len(s))
	}
	return n + protoValuesSize(c.Values)
}
