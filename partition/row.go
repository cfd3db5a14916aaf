package partition

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/novagraph/novagraph/temporal"
)

// Property row format, version 1 (the value of a TagKey or EdgeKey).
//
// Let n be the number of columns of the schema the row was written with,
// B = ceil(n/8) and F the sum of the columns' fixed widths (below):
//
//	offset      size   field
//	0           1      row format version: 0x01
//	1           v      schema version, unsigned varint (encoding/binary), minimal,
//	                   v = 1..5 bytes since versions are int32 >= 0
//	1+v         B      null bitmap: column i is NULL iff bit i%8 (LSB first) of
//	                   byte i/8 is set
//	1+v+B       F      fixed-width section: one slot per column, in schema order
//	1+v+B+F     ...    variable-length section: the bytes of STRING values,
//	                   in column order, back to back
//
// Fixed-width slots (all multi-byte integers little-endian: values are never
// compared as bytes, and little-endian is native on every platform we run on):
//
//	INT64, TIMESTAMP  8  two's complement (TIMESTAMP: seconds since the Unix epoch)
//	DOUBLE            8  IEEE-754 bits (math.Float64bits), stored as is: -0 stays -0,
//	                     NaN stays NaN with its payload
//	BOOL              1  0x00 false, 0x01 true; any other byte is corrupt
//	FIXED_STRING(k)   k  the string's bytes padded with 0x00 to k; the padding is
//	                     trimmed on read, so values ending in 0x00 are rejected
//	STRING            8  offset(4) | length(4) of the value's bytes, the offset
//	                     counted from the start of the variable-length section
//	DATE              4  int32 days since 1970-01-01 (proleptic Gregorian), in
//	                     [temporal.MinDate, temporal.MaxDate] (years -32768..32767)
//	TIME              8  int64 microseconds since midnight, in [0, 86400e6)
//	DATETIME          8  int64 microseconds since 1970-01-01T00:00:00 UTC, in
//	                     [temporal.MinDateTime, temporal.MaxDateTime]
//	DURATION         12  int32 months | int64 microseconds
//
// A DATE, TIME or DATETIME slot outside its range is corrupt. The calendar
// types (7..10) were added after the format was first used; they need no new
// format version, since a row's layout follows from its schema and no
// schema written before them has such a column.
//
// A NULL column's slot is all zeros (and a NULL STRING adds no bytes).
//
// Why this shape: every slot's offset depends only on the schema, so reading
// one property costs a bitmap test and one slot read (plus one slice for a
// STRING), without decoding the columns before it. The bitmap covers every
// column, nullable or not, so column i's bit is at a fixed place without
// counting the nullable columns before it; the bits of non-nullable columns
// and the padding bits past n are always 0. The schema version lets a row
// written before an ALTER be read with the schema it was written with, so
// ALTER never rewrites existing rows.
const rowFormatV1 byte = 0x01

// MaxFixedStringLen bounds FIXED_STRING(k) columns, so that a schema's fixed
// width cannot overflow and a corrupt schema cannot ask for absurd slots.
const MaxFixedStringLen = 1<<16 - 1

// PropType is the type of a property column. The numbers are those of
// metapb.PropType.
type PropType uint8

// Property types and the Go type of their values in this codec. NULL is nil.
const (
	PropInt64       PropType = 1  // int64
	PropDouble      PropType = 2  // float64 (int64 accepted on encode and converted)
	PropBool        PropType = 3  // bool
	PropString      PropType = 4  // string
	PropFixedString PropType = 5  // string of at most Column.FixedLen bytes
	PropTimestamp   PropType = 6  // int64, seconds since the Unix epoch
	PropDate        PropType = 7  // temporal.Date
	PropTime        PropType = 8  // temporal.Time
	PropDateTime    PropType = 9  // temporal.DateTime
	PropDuration    PropType = 10 // temporal.Duration
)

func (t PropType) String() string {
	switch t {
	case PropInt64:
		return "INT64"
	case PropDouble:
		return "DOUBLE"
	case PropBool:
		return "BOOL"
	case PropString:
		return "STRING"
	case PropFixedString:
		return "FIXED_STRING"
	case PropTimestamp:
		return "TIMESTAMP"
	case PropDate:
		return "DATE"
	case PropTime:
		return "TIME"
	case PropDateTime:
		return "DATETIME"
	case PropDuration:
		return "DURATION"
	}
	return fmt.Sprintf("PropType(%d)", uint8(t))
}

