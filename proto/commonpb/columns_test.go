package commonpb

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

// TestStringColumns builds a string column with NULLs and empty strings,
// before and after the first string, and reads it back packed, and in the
// per-row form older writers send.
func TestStringColumns(t *testing.T) {
	cells := []*string{nil, ptr(""), ptr("v1"), nil, ptr("é"), ptr("a longer string"), ptr("")}
	var b ColumnBuilder
	for _, s := range cells {
		if s == nil {
			b.AddNull()
		} else {
			b.AddStr([]byte(*s))
		}
	}
	packed := b.Finish()
	if packed.Kind != ColumnKind_COL_STR || len(packed.Strs) != 0 || len(packed.StrEnds) != len(cells) {
		t.Fatalf("built %s with %d strs and %d ends, want COL_STR packed, %d ends", packed.Kind, len(packed.Strs), len(packed.StrEnds), len(cells))
	}
	older := &Column{Kind: ColumnKind_COL_STR, Nulls: packed.Nulls, Strs: make([][]byte, len(cells))}
	for i, s := range cells {
		if s != nil {
			older.Strs[i] = []byte(*s)
		}
	}
	unpacked := proto.Clone(packed).(*Column)
	unpacked.UnpackStrings()
	if len(unpacked.Strs) != len(cells) || len(unpacked.StrEnds)+len(unpacked.StrData) != 0 {
		t.Fatalf("unpacked: %d strs, %d ends, %d bytes; want %d strs only", len(unpacked.Strs), len(unpacked.StrEnds), len(unpacked.StrData), len(cells))
	}
	for name, c := range map[string]*Column{"packed": packed, "strs": older, "unpacked": unpacked} {
		if err := c.Check(len(cells)); err != nil {
			t.Fatalf("%s: Check: %v", name, err)
		}
		for i, s := range cells {
			v := c.Cell(i)
			switch {
			case s == nil && (!c.NullAt(i) || v.GetNull() != true):
				t.Errorf("%s: cell %d = %v, want NULL", name, i, v)
			case s != nil && (c.NullAt(i) || string(c.Str(i)) != *s || string(v.GetStrVal()) != *s):
				t.Errorf("%s: cell %d = %q (%v), want %q", name, i, c.Str(i), v, *s)
			}
		}
	}
}

// TestColumnCheck: a column that does not hold what it says is refused,
// naming what is wrong.
func TestColumnCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    *Column
		rows int
		want string // "" for a column Check accepts
	}{
		{"ints", &Column{Kind: ColumnKind_COL_INT, Ints: []int64{1, 2}}, 2, ""},
		{"short ints", &Column{Kind: ColumnKind_COL_INT, Ints: []int64{1, 2}}, 3, "2 cells"},
		{"short nulls", &Column{Kind: ColumnKind_COL_BOOL, Bools: make([]byte, 9), Nulls: []byte{1}}, 9, "1 bytes of NULL bits"},
		{"unknown kind", &Column{Kind: 99}, 0, "unknown kind 99"},
		{"packed", &Column{Kind: ColumnKind_COL_STR, StrData: []byte("abc"), StrEnds: []uint32{1, 1, 3}}, 3, ""},
		{"ends go back", &Column{Kind: ColumnKind_COL_STR, StrData: []byte("abc"), StrEnds: []uint32{2, 1, 3}}, 3, "string 1 ends at 1, after 2"},
		{"ends past the data", &Column{Kind: ColumnKind_COL_STR, StrData: []byte("abc"), StrEnds: []uint32{1, 4}}, 2, "string 1 ends at 4"},
		{"short ends", &Column{Kind: ColumnKind_COL_STR, StrData: []byte("abc"), StrEnds: []uint32{3}}, 2, "1 cells"},
		{"values", &Column{Values: []*Value{{V: &Value_IntVal{IntVal: 1}}}}, 1, ""},
	} {
		err := tc.c.Check(tc.rows)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Check(%d) = %v, want %q", tc.name, tc.rows, err, tc.want)
		}
	}
}

func ptr(s string) *string { return &s }

