package exec

import (
	"context"
	"slices"

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
	ds := &graphpb.DataSet{ColumnNames: t.cols, Columns: make([]*graphpb.Column, len(t.cols)), NumRows: int64(len(t.rows))}
	for j := range t.cols {
		var b columnBuilder
		for _, r := range t.rows {
			b.addValue(r[j])
		}
		c := b.finish()
		ds.Columns[j] = c
		if err := mem.Grow(columnSize(c), "building the result for the client"); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// columnBuilder builds one result column a cell at a time: typed while
// every non-NULL cell is of one scalar kind (int, float, string, bool), and
// COL_ANY, a Value per cell, from the first cell of another kind on. A
// column whose cells are all NULL is COL_ANY too, as its rows read. The
// typed array grows with the cells, so a column never exists twice.
type columnBuilder struct {
	c     colArrays // c.Kind stays COL_ANY until the first non-NULL cell
	typed bool      // a non-NULL cell fixed c.Kind
	any   bool      // the cells differ in kind: c.Values holds them all
	n     int       // cells so far
	hint  int       // cells expected in all (reserve), 0 if unknown
	// varBytes is the memory of the string and Value cells (the arrays'
	// elements aside), kept as they are added so that bytes is cheap.
	varBytes int64
}

// colArrays are a graphpb.Column's fields while it is built (a message
// itself must not be copied).
type colArrays struct {
	Kind   graphpb.ColumnKind
	Nulls  []byte
	Ints   []int64
	Floats []float64
	Strs   [][]byte
	Bools  []byte
	Values []*commonpb.Value
}

// reserve makes room for n cells of kind in the typed array; when the
// kind is not known ahead (COL_ANY), the first non-NULL cell's kind gets
// the room.
func (b *columnBuilder) reserve(n int, kind graphpb.ColumnKind) {
	b.hint = n
	switch kind {
	case graphpb.ColumnKind_COL_INT:
		b.c.Ints = slices.Grow(b.c.Ints, n)
	case graphpb.ColumnKind_COL_FLOAT:
		b.c.Floats = slices.Grow(b.c.Floats, n)
	case graphpb.ColumnKind_COL_STR:
		b.c.Strs = slices.Grow(b.c.Strs, n)
	case graphpb.ColumnKind_COL_BOOL:
		b.c.Bools = slices.Grow(b.c.Bools, n)
	}
}

// fix reports whether the next cell, of kind k, goes into the typed array:
// the first non-NULL cell fixes the column's kind (the NULL cells before
// it take a zero), and a cell of another kind turns the column into
// COL_ANY.
func (b *columnBuilder) fix(k graphpb.ColumnKind) bool {
	switch {
	case b.any:
		return false
	case b.typed:
		if b.c.Kind == k {
			return true
		}
		b.toAny()
		return false
	}
	b.typed, b.c.Kind = true, k
	if len(b.c.Ints)+len(b.c.Floats)+len(b.c.Strs)+len(b.c.Bools) == 0 {
		b.reserve(max(b.hint, b.n+1), k)
	}
	switch k {
	case graphpb.ColumnKind_COL_INT:
		b.c.Ints = append(b.c.Ints, make([]int64, b.n)...)
	case graphpb.ColumnKind_COL_FLOAT:
		b.c.Floats = append(b.c.Floats, make([]float64, b.n)...)
	case graphpb.ColumnKind_COL_STR:
		b.c.Strs = append(b.c.Strs, make([][]byte, b.n)...)
	case graphpb.ColumnKind_COL_BOOL:
		b.c.Bools = append(b.c.Bools, make([]byte, b.n)...)
	}
	return true
}

// toAny turns the cells so far into a Value each.
func (b *columnBuilder) toAny() {
	vals := make([]*commonpb.Value, b.n)
	for i := range vals {
		vals[i] = b.cell(i)
	}
	b.c = colArrays{Kind: graphpb.ColumnKind_COL_ANY, Values: vals}
	b.any, b.varBytes = true, protoValuesSize(vals)
}

// cell is cell i of a column not yet COL_ANY, as a Value.
func (b *columnBuilder) cell(i int) *commonpb.Value {
	if !b.typed || (i/8 < len(b.c.Nulls) && b.c.Nulls[i/8]&(1<<(i%8)) != 0) {
		return value.Null().ToProto()
	}
	switch b.c.Kind {
	case graphpb.ColumnKind_COL_INT:
		return value.Int(b.c.Ints[i]).ToProto()
	case graphpb.ColumnKind_COL_FLOAT:
		return value.Float(b.c.Floats[i]).ToProto()
	case graphpb.ColumnKind_COL_STR:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: b.c.Strs[i]}}
	default:
		return value.Bool(b.c.Bools[i] != 0).ToProto()
	}
}