// Column is one property of a schema.
type Column struct {
	Name     string
	Type     PropType
	FixedLen int // PropFixedString only: the length k of FIXED_STRING(k)
	Nullable bool
	// Default is used when a row written with an older schema version, which
	// lacks this column, is read with this schema (ReadWithSchema). nil means
	// no default. EncodeRow does not apply it: filling defaults on insert is
	// the caller's job.
	Default any
	// IntBits is the declared width of a PropInt64 column (8, 16 or 32 for
	// int8, int16, int32; 0 for 64): every integer is stored in 64 bits,
	// and EncodeRow refuses a value outside the declared range.
	IntBits int
	// Float32 marks a PropDouble column declared float: EncodeRow rounds
	// its values to float32 and refuses finite ones beyond its range.
	Float32 bool
	// DefaultExpr is the nGQL text of a default evaluated at each write
	// (DEFAULT now()); Default then holds its value at schema time. Like
	// Default, the codec does not apply it.
	DefaultExpr string
}

// Schema is one version of the property list of a tag or edge type. Versions
// start at 0 and only grow; each row records the version it was written with.
type Schema struct {
	Version int32
	Columns []Column
}

// Index returns the position of the column called name, or -1.
func (s *Schema) Index(name string) int {
	for i := range s.Columns {
		if s.Columns[i].Name == name {
			return i
		}
	}
	return -1
}

// Validate checks everything about a schema: what EncodeRow and NewRowReader
// check on every call (a non-negative version, known types, FIXED_STRING
// lengths in 1..MaxFixedStringLen), plus non-empty unique column names and
// defaults of the column's type. Call it when a schema enters the system.
func (s *Schema) Validate() error {
	if _, err := checkLayout(s); err != nil {
		return err
	}
	seen := make(map[string]bool, len(s.Columns))
	for i := range s.Columns {
		c := &s.Columns[i]
		if c.Name == "" {
			return fmt.Errorf("schema version %d: column %d has an empty name: %w", s.Version, i, ErrInvalidValue)
		}
		if seen[c.Name] {
			return fmt.Errorf("schema version %d: column %q appears twice: %w", s.Version, c.Name, ErrInvalidValue)
		}
		seen[c.Name] = true
		if c.Default != nil {
			if _, err := checkValue(c, c.Default); err != nil {
				return fmt.Errorf("schema version %d: default: %w", s.Version, err)
			}
		}
	}
	return nil
}

// SchemaSource returns a version of one tag's or edge type's schema, and
// whether that version exists.
type SchemaSource func(version int32) (*Schema, bool)

// fixedWidth is the width of c's slot in the fixed-width section. c must have
// passed checkLayout.
func fixedWidth(c *Column) int {
	switch c.Type {
	case PropBool:
		return 1
	case PropFixedString:
		return c.FixedLen
	case PropDate:
		return 4
	case PropDuration:
		return 12
	}
	return 8 // INT64, TIMESTAMP, DOUBLE, STRING, TIME, DATETIME
}

// checkLayout checks what the codec needs to compute slot offsets safely and
// returns the width of the fixed-width section.
func checkLayout(s *Schema) (int, error) {
	if s == nil {
		return 0, fmt.Errorf("nil schema: %w", ErrInvalidValue)
	}
	if s.Version < 0 {
		return 0, fmt.Errorf("schema version %d is negative: %w", s.Version, ErrInvalidValue)
	}
	width := 0
	for i := range s.Columns {
		c := &s.Columns[i]
		switch c.Type {
		case PropInt64, PropDouble, PropBool, PropString, PropTimestamp,
			PropDate, PropTime, PropDateTime, PropDuration:
		case PropFixedString:
			if c.FixedLen < 1 || c.FixedLen > MaxFixedStringLen {
				return 0, fmt.Errorf("schema version %d: column %q is FIXED_STRING(%d), want a length in 1..%d: %w",
					s.Version, c.Name, c.FixedLen, MaxFixedStringLen, ErrInvalidValue)
			}
		default:
			return 0, fmt.Errorf("schema version %d: column %q has unknown type %s: %w", s.Version, c.Name, c.Type, ErrInvalidValue)
		}
		width += fixedWidth(c)
	}
	return width, nil
}

