package partition

import (
	"bytes"
	"math"
	"sort"
	"testing"

	"github.com/novagraph/novagraph/temporal"
)

func TestIndexValueOrder(t *testing.T) {
	cases := []struct {
		typ    PropType
		width  int
		sorted []any // ascending, nil (NULL) first
	}{
		{PropInt64, 8, []any{nil, int64(math.MinInt64), int64(-5), int64(0), int64(7), int64(math.MaxInt64)}},
		{PropDouble, 8, []any{nil, math.Inf(-1), -2.5, -1e-300, 0.0, 1e-300, 3.0, math.Inf(1)}},
		{PropBool, 1, []any{nil, false, true}},
		{PropString, 4, []any{nil, "", "a", "ab", "abc", "b"}},
		{PropDate, 4, []any{nil, temporal.MinDate, temporal.Date(-1), temporal.Date(0), temporal.Date(19724), temporal.MaxDate}},
		{PropTime, 8, []any{nil, temporal.Time(0), temporal.Time(1), temporal.Time(temporal.Day - 1)}},
		{PropDateTime, 8, []any{nil, temporal.MinDateTime, temporal.DateTime(-1), temporal.DateTime(0), temporal.MaxDateTime}},
	}
	for _, c := range cases {
		var enc [][]byte
		for _, v := range c.sorted {
			b, err := AppendIndexValue(nil, c.typ, c.width, v)
			if err != nil {
				t.Fatalf("%s %v: %v", c.typ, v, err)
			}
			if len(b) != 1+c.width {
				t.Fatalf("%s %v: %d bytes, want %d", c.typ, v, len(b), 1+c.width)
			}
			enc = append(enc, b)
		}
		if !sort.SliceIsSorted(enc, func(i, j int) bool { return bytes.Compare(enc[i], enc[j]) < 0 }) {
			t.Errorf("%s: encodings not in value order: %x", c.typ, enc)
		}
		for i := 1; i < len(enc); i++ {
			if bytes.Equal(enc[i-1], enc[i]) {
				t.Errorf("%s: %v and %v encode equal", c.typ, c.sorted[i-1], c.sorted[i])
			}
		}
	}
	// A string longer than the prefix keeps only the prefix.
	a, _ := AppendIndexValue(nil, PropString, 3, "abcdef")
	b, _ := AppendIndexValue(nil, PropString, 3, "abc")
	if !bytes.Equal(a, b) {
		t.Errorf("prefix: %x != %x", a, b)
	}
	for _, bad := range []struct {
		t PropType
		v any
	}{{PropDate, int64(1)}, {PropTime, temporal.DateTime(1)}, {PropDateTime, temporal.Time(1)}, {PropDuration, temporal.Duration{}}} {
		if _, err := AppendIndexValue(nil, bad.t, IndexValueWidth(bad.t, 0, 0), bad.v); err == nil {
			t.Errorf("AppendIndexValue(%s, %#v) succeeded", bad.t, bad.v)
		}
	}
	if _, err := AppendIndexValue(nil, PropInt64, 8, "x"); err == nil {
		t.Error("string accepted for an INT64 index value")
	}
}

func TestIndexKeyTargets(t *testing.T) {
	vals, _ := AppendIndexValue(nil, PropInt64, 8, int64(42))
	vid := EncodeInt64Vid(7)
	k := TagIndexKey(1, 2, 3, vals, vid)
	got, _, _, err := ParseIndexTarget(k, len(vals), 8, false)
	if err != nil || !bytes.Equal(got, vid) {
		t.Fatalf("tag target = %x, %v", got, err)
	}
	dst := EncodeInt64Vid(9)
	k = EdgeIndexKey(1, 2, 3, vals, vid, -4, dst)
	src, rank, d, err := ParseIndexTarget(k, len(vals), 8, true)
	if err != nil || !bytes.Equal(src, vid) || rank != -4 || !bytes.Equal(d, dst) {
		t.Fatalf("edge target = %x %d %x, %v", src, rank, d, err)
	}
	if _, _, _, err := ParseIndexTarget(k[:len(k)-1], len(vals), 8, true); err == nil {
		t.Error("short index key accepted")
	}
}

func TestInEdgeValues(t *testing.T) {
	row := []byte{rowFormatV1, 0, 0}
	v12 := InEdgeVersion{Index: 12, Seq: 3}
	v, r, live, err := DecodeInEdge(EncodeInEdge(v12, row))
	if err != nil || v != v12 || !live || !bytes.Equal(r, row) {
		t.Fatalf("live in-edge: %v %x %v %v", v, r, live, err)
	}
	v13 := InEdgeVersion{Index: 13}
	v, r, live, err = DecodeInEdge(EncodeInEdgeTombstone(v13))
	if err != nil || v != v13 || live || r != nil {
		t.Fatalf("tombstone: %v %x %v %v", v, r, live, err)
	}
	if !v12.Less(v13) || !(InEdgeVersion{12, 2}).Less(v12) || v12.Less(v12) || v13.Less(v12) {
		t.Error("InEdgeVersion.Less does not order by index, then sequence")
	}
	if _, _, _, err := DecodeInEdge([]byte{1, 2}); err == nil {
		t.Error("short in-edge value accepted")
	}
	if r, live, _ := EdgeRow(5, row); !live || !bytes.Equal(r, row) {
		t.Error("out-edge row not returned as is")
	}
}

func TestGraphKeysStayInDataRange(t *testing.T) {
	lo, hi := DataRange(3, 4)
	vid := EncodeInt64Vid(1)
	for name, k := range map[string][]byte{
		"intent":    IntentKey(3, 4, 99, 1),
		"degree":    DegreeKey(3, 4, vid, -2),
		"tombstone": TombstoneKey(3, 4, 100, EdgeKey(3, 4, vid, -2, 0, vid)),
		"index":     TagIndexKey(3, 4, 1, nil, vid),
	} {
		if bytes.Compare(k, lo) < 0 || bytes.Compare(k, hi) >= 0 {
			t.Errorf("%s key %x outside the data range", name, k)
		}
	}
	i1, i2 := IntentKey(3, 4, 9, 2), IntentKey(3, 4, 10, 0)
	if bytes.Compare(i1, i2) >= 0 {
		t.Error("intents not in raft index order")
	}
	idx, seq, err := ParseIntentKey(i1)
	if err != nil || idx != 9 || seq != 2 {
		t.Errorf("ParseIntentKey = %d %d %v", idx, seq, err)
	}
	at, ek, err := ParseTombstoneKey(TombstoneKey(3, 4, -5, []byte("edge")))
	if err != nil || at != -5 || string(ek) != "edge" {
		t.Errorf("ParseTombstoneKey = %d %q %v", at, ek, err)
	}
}
