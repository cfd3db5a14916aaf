package partition

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/novagraph/novagraph/temporal"
)

// Fuzz targets for every decoder. Each checks that malformed input yields an
// error wrapping the package's sentinel (never a panic), and that accepted
// input re-encodes to exactly the same bytes (keys are canonical) or to the
// same values (rows).
//
//	go test ./partition -run='^$' -fuzz=FuzzParseEdgeKey -fuzztime=30s

func FuzzDecodeInt64Vid(f *testing.F) {
	for _, v := range []int64{math.MinInt64, -1, 0, 1, math.MaxInt64} {
		f.Add(EncodeInt64Vid(v))
	}
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeInt64Vid(b)
		if err != nil {
			if len(b) == Int64VidLen || !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("DecodeInt64Vid(%x): unexpected error %v", b, err)
			}
			return
		}
		if !bytes.Equal(EncodeInt64Vid(v), b) {
			t.Fatalf("DecodeInt64Vid(%x) = %d, which encodes to %x", b, v, EncodeInt64Vid(v))
		}
	})
}

func FuzzDecodeStringVid(f *testing.F) {
	f.Add([]byte("ab\x00\x00"))
	f.Add([]byte("\x00"))
	f.Add([]byte("a\x00b"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := DecodeStringVid(b)
		if len(b) == 0 {
			return
		}
		enc, err := EncodeStringVid(s, len(b))
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("DecodeStringVid(%x) = %q, which encodes to %x, %v", b, s, enc, err)
		}
	})
}

func FuzzParseTagKey(f *testing.F) {
	f.Add(TagKey(1, 2, EncodeInt64Vid(3), 4), 8)
	f.Add(TagKey(math.MaxInt32, 1, []byte("abc\x00"), -1), 4)
	f.Add(EdgeKey(1, 2, EncodeInt64Vid(3), 4, 5, EncodeInt64Vid(6)), 8)
	f.Add([]byte{}, 0)
	f.Add([]byte{1}, -1)
	f.Fuzz(func(t *testing.T, key []byte, vidLen int) {
		space, part, vid, tag, err := ParseTagKey(key, vidLen)
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("ParseTagKey(%x, %d): error %v does not wrap ErrMalformedKey", key, vidLen, err)
			}
			return
		}
		if len(vid) != vidLen {
			t.Fatalf("ParseTagKey(%x, %d): %d-byte vid", key, vidLen, len(vid))
		}
		if again := TagKey(space, part, vid, tag); !bytes.Equal(again, key) {
			t.Fatalf("ParseTagKey(%x, %d) re-encodes to %x", key, vidLen, again)
		}
		if !bytes.HasPrefix(key, TagPrefix(space, part, vid)) {
			t.Fatalf("tag key %x does not start with its TagPrefix", key)
		}
	})
}