// checkValue checks that v can be stored in column c and returns it in the
// codec's Go type for c (int64 → float64 for DOUBLE).
func checkValue(c *Column, v any) (any, error) {
	if v == nil {
		if !c.Nullable {
			return nil, fmt.Errorf("column %q is not nullable, got NULL: %w", c.Name, ErrInvalidValue)
		}
		return nil, nil
	}
	switch c.Type {
	case PropInt64, PropTimestamp:
		if x, ok := v.(int64); ok {
			if b := c.IntBits; b > 0 && b < 64 && (x < -1<<(b-1) || x > 1<<(b-1)-1) {
				return nil, fmt.Errorf("column %q is int%d, got %d, out of its range [%d, %d]: %w", c.Name, b, x, -1<<(b-1), 1<<(b-1)-1, ErrInvalidValue)
			}
			return x, nil
		}
	case PropDouble:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x) // exact up to 2^53, rounded beyond
		default:
			return nil, fmt.Errorf("column %q: expected %s, got %T: %w", c.Name, c.Type, v, ErrInvalidValue)
		}
		if c.Float32 {
			if !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) > math.MaxFloat32 {
				return nil, fmt.Errorf("column %q is float, got %g, beyond its range: %w", c.Name, f, ErrInvalidValue)
			}
			f = float64(float32(f))
		}
		return f, nil
	case PropBool:
		if x, ok := v.(bool); ok {
			return x, nil
		}
	case PropString:
		if x, ok := v.(string); ok {
			return x, nil
		}
	case PropFixedString:
		if x, ok := v.(string); ok {
			if len(x) > c.FixedLen {
				return nil, fmt.Errorf("column %q is FIXED_STRING(%d), got a %d-byte string: %w", c.Name, c.FixedLen, len(x), ErrInvalidValue)
			}
			if len(x) > 0 && x[len(x)-1] == 0 {
				return nil, fmt.Errorf("column %q is FIXED_STRING(%d), got a string ending in 0x00, which is reserved for padding: %w",
					c.Name, c.FixedLen, ErrInvalidValue)
			}
			return x, nil
		}
	case PropDate:
		if x, ok := v.(temporal.Date); ok {
			if !x.Valid() {
				return nil, fmt.Errorf("column %q: DATE %d days is out of range: %w", c.Name, int32(x), ErrInvalidValue)
			}
			return x, nil
		}
	case PropTime:
		if x, ok := v.(temporal.Time); ok {
			if !x.Valid() {
				return nil, fmt.Errorf("column %q: TIME %d microseconds is out of range: %w", c.Name, int64(x), ErrInvalidValue)
			}
			return x, nil
		}
	case PropDateTime:
		if x, ok := v.(temporal.DateTime); ok {
			if !x.Valid() {
				return nil, fmt.Errorf("column %q: DATETIME %d microseconds is out of range: %w", c.Name, int64(x), ErrInvalidValue)
			}
			return x, nil
		}
	case PropDuration:
		if x, ok := v.(temporal.Duration); ok {
			return x, nil
		}
	default:
		return nil, fmt.Errorf("column %q has unknown type %s: %w", c.Name, c.Type, ErrInvalidValue)
	}
	return nil, fmt.Errorf("column %q: expected %s, got %T: %w", c.Name, c.Type, v, ErrInvalidValue)
}