// TestAppendRange: a range of cells appended at once (AppendRange), or
// cells picked by index (AppendAt), build the same column as the cells
// added one at a time, whatever the source column's kind and NULLs and
// whatever the builder holds before (nothing, NULLs, cells of the same
// kind, of another kind), for every range.
func TestAppendRange(t *testing.T) {
	str := func(s string) *Value { return &Value{V: &Value_StrVal{StrVal: []byte(s)}} }
	i64 := func(x int64) *Value { return &Value{V: &Value_IntVal{IntVal: x}} }
	null := &Value{V: &Value_Null{Null: true}}
	build := func(cells ...*Value) *Column {
		var b ColumnBuilder
		for _, v := range cells {
			b.AddValue(v)
		}
		return b.Finish()
	}
	sources := map[string]*Column{
		"ints":        build(i64(1), i64(2), i64(3), i64(4), i64(5), i64(6), i64(7), i64(8), i64(9), i64(10)),
		"ints, nulls": build(i64(1), null, i64(3), i64(4), i64(5), i64(6), i64(7), i64(8), null, i64(10)),
		"floats":      build(&Value{V: &Value_FloatVal{FloatVal: 1.5}}, &Value{V: &Value_FloatVal{FloatVal: -2}}, null),
		"bools":       build(&Value{V: &Value_BoolVal{BoolVal: true}}, &Value{V: &Value_BoolVal{BoolVal: false}}),
		"strings":     build(str("a"), str(""), str("bcd"), null, str("é"), str("long string")),
		"mixed":       build(i64(1), str("x"), null),
		"all null":    build(null, null, null),
	}
	prefixes := map[string][]*Value{
		"empty":      nil,
		"nulls":      {null, null},
		"ints":       {i64(-1), null},
		"strings":    {str("p"), null, str("")},
		"other kind": {&Value{V: &Value_BoolVal{BoolVal: true}}},
	}
	for sname, src := range sources {
		n := src.Len()
		for pname, prefix := range prefixes {
			for from := 0; from <= n; from++ {
				for to := from; to <= n; to++ {
					var one, bulk ColumnBuilder
					for _, v := range prefix {
						one.AddValue(v)
						bulk.AddValue(v)
					}
					for i := from; i < to; i++ {
						one.AddValue(src.Cell(i))
					}
					bulk.AppendRange(src, from, to)
					want, got := one.Finish(), bulk.Finish()
					if !proto.Equal(want, got) {
						t.Fatalf("%s after %s, cells %d..%d: AppendRange built %v, one at a time %v", sname, pname, from, to, got, want)
					}
					// The same cells by index, backwards and with repeats.
					var at []int32
					for i := to - 1; i >= from; i-- {
						at = append(at, int32(i), int32(from))
					}
					var oneAt, bulkAt ColumnBuilder
					for _, v := range prefix {
						oneAt.AddValue(v)
						bulkAt.AddValue(v)
					}
					for _, i := range at {
						oneAt.AddValue(src.Cell(int(i)))
					}
					bulkAt.AppendAt(src, at)
					if want, got := oneAt.Finish(), bulkAt.Finish(); !proto.Equal(want, got) {
						t.Fatalf("%s after %s, cells %v: AppendAt built %v, one at a time %v", sname, pname, at, got, want)
					}
				}
			}
		}
	}
}

// TestReserveStrBytes: strings up to the reserved bytes land in the room
// made ahead (no new array), and Bytes counts the room from the start.
func TestReserveStrBytes(t *testing.T) {
	var b ColumnBuilder
	b.ReserveStrBytes(100)
	if got := b.Bytes(); got < 100 {
		t.Fatalf("Bytes %d after reserving 100 bytes of strings", got)
	}
	b.AddStr([]byte("0123456789"))
	data := &b.c.StrData[0]
	for range 9 {
		b.AddStr([]byte("0123456789"))
	}
	if &b.c.StrData[0] != data || len(b.c.StrData) != 100 {
		t.Fatalf("100 bytes of strings in a 100-byte reservation moved the array (len %d cap %d)", len(b.c.StrData), cap(b.c.StrData))
	}
	if c := b.Finish(); c.Kind != ColumnKind_COL_STR || string(c.Str(9)) != "0123456789" {
		t.Fatalf("built %v", c)
	}
}
