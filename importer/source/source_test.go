package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// rec is a Record copied out of a batch.
type rec struct {
	File   string
	Line   int64
	Index  int64
	Fields []string
	Nulls  []bool
	Err    error
}

func (r rec) String() string {
	return fmt.Sprintf("%s:%d #%d %q nulls=%v err=%v", filepath.Base(r.File), r.Line, r.Index, r.Fields, r.Nulls, r.Err)
}

// readAll reads a whole source, copying records out of the batches and
// checking the batch invariants.
func readAll(t testing.TB, s *Source, skip int64, batch int) ([]rec, error) {
	t.Helper()
	var out []rec
	err := s.Read(context.Background(), skip, batch, func(rs []Record) error {
		if len(rs) == 0 || (batch > 0 && len(rs) > batch) {
			t.Fatalf("batch of %d records (batch size %d)", len(rs), batch)
		}
		for _, r := range rs {
			if r.Nulls != nil && len(r.Nulls) != len(r.Fields) {
				t.Fatalf("record %d: %d nulls for %d fields", r.Index, len(r.Nulls), len(r.Fields))
			}
			out = append(out, rec{r.File, r.Line, r.Index, append([]string(nil), r.Fields...), append([]bool(nil), r.Nulls...), r.Err})
			if r.Nulls == nil {
				out[len(out)-1].Nulls = nil
			}
		}
		return nil
	})
	return out, err
}

func mustOpen(t testing.TB, path string, opts Options) *Source {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	return s
}

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gz(t testing.TB, content string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(content))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lf is the expected line and fields of one record.
type lf struct {
	line   int64
	fields []string
}