// EncodeRow encodes values, parallel to s.Columns, as a row of schema version
// s.Version (layout above). nil is NULL. Values must have the codec's Go type
// for their column (see the PropType constants); the error names the column
// and the expected and actual types otherwise.
func EncodeRow(s *Schema, values []any) ([]byte, error) {
	fixed, err := checkLayout(s)
	if err != nil {
		return nil, err
	}
	if len(values) != len(s.Columns) {
		return nil, fmt.Errorf("schema version %d has %d columns, got %d values: %w", s.Version, len(s.Columns), len(values), ErrInvalidValue)
	}
	varLen := 0
	for i := range s.Columns {
		if str, ok := values[i].(string); ok && s.Columns[i].Type == PropString {
			varLen += len(str)
		}
	}
	hdr := 1 + uvarintLen(uint64(s.Version))
	bitmapOff := hdr
	off := bitmapOff + (len(s.Columns)+7)/8 // start of the fixed-width section
	varOff := off + fixed

	buf := make([]byte, varOff, varOff+varLen)
	buf[0] = rowFormatV1
	binary.PutUvarint(buf[1:hdr], uint64(s.Version))
	for i := range s.Columns {
		c := &s.Columns[i]
		w := fixedWidth(c)
		v, err := checkValue(c, values[i])
		if err != nil {
			return nil, fmt.Errorf("encoding row of schema version %d: %w", s.Version, err)
		}
		slot := buf[off : off+w]
		off += w
		if v == nil {
			buf[bitmapOff+i/8] |= 1 << (i % 8)
			continue
		}
		switch c.Type {
		case PropInt64, PropTimestamp:
			binary.LittleEndian.PutUint64(slot, uint64(v.(int64)))
		case PropDouble:
			binary.LittleEndian.PutUint64(slot, math.Float64bits(v.(float64)))
		case PropBool:
			if v.(bool) {
				slot[0] = 1
			}
		case PropFixedString:
			copy(slot, v.(string))
		case PropDate:
			binary.LittleEndian.PutUint32(slot, uint32(v.(temporal.Date)))
		case PropTime:
			binary.LittleEndian.PutUint64(slot, uint64(v.(temporal.Time)))
		case PropDateTime:
			binary.LittleEndian.PutUint64(slot, uint64(v.(temporal.DateTime)))
		case PropDuration:
			du := v.(temporal.Duration)
			binary.LittleEndian.PutUint32(slot, uint32(du.Months))
			binary.LittleEndian.PutUint64(slot[4:], uint64(du.Micros))
		case PropString:
			str := v.(string)
			rel := uint64(len(buf) - varOff)
			if rel+uint64(len(str)) > math.MaxUint32 {
				return nil, fmt.Errorf("encoding row of schema version %d: column %q: string values exceed 4 GiB in total: %w",
					s.Version, c.Name, ErrInvalidValue)
			}
			binary.LittleEndian.PutUint32(slot, uint32(rel))
			binary.LittleEndian.PutUint32(slot[4:], uint32(len(str)))
			buf = append(buf, str...) // slot is written: reallocating buf is fine
		}
	}
	return buf, nil
}

// RowVersion returns the schema version a row was written with, reading only
// its header.
func RowVersion(row []byte) (int32, error) {
	v, _, err := readHeader(row)
	return v, err
}

// readHeader parses the format version and schema version and returns the
// schema version and the header length (the offset of the null bitmap).
func readHeader(row []byte) (int32, int, error) {
	if len(row) >= 2 && row[0] == rowFormatV1 && row[1] < 0x80 {
		return int32(row[1]), 2, nil // a one-byte uvarint, always minimal: most rows
	}
	if len(row) == 0 {
		return 0, 0, fmt.Errorf("empty row: %w", ErrMalformedRow)
	}
	if row[0] != rowFormatV1 {
		return 0, 0, fmt.Errorf("row format version %d, want %d: %w", row[0], rowFormatV1, ErrMalformedRow)
	}
	u, n := binary.Uvarint(row[1:])
	if n <= 0 {
		return 0, 0, fmt.Errorf("row header %x: truncated or overflowing schema version: %w", row[:min(len(row), 11)], ErrMalformedRow)
	}
	if u > math.MaxInt32 {
		return 0, 0, fmt.Errorf("row schema version %d exceeds int32: %w", u, ErrMalformedRow)
	}
	if n != uvarintLen(u) {
		return 0, 0, fmt.Errorf("row schema version %d is not minimally encoded (%d bytes): %w", u, n, ErrMalformedRow)
	}
	return int32(u), 1 + n, nil
}

func uvarintLen(u uint64) int {
	n := 1
	for ; u >= 0x80; u >>= 7 {
		n++
	}
	return n
}

// RowReader reads the properties of one row. It keeps a reference to the row,
// which must not change while the reader is in use; values it returns do not
// alias the row.
type RowReader struct {
	row       []byte
	schema    *Schema
	bitmapOff int
	fixedOff  int
	varOff    int
	// slots is each column's offset in the fixed-width section when the
	// reader was reset from a RowLayout; nil, slot adds the widths up.
	slots []int
}

