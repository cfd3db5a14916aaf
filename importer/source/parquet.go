package source

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Parquet values become fields like this (one field per leaf column, in
// schema order; a nested leaf is named by its dotted path):
//
//   - BOOLEAN: "true" / "false";
//   - INT32, INT64: decimal; unsigned logical INT types as unsigned;
//     DECIMAL as a decimal number with its scale ("-123.45");
//   - DATE as "2006-01-02", TIME as "15:04:05.000000", TIMESTAMP and INT96
//     (Spark's legacy timestamps) as "2006-01-02T15:04:05.000000", as
//     stored (no zone conversion), to the microsecond: the text novagraph's
//     date, time, datetime and timestamp properties read (a stored integer
//     would be read as a year, or as seconds);
//   - FLOAT, DOUBLE: strconv 'g' with the shortest exact precision;
//   - BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY: the bytes as they are (strings,
//     enums, JSON), except DECIMAL (as above) and UUID (canonical 8-4-4-4-12
//     hex);
//   - NULL: "" with Record.Nulls[i] set;
//   - a repeated leaf (a list): "[v1,v2]" with "null" for NULL elements, "[]"
//     for an empty list; a NULL list is NULL.
const pqReadRows = 256

// pqLeaf is how one leaf column is turned into a field.
type pqLeaf struct {
	kind     parquet.Kind
	unsigned bool
	decimal  bool
	scale    int
	uuid     bool
	temporal byte          // 'd' DATE, 't' TIME, 's' TIMESTAMP; 0 for none
	unit     time.Duration // TIME and TIMESTAMP: the stored integer's unit
	repeated bool
	repDef   int // definition level of an existing list entry
}

func openParquet(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("source: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("source: %w", err)
	}
	// parquet-go allocates the footer length it reads before checking it
	// against the file: a corrupt file could make it allocate gigabytes.
	var tail [8]byte
	if n, _ := f.ReadAt(tail[:], st.Size()-8); st.Size() < 12 || n != 8 ||
		int64(binary.LittleEndian.Uint32(tail[:4])) > st.Size()-12 {
		f.Close()
		return nil, nil, fmt.Errorf("source: %s: parquet: truncated file or corrupt footer", path)
	}
	var pf *parquet.File
	err = guard(func() (err error) {
		pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		return err
	})
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("source: %s: parquet: %w", path, err)
	}
	return f, pf, nil
}

func parquetColumns(path string) ([]string, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cols []string
	for _, p := range pf.Schema().Columns() {
		cols = append(cols, strings.Join(p, "."))
	}
	return cols, nil
}

// parquetLeaves describes the leaf columns of a file, by leaf index.
func parquetLeaves(pf *parquet.File) []pqLeaf {
	leaves := make([]pqLeaf, len(pf.Schema().Columns()))
	var walk func(c *parquet.Column, def int, repDef int, repeated bool)
	walk = func(c *parquet.Column, def int, repDef int, repeated bool) {
		if c.Optional() || c.Repeated() {
			def++
		}
		if c.Repeated() {
			repeated, repDef = true, def
		}
		if !c.Leaf() {
			for _, ch := range c.Columns() {
				walk(ch, def, repDef, repeated)
			}
			return
		}
		t := c.Type()
		l := pqLeaf{kind: t.Kind(), repeated: repeated, repDef: repDef}
		if lt := t.LogicalType(); lt != nil {
			switch v := lt.Value.(type) {
			case *format.IntType:
				l.unsigned = !v.IsSigned
			case *format.DecimalType:
				l.decimal, l.scale = true, int(v.Scale)
			case *format.UUIDType:
				l.uuid = t.Kind() == parquet.FixedLenByteArray && t.Length() == 16
			case *format.DateType:
				l.temporal = 'd'
			case *format.TimeType:
				if v.Unit.Value != nil {
					l.temporal, l.unit = 't', v.Unit.Value.Duration()
				}
			case *format.TimestampType:
				if v.Unit.Value != nil {
					l.temporal, l.unit = 's', v.Unit.Value.Duration()
				}
			}
		}
		if i := c.Index(); i >= 0 && i < len(leaves) {
			leaves[i] = l
		}
	}
	for _, ch := range pf.Root().Columns() {
		walk(ch, 0, 0, false)
	}
	return leaves
}

// readParquet delivers the rows of one parquet file.
func (s *Source) readParquet(b *batcher, path string, skip int64) error {
	f, pf, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if n := pf.NumRows(); b.next+n <= skip {
		b.next += n // the whole file is before the resume point
		return nil
	}
	leaves := parquetLeaves(pf)
	if b.pqRows == nil {
		b.pqRows = make([]parquet.Row, pqReadRows)
	}
	rows := b.pqRows
	var row int64 // rows of the file done
	for _, rg := range pf.RowGroups() {
		n := rg.NumRows()
		if b.next+n <= skip {
			b.next += n
			row += n
			continue
		}
		if err := s.readRowGroup(b, path, rg, rows, leaves, &row, skip); err != nil {
			return err
		}
	}
	return nil
}

func (s *Source) readRowGroup(b *batcher, path string, rg parquet.RowGroup, rows []parquet.Row, leaves []pqLeaf, row *int64, skip int64) error {
	rr := rg.Rows()
	defer rr.Close()
	if b.next < skip {
		k := skip - b.next
		if err := guard(func() error { return rr.SeekToRow(k) }); err != nil {
			return fmt.Errorf("source: %s: row %d: %w", path, *row+1, err)
		}
		b.next += k
		*row += k
	}
	for {
		var n int
		err := guard(func() (err error) {
			n, err = rr.ReadRows(rows)
			return err
		})
		for i := range n {
			*row++
			appendRow(b, leaves, rows[i])
			if cerr := b.commit(path, *row, nil); cerr != nil {
				return cerr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("source: %s: row %d: %w", path, *row+1, err)
		}
		if n == 0 {
			return fmt.Errorf("source: %s: row %d: parquet reader made no progress", path, *row+1)
		}
	}
}

// guard turns a panic of parquet-go on a malformed file into an error, so
// that a bad file stops its source rather than the importer.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet-go panicked: %v", r)
		}
	}()
	return f()
}

