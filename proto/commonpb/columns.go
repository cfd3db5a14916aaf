package commonpb

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/proto"
)

// NullAt reports whether cell i of the column is NULL. A COL_ANY column
// says so in its Value; a typed one in its NULL bitmap (empty when no cell
// is NULL).
func (c *Column) NullAt(i int) bool {
	if c.GetKind() == ColumnKind_COL_ANY {
		v := c.Values[i]
		switch v.GetV().(type) {
		case nil, *Value_Null:
			return true
		}
		return false
	}
	return len(c.Nulls) > 0 && c.Nulls[i/8]&(1<<(i%8)) != 0
}

// Str is string i of a COL_STR column: from strs when an older writer sent
// one entry per row, else the packed str_data. It aliases the column.
func (c *Column) Str(i int) []byte {
	if len(c.Strs) > 0 {
		return c.Strs[i]
	}
	start := uint32(0)
	if i > 0 {
		start = c.StrEnds[i-1]
	}
	end := c.StrEnds[i]
	return c.StrData[start:end:end]
}

// UnpackStrings turns a packed COL_STR column into the per-row form
// (strs) readers before the packing take: each entry slices str_data, no
// string is copied. Writers call it for a reader that did not ask for
// packed strings (packed_strings in the requests).
func (c *Column) UnpackStrings() {
	if c.GetKind() != ColumnKind_COL_STR || len(c.Strs) > 0 || len(c.StrEnds) == 0 {
		return
	}
	strs := make([][]byte, len(c.StrEnds))
	for i := range c.StrEnds {
		strs[i] = c.Str(i) // from the packed form: Strs is still empty
	}
	c.Strs, c.StrData, c.StrEnds = strs, nil, nil
}

// Len is how many cells the array of the column's kind holds: what Check
// compares with the rows the column should have.
func (c *Column) Len() int {
	switch c.GetKind() {
	case ColumnKind_COL_INT:
		return len(c.Ints)
	case ColumnKind_COL_FLOAT:
		return len(c.Floats)
	case ColumnKind_COL_STR:
		if len(c.Strs) > 0 {
			return len(c.Strs)
		}
		return len(c.StrEnds)
	case ColumnKind_COL_BOOL:
		return len(c.Bools)
	}
	return len(c.Values)
}

// Check reports whether the column holds n cells that its accessors can
// read: the array of its kind n long, the NULL bits for n rows or none,
// the packed strings' ends in order and within str_data. A column from
// another process (a faulty or hostile peer) is checked before it is read.
func (c *Column) Check(n int) error {
	switch c.GetKind() {
	case ColumnKind_COL_ANY, ColumnKind_COL_INT, ColumnKind_COL_FLOAT, ColumnKind_COL_STR, ColumnKind_COL_BOOL:
	default:
		return fmt.Errorf("column of unknown kind %d", c.GetKind())
	}
	if have := c.Len(); have != n || (len(c.Nulls) != 0 && len(c.Nulls) != (n+7)/8) {
		return fmt.Errorf("%s column with %d cells and %d bytes of NULL bits for %d rows", c.GetKind(), have, len(c.Nulls), n)
	}
	if c.GetKind() == ColumnKind_COL_STR && len(c.Strs) == 0 {
		prev := uint32(0)
		for i, end := range c.StrEnds {
			if end < prev || int64(end) > int64(len(c.StrData)) {
				return fmt.Errorf("COL_STR column: string %d ends at %d, after %d, in %d bytes of strings", i, end, prev, len(c.StrData))
			}
			prev = end
		}
	}
	return nil
}

// Cell is cell i of the column as a wire value: a COL_ANY column's own
// Value, else one made from the typed array (an explicit NULL for a NULL
// cell). The caller checked the column (Check).
func (c *Column) Cell(i int) *Value {
	if c.GetKind() == ColumnKind_COL_ANY {
		return c.Values[i]
	}
	if c.NullAt(i) {
		return &Value{V: &Value_Null{Null: true}}
	}
	switch c.GetKind() {
	case ColumnKind_COL_INT:
		return &Value{V: &Value_IntVal{IntVal: c.Ints[i]}}
	case ColumnKind_COL_FLOAT:
		return &Value{V: &Value_FloatVal{FloatVal: c.Floats[i]}}
	case ColumnKind_COL_STR:
		return &Value{V: &Value_StrVal{StrVal: c.Str(i)}}
	default: // COL_BOOL
		return &Value{V: &Value_BoolVal{BoolVal: c.Bools[i] != 0}}
	}
}