func TestText(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		opts    Options
		want    []lf
		columns []string
	}{
		{
			name: "csv no header", file: "a.csv",
			content: "1,2,3\n4,5,6\n",
			want:    []lf{{1, []string{"1", "2", "3"}}, {2, []string{"4", "5", "6"}}},
		},
		{
			name: "csv header", file: "a.csv",
			content: "id,name\n1,ann\n2,bob",
			opts:    Options{Header: true},
			want:    []lf{{2, []string{"1", "ann"}}, {3, []string{"2", "bob"}}},
			columns: []string{"id", "name"},
		},
		{
			name: "pipe with header (LDBC)", file: "person_knows_person_0_0.csv",
			content: "Person.id|Person.id|creationDate\n933|4139|1267833034802\n933|6597069777240|1269442454015\n",
			opts:    Options{Header: true, Delimiter: "|"},
			want:    []lf{{2, []string{"933", "4139", "1267833034802"}}, {3, []string{"933", "6597069777240", "1269442454015"}}},
			columns: []string{"Person.id", "Person.id", "creationDate"},
		},
		{
			name: "tsv by extension", file: "a.tsv",
			content: "a b\tc\n\td\t\n",
			want:    []lf{{1, []string{"a b", "c"}}, {2, []string{"", "d", ""}}},
		},
		{
			name: "tab via escaped delimiter", file: "a.txt",
			content: "1\t2\n",
			opts:    Options{Delimiter: `\t`},
			want:    []lf{{1, []string{"1", "2"}}},
		},
		{
			name: "space delimiter keeps empty fields", file: "a.csv",
			content: "1  2\n",
			opts:    Options{Delimiter: " "},
			want:    []lf{{1, []string{"1", "", "2"}}},
		},
		{
			name: "quotes", file: "a.csv",
			content: `1,"a,b","say ""hi""",""` + "\n" + `"x"` + "\n" + `"",` + "\n",
			want: []lf{
				{1, []string{"1", "a,b", `say "hi"`, ""}},
				{2, []string{"x"}},
				{3, []string{"", ""}},
			},
		},
		{
			name: "newline inside quotes", file: "a.csv",
			content: "1,\"two\nlines\",x\n2,\"three\r\n\r\nlines\"\n3,y\n",
			want: []lf{
				{1, []string{"1", "two\nlines", "x"}},
				{3, []string{"2", "three\n\nlines"}},
				{6, []string{"3", "y"}},
			},
		},
		{
			name: "crlf", file: "a.csv",
			content: "id|v\r\n1|a\r\n2|\"b\"\r\n\r\n3|c\r\n",
			opts:    Options{Header: true, Delimiter: "|"},
			want:    []lf{{2, []string{"1", "a"}}, {3, []string{"2", "b"}}, {5, []string{"3", "c"}}},
			columns: []string{"id", "v"},
		},
		{
			name: "comments and blank lines", file: "a.csv",
			content: "# comment\n\nid,v\n# another, \"with quote\n1,a\n\n2,b\n",
			opts:    Options{Header: true, Comment: "#"},
			want:    []lf{{5, []string{"1", "a"}}, {7, []string{"2", "b"}}},
			columns: []string{"id", "v"},
		},
		{
			name: "multi-byte comment prefix", file: "a.csv",
			content: "//x\n/a\n",
			opts:    Options{Comment: "//"},
			want:    []lf{{2, []string{"/a"}}},
		},
		{
			name: "trim space", file: "a.csv",
			content: " 1 , a b ,  \"q \" , x\n   \n2,b\n",
			opts:    Options{TrimSpace: true},
			want:    []lf{{1, []string{"1", "a b", "q ", "x"}}, {3, []string{"2", "b"}}},
		},
		{
			name: "lazy quotes", file: "a.csv",
			content: "1,a\"b,\"c\"d\"\n",
			opts:    Options{LazyQuotes: true},
			want:    []lf{{1, []string{"1", `a"b`, `c"d`}}},
		},
		{
			name: "bom and no final newline", file: "a.csv",
			content: "\xef\xbb\xbfid,v\n1,a",
			opts:    Options{Header: true},
			want:    []lf{{2, []string{"1", "a"}}},
			columns: []string{"id", "v"},
		},
		{
			name: "row index column", file: "a.csv",
			content: "id\n7\n8\n",
			opts:    Options{Header: true, RowIndexColumn: true},
			want:    []lf{{2, []string{"7", "0"}}, {3, []string{"8", "1"}}},
			columns: []string{"id", RowIndexColumnName},
		},
		{
			name: "header only", file: "a.csv",
			content: "id,v\n",
			opts:    Options{Header: true},
			columns: []string{"id", "v"},
		},
		{
			name: "empty file", file: "a.csv",
		},
		{
			name: "snap", file: "edges.txt",
			content: "# Directed graph\r\n% matrix market style\r\n  # indented comment\r\n0\t1\r\n1  2   \r\n \t3 \t 4\t\r\n\r\n5 6 7\r\n",
			opts:    Options{Format: FormatSNAP},
			want: []lf{
				{4, []string{"0", "1"}}, {5, []string{"1", "2"}}, {6, []string{"3", "4"}}, {8, []string{"5", "6", "7"}},
			},
		},
		{
			name: "snap header of counts", file: "email-Enron.txt",
			content: "36692 367662\n0\t1\n1\t0\n",
			opts:    Options{Format: FormatSNAP, Header: true},
			want:    []lf{{2, []string{"0", "1"}}, {3, []string{"1", "0"}}},
			columns: []string{"36692", "367662"},
		},
		{
			name: "snap quotes are data", file: "e.txt",
			content: "\"a b\" c\n",
			opts:    Options{Format: FormatSNAP},
			want:    []lf{{1, []string{`"a`, `b"`, "c"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(t.TempDir(), tc.file), tc.content)
			for _, batch := range []int{1, 2, 0} {
				s := mustOpen(t, path, tc.opts)
				got, err := readAll(t, s, 0, batch)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("batch %d: got %d records %v, want %d", batch, len(got), got, len(tc.want))
				}
				for i, r := range got {
					w := tc.want[i]
					if r.Err != nil || r.File != path || r.Line != w.line || r.Index != int64(i) || !reflect.DeepEqual(r.Fields, w.fields) {
						t.Errorf("batch %d: record %d = %v, want line %d fields %q", batch, i, r, w.line, w.fields)
					}
				}
				cols, err := s.Columns()
				if err != nil || !reflect.DeepEqual(cols, tc.columns) {
					t.Errorf("Columns() = %q, %v; want %q", cols, err, tc.columns)
				}
			}
		})
	}
}