// FuzzParseEdgeKey also checks the unchecked accessors against it: their
// precondition (vidLen > 0, len(key) == EdgeKeyLen(vidLen), and the kind a
// loop over an EdgePrefix guarantees) holds exactly when ParseEdgeKey
// accepts the key, and then they read the same fields.
func FuzzParseEdgeKey(f *testing.F) {
	f.Add(EdgeKey(1, 2, EncodeInt64Vid(3), 4, 5, EncodeInt64Vid(6)), 8)
	f.Add(EdgeKey(7, 8, []byte("ab"), -4, math.MinInt64, []byte("c\x00")), 2)
	f.Add(EdgeKey(1, 1, EncodeInt64Vid(math.MinInt64), math.MinInt32, math.MaxInt64, EncodeInt64Vid(math.MaxInt64)), 8)
	f.Add(EdgeKey(3, 4, []byte{0xff}, -math.MaxInt32, -1, []byte{0x00}), 1)
	f.Add(TagKey(1, 2, EncodeInt64Vid(3), 4), 8)
	f.Add([]byte{}, 0)
	f.Add(make([]byte, 21), math.MaxInt-9)
	f.Fuzz(func(t *testing.T, key []byte, vidLen int) {
		space, part, src, et, rank, dst, err := ParseEdgeKey(key, vidLen)
		pre := vidLen > 0 && vidLen <= len(key) && len(key) == EdgeKeyLen(vidLen) && key[KeyPrefixLen-1] == KindEdge
		if pre != (err == nil) {
			t.Fatalf("ParseEdgeKey(%x, %d): error %v, but the accessors' precondition is %v", key, vidLen, err, pre)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("ParseEdgeKey(%x, %d): error %v does not wrap ErrMalformedKey", key, vidLen, err)
			}
			return
		}
		if ge, gr, gd := EdgeKeyType(key, vidLen), EdgeKeyRank(key, vidLen), EdgeKeyDst(key, vidLen); ge != et || gr != rank || !bytes.Equal(gd, dst) {
			t.Fatalf("edge key %x, vid length %d: accessors read (%d %d %x), ParseEdgeKey (%d %d %x)", key, vidLen, ge, gr, gd, et, rank, dst)
		}
		if len(src) != vidLen || len(dst) != vidLen {
			t.Fatalf("ParseEdgeKey(%x, %d): vids of %d and %d bytes", key, vidLen, len(src), len(dst))
		}
		if again := EdgeKey(space, part, src, et, rank, dst); !bytes.Equal(again, key) {
			t.Fatalf("ParseEdgeKey(%x, %d) re-encodes to %x", key, vidLen, again)
		}
		if !bytes.HasPrefix(key, EdgePrefix(space, part, src, et)) {
			t.Fatalf("edge key %x does not start with its EdgePrefix", key)
		}
	})
}

func FuzzParseRaftLogKey(f *testing.F) {
	f.Add(RaftLogKey(1, 2, 3))
	f.Add(RaftHardStateKey(1, 2))
	f.Fuzz(func(t *testing.T, key []byte) {
		space, part, index, err := ParseRaftLogKey(key)
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("ParseRaftLogKey(%x): error %v does not wrap ErrMalformedKey", key, err)
			}
			return
		}
		if again := RaftLogKey(space, part, index); !bytes.Equal(again, key) {
			t.Fatalf("ParseRaftLogKey(%x) re-encodes to %x", key, again)
		}
	})
}

func FuzzRowVersion(f *testing.F) {
	for _, v := range []int32{0, 127, 128, math.MaxInt32} {
		row, _ := EncodeRow(&Schema{Version: v}, nil)
		f.Add(row)
	}
	f.Add([]byte{1, 0x80, 0x00})
	f.Add([]byte{2, 0})
	f.Fuzz(func(t *testing.T, row []byte) {
		v, err := RowVersion(row)
		if err != nil {
			if !errors.Is(err, ErrMalformedRow) {
				t.Fatalf("RowVersion(%x): error %v does not wrap ErrMalformedRow", row, err)
			}
			return
		}
		// The header of a zero-column row of version v is exactly the header
		// RowVersion parsed.
		hdr, err := EncodeRow(&Schema{Version: v}, nil)
		if err != nil || !bytes.HasPrefix(row, hdr) {
			t.Fatalf("RowVersion(%x) = %d, whose header %x is not a prefix", row, v, hdr)
		}
	})
}

// fuzzSchemas: three versions of one tag covering every type, nullable and
// not, with columns added, dropped and retyped. Every column of the newest
// version that an older one lacks is nullable or has a default, so any row
// read with it is a valid row of it.
var fuzzSchemas = []*Schema{
	{Version: 0, Columns: []Column{
		{Name: "i", Type: PropInt64},
		{Name: "d", Type: PropDouble, Nullable: true},
		{Name: "b", Type: PropBool},
		{Name: "s", Type: PropString, Nullable: true},
		{Name: "f", Type: PropFixedString, FixedLen: 5},
		{Name: "t", Type: PropTimestamp, Nullable: true},
		{Name: "s2", Type: PropString},
		{Name: "gone", Type: PropBool, Nullable: true},
		{Name: "n9", Type: PropInt64, Nullable: true}, // 9 columns: a second bitmap byte
	}},
	{Version: 1, Columns: []Column{
		{Name: "i", Type: PropInt64},
		{Name: "s", Type: PropString, Nullable: true},
	}},
	{Version: 200, Columns: []Column{ // two-byte varint version
		{Name: "s2", Type: PropString, Default: ""},
		{Name: "i", Type: PropDouble},
		{Name: "f", Type: PropString, Nullable: true},
		{Name: "t", Type: PropInt64, Nullable: true},
		{Name: "s", Type: PropFixedString, FixedLen: 3, Nullable: true},
		{Name: "new", Type: PropString, Default: "x"},
		{Name: "new2", Type: PropBool, Nullable: true},
	}},
}

