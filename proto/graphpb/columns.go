package graphpb

import "github.com/novagraph/novagraph/proto/commonpb"

// NullAt reports whether cell i of the column is NULL. A COL_ANY column
// says so in its Value; a typed one in its NULL bitmap (empty when no cell
// is NULL).
func (c *Column) NullAt(i int) bool {
	if c.GetKind() == ColumnKind_COL_ANY {
		v := c.Values[i]
		switch v.GetV().(type) {
		case nil, *commonpb.Value_Null:
			return true
		}
		return false
	}
	return len(c.Nulls) > 0 && c.Nulls[i/8]&(1<<(i%8)) != 0
}

// Cell is cell i of the column as a wire value: a COL_ANY column's own
// Value, else one made from the typed array (an explicit NULL for a NULL
// cell). The caller checked the column's arrays against DataSet.num_rows.
func (c *Column) Cell(i int) *commonpb.Value {
	if c.GetKind() == ColumnKind_COL_ANY {
		return c.Values[i]
	}
	if c.NullAt(i) {
		return &commonpb.Value{V: &commonpb.Value_Null{Null: true}}
	}
	switch c.GetKind() {
	case ColumnKind_COL_INT:
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: c.Ints[i]}}
	case ColumnKind_COL_FLOAT:
		return &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: c.Floats[i]}}
	case ColumnKind_COL_STR:
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: c.Strs[i]}}
	default: // COL_BOOL
		return &commonpb.Value{V: &commonpb.Value_BoolVal{BoolVal: c.Bools[i] != 0}}
	}
}
