package partition

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/temporal"
)

// valueEqual compares codec values, floats by their bits so that NaN equals
// NaN and -0 differs from +0: the codec must preserve both exactly.
func valueEqual(a, b any) bool {
	fa, okA := a.(float64)
	fb, okB := b.(float64)
	if okA || okB {
		return okA && okB && math.Float64bits(fa) == math.Float64bits(fb)
	}
	return a == b
}

func valuesEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !valueEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sources turns schema versions into a SchemaSource.
func sources(schemas ...*Schema) SchemaSource {
	return func(v int32) (*Schema, bool) {
		for _, s := range schemas {
			if s.Version == v {
				return s, true
			}
		}
		return nil, false
	}
}

var allTypes = []PropType{PropInt64, PropDouble, PropBool, PropString, PropFixedString, PropTimestamp,
	PropDate, PropTime, PropDateTime, PropDuration}

func randSchema(rng *rand.Rand) *Schema {
	s := &Schema{Version: []int32{0, 1, 127, 128, math.MaxInt32}[rng.Intn(5)]}
	n := rng.Intn(20) // 0 columns, and counts around multiples of 8, included
	for i := 0; i < n; i++ {
		c := Column{Name: fmt.Sprintf("c%d", i), Type: allTypes[rng.Intn(len(allTypes))], Nullable: rng.Intn(2) == 0}
		if c.Type == PropFixedString {
			c.FixedLen = []int{1, 3, 16, 200}[rng.Intn(4)]
		}
		s.Columns = append(s.Columns, c)
	}
	return s
}

func randString(rng *rand.Rand, maxLen int) string {
	switch rng.Intn(5) {
	case 0:
		return ""
	case 1:
		s := "héllo wörld ☃ 日本 \U0001F600"
		return s[:min(len(s), maxLen)] // may split a rune: invalid UTF-8 is stored as is
	}
	b := make([]byte, rng.Intn(maxLen+1))
	rng.Read(b)
	return string(b)
}

// randValue returns a random value for c, and the value a reader must return.
func randValue(rng *rand.Rand, c *Column) (in, want any) {
	if c.Nullable && rng.Intn(4) == 0 {
		return nil, nil
	}
	switch c.Type {
	case PropInt64, PropTimestamp:
		v := randInt64(rng)
		return v, v
	case PropDouble:
		if rng.Intn(5) == 0 {
			v := randInt64(rng)
			return v, float64(v)
		}
		specials := []float64{math.NaN(), math.Float64frombits(0x7ff8dead00000001), math.Copysign(0, -1), 0,
			math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.SmallestNonzeroFloat64}
		if rng.Intn(2) == 0 {
			v := specials[rng.Intn(len(specials))]
			return v, v
		}
		v := rng.NormFloat64() * 1e12
		return v, v
	case PropBool:
		v := rng.Intn(2) == 0
		return v, v
	case PropString:
		v := randString(rng, 300)
		return v, v
	case PropFixedString:
		v := strings.TrimRight(randString(rng, c.FixedLen), "\x00")
		return v, v
	case PropDate:
		v := temporal.Date(int64(temporal.MinDate) + rng.Int63n(int64(temporal.MaxDate-temporal.MinDate)+1))
		return v, v
	case PropTime:
		v := temporal.Time(rng.Int63n(temporal.Day))
		return v, v
	case PropDateTime:
		v := temporal.DateTime(int64(temporal.MinDateTime) + rng.Int63n(int64(temporal.MaxDateTime-temporal.MinDateTime)+1))
		return v, v
	case PropDuration:
		v := temporal.Duration{Months: int32(rng.Uint32()), Micros: randInt64(rng)}
		return v, v
	}
	panic("unknown type")
}

func TestRowRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for iter := 0; iter < 3000; iter++ {
		s := randSchema(rng)
		in := make([]any, len(s.Columns))
		want := make([]any, len(s.Columns))
		for i := range s.Columns {
			in[i], want[i] = randValue(rng, &s.Columns[i])
		}
		row, err := EncodeRow(s, in)
		if err != nil {
			t.Fatalf("EncodeRow(%+v, %v): %v", s, in, err)
		}
		if v, err := RowVersion(row); err != nil || v != s.Version {
			t.Fatalf("RowVersion = %d, %v; want %d", v, err, s.Version)
		}
		r, err := NewRowReader(row, sources(s))
		if err != nil {
			t.Fatalf("NewRowReader: %v", err)
		}
		if r.Schema() != s {
			t.Fatalf("reader schema is not the row's schema")
		}
		// Read columns in random order: each read is independent of the others.
		for _, i := range rng.Perm(len(s.Columns)) {
			got, ok, err := r.Get(s.Columns[i].Name)
			if err != nil || !ok || !valueEqual(got, want[i]) {
				t.Fatalf("Get(%q) of %s = %#v, %v, %v; want %#v", s.Columns[i].Name, s.Columns[i].Type, got, ok, err, want[i])
			}
		}
		for i := range s.Columns {
			checkScalar(t, r, i, want[i])
		}
		if got, ok, err := r.Get("absent"); got != nil || ok || err != nil {
			t.Fatalf("Get(absent) = %v, %v, %v", got, ok, err)
		}
		all, err := ReadWithSchema(row, sources(s), nil)
		if err != nil || !valuesEqual(all, want) {
			t.Fatalf("ReadWithSchema = %#v, %v; want %#v", all, err, want)
		}
		// Encoding is deterministic: what was read encodes to the same bytes.
		again, err := EncodeRow(s, all)
		if err != nil || string(again) != string(row) {
			t.Fatalf("re-encoding %#v gave %x, %v; want %x", all, again, err, row)
		}
	}
}

// checkScalar checks that Scalar reads column i of r as GetIndex does
// (want), or declines a type it does not read.
func checkScalar(t *testing.T, r *RowReader, i int, want any) {
	t.Helper()
	c := r.Schema().Columns[i]
	s, ok, err := r.Scalar(i)
	if err != nil {
		t.Fatalf("Scalar(%d) of %s: %v", i, c.Type, err)
	}
	switch c.Type {
	case PropInt64, PropTimestamp, PropDouble, PropBool, PropString, PropFixedString:
	default:
		if ok {
			t.Fatalf("Scalar(%d) of %s = %+v, want it declined", i, c.Type, s)
		}
		return
	}
	var got any
	switch {
	case !ok:
		t.Fatalf("Scalar(%d) of %s declined", i, c.Type)
	case s.Null:
		got = nil
	case c.Type == PropDouble:
		got = s.F
	case c.Type == PropBool:
		got = s.I == 1
	case c.Type == PropString || c.Type == PropFixedString:
		got = string(s.Bytes)
	default:
		got = s.I
	}
	if s.Type != c.Type || !valueEqual(got, want) {
		t.Fatalf("Scalar(%d) of %s = %+v (%#v); want %#v", i, c.Type, s, got, want)
	}
}

// TestRowLayout pins the exact bytes of a row: the format documented in row.go.
func TestRowLayout(t *testing.T) {
	s := &Schema{Version: 300, Columns: []Column{
		{Name: "id", Type: PropInt64},
		{Name: "name", Type: PropString, Nullable: true},
		{Name: "ok", Type: PropBool},
		{Name: "code", Type: PropFixedString, FixedLen: 3},
		{Name: "score", Type: PropDouble, Nullable: true},
		{Name: "bio", Type: PropString},
	}}
	row, err := EncodeRow(s, []any{int64(-2), nil, true, "ab", 1.5, "xyz"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"01",               // row format version
		"ac02",             // schema version 300, uvarint
		"02",               // null bitmap: column 1 (name) is NULL
		"feffffffffffffff", // id = -2, int64 LE
		"0000000000000000", // name: NULL, zero slot
		"01",               // ok = true
		"616200",           // code = "ab", padded to 3
		"000000000000f83f", // score = 1.5, float64 bits LE
		"0000000003000000", // bio: offset 0, length 3 (LE)
		"78797a",           // variable-length section: "xyz"
	}, "")
	if got := hex.EncodeToString(row); got != want {
		t.Errorf("row = %s\nwant  %s", got, want)
	}
}

