package source

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
)

type pqRow struct {
	ID    int64    `parquet:"id"`
	Name  string   `parquet:"name"`
	Score float64  `parquet:"score"`
	OK    bool     `parquet:"ok"`
	Age   *int64   `parquet:"age,optional"`
	Note  *string  `parquet:"note,optional"`
	F32   float32  `parquet:"f32"`
	Small int32    `parquet:"small"`
	U64   uint64   `parquet:"u64"`
	Tags  []string `parquet:"tags,list"`
}

func pqRowAt(i int) pqRow {
	r := pqRow{
		ID:    int64(i) * 1000003,
		Name:  fmt.Sprintf("name %d, \"quoted\"", i),
		Score: float64(i) / 3,
		OK:    i%2 == 0,
		F32:   float32(i) + 0.5,
		Small: int32(-i),
		U64:   1<<63 + uint64(i),
	}
	if i%3 != 0 {
		age := int64(20 + i)
		r.Age = &age
	}
	if i%4 == 1 {
		note := "" // present but empty: not NULL
		r.Note = &note
	}
	for j := range i % 3 {
		r.Tags = append(r.Tags, fmt.Sprintf("t%d", j))
	}
	return r
}

// pqFields is what Read should deliver for pqRowAt(i).
func pqFields(i int) ([]string, []bool) {
	r := pqRowAt(i)
	f := []string{
		fmt.Sprint(r.ID), r.Name, fmt.Sprint(r.Score), fmt.Sprint(r.OK), "", "",
		fmt.Sprint(r.F32), fmt.Sprint(r.Small), fmt.Sprint(r.U64), "[" + strings.Join(r.Tags, ",") + "]",
	}
	nulls := make([]bool, len(f))
	if r.Age != nil {
		f[4] = fmt.Sprint(*r.Age)
	} else {
		nulls[4] = true
	}
	if r.Note == nil {
		nulls[5] = true
	}
	if !nulls[4] && !nulls[5] {
		nulls = nil
	}
	return f, nulls
}