func TestGzip(t *testing.T) {
	dir := t.TempDir()
	const content = "id|v\r\n1|a\r\n2|\"b\nc\"\r\n"
	want := []lf{{2, []string{"1", "a"}}, {3, []string{"2", "b\nc"}}}
	no := false
	for _, tc := range []struct {
		name string
		file string
		data string
		opts Options
	}{
		{"extension", "a.csv.gz", gz(t, content), Options{}},
		{"magic bytes, csv extension", "b.csv", gz(t, content), Options{}},
		{"magic bytes, no extension", "chunk0", gz(t, content), Options{}},
		{"concatenated members", "c.csv.gz", gz(t, "id|v\r\n1|a\r\n") + gz(t, "2|\"b\nc\"\r\n"), Options{}},
		{"gzip false reads raw", "d.gz", content, Options{Gzip: &no}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, tc.file), tc.data)
			opts := tc.opts
			opts.Header, opts.Delimiter, opts.Format = true, "|", "csv"
			got, err := readAll(t, mustOpen(t, path, opts), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 || got[0].Line != 2 || got[1].Line != 3 ||
				!reflect.DeepEqual(got[0].Fields, want[0].fields) || !reflect.DeepEqual(got[1].Fields, want[1].fields) {
				t.Fatalf("got %v", got)
			}
		})
	}
}