// TestRowLayoutTemporal pins the bytes of the calendar types' slots.
func TestRowLayoutTemporal(t *testing.T) {
	s := &Schema{Version: 1, Columns: []Column{
		{Name: "d", Type: PropDate},
		{Name: "t", Type: PropTime},
		{Name: "dt", Type: PropDateTime, Nullable: true},
		{Name: "du", Type: PropDuration},
		{Name: "n", Type: PropDate, Nullable: true},
	}}
	d, _ := temporal.NewDate(1969, 12, 31)
	tm, _ := temporal.NewTime(0, 0, 1, 2)
	row, err := EncodeRow(s, []any{d, tm, temporal.DateTime(-1), temporal.Duration{Months: -1, Micros: 256}, nil})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"01",               // row format version
		"01",               // schema version 1
		"10",               // null bitmap: column 4 (n) is NULL
		"ffffffff",         // d = day -1, int32 LE
		"42420f0000000000", // t = 1.000002 s = 1000002 us, int64 LE
		"ffffffffffffffff", // dt = -1 us, int64 LE
		"ffffffff",         // du months = -1, int32 LE
		"0001000000000000", // du micros = 256, int64 LE
		"00000000",         // n: NULL, zero slot
	}, "")
	if got := hex.EncodeToString(row); got != want {
		t.Errorf("row = %s\nwant  %s", got, want)
	}
	got, err := ReadWithSchema(row, sources(s), nil)
	if err != nil || !valuesEqual(got, []any{d, tm, temporal.DateTime(-1), temporal.Duration{Months: -1, Micros: 256}, nil}) {
		t.Errorf("ReadWithSchema = %#v, %v", got, err)
	}
	// Corrupt slots: a date, time or datetime out of range.
	for _, c := range []struct {
		off   int
		bytes string
		want  string
	}{
		{3, "ffffff7f", `column "d": DATE 2147483647 days is out of range`},
		{7, "0060d71d14000000", `column "t": TIME 86400000000 microseconds is out of range`},
		{7, "ffffffffffffffff", `column "t": TIME -1 microseconds is out of range`},
		{15, "ffffffffffffff7f", `column "dt": DATETIME 9223372036854775807 microseconds is out of range`},
	} {
		bad := append([]byte(nil), row...)
		b, _ := hex.DecodeString(c.bytes)
		copy(bad[c.off:], b)
		if _, err := ReadWithSchema(bad, sources(s), nil); !errors.Is(err, ErrMalformedRow) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("corrupt %s: %v, want ErrMalformedRow containing %q", c.bytes, err, c.want)
		}
	}
}

// TestTemporalSchemaEvolution: rows written before a calendar column was
// added read with its default; a calendar column retyped is an error.
func TestTemporalSchemaEvolution(t *testing.T) {
	v0 := &Schema{Version: 0, Columns: []Column{{Name: "a", Type: PropInt64}, {Name: "d", Type: PropDate}}}
	day, _ := temporal.NewDate(2024, 1, 2)
	v1 := &Schema{Version: 1, Columns: []Column{
		{Name: "a", Type: PropInt64},
		{Name: "d", Type: PropDate},
		{Name: "at", Type: PropDateTime, Default: temporal.NewDateTime(day, 0)},
		{Name: "du", Type: PropDuration, Nullable: true},
	}}
	if err := v1.Validate(); err != nil {
		t.Fatal(err)
	}
	row, err := EncodeRow(v0, []any{int64(7), day})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadWithSchema(row, sources(v0, v1), v1)
	if err != nil || !valuesEqual(got, []any{int64(7), day, temporal.NewDateTime(day, 0), nil}) {
		t.Errorf("ReadWithSchema = %#v, %v", got, err)
	}
	v2 := &Schema{Version: 2, Columns: []Column{{Name: "d", Type: PropDateTime}}}
	if _, err := ReadWithSchema(row, sources(v0, v2), v2); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("DATE read as DATETIME: %v, want ErrInvalidValue", err)
	}
}