// RowLayout is one schema version checked, with its columns' slot offsets
// worked out, once for the many rows read with it (ResetLayout): Reset
// checks the schema on every row, and reading column i adds up the widths
// of the i columns before it. A GO step's edge properties read one layout
// for tens of thousands of rows (issue 22). Immutable, so shared freely.
type RowLayout struct {
	schema *Schema
	slots  []int // offset of column i's slot in the fixed-width section
	fixed  int   // width of the fixed-width section
}

// NewRowLayout checks s as Reset does and works out its layout.
func NewRowLayout(s *Schema) (*RowLayout, error) {
	fixed, err := checkLayout(s)
	if err != nil {
		return nil, err
	}
	l := &RowLayout{schema: s, slots: make([]int, len(s.Columns)), fixed: fixed}
	off := 0
	for i := range s.Columns {
		l.slots[i] = off
		off += fixedWidth(&s.Columns[i])
	}
	return l, nil
}

// Schema is the schema version the layout is of.
func (l *RowLayout) Schema() *Schema { return l.schema }

// LayoutSource finds the layout of the schema version a row was written
// with. Its error for a version it does not know wraps ErrMalformedRow
// (UnknownVersion), as Reset's does.
type LayoutSource interface {
	Layout(version int32) (*RowLayout, error)
}

// UnknownVersion is the error of a row whose schema version the schema
// source does not know.
func UnknownVersion(version int32) error {
	return fmt.Errorf("row has schema version %d, which the schema source does not know: %w", version, ErrMalformedRow)
}

// ResetLayout makes r read row as Reset does, with the schema versions'
// layouts worked out beforehand.
func (r *RowReader) ResetLayout(row []byte, layouts LayoutSource) error {
	ver, hdr, err := readHeader(row)
	if err != nil {
		*r = RowReader{}
		return err
	}
	if layouts == nil {
		*r = RowReader{}
		return fmt.Errorf("row of schema version %d: nil layout source: %w", ver, ErrInvalidValue)
	}
	l, err := layouts.Layout(ver)
	if err == nil && l == nil {
		err = UnknownVersion(ver)
	}
	if err != nil {
		*r = RowReader{}
		return err
	}
	if err := r.resetTo(row, l.schema, ver, hdr, l.fixed); err != nil {
		return err
	}
	r.slots = l.slots
	return nil
}

// NewRowReader parses the header of row, looks up the schema version it was
// written with in schemas, and checks that the row is long enough for that
// schema's fixed-width section. It decodes no property.
func NewRowReader(row []byte, schemas SchemaSource) (*RowReader, error) {
	r := new(RowReader)
	if err := r.Reset(row, schemas); err != nil {
		return nil, err
	}
	return r, nil
}

// Reset makes r read row, as NewRowReader does, so that a scan can reuse one
// reader. On error r is left unusable until the next successful Reset.
func (r *RowReader) Reset(row []byte, schemas SchemaSource) error {
	*r = RowReader{}
	ver, hdr, err := readHeader(row)
	if err != nil {
		return err
	}
	if schemas == nil {
		return fmt.Errorf("row of schema version %d: nil schema source: %w", ver, ErrInvalidValue)
	}
	s, ok := schemas(ver)
	if !ok || s == nil {
		return UnknownVersion(ver)
	}
	fixed, err := checkLayout(s)
	if err != nil {
		return err
	}
	return r.resetTo(row, s, ver, hdr, fixed)
}

// resetTo makes r read row, of schema version ver with a header of hdr
// bytes, with s, whose fixed-width section is fixed bytes wide: the checks
// of the row against its schema that Reset and ResetLayout share.
func (r *RowReader) resetTo(row []byte, s *Schema, ver int32, hdr, fixed int) error {
	*r = RowReader{}
	if s.Version != ver {
		return fmt.Errorf("schema source returned schema version %d for version %d: %w", s.Version, ver, ErrInvalidValue)
	}
	n := len(s.Columns)
	fixedOff := hdr + (n+7)/8
	varOff := fixedOff + fixed
	if len(row) < varOff {
		return fmt.Errorf("row of schema version %d is %d bytes, its header, null bitmap and fixed-width section need %d: %w",
			ver, len(row), varOff, ErrMalformedRow)
	}
	if n%8 != 0 && row[fixedOff-1]>>(n%8) != 0 {
		return fmt.Errorf("row of schema version %d: null bitmap %x has bits set past column %d: %w",
			ver, row[hdr:fixedOff], n, ErrMalformedRow)
	}
	*r = RowReader{row: row, schema: s, bitmapOff: hdr, fixedOff: fixedOff, varOff: varOff}
	return nil
}