// appendRow appends the fields of one row to the batcher's current record.
func appendRow(b *batcher, leaves []pqLeaf, row parquet.Row) {
	j := 0
	for c := range leaves {
		k := j
		for k < len(row) && row[k].Column() == c {
			k++
		}
		vals := row[j:k]
		j = k
		l := &leaves[c]
		switch {
		case len(vals) == 0:
			b.null()
		case !l.repeated:
			if vals[0].IsNull() {
				b.null()
			} else {
				b.arena = l.appendValue(b.arena, vals[0])
				b.end()
			}
		default:
			v0 := vals[0]
			if len(vals) == 1 && v0.IsNull() && v0.DefinitionLevel() < l.repDef {
				if v0.DefinitionLevel() == l.repDef-1 {
					b.field([]byte("[]")) // everything down to the list is there, no entry
				} else {
					b.null() // the list itself or an ancestor (a struct holding it) is NULL
				}
				continue
			}
			b.putByte('[')
			for i, v := range vals {
				if i > 0 {
					b.putByte(',')
				}
				if v.IsNull() {
					b.put([]byte("null"))
				} else {
					b.arena = l.appendValue(b.arena, v)
				}
			}
			b.putByte(']')
			b.end()
		}
	}
}

// appendValue appends the text of a non-NULL value.
func (l *pqLeaf) appendValue(dst []byte, v parquet.Value) []byte {
	switch l.kind {
	case parquet.Boolean:
		return strconv.AppendBool(dst, v.Boolean())
	case parquet.Int32:
		switch {
		case l.unsigned:
			return strconv.AppendUint(dst, uint64(v.Uint32()), 10)
		case l.decimal:
			return appendDecimal(dst, strconv.FormatInt(int64(v.Int32()), 10), l.scale)
		case l.temporal != 0:
			return l.appendTemporal(dst, int64(v.Int32()))
		}
		return strconv.AppendInt(dst, int64(v.Int32()), 10)
	case parquet.Int64:
		switch {
		case l.unsigned:
			return strconv.AppendUint(dst, v.Uint64(), 10)
		case l.decimal:
			return appendDecimal(dst, strconv.FormatInt(v.Int64(), 10), l.scale)
		case l.temporal != 0:
			return l.appendTemporal(dst, v.Int64())
		}
		return strconv.AppendInt(dst, v.Int64(), 10)
	case parquet.Int96:
		i := v.Int96()
		nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
		julian := int64(int32(i[2]))
		day := time.Unix((julian-2440588)*86400, 0).UTC()
		return day.Add(time.Duration(nanos)).AppendFormat(dst, pqDateTime)
	case parquet.Float:
		return strconv.AppendFloat(dst, float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.AppendFloat(dst, v.Double(), 'g', -1, 64)
	default: // byte arrays
		p := v.ByteArray()
		switch {
		case l.decimal:
			n := new(big.Int).SetBytes(p)
			if len(p) > 0 && p[0]&0x80 != 0 { // two's complement negative
				n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(p))))
			}
			return appendDecimal(dst, n.String(), l.scale)
		case l.uuid && len(p) == 16:
			var h [36]byte
			hex.Encode(h[0:8], p[0:4])
			h[8] = '-'
			hex.Encode(h[9:13], p[4:6])
			h[13] = '-'
			hex.Encode(h[14:18], p[6:8])
			h[18] = '-'
			hex.Encode(h[19:23], p[8:10])
			h[23] = '-'
			hex.Encode(h[24:36], p[10:16])
			return append(dst, h[:]...)
		}
		return append(dst, p...)
	}
}

const (
	pqDate     = "2006-01-02"
	pqTime     = "15:04:05.000000"
	pqDateTime = pqDate + "T" + pqTime
)

// appendTemporal appends a DATE (n days since the epoch), TIME (n units
// since midnight) or TIMESTAMP (n units since the epoch) as text.
func (l *pqLeaf) appendTemporal(dst []byte, n int64) []byte {
	switch l.temporal {
	case 'd':
		return time.Unix(n*86400, 0).UTC().AppendFormat(dst, pqDate)
	case 't':
		return time.Unix(0, 0).UTC().Add(time.Duration(n)*l.unit).AppendFormat(dst, pqTime)
	}
	per := int64(time.Second / l.unit) // units per second
	sec, frac := n/per, n%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	return time.Unix(sec, frac*int64(l.unit)).UTC().AppendFormat(dst, pqDateTime)
}

// appendDecimal appends the integer text n (optionally "-"-signed) divided
// by 10^scale.
func appendDecimal(dst []byte, n string, scale int) []byte {
	if scale <= 0 {
		dst = append(dst, n...)
		for range -scale {
			dst = append(dst, '0')
		}
		return dst
	}
	if n[0] == '-' {
		dst = append(dst, '-')
		n = n[1:]
	}
	if len(n) <= scale {
		dst = append(dst, "0."...)
		for range scale - len(n) {
			dst = append(dst, '0')
		}
		return append(dst, n...)
	}
	dst = append(dst, n[:len(n)-scale]...)
	dst = append(dst, '.')
	return append(dst, n[len(n)-scale:]...)
}