func TestEncodeRowErrors(t *testing.T) {
	s := &Schema{Version: 1, Columns: []Column{
		{Name: "age", Type: PropInt64},
		{Name: "score", Type: PropDouble, Nullable: true},
		{Name: "code", Type: PropFixedString, FixedLen: 2, Nullable: true},
		{Name: "at", Type: PropTimestamp, Nullable: true},
	}}
	// Declared int8 and float: stored as INT64 and DOUBLE, range-checked.
	narrow := &Schema{Version: 1, Columns: []Column{
		{Name: "small", Type: PropInt64, IntBits: 8},
		{Name: "f", Type: PropDouble, Float32: true, Nullable: true},
	}}
	for _, tc := range []struct {
		name   string
		s      *Schema
		values []any
		want   string
	}{
		{"NULL in non-nullable", s, []any{nil, nil, nil, nil}, `column "age" is not nullable, got NULL`},
		{"string for int64", s, []any{"7", nil, nil, nil}, `column "age": expected INT64, got string`},
		{"Go int for int64", s, []any{7, nil, nil, nil}, `column "age": expected INT64, got int`},
		{"float for int64", s, []any{1.0, nil, nil, nil}, `column "age": expected INT64, got float64`},
		{"bool for double", s, []any{int64(1), true, nil, nil}, `column "score": expected DOUBLE, got bool`},
		{"float32 for double", s, []any{int64(1), float32(1), nil, nil}, `column "score": expected DOUBLE, got float32`},
		{"int8 out of range", narrow, []any{int64(128), nil}, `column "small" is int8, got 128, out of its range [-128, 127]`},
		{"float out of range", narrow, []any{int64(1), 1e300}, `column "f" is float, got 1e+300, beyond its range`},
		{"fixed string too long", s, []any{int64(1), nil, "abc", nil}, `column "code" is FIXED_STRING(2), got a 3-byte string`},
		{"fixed string trailing NUL", s, []any{int64(1), nil, "a\x00", nil}, `column "code" is FIXED_STRING(2), got a string ending in 0x00`},
		{"bytes for fixed string", s, []any{int64(1), nil, []byte("a"), nil}, `column "code": expected FIXED_STRING, got []uint8`},
		{"float for timestamp", s, []any{int64(1), nil, nil, 1.0}, `column "at": expected TIMESTAMP, got float64`},
		{"too few values", s, []any{int64(1)}, "schema version 1 has 4 columns, got 1 values"},
		{"int for date", &Schema{Columns: []Column{{Name: "d", Type: PropDate}}}, []any{int64(1)}, `column "d": expected DATE, got int64`},
		{"datetime for date", &Schema{Columns: []Column{{Name: "d", Type: PropDate}}}, []any{temporal.DateTime(1)}, `column "d": expected DATE, got temporal.DateTime`},
		{"date out of range", &Schema{Columns: []Column{{Name: "d", Type: PropDate}}}, []any{temporal.MaxDate + 1}, `column "d": DATE 11248738 days is out of range`},
		{"time out of range", &Schema{Columns: []Column{{Name: "t", Type: PropTime}}}, []any{temporal.Time(temporal.Day)}, `column "t": TIME 86400000000 microseconds is out of range`},
		{"datetime out of range", &Schema{Columns: []Column{{Name: "t", Type: PropDateTime}}}, []any{temporal.MinDateTime - 1}, `column "t": DATETIME`},
		{"time for datetime", &Schema{Columns: []Column{{Name: "t", Type: PropDateTime}}}, []any{temporal.Time(1)}, `column "t": expected DATETIME, got temporal.Time`},
		{"int for duration", &Schema{Columns: []Column{{Name: "du", Type: PropDuration}}}, []any{int64(1)}, `column "du": expected DURATION, got int64`},
		{"nil schema", nil, nil, "nil schema"},
		{"negative version", &Schema{Version: -1}, nil, "schema version -1 is negative"},
		{"unknown type", &Schema{Columns: []Column{{Name: "x", Type: 99}}}, []any{nil}, `column "x" has unknown type PropType(99)`},
		{"fixed len 0", &Schema{Columns: []Column{{Name: "x", Type: PropFixedString}}}, []any{"a"}, `column "x" is FIXED_STRING(0)`},
		{"fixed len too big", &Schema{Columns: []Column{{Name: "x", Type: PropFixedString, FixedLen: 1 << 16}}}, []any{"a"}, "FIXED_STRING(65536)"},
	} {
		_, err := EncodeRow(tc.s, tc.values)
		if !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want ErrInvalidValue containing %q", tc.name, err, tc.want)
		}
	}
}