func (b *columnBuilder) addNull() {
	if b.any {
		b.appendAny(value.Null().ToProto())
		return
	}
	for len(b.c.Nulls) <= b.n/8 {
		b.c.Nulls = append(b.c.Nulls, 0)
	}
	b.c.Nulls[b.n/8] |= 1 << (b.n % 8)
	if b.typed {
		switch b.c.Kind {
		case graphpb.ColumnKind_COL_INT:
			b.c.Ints = append(b.c.Ints, 0)
		case graphpb.ColumnKind_COL_FLOAT:
			b.c.Floats = append(b.c.Floats, 0)
		case graphpb.ColumnKind_COL_STR:
			b.c.Strs = append(b.c.Strs, nil)
		case graphpb.ColumnKind_COL_BOOL:
			b.c.Bools = append(b.c.Bools, 0)
		}
	}
	b.n++
}

func (b *columnBuilder) addInt(x int64) {
	if b.fix(graphpb.ColumnKind_COL_INT) {
		b.c.Ints = append(b.c.Ints, x)
	} else {
		b.appendAny(value.Int(x).ToProto())
		return
	}
	b.n++
}

func (b *columnBuilder) addFloat(x float64) {
	if b.fix(graphpb.ColumnKind_COL_FLOAT) {
		b.c.Floats = append(b.c.Floats, x)
	} else {
		b.appendAny(value.Float(x).ToProto())
		return
	}
	b.n++
}

// addStr adds a string cell; the column keeps s (it is not copied).
func (b *columnBuilder) addStr(s []byte) {
	if b.fix(graphpb.ColumnKind_COL_STR) {
		b.c.Strs = append(b.c.Strs, s)
		b.varBytes += sliceBytes + int64(len(s))
	} else {
		b.appendAny(&commonpb.Value{V: &commonpb.Value_StrVal{StrVal: s}})
		return
	}
	b.n++
}

func (b *columnBuilder) addBool(x bool) {
	if b.fix(graphpb.ColumnKind_COL_BOOL) {
		var v byte
		if x {
			v = 1
		}
		b.c.Bools = append(b.c.Bools, v)
	} else {
		b.appendAny(value.Bool(x).ToProto())
		return
	}
	b.n++
}

// addOther adds a cell of no typed kind (a list, a date, a vertex…).
func (b *columnBuilder) addOther(v *commonpb.Value) {
	if !b.any {
		b.toAny()
	}
	b.appendAny(v)
}

// appendAny adds a cell to a COL_ANY column.
func (b *columnBuilder) appendAny(v *commonpb.Value) {
	b.c.Values = append(b.c.Values, v)
	b.varBytes += protoValuesSize([]*commonpb.Value{v})
	b.n++
}

func (b *columnBuilder) addValue(v value.Value) {
	switch v.Kind() {
	case value.KindNull:
		b.addNull()
	case value.KindInt:
		x, _ := v.IntVal()
		b.addInt(x)
	case value.KindFloat:
		x, _ := v.FloatVal()
		b.addFloat(x)
	case value.KindString:
		x, _ := v.StrVal()
		b.addStr([]byte(x))
	case value.KindBool:
		x, _ := v.BoolVal()
		b.addBool(x)
	default:
		b.addOther(v.ToProto())
	}
}

// addProto adds a stored value as it came from storage, without a
// value.Value in between; a string cell aliases v's bytes. A cell of no
// typed kind keeps v itself.
func (b *columnBuilder) addProto(v *commonpb.Value) {
	switch x := v.GetV().(type) {
	case nil, *commonpb.Value_Null:
		b.addNull()
	case *commonpb.Value_IntVal:
		b.addInt(x.IntVal)
	case *commonpb.Value_FloatVal:
		b.addFloat(x.FloatVal)
	case *commonpb.Value_StrVal:
		b.addStr(x.StrVal)
	case *commonpb.Value_BoolVal:
		b.addBool(x.BoolVal)
	default:
		b.addOther(v)
	}
}

// finish returns the column; the builder is done with it.
func (b *columnBuilder) finish() *graphpb.Column {
	if !b.typed && !b.any {
		b.toAny() // all NULL, or no cells
	}
	if len(b.c.Nulls) > 0 && !b.any {
		b.c.Nulls = append(b.c.Nulls, make([]byte, (b.n+7)/8-len(b.c.Nulls))...)
	}
	c := b.c
	return &graphpb.Column{Kind: c.Kind, Nulls: c.Nulls, Ints: c.Ints, Floats: c.Floats, Strs: c.Strs, Bools: c.Bools, Values: c.Values}
}

// bytes estimates the column's memory so far, as columnSize does.
func (b *columnBuilder) bytes() int64 {
	c := &b.c
	return int64(protoStruct+len(c.Nulls)+8*len(c.Ints)+8*len(c.Floats)+len(c.Bools)) + b.varBytes
}

// columnSize estimates the memory of a column as sent to the client.
func columnSize(c *graphpb.Column) int64 {
	n := int64(protoStruct) + int64(len(c.Nulls)+8*len(c.Ints)+8*len(c.Floats)+len(c.Bools))
	for _, s := range c.Strs {
		n += sliceBytes + int64(len(s))
	}
	return n + protoValuesSize(c.Values)
}
