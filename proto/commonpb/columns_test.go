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