func TestSchemaValidate(t *testing.T) {
	ok := &Schema{Columns: []Column{{Name: "a", Type: PropDouble, Default: int64(1)}, {Name: "b", Type: PropString}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(valid schema) = %v", err)
	}
	for _, tc := range []struct {
		s    *Schema
		want string
	}{
		{&Schema{Columns: []Column{{Name: "", Type: PropBool}}}, "column 0 has an empty name"},
		{&Schema{Columns: []Column{{Name: "a", Type: PropBool}, {Name: "a", Type: PropInt64}}}, `column "a" appears twice`},
		{&Schema{Columns: []Column{{Name: "a", Type: PropBool, Default: "yes"}}}, `default: column "a": expected BOOL, got string`},
		{&Schema{Columns: []Column{{Name: "a", Type: 0}}}, "unknown type"},
	} {
		if err := tc.s.Validate(); !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want error containing %q", tc.s, err, tc.want)
		}
	}
}

// TestSchemaEvolution reads rows written before ALTERs with the newest schema.
func TestSchemaEvolution(t *testing.T) {
	v0 := &Schema{Version: 0, Columns: []Column{
		{Name: "name", Type: PropString},
		{Name: "age", Type: PropInt64, Nullable: true},
		{Name: "legacy", Type: PropBool},
		{Name: "born", Type: PropInt64},
		{Name: "tag", Type: PropString},
	}}
	// v1: drop legacy; age becomes DOUBLE; born becomes TIMESTAMP; tag becomes
	// FIXED_STRING(4); add city (default) and email (no default) and rank
	// (not nullable, no default: still NULL for old rows).
	v1 := &Schema{Version: 1, Columns: []Column{
		{Name: "email", Type: PropString, Nullable: true},
		{Name: "age", Type: PropDouble, Nullable: true},
		{Name: "name", Type: PropString},
		{Name: "city", Type: PropString, Default: "unknown"},
		{Name: "score", Type: PropDouble, Default: int64(3)},
		{Name: "born", Type: PropTimestamp},
		{Name: "tag", Type: PropFixedString, FixedLen: 4},
		{Name: "rank", Type: PropInt64},
	}}
	src := sources(v0, v1)

	old, err := EncodeRow(v0, []any{"ann", int64(41), true, int64(-86400), "vip"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadWithSchema(old, src, v1)
	want := []any{nil, 41.0, "ann", "unknown", 3.0, int64(-86400), "vip", nil}
	if err != nil || !valuesEqual(got, want) {
		t.Errorf("v0 row read as v1 = %#v, %v\nwant %#v", got, err, want)
	}
	// A NULL stays NULL across a type change.
	old2, _ := EncodeRow(v0, []any{"bob", nil, false, int64(0), ""})
	if got, err := ReadWithSchema(old2, src, v1); err != nil || got[1] != nil {
		t.Errorf("NULL age read as v1 = %#v, %v", got, err)
	}
	// The reader of an old row exposes the old schema.
	r, err := NewRowReader(old, src)
	if err != nil || r.Schema() != v0 {
		t.Fatalf("NewRowReader(v0 row) schema = %v, %v", r, err)
	}
	if _, ok, _ := r.Get("city"); ok {
		t.Error("Get(city) on a v0 row reports the column exists")
	}
	// New rows are read with their own version.
	cur, err := EncodeRow(v1, []any{"e@x", 1.5, "cy", "paris", 2.0, int64(5), "ab", int64(9)})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadWithSchema(cur, src, v1); err != nil || got[3] != "paris" || got[7] != int64(9) {
		t.Errorf("v1 row read as v1 = %#v, %v", got, err)
	}
	// Conversions that cannot hold the value fail with context.
	v2 := &Schema{Version: 2, Columns: []Column{{Name: "tag", Type: PropFixedString, FixedLen: 2}}}
	if _, err := ReadWithSchema(old, sources(v0, v2), v2); !errors.Is(err, ErrInvalidValue) ||
		!strings.Contains(err.Error(), `reading row of schema version 0 (column "tag" is STRING) with schema version 2`) {
		t.Errorf("STRING \"vip\" read as FIXED_STRING(2): error = %v", err)
	}
	v3 := &Schema{Version: 3, Columns: []Column{{Name: "legacy", Type: PropInt64}}}
	if _, err := ReadWithSchema(old, sources(v0, v3), v3); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("BOOL read as INT64: error = %v", err)
	}
	v4 := &Schema{Version: 4, Columns: []Column{{Name: "x", Type: PropBool, Default: "no"}}}
	if _, err := ReadWithSchema(old, sources(v0, v4), v4); !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), "default of schema version 4") {
		t.Errorf("bad default: error = %v", err)
	}
}

