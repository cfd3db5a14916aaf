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
// toDataSet does (per column here: a column is the unit that is built).
func (t *table) toColumns(mem *Budget) (*graphpb.DataSet, error) {
	ds := &graphpb.DataSet{ColumnNames: t.cols, Columns: make([]*graphpb.Column, len(t.cols)), NumRows: int64(len(t.rows))}
	for j := range t.cols {
		c := buildColumn(t.rows, j)
		ds.Columns[j] = c
		if err := mem.Grow(columnSize(c), "building the result for the client"); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// columnKind is the kind of column j's non-NULL cells, COL_ANY when they
// differ or are not one of the typed kinds.
func columnKind(rows [][]value.Value, j int) graphpb.ColumnKind {
	kind := graphpb.ColumnKind_COL_ANY
	seen := false
	for _, r := range rows {
		v := r[j]
		if v.IsNull() {
			continue
		}
		var k graphpb.ColumnKind
		switch v.Kind() {
		case value.KindInt:
			k = graphpb.ColumnKind_COL_INT
		case value.KindFloat:
			k = graphpb.ColumnKind_COL_FLOAT
		case value.KindString:
			k = graphpb.ColumnKind_COL_STR
		case value.KindBool:
			k = graphpb.ColumnKind_COL_BOOL
		default:
			return graphpb.ColumnKind_COL_ANY
		}
		if seen && k != kind {
			return graphpb.ColumnKind_COL_ANY
		}
		kind, seen = k, true
	}
	return kind
}

// buildColumn is column j of rows in columnar form.
func buildColumn(rows [][]value.Value, j int) *graphpb.Column {
	c := &graphpb.Column{Kind: columnKind(rows, j)}
	n := len(rows)
	setNull := func(i int) {
		if c.Nulls == nil {
			c.Nulls = make([]byte, (n+7)/8)
		}
		c.Nulls[i/8] |= 1 << (i % 8)
	}
	switch c.Kind {
	case graphpb.ColumnKind_COL_INT:
		c.Ints = make([]int64, n)
		for i, r := range rows {
			if x, ok := r[j].IntVal(); ok {
				c.Ints[i] = x
			} else {
				setNull(i)
			}
		}
	case graphpb.ColumnKind_COL_FLOAT:
		c.Floats = make([]float64, n)
		for i, r := range rows {
			if x, ok := r[j].FloatVal(); ok {
				c.Floats[i] = x
			} else {
				setNull(i)
			}
		}
	case graphpb.ColumnKind_COL_STR:
		c.Strs = make([][]byte, n)
		for i, r := range rows {
			if x, ok := r[j].StrVal(); ok {
				c.Strs[i] = []byte(x)
			} else {
				setNull(i)
			}
		}
	case graphpb.ColumnKind_COL_BOOL:
		c.Bools = make([]byte, n)
		for i, r := range rows {
			if x, ok := r[j].BoolVal(); ok {
				if x {
					c.Bools[i] = 1
				}
			} else {
				setNull(i)
			}
		}
	default:
		c.Values = make([]*commonpb.Value, n)
		for i, r := range rows {
			c.Values[i] = r[j].ToProto()
		}
	}
	return c
}

// columnSize estimates the memory of a column as sent to the client.
func columnSize(c *graphpb.Column) int64 {
	n := int64(protoStruct) + int64(len(c.Nulls)+8*len(c.Ints)+8*len(c.Floats)+len(c.Bools))
	for _, s := range c.Strs {
		n += sliceBytes + int64(len(s))
	}
	return n + protoValuesSize(c.Values)
}
