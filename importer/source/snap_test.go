package source

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// sharedData is <repo root>/../shared/data, the repo root being the
// directory that holds go.mod.
func sharedData(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "data")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory")
		}
		dir = parent
	}
}

func sharedFile(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(sharedData(t), rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s is absent (%v): skipping", p, err)
	}
	return p
}

// countRecords reads a source, checking every record has want fields.
func countRecords(t testing.TB, s *Source, wantFields int) int64 {
	t.Helper()
	n, _ := countLines(t, s, wantFields)
	return n
}

// countLines is countRecords that also returns the last record's line.
func countLines(t testing.TB, s *Source, wantFields int) (int64, int64) {
	t.Helper()
	var n, last int64
	err := s.Read(context.Background(), 0, 0, func(rs []Record) error {
		for _, r := range rs {
			if r.Err != nil || len(r.Fields) != wantFields || r.Index != n {
				return fmt.Errorf("record %s:%d #%d %q: %v", r.File, r.Line, r.Index, r.Fields, r.Err)
			}
			n++
			last = r.Line
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, last
}

func TestSnapShared(t *testing.T) {
	for _, tc := range []struct {
		file   string
		opts   Options
		fields int
		want   int64
		last   int64 // line of the last record
	}{
		// # comments, tab-separated, CRLF, gzip.
		{"snap/soc-Slashdot0902/soc-Slashdot0902.txt.gz", Options{Format: FormatSNAP}, 2, 948464, 948464 + 4},
		// First line is a header of counts.
		{"snap/email-Enron/email-Enron.txt", Options{Format: FormatSNAP, Header: true}, 2, 367662, 367662 + 1},
		{"snap/gstest-p2p-Gnutella31/p2p-31.e", Options{Format: FormatSNAP}, 3, 147892, 147892},
		{"snap/ego-Facebook/facebook_combined.txt.gz", Options{Format: FormatSNAP}, 2, 88234, 88234},
		{"snap/kuzu-wiki-Vote/edges.csv", Options{}, 2, 103689, 103689},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			if testing.Short() && tc.want > 200000 {
				t.Skip("large file in -short mode")
			}
			s := mustOpen(t, sharedFile(t, tc.file), tc.opts)
			if got, last := countLines(t, s, tc.fields); got != tc.want || last != tc.last {
				t.Fatalf("%d records, the last on line %d; want %d, %d", got, last, tc.want, tc.last)
			}
		})
	}
}

// TestSnapSlashdotLines checks the positions against the file itself: the
// first record is on the line after the 4 comment lines.
func TestSnapSlashdotLines(t *testing.T) {
	s := mustOpen(t, sharedFile(t, "snap/soc-Slashdot0902/soc-Slashdot0902.txt.gz"), Options{Format: FormatSNAP})
	var first []rec
	stop := fmt.Errorf("enough")
	err := s.Read(context.Background(), 0, 3, func(rs []Record) error {
		for _, r := range rs {
			first = append(first, rec{r.File, r.Line, r.Index, append([]string(nil), r.Fields...), nil, r.Err})
		}
		return stop
	})
	if err != stop || len(first) != 3 {
		t.Fatalf("%v %v", first, err)
	}
	if first[0].Line != 5 || first[0].Fields[0] != "0" || first[2].Line != 7 {
		t.Fatalf("first records %v", first)
	}
}

// BenchmarkReadCSV reads 1M generated `id|id|timestamp` rows.
func BenchmarkReadCSV(b *testing.B) {
	const rows = 1_000_000
	path := filepath.Join(b.TempDir(), "knows.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "Person.id|Person.id|creationDate")
	for i := range rows {
		fmt.Fprintf(w, "%d|%d|%d\n", 933+i*7, 4139+i*13, 1267833034802+int64(i)*1000)
	}
	w.Flush()
	f.Close()
	st, _ := os.Stat(path)
	s := mustOpen(b, path, Options{Header: true, Delimiter: "|"})
	b.SetBytes(st.Size())
	b.ResetTimer()
	for range b.N {
		n := countRecords(b, s, 3)
		if n != rows {
			b.Fatalf("%d records", n)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkReadSnapSlashdot reads the gzipped SNAP soc-Slashdot0902 file.
func BenchmarkReadSnapSlashdot(b *testing.B) {
	s := mustOpen(b, sharedFile(b, "snap/soc-Slashdot0902/soc-Slashdot0902.txt.gz"), Options{Format: FormatSNAP})
	b.ResetTimer()
	for range b.N {
		if n := countRecords(b, s, 2); n != 948464 {
			b.Fatalf("%d records", n)
		}
	}
	b.ReportMetric(948464*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkReadCSVQuoted reads 200k rows whose text fields are quoted (the
// slow path): `id,"name, with comma","say ""hi""",date`.
func BenchmarkReadCSVQuoted(b *testing.B) {
	const rows = 200_000
	path := filepath.Join(b.TempDir(), "quoted.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range rows {
		fmt.Fprintf(w, "%d,\"name %d, x\",\"say \"\"hi\"\"\",%d\n", i, i, 1267833034802+int64(i))
	}
	w.Flush()
	f.Close()
	s := mustOpen(b, path, Options{})
	b.ResetTimer()
	for range b.N {
		if n := countRecords(b, s, 4); n != rows {
			b.Fatalf("%d records", n)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