func TestRowReaderErrors(t *testing.T) {
	s := &Schema{Version: 1, Columns: []Column{
		{Name: "b", Type: PropBool},
		{Name: "s", Type: PropString},
		{Name: "n", Type: PropInt64, Nullable: true},
	}}
	row, err := EncodeRow(s, []any{true, "hello", nil})
	if err != nil {
		t.Fatal(err)
	}
	// row: 01 01 | 04 | 01 | off(4) len(4) | 8 zero bytes | "hello" (20 bytes before the var section)
	const bitmap, boolAt, strAt = 2, 3, 4
	patch := func(at int, b ...byte) []byte {
		r := append([]byte(nil), row...)
		copy(r[at:], b)
		return r
	}
	for _, tc := range []struct {
		name string
		row  []byte
		col  string // "": NewRowReader fails; else Get(col) fails
		want string
	}{
		{"empty", nil, "", "empty row"},
		{"format version 2", patch(0, 2), "", "row format version 2, want 1"},
		{"truncated varint", []byte{1, 0x80}, "", "truncated or overflowing schema version"},
		{"non-minimal varint", []byte{1, 0x81, 0x00}, "", "not minimally encoded"},
		{"version beyond int32", []byte{1, 0x80, 0x80, 0x80, 0x80, 0x08}, "", "exceeds int32"},
		{"unknown version", patch(1, 9), "", "schema version 9, which the schema source does not know"},
		{"short fixed section", row[:10], "", "is 10 bytes, its header, null bitmap and fixed-width section need 20"},
		{"bitmap padding bits", patch(bitmap, 0x0c), "", "bits set past column 3"},
		{"NULL non-nullable", patch(bitmap, 0x05), "b", `column "b" is not nullable but marked NULL`},
		{"bool byte 2", patch(boolAt, 2), "b", "bool byte 0x02"},
		{"string past end", patch(strAt, 1), "s", "string [1, 6) exceeds the 5-byte variable-length section"},
		{"string offset overflow", patch(strAt, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "s", "exceeds"},
		{"string truncated", row[:len(row)-1], "s", "exceeds the 4-byte"},
	} {
		r, err := NewRowReader(tc.row, sources(s))
		sameAsLayout(t, tc.row, sources(s), r, err)
		if tc.col != "" {
			if err != nil {
				t.Errorf("%s: NewRowReader: %v", tc.name, err)
				continue
			}
			_, _, err = r.Get(tc.col)
			if _, _, serr := r.Scalar(r.Schema().Index(tc.col)); !errors.Is(serr, ErrMalformedRow) {
				t.Errorf("%s: Scalar error = %v, want ErrMalformedRow as Get's", tc.name, serr)
			}
		}
		if !errors.Is(err, ErrMalformedRow) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want ErrMalformedRow containing %q", tc.name, err, tc.want)
		}
	}
	r, _ := NewRowReader(row, sources(s))
	if _, err := r.GetIndex(3); err == nil || !strings.Contains(err.Error(), "column index 3 out of range") {
		t.Errorf("GetIndex(3) error = %v", err)
	}
	if _, err := NewRowReader(row, nil); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("nil schema source: error = %v", err)
	}
	if err := new(RowReader).ResetLayout(row, nil); !errors.Is(err, ErrInvalidValue) {
		t.Errorf("nil layout source: error = %v", err)
	}
	lying := func(int32) (*Schema, bool) { return &Schema{Version: 7}, true }
	if _, err := NewRowReader(row, lying); err == nil || !strings.Contains(err.Error(), "returned schema version 7 for version 1") {
		t.Errorf("schema source returning the wrong version: error = %v", err)
	}
	var zero RowReader
	if _, _, err := zero.Get("b"); err == nil {
		t.Error("Get on a zero RowReader succeeded")
	}
}