// ColumnBuilder builds one Column a cell at a time: typed while
// every non-NULL cell is of one scalar kind (int, float, string, bool), and
// COL_ANY, a Value per cell, from the first cell of another kind on. A
// column whose cells are all NULL is COL_ANY too, as its rows read. The
// typed array grows with the cells, so a column never exists twice.
type ColumnBuilder struct {
	c     colArrays // c.Kind stays COL_ANY until the first non-NULL cell
	typed bool      // a non-NULL cell fixed c.Kind
	any   bool      // the cells differ in kind: c.Values holds them all
	n     int       // cells so far
	hint  int       // cells expected in all (reserve), 0 if unknown
	// varBytes is the memory of the Value cells (the arrays' elements
	// aside), kept as they are added so that Bytes is cheap.
	varBytes int64
	// ValueSize, if set, estimates the memory of a COL_ANY cell for Bytes
	// (graphd charges it to the query's budget); else the Value's wire
	// size plus 64.
	ValueSize func(*Value) int64
}

// colArrays are a Column's fields while it is built (a message
// itself must not be copied). Strings are packed (StrData, StrEnds).
type colArrays struct {
	Kind    ColumnKind
	Nulls   []byte
	Ints    []int64
	Floats  []float64
	StrData []byte
	StrEnds []uint32
	Bools   []byte
	Values  []*Value
}

// Reserve makes room for n cells of kind in the typed array; when the
// kind is not known ahead (COL_ANY), the first non-NULL cell's kind gets
// the room.
func (b *ColumnBuilder) Reserve(n int, kind ColumnKind) {
	b.hint = n
	switch kind {
	case ColumnKind_COL_INT:
		b.c.Ints = slices.Grow(b.c.Ints, n)
	case ColumnKind_COL_FLOAT:
		b.c.Floats = slices.Grow(b.c.Floats, n)
	case ColumnKind_COL_STR:
		b.c.StrEnds = slices.Grow(b.c.StrEnds, n)
	case ColumnKind_COL_BOOL:
		b.c.Bools = slices.Grow(b.c.Bools, n)
	}
}

// ReserveStrBytes makes room for n bytes of packed strings, for a caller
// that can estimate a string column's size; Bytes counts the room.
func (b *ColumnBuilder) ReserveStrBytes(n int) {
	if n > 0 {
		b.c.StrData = slices.Grow(b.c.StrData, n)
	}
}

// fix reports whether the next cell, of kind k, goes into the typed array:
// the first non-NULL cell fixes the column's kind (the NULL cells before
// it take a zero), and a cell of another kind turns the column into
// COL_ANY.
func (b *ColumnBuilder) fix(k ColumnKind) bool {
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
	if len(b.c.Ints)+len(b.c.Floats)+len(b.c.StrEnds)+len(b.c.Bools) == 0 {
		b.Reserve(max(b.hint, b.n+1), k)
	}
	switch k {
	case ColumnKind_COL_INT:
		b.c.Ints = append(b.c.Ints, make([]int64, b.n)...)
	case ColumnKind_COL_FLOAT:
		b.c.Floats = append(b.c.Floats, make([]float64, b.n)...)
	case ColumnKind_COL_STR:
		b.c.StrEnds = append(b.c.StrEnds, make([]uint32, b.n)...) // empty strings
	case ColumnKind_COL_BOOL:
		b.c.Bools = append(b.c.Bools, make([]byte, b.n)...)
	}
	return true
}

