package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBytesReadReachesSize checks the progress counter the importer's ETA
// is computed from: after a whole Read, BytesRead equals Size, for plain
// and gzipped files.
func TestBytesReadReachesSize(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("1,2\n", 50000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte(text), 0o644)
	os.WriteFile(filepath.Join(dir, "b.csv.gz"), gz.Bytes(), 0o644)
	s, err := Open(filepath.Join(dir, "*"), Options{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Columns(); err != nil { // reads a header: not progress
		t.Fatal(err)
	}
	if s.BytesRead() != 0 {
		t.Fatalf("BytesRead before reading = %d", s.BytesRead())
	}
	n := 0
	if err := s.Read(context.Background(), 0, 1000, func(rs []Record) error { n += len(rs); return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 100000-2 || s.BytesRead() != s.Size() || s.Size() != int64(len(text)+gz.Len()) {
		t.Fatalf("records %d, BytesRead %d, Size %d, want 99998 and %d", n, s.BytesRead(), s.Size(), len(text)+gz.Len())
	}
}