// TestRowTruncationAndGarbage: no prefix of a valid row and no random byte
// string makes the reader panic; anything it accepts reads consistently.
func TestRowTruncationAndGarbage(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for iter := 0; iter < 300; iter++ {
		s := randSchema(rng)
		vals := make([]any, len(s.Columns))
		for i := range s.Columns {
			vals[i], _ = randValue(rng, &s.Columns[i])
		}
		row, err := EncodeRow(s, vals)
		if err != nil {
			t.Fatal(err)
		}
		inputs := [][]byte{}
		for n := 0; n < len(row); n++ {
			inputs = append(inputs, row[:n])
		}
		for i := 0; i < 20; i++ {
			g := append([]byte(nil), row...)
			g[rng.Intn(len(g))] = byte(rng.Intn(256))
			inputs = append(inputs, g, g[:rng.Intn(len(g)+1)])
		}
		for _, in := range inputs {
			readAll(t, in, sources(s))
		}
	}
}

// readAll reads every column of row every way the API allows and checks that
// the ways agree and that whatever decodes re-encodes to the same values. It
// is shared with the fuzz targets.
func readAll(t *testing.T, row []byte, src SchemaSource) {
	t.Helper()
	r, err := NewRowReader(row, src)
	sameAsLayout(t, row, src, r, err)
	if err != nil {
		if !errors.Is(err, ErrMalformedRow) {
			t.Fatalf("NewRowReader(%x) error %v does not wrap ErrMalformedRow", row, err)
		}
		if _, err2 := ReadWithSchema(row, src, nil); err2 == nil {
			t.Fatalf("NewRowReader(%x) failed but ReadWithSchema succeeded", row)
		}
		return
	}
	if v, err := RowVersion(row); err != nil || v != r.Schema().Version {
		t.Fatalf("RowVersion(%x) = %d, %v; reader has schema version %d", row, v, err, r.Schema().Version)
	}
	s := r.Schema()
	vals := make([]any, len(s.Columns))
	failed := false
	for i := range s.Columns {
		v, err := r.GetIndex(i)
		byName, ok, err2 := r.Get(s.Columns[i].Name)
		if !ok || (err == nil) != (err2 == nil) || !valueEqual(v, byName) {
			t.Fatalf("GetIndex(%d) = %v, %v but Get(%q) = %v, %v, %v", i, v, err, s.Columns[i].Name, byName, ok, err2)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformedRow) {
				t.Fatalf("GetIndex(%d) of %x: error %v does not wrap ErrMalformedRow", i, row, err)
			}
			failed = true
		}
		vals[i] = v
	}
	all, err := ReadWithSchema(row, src, nil)
	if failed != (err != nil) {
		t.Fatalf("ReadWithSchema(%x) error = %v, but a column read failed: %v", row, err, failed)
	}
	if failed {
		return
	}
	if !valuesEqual(all, vals) {
		t.Fatalf("ReadWithSchema(%x) = %#v, per-column reads %#v", row, all, vals)
	}
	// Whatever decodes is a valid row value: it re-encodes and reads back the same.
	again, err := EncodeRow(s, vals)
	if err != nil {
		t.Fatalf("decoded values %#v of %x do not re-encode: %v", vals, row, err)
	}
	back, err := ReadWithSchema(again, src, nil)
	if err != nil || !valuesEqual(back, vals) {
		t.Fatalf("re-encoded %#v reads back as %#v, %v", vals, back, err)
	}
}