func writeParquet(t testing.TB, path string, codec compress.Codec, from, to int, rowGroup int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[pqRow](f, parquet.Compression(codec), parquet.MaxRowsPerRowGroup(rowGroup))
	var rows []pqRow
	for i := from; i < to; i++ {
		rows = append(rows, pqRowAt(i))
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestParquet(t *testing.T) {
	wantCols := []string{"id", "name", "score", "ok", "age", "note", "f32", "small", "u64", "tags.list.element"}
	for _, codec := range []struct {
		name  string
		codec compress.Codec
	}{{"snappy", &parquet.Snappy}, {"zstd", &parquet.Zstd}, {"gzip", &parquet.Gzip}} {
		t.Run(codec.name, func(t *testing.T) {
			dir := t.TempDir()
			// A Spark-like directory: two part files, row groups of 7 rows.
			writeParquet(t, filepath.Join(dir, "part-00000-x.c000."+codec.name+".parquet"), codec.codec, 0, 50, 7)
			writeParquet(t, filepath.Join(dir, "part-00001-x.c000."+codec.name+".parquet"), codec.codec, 50, 80, 7)
			writeFile(t, filepath.Join(dir, "_SUCCESS"), "")
			s := mustOpen(t, dir, Options{})
			cols, err := s.Columns()
			if err != nil || !reflect.DeepEqual(cols, wantCols) {
				t.Fatalf("Columns() = %q, %v", cols, err)
			}
			for _, skip := range []int64{0, 1, 7, 13, 49, 50, 51, 79, 80, 90} {
				got, err := readAll(t, s, skip, 16)
				if err != nil {
					t.Fatal(err)
				}
				if want := max(0, 80-skip); int64(len(got)) != want {
					t.Fatalf("skip %d: %d records, want %d", skip, len(got), want)
				}
				for k, r := range got {
					i := int(skip) + k
					f, nulls := pqFields(i)
					line := int64(i + 1)
					if i >= 50 {
						line = int64(i - 50 + 1)
					}
					if r.Err != nil || r.Index != int64(i) || r.Line != line || !reflect.DeepEqual(r.Fields, f) || !reflect.DeepEqual(r.Nulls, nulls) {
						t.Fatalf("skip %d: record %v\nwant line %d fields %q nulls %v", skip, r, line, f, nulls)
					}
				}
			}
		})
	}
}

func TestParquetRowIndexAndChunks(t *testing.T) {
	dir := t.TempDir()
	// GraphAr vertex chunks: extension-less, found to be parquet by magic.
	for c := range 11 {
		writeParquet(t, filepath.Join(dir, fmt.Sprintf("chunk%d", c)), &parquet.Snappy, 3*c, 3*c+3, 100)
	}
	s := mustOpen(t, dir, Options{RowIndexColumn: true})
	if f := names(s.Files()); f[2] != "chunk2" || f[10] != "chunk10" {
		t.Fatalf("files %q", f)
	}
	cols, _ := s.Columns()
	if cols[len(cols)-1] != RowIndexColumnName || cols[0] != "id" {
		t.Fatalf("columns %q", cols)
	}
	got, err := readAll(t, s, 4, 5)
	if err != nil || len(got) != 29 {
		t.Fatalf("%d records, %v", len(got), err)
	}
	for _, r := range got {
		f, _ := pqFields(int(r.Index))
		if r.Fields[0] != f[0] || r.Fields[len(r.Fields)-1] != fmt.Sprint(r.Index) || len(r.Nulls) != len(r.Fields) && r.Nulls != nil {
			t.Fatalf("record %v", r)
		}
	}
}

func TestParquetLogicalTypes(t *testing.T) {
	type row struct {
		Dec  int64            `parquet:"dec,decimal(2:18)"`
		Dec2 int32            `parquet:"dec2,decimal(3:9)"`
		U    [16]byte         `parquet:"u,uuid"`
		D    int32            `parquet:"d,date"`
		B    []byte           `parquet:"b"`
		T96  deprecated.Int96 `parquet:"t96"`
		TS   time.Time        `parquet:"ts,timestamp(millisecond)"`
		TSU  time.Time        `parquet:"tsu,timestamp(microsecond)"`
		Old  time.Time        `parquet:"old,timestamp(millisecond)"`
		Tm   int32            `parquet:"tm,time(millisecond)"`
	}
	u := [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}
	// 2020-01-01T00:00:00.001Z: Julian day 2458850, 1ms into the day.
	t96 := deprecated.Int96{1000000, 0, 2458850}
	ts := time.UnixMilli(1267833034802).UTC()
	tsu := time.UnixMicro(1614834444123456).UTC()
	old := time.UnixMilli(-1500).UTC() // before the epoch: the fraction stays positive
	got := writeAndRead(t, []row{{Dec: -12345, Dec2: 5, U: u, D: 19000, B: []byte("raw"), T96: t96, TS: ts, TSU: tsu, Old: old, Tm: 3723004}})
	// Dates and times as the text date, datetime and timestamp properties
	// read, not their stored integers.
	want := []string{"-123.45", "0.005", "12345678-9abc-def0-0102-030405060708", "2022-01-08", "raw",
		"2020-01-01T00:00:00.001000", "2010-03-05T23:50:34.802000", "2021-03-04T05:07:24.123456", "1969-12-31T23:59:58.500000", "01:02:03.004000"}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Fields, want) || got[0].Nulls != nil {
		t.Fatalf("got %v, want %q", got, want)
	}
}

func TestAppendDecimal(t *testing.T) {
	for _, tc := range []struct {
		n     string
		scale int
		want  string
	}{
		{"12345", 2, "123.45"}, {"-12345", 2, "-123.45"}, {"5", 3, "0.005"}, {"-5", 1, "-0.5"},
		{"0", 2, "0.00"}, {"42", 0, "42"}, {"42", -2, "4200"}, {"123", 3, "0.123"},
	} {
		if got := string(appendDecimal(nil, tc.n, tc.scale)); got != tc.want {
			t.Errorf("appendDecimal(%s, %d) = %s, want %s", tc.n, tc.scale, got, tc.want)
		}
	}
}

func TestParquetCorrupt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.parquet")
	// A footer length of ~1.9 GB: refused before parquet-go allocates it.
	writeFile(t, p, "PAR1 this is not parquet PAR1")
	_, err := readAll(t, mustOpen(t, p, Options{}), 0, 0)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("err %v", err)
	}
	s := mustOpen(t, p, Options{})
	if _, err := s.Columns(); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Columns err %v", err)
	}
	// A real file cut short, and one with a damaged page.
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, good, &parquet.Snappy, 0, 2000, 500)
	data, _ := os.ReadFile(good)
	writeFile(t, p, string(data[:len(data)/2]))
	if _, err := readAll(t, mustOpen(t, p, Options{}), 0, 0); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("truncated: err %v", err)
	}
	for i := 100; i < len(data)/2; i += 7 {
		data[i] ^= 0x5a
	}
	writeFile(t, p, string(data))
	got, err := readAll(t, mustOpen(t, p, Options{}), 0, 0)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("damaged: %d records, err %v", len(got), err)
	}
	t.Logf("damaged: %d records, then %v", len(got), err)
}