// toAny turns the cells so far into a Value each.
func (b *ColumnBuilder) toAny() {
	vals := make([]*Value, b.n)
	for i := range vals {
		vals[i] = b.cell(i)
	}
	b.c = colArrays{Kind: ColumnKind_COL_ANY, Values: vals}
	b.any, b.varBytes = true, b.valuesSize(vals)
}

// cell is cell i of a column not yet COL_ANY, as a Value.
func (b *ColumnBuilder) cell(i int) *Value {
	if !b.typed || (i/8 < len(b.c.Nulls) && b.c.Nulls[i/8]&(1<<(i%8)) != 0) {
		return nullValue()
	}
	switch b.c.Kind {
	case ColumnKind_COL_INT:
		return &Value{V: &Value_IntVal{IntVal: b.c.Ints[i]}}
	case ColumnKind_COL_FLOAT:
		return &Value{V: &Value_FloatVal{FloatVal: b.c.Floats[i]}}
	case ColumnKind_COL_STR:
		start := uint32(0)
		if i > 0 {
			start = b.c.StrEnds[i-1]
		}
		return &Value{V: &Value_StrVal{StrVal: b.c.StrData[start:b.c.StrEnds[i]:b.c.StrEnds[i]]}}
	default:
		return &Value{V: &Value_BoolVal{BoolVal: b.c.Bools[i] != 0}}
	}
}

func (b *ColumnBuilder) AddNull() {
	if b.any {
		b.appendAny(nullValue())
		return
	}
	for len(b.c.Nulls) <= b.n/8 {
		b.c.Nulls = append(b.c.Nulls, 0)
	}
	b.c.Nulls[b.n/8] |= 1 << (b.n % 8)
	if b.typed {
		switch b.c.Kind {
		case ColumnKind_COL_INT:
			b.c.Ints = append(b.c.Ints, 0)
		case ColumnKind_COL_FLOAT:
			b.c.Floats = append(b.c.Floats, 0)
		case ColumnKind_COL_STR:
			b.c.StrEnds = append(b.c.StrEnds, uint32(len(b.c.StrData)))
		case ColumnKind_COL_BOOL:
			b.c.Bools = append(b.c.Bools, 0)
		}
	}
	b.n++
}

func (b *ColumnBuilder) AddInt(x int64) {
	if b.fix(ColumnKind_COL_INT) {
		b.c.Ints = append(b.c.Ints, x)
	} else {
		b.appendAny(&Value{V: &Value_IntVal{IntVal: x}})
		return
	}
	b.n++
}

func (b *ColumnBuilder) AddFloat(x float64) {
	if b.fix(ColumnKind_COL_FLOAT) {
		b.c.Floats = append(b.c.Floats, x)
	} else {
		b.appendAny(&Value{V: &Value_FloatVal{FloatVal: x}})
		return
	}
	b.n++
}

// AddStr adds a string cell, copied (into the column's packed strings,
// or a Value's own bytes once the column is COL_ANY), so that s may be a
// buffer the caller reuses. A column whose strings would pass 4 GiB (the
// ends are uint32) takes the rest as COL_ANY.
func (b *ColumnBuilder) AddStr(s []byte) {
	if b.typed && !b.any && b.c.Kind == ColumnKind_COL_STR && int64(len(b.c.StrData))+int64(len(s)) > math.MaxUint32 {
		b.toAny()
	}
	if b.fix(ColumnKind_COL_STR) {
		b.c.StrData = append(b.c.StrData, s...)
		b.c.StrEnds = append(b.c.StrEnds, uint32(len(b.c.StrData)))
	} else {
		b.appendAny(&Value{V: &Value_StrVal{StrVal: bytes.Clone(s)}})
		return
	}
	b.n++
}

func (b *ColumnBuilder) AddBool(x bool) {
	if b.fix(ColumnKind_COL_BOOL) {
		var v byte
		if x {
			v = 1
		}
		b.c.Bools = append(b.c.Bools, v)
	} else {
		b.appendAny(&Value{V: &Value_BoolVal{BoolVal: x}})
		return
	}
	b.n++
}

// addOther adds a cell of no typed kind (a list, a date, a vertex…).
func (b *ColumnBuilder) addOther(v *Value) {
	if !b.any {
		b.toAny()
	}
	b.appendAny(v)
}