func TestBadRows(t *testing.T) {
	type wantRec struct {
		line   int64
		fields []string
		err    error // nil: a good record
		eline  int64
		col    int
	}
	tests := []struct {
		name    string
		content string
		opts    Options
		want    []wantRec
	}{
		{
			name:    "bare quote",
			content: "id,v\n1,a\n2,b\"c\n3,d\n",
			opts:    Options{Header: true},
			want: []wantRec{
				{line: 2, fields: []string{"1", "a"}},
				{line: 3, fields: []string{`2,b"c`}, err: csv.ErrBareQuote, eline: 3, col: 4},
				{line: 4, fields: []string{"3", "d"}},
			},
		},
		{
			name:    "quote after quoted field",
			content: "1,\"a\"x,2\n3,4\n",
			want: []wantRec{
				{line: 1, fields: []string{`1,"a"x,2`}, err: csv.ErrQuote, eline: 1, col: 5},
				{line: 2, fields: []string{"3", "4"}},
			},
		},
		{
			name:    "field count",
			content: "1,2,3\n4,5\n6,7,8\n9,10,11,12\n",
			opts:    Options{FieldsPerRecord: 3},
			want: []wantRec{
				{line: 1, fields: []string{"1", "2", "3"}},
				{line: 2, fields: []string{"4", "5"}, err: csv.ErrFieldCount, eline: 2, col: 1},
				{line: 3, fields: []string{"6", "7", "8"}},
				{line: 4, fields: []string{"9", "10", "11", "12"}, err: csv.ErrFieldCount, eline: 4, col: 1},
			},
		},
		{
			name:    "field count with row index column",
			content: "1,2\n4\n",
			opts:    Options{FieldsPerRecord: 2, RowIndexColumn: true},
			want: []wantRec{
				{line: 1, fields: []string{"1", "2", "0"}},
				{line: 2, fields: []string{"4"}, err: csv.ErrFieldCount, eline: 2, col: 1},
			},
		},
		{
			// A quoted field that never closes would swallow the file; the
			// record is its first line and reading resumes on the next.
			name:    "missing closing quote resyncs",
			content: "1,\"abc\n2,def\n3,\"g\"\n4,h\n",
			want: []wantRec{
				{line: 1, fields: []string{`1,"abc`}, err: csv.ErrQuote, eline: 3, col: 3},
				{line: 2, fields: []string{"2", "def"}},
				{line: 3, fields: []string{"3", "g"}},
				{line: 4, fields: []string{"4", "h"}},
			},
		},
		{
			name:    "unterminated quote at end of file",
			content: "1,a\n2,\"b\n3,c\n",
			want: []wantRec{
				{line: 1, fields: []string{"1", "a"}},
				{line: 2, fields: []string{`2,"b`}, err: csv.ErrQuote, eline: 3, col: 4},
				{line: 3, fields: []string{"3", "c"}},
			},
		},
		{
			name:    "unterminated quote, last line without newline",
			content: "1,\"b",
			want: []wantRec{
				{line: 1, fields: []string{`1,"b`}, err: csv.ErrQuote, eline: 1, col: 5},
			},
		},
		{
			// The quoted field closed fine; the fault is later: the whole
			// record (both lines) is the bad record.
			name:    "fault after a closed multi-line field",
			content: "1,\"a\nb\",c\"d\n2,e\n",
			want: []wantRec{
				{line: 1, fields: []string{"1,\"a\nb\",c\"d"}, err: csv.ErrBareQuote, eline: 2, col: 5},
				{line: 3, fields: []string{"2", "e"}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(t.TempDir(), "bad.csv"), tc.content)
			got, err := readAll(t, mustOpen(t, path, tc.opts), 0, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d records %v, want %d", len(got), got, len(tc.want))
			}
			for i, r := range got {
				w := tc.want[i]
				if r.File != path || r.Line != w.line || r.Index != int64(i) || !reflect.DeepEqual(r.Fields, w.fields) {
					t.Errorf("record %d = %v, want line %d fields %q", i, r, w.line, w.fields)
				}
				if w.err == nil {
					if r.Err != nil {
						t.Errorf("record %d: unexpected error %v", i, r.Err)
					}
					continue
				}
				var pe *ParseError
				if !errors.As(r.Err, &pe) || !errors.Is(r.Err, w.err) {
					t.Errorf("record %d: err %v, want a ParseError wrapping %v", i, r.Err, w.err)
					continue
				}
				if pe.File != path || pe.StartLine != w.line || pe.Line != w.eline || pe.Column != w.col {
					t.Errorf("record %d: %+v, want start %d line %d col %d", i, pe, w.line, w.eline, w.col)
				}
				wantMsg := fmt.Sprintf("%s: line %d, column %d: %v", path, w.eline, w.col, w.err)
				if w.eline != w.line {
					wantMsg = fmt.Sprintf("%s: record starting on line %d: line %d, column %d: %v", path, w.line, w.eline, w.col, w.err)
				}
				if pe.Error() != wantMsg {
					t.Errorf("error %q, want %q", pe.Error(), wantMsg)
				}
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	defer func(b, m int) { readBufSize, maxRecordBytes = b, m }(readBufSize, maxRecordBytes)
	readBufSize, maxRecordBytes = 16, 64
	long := strings.Repeat("x", 200)
	content := "1,a\n" + long + "\n2,\"b\n" + long + "\n3,c\n4," + long
	path := writeFile(t, filepath.Join(t.TempDir(), "long.csv"), content)
	got, err := readAll(t, mustOpen(t, path, Options{}), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line int64
		err  error
		f0   string
	}{
		{1, nil, "1"},
		{2, ErrTooLong, long[:64]},
		{3, ErrTooLong, `2,"b`}, // the quoted field runs into the long line: resync
		{4, ErrTooLong, long[:64]},
		{5, nil, "3"},
		{6, ErrTooLong, "4," + long[:62]},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d records %v", len(got), got)
	}
	for i, w := range want {
		r := got[i]
		if r.Line != w.line || !errors.Is(r.Err, w.err) || (w.err == nil) != (r.Err == nil) || r.Fields[0] != w.f0 {
			t.Errorf("record %d = %v, want line %d err %v field0 %q", i, r, w.line, w.err, w.f0)
		}
	}
}

// TestSmallBuffer reads a file through a tiny, growing line buffer (lines
// and quoted records across refills) and compares with the default buffer.
func TestSmallBuffer(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "%d,%s,\"q%d\n%s\"\r\n", i, strings.Repeat("v", i%37), i, strings.Repeat("w", i%13))
	}
	path := writeFile(t, filepath.Join(t.TempDir(), "a.csv"), b.String())
	want, err := readAll(t, mustOpen(t, path, Options{}), 0, 0)
	if err != nil || len(want) != 500 {
		t.Fatalf("%d records, %v", len(want), err)
	}
	defer func(n int) { readBufSize = n }(readBufSize)
	readBufSize = 7
	got, err := readAll(t, mustOpen(t, path, Options{}), 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("small buffer differs")
	}
}

func TestSkip(t *testing.T) {
	dir := t.TempDir()
	// Three files: header, comments, a bad row, a multi-line record.
	writeFile(t, filepath.Join(dir, "p-1.csv"), "id,v\n1,a\n2,\"b\nb\"\n")
	writeFile(t, filepath.Join(dir, "p-2.csv"), "id,v\n# c\n3,c\"\n4,d\n5,e\n")
	writeFile(t, filepath.Join(dir, "p-10.csv"), "id,v\n6,f\n")
	s := mustOpen(t, filepath.Join(dir, "p-*.csv"), Options{Header: true, Comment: "#", RowIndexColumn: true})
	all, err := readAll(t, s, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 || all[2].Err == nil || all[5].Fields[0] != "6" || all[5].Fields[2] != "5" {
		t.Fatalf("records %v", all)
	}
	for skip := int64(0); skip <= int64(len(all))+1; skip++ {
		for _, batch := range []int{1, 2, 4} {
			got, err := readAll(t, s, skip, batch)
			if err != nil {
				t.Fatal(err)
			}
			want := all[min(skip, int64(len(all))):]
			if len(got) != len(want) {
				t.Fatalf("skip %d: %d records, want %d", skip, len(got), len(want))
			}
			for i := range got {
				if got[i].String() != want[i].String() {
					t.Fatalf("skip %d batch %d: record %v, want %v", skip, batch, got[i], want[i])
				}
			}
		}
	}
}

func TestSkipSnap(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "# c\r\n1 2\r\n\r\n3\t4\r\n")
	writeFile(t, filepath.Join(dir, "b.txt"), gz(t, "% c\n5  6\n7 8"))
	s := mustOpen(t, filepath.Join(dir, "*.txt"), Options{Format: FormatSNAP, RowIndexColumn: true})
	all, err := readAll(t, s, 0, 0)
	if err != nil || len(all) != 4 || all[3].Line != 3 || all[3].Fields[2] != "3" {
		t.Fatalf("%v %v", all, err)
	}
	for skip := range int64(6) {
		got, err := readAll(t, s, skip, 1)
		if err != nil {
			t.Fatal(err)
		}
		if want := all[min(skip, 4):]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("skip %d: %v, want %v", skip, got, want)
		}
	}
}

func TestFileOrder(t *testing.T) {
	t.Run("glob", func(t *testing.T) {
		dir := t.TempDir()
		for _, n := range []string{"x10.csv", "x2.csv", "x1.csv", "y.csv", ".x3.csv", "x4.csv.crc"} {
			writeFile(t, filepath.Join(dir, n), "1\n")
		}
		s := mustOpen(t, filepath.Join(dir, "x*.csv*"), Options{})
		want := []string{"x1.csv", "x2.csv", "x10.csv"}
		if got := names(s.Files()); !reflect.DeepEqual(got, want) {
			t.Fatalf("files %q, want %q", got, want)
		}
	})
	t.Run("spark", func(t *testing.T) {
		dir := t.TempDir()
		for _, n := range []string{
			"_SUCCESS", ".part-00000-abc-c000.csv.crc", "part-00001-abc-c000.csv.gz", "part-00000-abc-c000.csv",
			"_temporary/0/part-00009.csv", "part-00010-abc-c000.csv", ".hidden",
		} {
			data := "id\n" + n + "\n"
			if strings.HasSuffix(n, ".gz") {
				data = gz(t, data)
			}
			writeFile(t, filepath.Join(dir, n), data)
		}
		s := mustOpen(t, dir, Options{Header: true})
		want := []string{"part-00000-abc-c000.csv", "part-00001-abc-c000.csv.gz", "part-00010-abc-c000.csv"}
		if got := names(s.Files()); !reflect.DeepEqual(got, want) {
			t.Fatalf("files %q, want %q", got, want)
		}
		got, err := readAll(t, s, 0, 0)
		if err != nil || len(got) != 3 {
			t.Fatalf("%v %v", got, err)
		}
		for i, r := range got {
			if r.Fields[0] != want[i] || r.Line != 2 || r.Index != int64(i) {
				t.Errorf("record %v", r)
			}
		}
	})
	t.Run("graphar chunks", func(t *testing.T) {
		dir := t.TempDir()
		var order []string
		for i := range 12 {
			order = append(order, fmt.Sprintf("chunk%d", i))
		}
		// Written in lexical order (chunk10 before chunk2); each has a header
		// and two rows.
		for i := range 12 {
			writeFile(t, filepath.Join(dir, fmt.Sprintf("chunk%d", i)), fmt.Sprintf("id|name\n%d|a\n%d|b\n", 2*i, 2*i+1))
		}
		s := mustOpen(t, dir, Options{Header: true, Delimiter: "|", RowIndexColumn: true})
		if got := names(s.Files()); !reflect.DeepEqual(got, order) {
			t.Fatalf("files %q, want %q", got, order)
		}
		cols, err := s.Columns()
		if err != nil || !reflect.DeepEqual(cols, []string{"id", "name", RowIndexColumnName}) {
			t.Fatalf("columns %q %v", cols, err)
		}
		got, err := readAll(t, s, 5, 0)
		if err != nil || len(got) != 24-5 {
			t.Fatalf("%d records %v", len(got), err)
		}
		for _, r := range got {
			idx := fmt.Sprint(r.Index)
			if r.Fields[0] != idx || r.Fields[2] != idx || filepath.Base(r.File) != fmt.Sprintf("chunk%d", r.Index/2) {
				t.Fatalf("record %v", r)
			}
		}
	})
	t.Run("graphar edge parts", func(t *testing.T) {
		dir := t.TempDir()
		for _, p := range []string{"part10/chunk0", "part2/chunk1", "part2/chunk0", "part0/chunk0"} {
			writeFile(t, filepath.Join(dir, p), p+"\n")
		}
		s := mustOpen(t, dir, Options{})
		var rel []string
		for _, f := range s.Files() {
			r, _ := filepath.Rel(dir, f)
			rel = append(rel, filepath.ToSlash(r))
		}
		if want := []string{"part0/chunk0", "part2/chunk0", "part2/chunk1", "part10/chunk0"}; !reflect.DeepEqual(rel, want) {
			t.Fatalf("files %q, want %q", rel, want)
		}
	})
}

func names(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}

func TestNaturalLess(t *testing.T) {
	sorted := []string{"", "a", "a0", "a01", "a1", "a2", "a10", "a10b", "a10c", "b", "chunk9", "chunk10", "part-00009", "part-00010", "part-10"}
	for i := range sorted {
		for j := range sorted {
			if got := naturalLess(sorted[i], sorted[j]); got != (i < j) {
				t.Errorf("naturalLess(%q, %q) = %v", sorted[i], sorted[j], got)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	t.Run("missing path", func(t *testing.T) {
		p := filepath.Join(dir, "nope.csv")
		if _, err := Open(p, Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("empty glob", func(t *testing.T) {
		p := filepath.Join(dir, "none-*.csv")
		if _, err := Open(p, Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		p := filepath.Join(dir, "empty")
		writeFile(t, filepath.Join(p, "_SUCCESS"), "")
		if _, err := Open(p, Options{}); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("bad options", func(t *testing.T) {
		p := writeFile(t, filepath.Join(dir, "ok.csv"), "1\n")
		for _, o := range []Options{{Format: "xml"}, {Delimiter: ",,"}, {Delimiter: `"`}} {
			if _, err := Open(p, o); err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("%+v: err %v", o, err)
			}
		}
		if _, err := Open(writeFile(t, filepath.Join(dir, "x.orc"), ""), Options{}); err == nil {
			t.Errorf("orc accepted")
		}
	})
	t.Run("unreadable file", func(t *testing.T) {
		p := writeFile(t, filepath.Join(dir, "gone", "a.csv"), "1\n")
		q := writeFile(t, filepath.Join(dir, "gone", "b.csv"), "2\n")
		s := mustOpen(t, filepath.Join(dir, "gone"), Options{})
		os.Remove(q)
		got, err := readAll(t, s, 0, 0)
		if err == nil || !strings.Contains(err.Error(), q) {
			t.Fatalf("err %v", err)
		}
		if len(got) != 1 || got[0].File != p {
			t.Fatalf("records before the failure: %v", got)
		}
	})
	t.Run("corrupt gzip", func(t *testing.T) {
		var b strings.Builder
		for i := range 20000 {
			fmt.Fprintf(&b, "%d,%d\n", i, i*7919%10007)
		}
		data := []byte(gz(t, b.String()))
		data[len(data)/2] ^= 0xff
		p := writeFile(t, filepath.Join(dir, "corrupt.csv.gz"), string(data))
		got, err := readAll(t, mustOpen(t, p, Options{}), 0, 0)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line ") {
			t.Fatalf("err %v", err)
		}
		t.Logf("%d records before: %v", len(got), err)
		// Truncated stream.
		p = writeFile(t, filepath.Join(dir, "trunc.csv.gz"), string(data[:len(data)/3]))
		if _, err = readAll(t, mustOpen(t, p, Options{}), 0, 0); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("err %v", err)
		}
		// Not gzip at all.
		p = writeFile(t, filepath.Join(dir, "plain.csv.gz"), "1,2\n")
		if _, err = readAll(t, mustOpen(t, p, Options{}), 0, 0); err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("fn error stops", func(t *testing.T) {
		p := writeFile(t, filepath.Join(dir, "fn.csv"), "1\n2\n3\n")
		stop := errors.New("stop")
		calls := 0
		err := mustOpen(t, p, Options{}).Read(context.Background(), 0, 1, func([]Record) error {
			calls++
			return stop
		})
		if err != stop || calls != 1 {
			t.Fatalf("err %v after %d calls", err, calls)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		p := writeFile(t, filepath.Join(dir, "ctx.csv"), "1\n2\n3\n")
		ctx, cancel := context.WithCancel(context.Background())
		err := mustOpen(t, p, Options{}).Read(ctx, 0, 1, func([]Record) error {
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	})
}

// TestAgainstEncodingCSV compares the parser with encoding/csv on generated
// files full of quoting corner cases.
func TestAgainstEncodingCSV(t *testing.T) {
	pieces := []string{"a", "b c", "", `"`, `""`, ",", "\n", "\r\n", "x\"y", " ", "|", "\t", "é"}
	seed := uint64(1)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int((seed >> 33) % uint64(n))
	}
	dir := t.TempDir()
	for iter := range 300 {
		var raw strings.Builder
		for range 1 + rnd(30) {
			raw.WriteString(pieces[rnd(len(pieces))])
		}
		content := raw.String()
		for _, lazy := range []bool{false, true} {
			cr := csv.NewReader(strings.NewReader(content))
			cr.FieldsPerRecord = -1
			cr.LazyQuotes = lazy
			want, werr := cr.ReadAll()
			path := writeFile(t, filepath.Join(dir, fmt.Sprintf("f%d.csv", iter)), content)
			got, err := readAll(t, mustOpen(t, path, Options{LazyQuotes: lazy}), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if werr != nil {
				bad := false
				for _, r := range got {
					bad = bad || r.Err != nil
				}
				if !bad {
					t.Errorf("%q lazy=%v: encoding/csv: %v; we found no bad record: %v", content, lazy, werr, got)
				}
				continue
			}
			if len(got) != len(want) {
				t.Errorf("%q lazy=%v: %d records %v, encoding/csv %d %q", content, lazy, len(got), got, len(want), want)
				continue
			}
			for i := range got {
				if got[i].Err != nil || !reflect.DeepEqual(got[i].Fields, want[i]) {
					t.Errorf("%q lazy=%v: record %d %v, encoding/csv %q", content, lazy, i, got[i], want[i])
				}
			}
			// Lines: encoding/csv's FieldPos of the first field.
			cr = csv.NewReader(strings.NewReader(content))
			cr.FieldsPerRecord = -1
			cr.LazyQuotes = lazy
			for i := 0; ; i++ {
				if _, err := cr.Read(); err != nil {
					break
				}
				if line, _ := cr.FieldPos(0); int64(line) != got[i].Line {
					t.Errorf("%q: record %d line %d, encoding/csv %d", content, i, got[i].Line, line)
				}
			}
		}
	}
}

func FuzzAgainstEncodingCSV(f *testing.F) {
	for _, s := range []string{"a,b\n", "\"a\n\"\"b\",c\r\n", "a\"b,c", "\"a\"b", "\n\n\"", "x\r"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, content string, lazy bool) {
		if strings.HasPrefix(content, "\xef\xbb\xbf") {
			return
		}
		cr := csv.NewReader(strings.NewReader(content))
		cr.FieldsPerRecord = -1
		cr.LazyQuotes = lazy
		want, werr := cr.ReadAll()
		path := filepath.Join(t.TempDir(), "f.csv")
		os.WriteFile(path, []byte(content), 0o644)
		got, err := readAll(t, mustOpen(t, path, Options{LazyQuotes: lazy}), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if werr != nil {
			for _, r := range got {
				if r.Err != nil {
					return
				}
			}
			t.Fatalf("encoding/csv: %v; no bad record: %v", werr, got)
		}
		if len(got) != len(want) {
			t.Fatalf("%d records %v, encoding/csv %q", len(got), got, want)
		}
		for i := range got {
			if got[i].Err != nil || !reflect.DeepEqual(got[i].Fields, want[i]) {
				t.Fatalf("record %d %v, encoding/csv %q", i, got[i], want[i])
			}
		}
	})
}

// TestPartitionColumns: a Spark table written with partitionBy keeps the
// partition values in its key=value directories, not in its files; they
// become the last columns of every record, as Spark reads them back.
func TestPartitionColumns(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "country=NL", "year=2024", "part-00000.csv"), "id,name\n1,a\n")
	writeFile(t, filepath.Join(dir, "country=US%20X", "year=__HIVE_DEFAULT_PARTITION__", "part-00000.csv"), "id,name\n2,b\n")
	writeFile(t, filepath.Join(dir, "_SUCCESS"), "")
	s := mustOpen(t, dir, Options{Header: true, RowIndexColumn: true})
	cols, err := s.Columns()
	if err != nil || !reflect.DeepEqual(cols, []string{"id", "name", "country", "year", RowIndexColumnName}) {
		t.Fatalf("columns %v, %v", cols, err)
	}
	got, err := readAll(t, s, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 ||
		!reflect.DeepEqual(got[0].Fields, []string{"1", "a", "NL", "2024", "0"}) || got[0].Nulls != nil ||
		!reflect.DeepEqual(got[1].Fields, []string{"2", "b", "US X", "", "1"}) ||
		!reflect.DeepEqual(got[1].Nulls, []bool{false, false, false, true, false}) {
		t.Fatalf("records %v", got)
	}
	// Files in different partition keys are not one table.
	odd := t.TempDir()
	writeFile(t, filepath.Join(odd, "a=1", "part-0.csv"), "1\n")
	writeFile(t, filepath.Join(odd, "b=1", "part-1.csv"), "2\n")
	if _, err := Open(odd, Options{}); err == nil || !strings.Contains(err.Error(), "must share their partition columns") {
		t.Fatalf("mixed partition keys: %v", err)
	}
}