func FuzzRowReader(f *testing.F) {
	src := sources(fuzzSchemas...)
	for _, vals := range [][]any{
		{int64(1), 2.5, true, "héllo", "abc", int64(-5), "", nil, nil},
		{int64(math.MinInt64), math.NaN(), false, nil, "", nil, "xyzzy", true, int64(math.MaxInt64)},
	} {
		row, err := EncodeRow(fuzzSchemas[0], vals)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(row)
	}
	row, _ := EncodeRow(fuzzSchemas[1], []any{int64(7), "ab"})
	f.Add(row)
	row, _ = EncodeRow(fuzzSchemas[2], []any{"a", 1.0, "f", nil, "s", "n", false})
	f.Add(row)
	f.Add([]byte{1, 5})
	f.Fuzz(func(t *testing.T, row []byte) {
		readAll(t, row, src)
		// Reading with the newest schema never panics, and what it returns
		// is a valid row of that schema.
		newest := fuzzSchemas[len(fuzzSchemas)-1]
		vals, err := ReadWithSchema(row, src, newest)
		if err != nil {
			if !errors.Is(err, ErrMalformedRow) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("ReadWithSchema(%x): unexpected error %v", row, err)
			}
			return
		}
		if _, err := EncodeRow(newest, vals); err != nil {
			t.Fatalf("ReadWithSchema(%x) = %#v, which does not encode: %v", row, vals, err)
		}
	})
}

// temporalSchemas: versions of a tag with the calendar types, one retyped.
var temporalSchemas = []*Schema{
	{Version: 0, Columns: []Column{
		{Name: "d", Type: PropDate},
		{Name: "t", Type: PropTime, Nullable: true},
		{Name: "dt", Type: PropDateTime},
		{Name: "du", Type: PropDuration, Nullable: true},
		{Name: "s", Type: PropString, Nullable: true},
	}},
	{Version: 1, Columns: []Column{
		{Name: "dt", Type: PropDateTime},
		{Name: "d", Type: PropDateTime, Nullable: true}, // retyped: DATE rows fail to read
		{Name: "du", Type: PropDuration, Nullable: true},
		{Name: "new", Type: PropDate, Default: temporal.Date(0)},
	}},
}

// FuzzRowReaderTemporal is FuzzRowReader for rows with calendar columns:
// decoding never panics, corrupt slots are ErrMalformedRow, and what reads
// encodes again.
func FuzzRowReaderTemporal(f *testing.F) {
	src := sources(temporalSchemas...)
	for _, vals := range [][]any{
		{temporal.Date(19724), temporal.Time(1), temporal.DateTime(-1), temporal.Duration{Months: 1, Micros: -1}, "x"},
		{temporal.MinDate, nil, temporal.MaxDateTime, nil, nil},
	} {
		row, err := EncodeRow(temporalSchemas[0], vals)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(row)
	}
	row, _ := EncodeRow(temporalSchemas[1], []any{temporal.DateTime(5), nil, temporal.Duration{}, temporal.MaxDate})
	f.Add(row)
	f.Fuzz(func(t *testing.T, row []byte) {
		readAll(t, row, src)
		newest := temporalSchemas[len(temporalSchemas)-1]
		vals, err := ReadWithSchema(row, src, newest)
		if err != nil {
			if !errors.Is(err, ErrMalformedRow) && !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("ReadWithSchema(%x): unexpected error %v", row, err)
			}
			return
		}
		if _, err := EncodeRow(newest, vals); err != nil {
			t.Fatalf("ReadWithSchema(%x) = %#v, which does not encode: %v", row, vals, err)
		}
	})
}

