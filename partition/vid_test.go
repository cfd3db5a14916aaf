package partition

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/quick"
)

func TestEncodeInt64Vid(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		want string
	}{
		{math.MinInt64, "0000000000000000"},
		{-1, "7fffffffffffffff"},
		{0, "8000000000000000"},
		{1, "8000000000000001"},
		{math.MaxInt64, "ffffffffffffffff"},
	} {
		got := EncodeInt64Vid(tc.v)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("EncodeInt64Vid(%d) = %x, want %s", tc.v, got, tc.want)
		}
		back, err := DecodeInt64Vid(got)
		if err != nil || back != tc.v {
			t.Errorf("DecodeInt64Vid(%x) = %d, %v; want %d", got, back, err, tc.v)
		}
	}
}

func TestInt64VidOrder(t *testing.T) {
	prop := func(a, b int64) bool {
		return bytes.Compare(EncodeInt64Vid(a), EncodeInt64Vid(b)) == cmp.Compare(a, b)
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 10000}); err != nil {
		t.Error(err)
	}
	// quick rarely draws the boundaries; check them against their neighbours.
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}
	for _, a := range edges {
		for _, b := range edges {
			if !prop(a, b) {
				t.Errorf("order of %d and %d not preserved", a, b)
			}
		}
	}
}

func TestDecodeInt64VidErrors(t *testing.T) {
	for _, b := range [][]byte{nil, {}, make([]byte, 7), make([]byte, 9)} {
		if _, err := DecodeInt64Vid(b); !errors.Is(err, ErrMalformedKey) {
			t.Errorf("DecodeInt64Vid(%x) error = %v, want ErrMalformedKey", b, err)
		}
	}
}

func TestStringVid(t *testing.T) {
	for _, tc := range []struct {
		s       string
		n       int
		want    string // hex; empty when an error is expected
		wantErr string
	}{
		{s: "", n: 3, want: "000000"},
		{s: "ab", n: 4, want: "61620000"},
		{s: "abcd", n: 4, want: "61626364"},
		{s: "é", n: 3, want: "c3a900"},
		{s: "a\x00b", n: 4, want: "61006200"}, // inner 0x00 is fine
		{s: "abcde", n: 4, wantErr: "longer than the space's FIXED_STRING(4)"},
		{s: "ab\x00", n: 4, wantErr: "ends in a 0x00 byte"},
		{s: "a", n: 0, wantErr: "want > 0"},
	} {
		got, err := EncodeStringVid(tc.s, tc.n)
		if tc.wantErr != "" {
			if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "vid ") {
				t.Errorf("EncodeStringVid(%q, %d) error = %v, want one containing %q", tc.s, tc.n, err, tc.wantErr)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != tc.want {
			t.Errorf("EncodeStringVid(%q, %d) = %x, %v; want %s", tc.s, tc.n, got, err, tc.want)
			continue
		}
		if back := DecodeStringVid(got); back != tc.s {
			t.Errorf("DecodeStringVid(%x) = %q, want %q", got, back, tc.s)
		}
	}
}

// stringVid turns arbitrary input into a valid FIXED_STRING(n) vid.
func stringVid(s string, n int) string {
	return strings.TrimRight(s[:min(len(s), n)], "\x00")
}

func TestStringVidOrder(t *testing.T) {
	const n = 6
	prop := func(a, b string) bool {
		a, b = stringVid(a, n), stringVid(b, n)
		ea, err1 := EncodeStringVid(a, n)
		eb, err2 := EncodeStringVid(b, n)
		return err1 == nil && err2 == nil && bytes.Compare(ea, eb) == strings.Compare(a, b) &&
			DecodeStringVid(ea) == a
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 5000}); err != nil {
		t.Error(err)
	}
	if !prop("a", "a\x00b") || !prop("", "\x01") {
		t.Error("order of padded prefixes not preserved")
	}
}

// TestPartOfGolden pins vid → partition: it is part of the on-disk format, and
// changing it would move existing vertices to other partitions.
func TestPartOfGolden(t *testing.T) {
	for _, tc := range []struct {
		vid   int64
		parts int32
		want  int32
	}{
		{0, 1, 1}, {0, 10, 1}, {9, 10, 10}, {10, 10, 1}, {-1, 10, 6}, {math.MinInt64, 3, 3}, {math.MaxInt64, 100, 8},
	} {
		if got := PartOfInt64(tc.vid, tc.parts); got != tc.want {
			t.Errorf("PartOfInt64(%d, %d) = %d, want %d", tc.vid, tc.parts, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s     string
		parts int32
		want  int32
	}{
		// xxhash64("") = 0xef46db3751d8e999, the reference value.
		{"", 10, 2}, {"", 100, 22}, {"a", 10, 6}, {"alice", 100, 90}, {"vertex-0001", 100, 62}, {"中文", 10, 8},
	} {
		if got := PartOfString(tc.s, tc.parts); got != tc.want {
			t.Errorf("PartOfString(%q, %d) = %d, want %d", tc.s, tc.parts, got, tc.want)
		}
	}
}

func TestPartOf(t *testing.T) {
	intProp := func(v int64, p uint16) bool {
		parts := int32(p) + 1
		got := PartOf(EncodeInt64Vid(v), VidInt64, parts)
		return got == PartOfInt64(v, parts) && got >= 1 && got <= parts
	}
	strProp := func(s string, p uint16) bool {
		parts := int32(p) + 1
		s = stringVid(s, 32)
		enc, err := EncodeStringVid(s, 32)
		got := PartOf(enc, VidFixedString, parts)
		return err == nil && got == PartOfString(s, parts) && got >= 1 && got <= parts
	}
	for _, prop := range []any{intProp, strProp} {
		if err := quick.Check(prop, nil); err != nil {
			t.Error(err)
		}
	}
	if got := PartOf([]byte{1, 2, 3}, VidInt64, 10); got != 0 {
		t.Errorf("PartOf(3-byte int64 vid) = %d, want 0", got)
	}
	if got := PartOf(EncodeInt64Vid(1), VidType(9), 10); got != 0 {
		t.Errorf("PartOf(unknown vid type) = %d, want 0", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("PartOfInt64 with 0 partitions did not panic")
		}
	}()
	PartOfInt64(1, 0)
}