// layoutsOf is the LayoutSource of the versions src knows.
type layoutsOf SchemaSource

func (src layoutsOf) Layout(version int32) (*RowLayout, error) {
	s, ok := src(version)
	if !ok {
		return nil, UnknownVersion(version)
	}
	return NewRowLayout(s)
}

// sameAsLayout checks that ResetLayout reads row as Reset did (r, err):
// the same error, or the same schema and the same value or error from
// every column, by GetIndex and by Scalar.
func sameAsLayout(t *testing.T, row []byte, src SchemaSource, r *RowReader, err error) {
	t.Helper()
	var l RowReader
	lerr := l.ResetLayout(row, layoutsOf(src))
	if err != nil || lerr != nil {
		if err == nil || lerr == nil || err.Error() != lerr.Error() {
			t.Fatalf("row %x: Reset error %v, ResetLayout error %v", row, err, lerr)
		}
		return
	}
	if l.Schema() != r.Schema() {
		t.Fatalf("row %x: ResetLayout chose schema version %d, Reset %d", row, l.Schema().Version, r.Schema().Version)
	}
	for i := range r.Schema().Columns {
		v, err := r.GetIndex(i)
		lv, lerr := l.GetIndex(i)
		if (err == nil) != (lerr == nil) || !valueEqual(v, lv) {
			t.Fatalf("row %x column %d: GetIndex %#v, %v after Reset, %#v, %v after ResetLayout", row, i, v, err, lv, lerr)
		}
		s, ok, err := r.Scalar(i)
		ls, lok, lerr := l.Scalar(i)
		if (err == nil) != (lerr == nil) || ok != lok || s.Type != ls.Type || s.Null != ls.Null || s.I != ls.I ||
			!valueEqual(s.F, ls.F) || string(s.Bytes) != string(ls.Bytes) {
			t.Fatalf("row %x column %d: Scalar %+v, %v, %v after Reset, %+v, %v, %v after ResetLayout", row, i, s, ok, err, ls, lok, lerr)
		}
	}
}

// BenchmarkRowRead reads one int64 property of a three-column row the way
// a GO step's edge properties are read, row after row: Reset looks the
// version up and checks the schema per row, ResetLayout reuses a checked
// layout.
func BenchmarkRowRead(b *testing.B) {
	s := &Schema{Version: 0, Columns: []Column{
		{Name: "name", Type: PropString}, {Name: "since", Type: PropTimestamp}, {Name: "weight", Type: PropInt64}}}
	row, err := EncodeRow(s, []any{"x", int64(1), int64(42)})
	if err != nil {
		b.Fatal(err)
	}
	src := sources(s)
	l, err := NewRowLayout(s)
	if err != nil {
		b.Fatal(err)
	}
	layouts := oneLayout{l}
	var r RowReader
	read := func(b *testing.B) {
		if v, ok, err := r.Scalar(2); err != nil || !ok || v.I != 42 {
			b.Fatalf("Scalar = %+v, %v, %v", v, ok, err)
		}
	}
	b.Run("Reset", func(b *testing.B) {
		for b.Loop() {
			if err := r.Reset(row, src); err != nil {
				b.Fatal(err)
			}
			read(b)
		}
	})
	b.Run("ResetLayout", func(b *testing.B) {
		for b.Loop() {
			if err := r.ResetLayout(row, layouts); err != nil {
				b.Fatal(err)
			}
			read(b)
		}
	})
}

// oneLayout is the LayoutSource of one schema version.
type oneLayout struct{ l *RowLayout }

func (o oneLayout) Layout(version int32) (*RowLayout, error) {
	if version != o.l.Schema().Version {
		return nil, UnknownVersion(version)
	}
	return o.l, nil
}