func FuzzDecodeInEdge(f *testing.F) {
	f.Add(EncodeInEdge(InEdgeVersion{Index: 7, Seq: 1}, []byte{rowFormatV1, 0}))
	f.Add(EncodeInEdgeTombstone(InEdgeVersion{Index: 9}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, row, live, err := DecodeInEdge(b)
		if err != nil {
			if len(b) >= 13 || !errors.Is(err, ErrMalformedRow) {
				t.Fatalf("DecodeInEdge(%x): unexpected error %v", b, err)
			}
			return
		}
		var enc []byte
		if live {
			enc = EncodeInEdge(v, row)
		} else {
			enc = EncodeInEdgeTombstone(v)
			if len(b) != 13 {
				return // a tombstone byte followed by junk decodes as a tombstone
			}
		}
		if !bytes.Equal(enc, b) {
			t.Fatalf("DecodeInEdge(%x) re-encodes to %x", b, enc)
		}
	})
}

func FuzzParseIntentKey(f *testing.F) {
	f.Add(IntentKey(1, 2, 3, 4))
	f.Add([]byte{0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, key []byte) {
		idx, seq, err := ParseIntentKey(key)
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("ParseIntentKey(%x): unexpected error %v", key, err)
			}
			return
		}
		space, part := parsePrefix(key)
		if !bytes.Equal(IntentKey(space, part, idx, seq), key) {
			t.Fatalf("ParseIntentKey(%x) = %d %d, which does not re-encode", key, idx, seq)
		}
	})
}

func FuzzParseTombstoneKey(f *testing.F) {
	f.Add(TombstoneKey(1, 2, 3, EdgeKey(1, 2, EncodeInt64Vid(3), -4, 5, EncodeInt64Vid(6))))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, key []byte) {
		at, edge, err := ParseTombstoneKey(key)
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("ParseTombstoneKey(%x): unexpected error %v", key, err)
			}
			return
		}
		space, part := parsePrefix(key)
		if !bytes.Equal(TombstoneKey(space, part, at, edge), key) {
			t.Fatalf("ParseTombstoneKey(%x) does not re-encode", key)
		}
	})
}

func FuzzParseIndexTarget(f *testing.F) {
	vals, _ := AppendIndexValue(nil, PropInt64, 8, int64(5))
	f.Add(TagIndexKey(1, 2, 3, vals, EncodeInt64Vid(4)), len(vals), 8, false)
	f.Add(EdgeIndexKey(1, 2, 3, vals, EncodeInt64Vid(4), 6, EncodeInt64Vid(7)), len(vals), 8, true)
	f.Add([]byte{1}, -3, 0, true)
	f.Fuzz(func(t *testing.T, key []byte, valuesLen, vidLen int, isEdge bool) {
		if valuesLen < 0 || vidLen <= 0 || valuesLen > 1<<16 || vidLen > 1<<16 {
			return // callers pass lengths from a schema
		}
		src, rank, dst, err := ParseIndexTarget(key, valuesLen, vidLen, isEdge)
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("ParseIndexTarget(%x): unexpected error %v", key, err)
			}
			return
		}
		space, part := parsePrefix(key)
		id := int32(binary.BigEndian.Uint32(key[KeyPrefixLen:]))
		values := key[KeyPrefixLen+4 : KeyPrefixLen+4+valuesLen]
		var enc []byte
		if isEdge {
			enc = EdgeIndexKey(space, part, id, values, src, rank, dst)
		} else {
			enc = TagIndexKey(space, part, id, values, src)
		}
		if !bytes.Equal(enc, key) {
			t.Fatalf("ParseIndexTarget(%x) does not re-encode: %x", key, enc)
		}
	})
}
