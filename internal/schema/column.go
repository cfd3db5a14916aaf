package schema

import (
	"fmt"
	"unicode/utf8"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// TypeName is the nGQL spelling of a column's type, as DESCRIBE shows it
// and as errors name it: int8..int64, float, double, fixed_string(N), ...
func TypeName(c *metapb.ColumnDef) string {
	switch c.GetType() {
	case metapb.PropType_INT64:
		if b := c.GetIntBits(); b > 0 {
			return fmt.Sprintf("int%d", b)
		}
		return "int64"
	case metapb.PropType_DOUBLE:
		if c.GetFloat32() {
			return "float"
		}
		return "double"
	case metapb.PropType_BOOL:
		return "bool"
	case metapb.PropType_STRING:
		return "string"
	case metapb.PropType_FIXED_STRING:
		return fmt.Sprintf("fixed_string(%d)", c.GetFixedLen())
	case metapb.PropType_TIMESTAMP:
		return "timestamp"
	case metapb.PropType_DATE:
		return "date"
	case metapb.PropType_TIME:
		return "time"
	case metapb.PropType_DATETIME:
		return "datetime"
	case metapb.PropType_DURATION:
		return "duration"
	}
	return "unknown"
}

// Coerce converts v to the type of column c, as INSERT and DEFAULT accept
// it: NULL stays NULL (the codec checks nullability), ints widen to double,
// ints are timestamps, strings must fit a fixed_string; a date, time,
// datetime or duration column takes only its own kind (date("2024-01-02"),
// not the string).
func Coerce(v value.Value, c *metapb.ColumnDef) (value.Value, error) {
	if v.IsNull() {
		return v, nil
	}
	mismatch := func() (value.Value, error) {
		return value.Null(), fmt.Errorf("property %q is %s, got %s %s", c.GetName(), TypeName(c), v.Kind(), v)
	}
	switch c.GetType() {
	case metapb.PropType_INT64:
		if v.Kind() != value.KindInt {
			return mismatch()
		}
	case metapb.PropType_DOUBLE:
		if i, ok := v.IntVal(); ok && v.Kind() == value.KindInt {
			return value.Float(float64(i)), nil
		}
		if v.Kind() != value.KindFloat {
			return mismatch()
		}
	case metapb.PropType_BOOL:
		if v.Kind() != value.KindBool {
			return mismatch()
		}
	case metapb.PropType_STRING:
		if v.Kind() != value.KindString {
			return mismatch()
		}
	case metapb.PropType_FIXED_STRING:
		s, ok := v.StrVal()
		if !ok {
			return mismatch()
		}
		if n := int(c.GetFixedLen()); len(s) > n {
			// NebulaGraph truncates a longer value; cut at a character
			// boundary so the stored bytes stay valid UTF-8.
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			return value.Str(s[:n]), nil
		}
	case metapb.PropType_TIMESTAMP:
		i, ok := v.IntVal()
		if !ok {
			return mismatch()
		}
		return value.Timestamp(i), nil
	case metapb.PropType_DATE:
		if v.Kind() != value.KindDate {
			return mismatch()
		}
	case metapb.PropType_TIME:
		if v.Kind() != value.KindTime {
			return mismatch()
		}
	case metapb.PropType_DATETIME:
		if v.Kind() != value.KindDateTime {
			return mismatch()
		}
	case metapb.PropType_DURATION:
		if v.Kind() != value.KindDuration {
			return mismatch()
		}
	}
	return v, nil
}

// ColumnValue evaluates a column's default expression (a clock, read
// now, unless e is evaluated by a storaged with its command's time) and
// converts it to the row codec's value for the column, as INSERT converts
// a listed value.
func ColumnValue(e ast.Expr, col *metapb.ColumnDef) (any, error) {
	return columnValueIn(nil, e, col)
}

// columnValueIn is ColumnValue with the clock of ctx, if it has one
// (eval.Clock).
func columnValueIn(ctx eval.Context, e ast.Expr, col *metapb.ColumnDef) (any, error) {
	v, err := eval.Eval(ctx, e)
	if err != nil {
		return nil, err
	}
	if v, err = Coerce(v, col); err != nil {
		return nil, err
	}
	return v.ToGo(), nil
}