// Schema returns the schema the row was written with.
func (r *RowReader) Schema() *Schema { return r.schema }

// Get returns the value of the column called name. The bool is false, with a
// nil value, if the row's schema version has no such column. Only that one
// column is decoded.
func (r *RowReader) Get(name string) (any, bool, error) {
	if r.schema == nil {
		return nil, false, fmt.Errorf("reading column %q: row reader is not initialized: %w", name, ErrInvalidValue)
	}
	i := r.schema.Index(name)
	if i < 0 {
		return nil, false, nil
	}
	v, err := r.GetIndex(i)
	return v, true, err
}

// GetIndex returns the value of column i of the row's schema: nil for NULL,
// else the codec's Go type for the column.
func (r *RowReader) GetIndex(i int) (any, error) {
	c, slot, null, err := r.slot(i)
	if err != nil || null {
		return nil, err
	}
	switch c.Type {
	case PropDate:
		d := temporal.Date(int32(binary.LittleEndian.Uint32(slot)))
		if !d.Valid() {
			return nil, fmt.Errorf("row of schema version %d: column %q: DATE %d days is out of range: %w", r.schema.Version, c.Name, int32(d), ErrMalformedRow)
		}
		return d, nil
	case PropTime:
		t := temporal.Time(int64(binary.LittleEndian.Uint64(slot)))
		if !t.Valid() {
			return nil, fmt.Errorf("row of schema version %d: column %q: TIME %d microseconds is out of range: %w", r.schema.Version, c.Name, int64(t), ErrMalformedRow)
		}
		return t, nil
	case PropDateTime:
		dt := temporal.DateTime(int64(binary.LittleEndian.Uint64(slot)))
		if !dt.Valid() {
			return nil, fmt.Errorf("row of schema version %d: column %q: DATETIME %d microseconds is out of range: %w", r.schema.Version, c.Name, int64(dt), ErrMalformedRow)
		}
		return dt, nil
	case PropDuration:
		return temporal.Duration{
			Months: int32(binary.LittleEndian.Uint32(slot)),
			Micros: int64(binary.LittleEndian.Uint64(slot[4:])),
		}, nil
	}
	sc, err := r.scalar(c, slot)
	if err != nil {
		return nil, err
	}
	switch c.Type {
	case PropInt64, PropTimestamp:
		return sc.I, nil
	case PropDouble:
		return sc.F, nil
	case PropBool:
		return sc.I == 1, nil
	case PropString, PropFixedString:
		return string(sc.Bytes), nil
	}
	panic("unreachable: checkLayout accepted an unknown type") // checkLayout ran in Reset
}

// Scalar is one column of a row read without boxing (RowReader.Scalar):
// Null, or by Type the int (INT64, TIMESTAMP), the float (DOUBLE), the
// bool (I is 0 or 1) or the bytes (STRING, FIXED_STRING, its padding cut).
// Bytes aliases the row.
type Scalar struct {
	Type  PropType
	Null  bool
	I     int64
	F     float64
	Bytes []byte
}

// Scalar reads column i as GetIndex does, without allocating, when it is
// of a scalar type; ok is false for the other types (dates, times,
// durations…), which the caller reads with GetIndex. The bytes of a string
// alias the row, unlike GetIndex's values: the caller keeps the row alive
// and unchanged while it uses them.
func (r *RowReader) Scalar(i int) (s Scalar, ok bool, err error) {
	c, slot, null, err := r.slot(i)
	if err != nil {
		return s, false, err
	}
	switch c.Type {
	case PropInt64, PropTimestamp, PropDouble, PropBool, PropFixedString, PropString:
	default:
		return Scalar{Type: c.Type}, false, nil
	}
	if null {
		return Scalar{Type: c.Type, Null: true}, true, nil
	}
	s, err = r.scalar(c, slot)
	return s, err == nil, err
}