// BenchmarkReadParquet reads 1M rows of three int64 columns (snappy).
func BenchmarkReadParquet(b *testing.B) {
	type edge struct {
		Src  int64 `parquet:"src"`
		Dst  int64 `parquet:"dst"`
		Date int64 `parquet:"creationDate"`
	}
	const rows = 1_000_000
	path := filepath.Join(b.TempDir(), "knows.parquet")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewGenericWriter[edge](f, parquet.Compression(&parquet.Snappy))
	batch := make([]edge, 0, 10000)
	for i := range rows {
		batch = append(batch, edge{int64(933 + i*7), int64(4139 + i*13), 1267833034802 + int64(i)*1000})
		if len(batch) == cap(batch) {
			if _, err := w.Write(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	s := mustOpen(b, path, Options{})
	b.ResetTimer()
	for range b.N {
		if n := countRecords(b, s, 3); n != rows {
			b.Fatalf("%d records", n)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestParquetListInOptionalStruct: a NULL list, or a list inside a NULL
// struct, is NULL, not an empty list; an empty list is "[]".
func TestParquetListInOptionalStruct(t *testing.T) {
	type inner struct {
		L []int64 `parquet:"l,optional,list"`
	}
	type row struct {
		ID int64  `parquet:"id"`
		S  *inner `parquet:"s,optional"`
	}
	got := writeAndRead(t, []row{{ID: 1}, {ID: 2, S: &inner{}}, {ID: 3, S: &inner{L: []int64{4, 5}}}, {ID: 4, S: &inner{L: []int64{}}}})
	want := []rec{
		{Fields: []string{"1", ""}, Nulls: []bool{false, true}},
		{Fields: []string{"2", ""}, Nulls: []bool{false, true}}, // the struct is there, its list is NULL
		{Fields: []string{"3", "[4,5]"}},
		{Fields: []string{"4", "[]"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i].Fields, want[i].Fields) || !reflect.DeepEqual(got[i].Nulls, want[i].Nulls) {
			t.Errorf("row %d: %v, want fields %q nulls %v", i, got[i], want[i].Fields, want[i].Nulls)
		}
	}
}

// writeAndRead writes rows to a Parquet file with parquet-go's schema for
// T and reads them back as records.
func writeAndRead[T any](t *testing.T, rows []T) []rec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "l.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := readAll(t, mustOpen(t, path, Options{}), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
