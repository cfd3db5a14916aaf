package importer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novagraph/novagraph/importer/source"
)

func TestFailedRowsSpecialRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "source0-x.failed")
	f := newFailedRows(path, ',', []string{"id", "name"}, false)
	rows := []keptRow{
		keep("x.csv", 2, []string{"#5", `a"b`}),
		{file: "x.csv", line: 3, fields: []string{`1"2,n`}, raw: true},
		keep("x.csv", 4, []string{"7", "c"}),
	}
	for _, r := range rows {
		if err := f.add(r, "why"); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.sync(); err != nil {
		t.Fatal(err)
	}
	// sync alone puts the rows in the file, before close.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "id,name\n# x.csv:2: why\n\"#5\",\"a\"\"b\"\n# x.csv:3: why\n1\"2,n\n# x.csv:4: why\n7,c\n"
	if string(b) != want {
		t.Fatalf("file =\n%s\nwant\n%s", b, want)
	}
	if _, err := f.close(); err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(path, source.Options{Format: "csv", Comment: failedComment, Header: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []source.Record
	err = src.Read(context.Background(), 0, 10, func(recs []source.Record) error {
		for _, r := range recs {
			r.Fields = slices.Clone(r.Fields)
			got = append(got, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !slices.Equal(got[0].Fields, []string{"#5", `a"b`}) || got[0].Err != nil ||
		got[1].Err == nil || !slices.Equal(got[2].Fields, []string{"7", "c"}) {
		t.Fatalf("read back %+v", got)
	}
}

func TestFailedRowsResumeWritesEachRowOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "source0-x.failed")
	first := newFailedRows(path, ',', []string{"id"}, false)
	for _, line := range []int64{3, 9} {
		if err := first.add(keep("data/x:1.csv", line, []string{"r"}), "bad: really"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := first.close(); err != nil {
		t.Fatal(err)
	}
	resumed := newFailedRows(path, ',', []string{"id"}, true)
	for _, line := range []int64{9, 12} {
		if err := resumed.add(keep("data/x:1.csv", line, []string{"r"}), "bad: really"); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := resumed.close(); n != 3 || err != nil {
		t.Fatalf("close = %d, %v; want the 3 rows of the file", n, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "# data/x:1.csv:"); got != 3 || strings.Count(string(b), "# data/x:1.csv:9:") != 1 {
		t.Fatalf("file holds %d rows, want 3 with line 9 once:\n%s", got, b)
	}
}

func TestRowCheckpointHash(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(file, []byte("1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Manager: ManagerConfig{SpaceName: "s"}, Sources: []Source{{Path: file}}}
	hash := func() string { return rowCheckpointHash(cfg, configHash(cfg), 7, dir, false) }
	base := hash()
	if again := hash(); again != base {
		t.Fatalf("same inputs, hashes %s and %s", base, again)
	}
	if other := rowCheckpointHash(cfg, configHash(cfg), 8, dir, false); other == base {
		t.Errorf("another space id, same hash")
	}
	cfg.Manager.Shard = "1/2"
	if sharded := hash(); sharded == base {
		t.Errorf("--shard 1/2, same hash as no shard")
	}
	cfg.Manager.Shard = ""
	if err := os.WriteFile(file, []byte("1,a\n2,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if grown := hash(); grown == base {
		t.Errorf("a row appended to the input, same hash")
	}
}