// slot locates column i of the row: its schema column and its fixed-width
// slot, or null when the row holds NULL there.
func (r *RowReader) slot(i int) (c *Column, slot []byte, null bool, err error) {
	if r.schema == nil {
		return nil, nil, false, fmt.Errorf("reading column %d: row reader is not initialized: %w", i, ErrInvalidValue)
	}
	cols := r.schema.Columns
	if i < 0 || i >= len(cols) {
		return nil, nil, false, fmt.Errorf("column index %d out of range: schema version %d has %d columns: %w", i, r.schema.Version, len(cols), ErrInvalidValue)
	}
	c = &cols[i]
	if r.row[r.bitmapOff+i/8]&(1<<(i%8)) != 0 {
		if !c.Nullable {
			return nil, nil, false, fmt.Errorf("row of schema version %d: column %q is not nullable but marked NULL: %w", r.schema.Version, c.Name, ErrMalformedRow)
		}
		return c, nil, true, nil
	}
	off := r.fixedOff
	if r.slots != nil {
		off += r.slots[i]
	} else {
		for j := 0; j < i; j++ {
			off += fixedWidth(&cols[j])
		}
	}
	return c, r.row[off : off+fixedWidth(c)], false, nil
}

// scalar decodes the slot of c, a column of a scalar type.
func (r *RowReader) scalar(c *Column, slot []byte) (Scalar, error) {
	s := Scalar{Type: c.Type}
	switch c.Type {
	case PropInt64, PropTimestamp:
		s.I = int64(binary.LittleEndian.Uint64(slot))
	case PropDouble:
		s.F = math.Float64frombits(binary.LittleEndian.Uint64(slot))
	case PropBool:
		switch slot[0] {
		case 0:
		case 1:
			s.I = 1
		default:
			return s, fmt.Errorf("row of schema version %d: column %q: bool byte 0x%02x, want 0x00 or 0x01: %w",
				r.schema.Version, c.Name, slot[0], ErrMalformedRow)
		}
	case PropFixedString:
		end := len(slot)
		for end > 0 && slot[end-1] == 0 {
			end--
		}
		s.Bytes = slot[:end:end]
	case PropString:
		o := uint64(binary.LittleEndian.Uint32(slot))
		n := uint64(binary.LittleEndian.Uint32(slot[4:]))
		if avail := uint64(len(r.row) - r.varOff); o+n > avail {
			return s, fmt.Errorf("row of schema version %d: column %q: string [%d, %d) exceeds the %d-byte variable-length section: %w",
				r.schema.Version, c.Name, o, o+n, avail, ErrMalformedRow)
		}
		start := uint64(r.varOff) + o
		s.Bytes = r.row[start : start+n : start+n]
	}
	return s, nil
}

// ReadWithSchema decodes row and returns its values laid out as the columns of
// target, matched by name. It is how a row written before an ALTER is read with
// the current schema:
//   - a target column present in the row's schema gets the row's value,
//     converted if the ALTER changed its type (INT64 ↔ TIMESTAMP,
//     INT64 or TIMESTAMP → DOUBLE, STRING ↔ FIXED_STRING when it fits; any other change
//     is an error);
//   - a target column absent from the row's schema (added later) gets its
//     Default, or NULL if it has none;
//   - columns of the row's schema absent from target (dropped) are skipped.
//
// A nil target means the row's own schema: all values, in its column order.
func ReadWithSchema(row []byte, schemas SchemaSource, target *Schema) ([]any, error) {
	r, err := NewRowReader(row, schemas)
	if err != nil {
		return nil, err
	}
	if target == nil {
		target = r.schema
	}
	out := make([]any, len(target.Columns))
	for i := range target.Columns {
		tc := &target.Columns[i]
		j := r.schema.Index(tc.Name)
		if j < 0 {
			if tc.Default != nil {
				v, err := checkValue(tc, tc.Default)
				if err != nil {
					return nil, fmt.Errorf("default of schema version %d: %w", target.Version, err)
				}
				out[i] = v
			}
			continue
		}
		v, err := r.GetIndex(j)
		if err != nil {
			return nil, err
		}
		if sc := &r.schema.Columns[j]; v != nil && sc.Type != tc.Type {
			if v, err = checkValue(tc, v); err != nil {
				return nil, fmt.Errorf("reading row of schema version %d (column %q is %s) with schema version %d: %w",
					r.schema.Version, sc.Name, sc.Type, target.Version, err)
			}
		}
		out[i] = v
	}
	return out, nil
}
