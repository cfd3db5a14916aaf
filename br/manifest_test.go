package br

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestRefusesDamagedBackups: Verify names the file that is
// missing, short or changed, and a store without a manifest is no backup.
func TestManifestRefusesDamagedBackups(t *testing.T) {
	dir := t.TempDir()
	st := DirStore{Dir: dir}
	if _, err := ReadManifest(st); !errors.Is(err, ErrNoManifest) {
		t.Fatalf("an empty directory: %v, want ErrNoManifest", err)
	}
	write := func(name, body string) File {
		t.Helper()
		f, err := create(st, name, func(w io.Writer) error { _, err := io.WriteString(w, body); return err })
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	m := &Manifest{Format: manifestFormat, Snapshot: "s", Catalog: write(catalogFile, "catalog bytes"),
		Spaces: []SpaceBackup{{ID: 1, Name: "g", Partitions: 2, Parts: []PartBackup{
			{Part: 1, File: write("data/1/1.sst", "first partition")},
			{Part: 2, File: write("data/1/2.sst", "second partition")},
		}}}}
	if err := writeManifest(st, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(st); err != nil {
		t.Fatalf("an intact backup: %v", err)
	}
	for _, tc := range []struct {
		name   string
		damage func(path string) error
		says   string
	}{
		{"changed", func(p string) error { return os.WriteFile(p, []byte("second partitioN"), 0o644) }, "data/1/2.sst is damaged: SHA-256"},
		{"short", func(p string) error { return os.WriteFile(p, []byte("second"), 0o644) }, "data/1/2.sst is damaged: 6 bytes, the manifest says 16"},
		{"missing", os.Remove, "backup file data/1/2.sst"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "data", "1", "2.sst")
			if err := tc.damage(p); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(p, []byte("second partition"), 0o644)
			if err := got.Verify(st); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Verify: %v, want %q", err, tc.says)
			}
		})
	}
	if _, err := st.Create("../outside"); err == nil {
		t.Fatal("a file name leaving the backup was accepted")
	}
}
