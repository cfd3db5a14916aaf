package source

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// The importer reads files a user hands it, which may be damaged or made
// to hurt: these targets feed it arbitrary bytes as each input format.
// Reading must end in records or an error naming the file, never a panic.
//
//	go test ./importer/source -run '^$' -fuzz FuzzParquetFile -fuzztime 60s
//	go test ./importer/source -run '^$' -fuzz FuzzGzipCSV -fuzztime 60s

// FuzzParquetFile reads arbitrary bytes as a Parquet file. The seeds are
// real files (several codecs and row groups) and their damaged variants.
func FuzzParquetFile(f *testing.F) {
	dir := f.TempDir()
	for i, codec := range []compress.Codec{&parquet.Snappy, &parquet.Zstd, &parquet.Uncompressed} {
		p := filepath.Join(dir, "seed.parquet")
		writeParquet(f, p, codec, 0, 7, int64(2+i))
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
		damaged := bytes.Clone(data)
		for j := 8; j < len(damaged)-8; j += 13 {
			damaged[j] ^= 0x5a
		}
		f.Add(damaged)
	}
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := mustOpen(t, p, Options{})
		if _, err := readAll(t, s, 0, 0); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("the error does not name the file: %v", err)
		}
		if _, err := s.Columns(); err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("Columns: the error does not name the file: %v", err)
		}
	})
}

// FuzzGzipCSV reads arbitrary bytes as a gzip-compressed CSV file. Where
// the bytes are a whole gzip stream, the records must be those of the
// decompressed text read as a plain file; otherwise an error naming the
// file.
func FuzzGzipCSV(f *testing.F) {
	f.Add([]byte(gz(f, "id,name\n1,a\n2,\"b\nc\"\n")))
	f.Add([]byte(gz(f, "")))
	f.Add([]byte(gz(f, "a,b\n")[:10]))
	f.Add([]byte(gz(f, "x,y\n") + gz(f, "1,2\n"))) // two members, as pigz writes
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.csv.gz")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readAll(t, mustOpen(t, p, Options{}), 0, 0)
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("the error does not name the file: %v", err)
		}
		zr, zerr := gzip.NewReader(bytes.NewReader(data))
		if zerr != nil {
			return
		}
		plain, zerr := io.ReadAll(io.LimitReader(zr, 1<<20))
		if zerr != nil || len(plain) == 1<<20 {
			return // not a whole stream (or too large to compare here)
		}
		if err != nil {
			t.Fatalf("a whole gzip stream of %d bytes: %v", len(plain), err)
		}
		// Read as plain text whatever its first bytes (text that starts
		// like gzip would be sniffed as compressed otherwise).
		plainText := false
		want, err := readAll(t, mustOpen(t, writeFile(t, filepath.Join(dir, "f.csv"), string(plain)), Options{Gzip: &plainText}), 0, 0)
		if err != nil {
			t.Fatalf("the decompressed text: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d records from the gzip file, %d from its text", len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i].Fields, want[i].Fields) || got[i].Line != want[i].Line || (got[i].Err == nil) != (want[i].Err == nil) {
				t.Fatalf("record %d: %v from the gzip file, %v from its text", i, got[i], want[i])
			}
		}
	})
}