// appendAny adds a cell to a COL_ANY column.
func (b *ColumnBuilder) appendAny(v *Value) {
	b.c.Values = append(b.c.Values, v)
	b.varBytes += b.valuesSize([]*Value{v})
	b.n++
}

// AddValue adds a wire value: typed when it is an int, float, string or
// bool (a string cell is copied), NULL when it is NULL, and v
// itself in a COL_ANY column otherwise.
func (b *ColumnBuilder) AddValue(v *Value) {
	switch x := v.GetV().(type) {
	case nil, *Value_Null:
		b.AddNull()
	case *Value_IntVal:
		b.AddInt(x.IntVal)
	case *Value_FloatVal:
		b.AddFloat(x.FloatVal)
	case *Value_StrVal:
		b.AddStr(x.StrVal)
	case *Value_BoolVal:
		b.AddBool(x.BoolVal)
	default:
		b.addOther(v)
	}
}

// AppendRange adds cells from to to-1 of c, a column Check accepted, as
// adding them one at a time with AddValue would, so that the column
// built is the same. A run of non-NULL cells of a typed column, added to
// a builder of its kind (or one that has only NULLs so far), is copied
// in one append per array: storaged's adjacency cache hands a vertex's
// edges their property cells this way, from a column decoded once for
// the partition.
func (b *ColumnBuilder) AppendRange(c *Column, from, to int) {
	kind := c.GetKind()
	bulk := from < to && kind != ColumnKind_COL_ANY && len(c.Strs) == 0 && !c.nullIn(from, to) && !b.any &&
		(!b.typed || b.c.Kind == kind)
	if bulk && kind == ColumnKind_COL_STR {
		start := uint32(0)
		if from > 0 {
			start = c.StrEnds[from-1]
		}
		// Past 4 GiB of strings the builder turns COL_ANY (AddStr).
		bulk = int64(len(b.c.StrData))+int64(c.StrEnds[to-1]-start) <= math.MaxUint32
	}
	if !bulk {
		for i := from; i < to; i++ {
			b.addCell(c, i)
		}
		return
	}
	b.hint = max(b.hint, b.n+to-from) // a first typed cell reserves room for the run
	b.fix(kind)
	switch kind {
	case ColumnKind_COL_INT:
		b.c.Ints = append(b.c.Ints, c.Ints[from:to]...)
	case ColumnKind_COL_FLOAT:
		b.c.Floats = append(b.c.Floats, c.Floats[from:to]...)
	case ColumnKind_COL_BOOL:
		b.c.Bools = append(b.c.Bools, c.Bools[from:to]...)
	case ColumnKind_COL_STR:
		start := uint32(0)
		if from > 0 {
			start = c.StrEnds[from-1]
		}
		base := uint32(len(b.c.StrData))
		b.c.StrData = append(b.c.StrData, c.StrData[start:c.StrEnds[to-1]]...)
		for _, end := range c.StrEnds[from:to] {
			b.c.StrEnds = append(b.c.StrEnds, base+end-start)
		}
	}
	b.n += to - from
}

// AppendAt adds cells at[0], at[1], … of c, a column Check accepted, as
// adding them one at a time with AddValue would. From a typed column with
// no NULL cell into a builder of its kind (or one with only NULLs so far)
// the arrays grow once and the cells are copied in a tight loop: graphd
// gathers each result row's $$ property by its destination's ordinal
// this way.
func (b *ColumnBuilder) AppendAt(c *Column, at []int32) {
	kind := c.GetKind()
	bulk := len(at) > 0 && kind != ColumnKind_COL_ANY && len(c.Strs) == 0 && len(c.Nulls) == 0 && !b.any &&
		(!b.typed || b.c.Kind == kind)
	var strBytes int64
	if bulk && kind == ColumnKind_COL_STR {
		for _, i := range at {
			strBytes += int64(len(c.Str(int(i))))
		}
		// Past 4 GiB of strings the builder turns COL_ANY (AddStr).
		bulk = int64(len(b.c.StrData))+strBytes <= math.MaxUint32
	}
	if !bulk {
		for _, i := range at {
			b.addCell(c, int(i))
		}
		return
	}
	b.fix(kind)
	switch kind {
	case ColumnKind_COL_INT:
		b.c.Ints = gather(b.c.Ints, c.Ints, at)
	case ColumnKind_COL_FLOAT:
		b.c.Floats = gather(b.c.Floats, c.Floats, at)
	case ColumnKind_COL_BOOL:
		b.c.Bools = gather(b.c.Bools, c.Bools, at)
	case ColumnKind_COL_STR:
		b.c.StrData = slices.Grow(b.c.StrData, int(strBytes))
		b.c.StrEnds = slices.Grow(b.c.StrEnds, len(at))
		for _, i := range at {
			b.c.StrData = append(b.c.StrData, c.Str(int(i))...)
			b.c.StrEnds = append(b.c.StrEnds, uint32(len(b.c.StrData)))
		}
	}
	b.n += len(at)
}

// gather appends src[at[0]], src[at[1]], … to dst, grown once.
func gather[T any](dst, src []T, at []int32) []T {
	dst = slices.Grow(dst, len(at))
	for _, i := range at {
		dst = append(dst, src[i])
	}
	return dst
}

// addCell adds cell i of c as AddValue(c.Cell(i)) would, without making
// a Value of a typed cell.
func (b *ColumnBuilder) addCell(c *Column, i int) {
	if c.NullAt(i) {
		b.AddNull()
		return
	}
	switch c.GetKind() {
	case ColumnKind_COL_INT:
		b.AddInt(c.Ints[i])
	case ColumnKind_COL_FLOAT:
		b.AddFloat(c.Floats[i])
	case ColumnKind_COL_STR:
		b.AddStr(c.Str(i))
	case ColumnKind_COL_BOOL:
		b.AddBool(c.Bools[i] != 0)
	default:
		b.AddValue(c.Values[i])
	}
}

// nullIn reports whether any of cells from to to-1 of a typed column is
// NULL.
func (c *Column) nullIn(from, to int) bool {
	if len(c.Nulls) == 0 {
		return false
	}
	for i := from; i < to; {
		if i%8 == 0 && to-i >= 8 { // a whole byte of the bitmap
			if c.Nulls[i/8] != 0 {
				return true
			}
			i += 8
			continue
		}
		if c.Nulls[i/8]&(1<<(i%8)) != 0 {
			return true
		}
		i++
	}
	return false
}

// Finish returns the column; the builder is done with it.
func (b *ColumnBuilder) Finish() *Column {
	if !b.typed && !b.any {
		b.toAny() // all NULL, or no cells
	}
	if len(b.c.Nulls) > 0 && !b.any {
		b.c.Nulls = append(b.c.Nulls, make([]byte, (b.n+7)/8-len(b.c.Nulls))...)
	}
	c := b.c
	return &Column{Kind: c.Kind, Nulls: c.Nulls, Ints: c.Ints, Floats: c.Floats, StrData: c.StrData, StrEnds: c.StrEnds, Bools: c.Bools, Values: c.Values}
}

// Bytes estimates the column's memory so far: its arrays, its strings
// and (ValueSize) its Value cells.
func (b *ColumnBuilder) Bytes() int64 {
	c := &b.c
	// The strings' buffer by its capacity: it grows by doubling.
	return int64(columnStructBytes+len(c.Nulls)+8*len(c.Ints)+8*len(c.Floats)+cap(c.StrData)+4*len(c.StrEnds)+len(c.Bools)) + b.varBytes
}

// columnStructBytes is the memory of the Column message without its
// arrays, for Bytes.
const columnStructBytes = 64

func nullValue() *Value { return &Value{V: &Value_Null{Null: true}} }

func (b *ColumnBuilder) valuesSize(vs []*Value) int64 {
	var n int64
	for _, v := range vs {
		if b.ValueSize != nil {
			n += b.ValueSize(v)
		} else {
			n += 64 + int64(proto.Size(v))
		}
	}
	return n
}
