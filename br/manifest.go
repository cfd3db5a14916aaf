// Package br backs a novagraph snapshot up off the cluster and restores
// it into another (nova-br; guide: docs/backup.md).
//
// A backup is a set of files in a Store:
//
//	manifest.json            what is in it, with the size and SHA-256 of every file
//	catalog.pb               the snapshot's catalog (metapb.Catalog)
//	data/<space>/<part>.sst  each partition as one SST file, at the applied
//	                         index the manifest names
//
// The manifest is written last: a backup without one did not finish and
// is refused. Restore checks every file's size and checksum before it
// changes anything, and refuses a damaged or missing file by name.
package br

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ManifestName is the manifest's name in a backup.
const ManifestName = "manifest.json"

// manifestFormat is the version of the layout above.
const manifestFormat = 1

// Manifest describes a backup.
type Manifest struct {
	Format         int           `json:"format"`
	Snapshot       string        `json:"snapshot"`
	CreatedMs      int64         `json:"created_ms"`
	CatalogVersion int64         `json:"catalog_version"`
	Catalog        File          `json:"catalog"`
	Spaces         []SpaceBackup `json:"spaces"`
}

// File is one file of a backup.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"` // hex
}

// SpaceBackup is one space of a backup.
type SpaceBackup struct {
	ID         int32        `json:"id"`
	Name       string       `json:"name"`
	Partitions int32        `json:"partitions"`
	Parts      []PartBackup `json:"parts"`
}

// PartBackup is one partition: where its copy stood in the snapshot, and
// its SST file with the file's first and last keys (hex).
type PartBackup struct {
	Part         int32  `json:"part"`
	AppliedIndex uint64 `json:"applied_index"`
	// VersionHigh is past every in-edge version the partition's data
	// holds: its version base after a restore (partition.VersionBaseKey).
	VersionHigh uint64 `json:"version_high"`
	Keys        int64  `json:"keys"`
	Smallest    string `json:"smallest"`
	Largest     string `json:"largest"`
	File        File   `json:"file"`
}

// ErrNoManifest: the store holds no finished backup.
var ErrNoManifest = errors.New("no " + ManifestName)

// ReadManifest reads and checks a backup's manifest.
func ReadManifest(st Store) (*Manifest, error) {
	ok, err := st.Exists(ManifestName)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w: not a backup, or one that did not finish", st, ErrNoManifest)
	}
	r, err := st.Open(ManifestName)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var m Manifest
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", st, ManifestName, err)
	}
	if m.Format != manifestFormat {
		return nil, fmt.Errorf("%s/%s: format %d; this nova-br reads format %d", st, ManifestName, m.Format, manifestFormat)
	}
	return &m, nil
}

// Files lists every file the manifest names, the catalog first.
func (m *Manifest) Files() []File {
	out := []File{m.Catalog}
	for _, sp := range m.Spaces {
		for _, p := range sp.Parts {
			out = append(out, p.File)
		}
	}
	return out
}

// Verify reads every file the manifest names and checks its size and
// SHA-256; the error names the first file that is missing or differs.
func (m *Manifest) Verify(st Store) error {
	for _, f := range m.Files() {
		if err := verifyFile(st, f); err != nil {
			return err
		}
	}
	return nil
}

func verifyFile(st Store, f File) error {
	r, err := st.Open(f.Path)
	if err != nil {
		return fmt.Errorf("backup file %s: %w", f.Path, err)
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return fmt.Errorf("backup file %s: %w", f.Path, err)
	}
	if n != f.Size {
		return fmt.Errorf("backup file %s is damaged: %d bytes, the manifest says %d", f.Path, n, f.Size)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != f.SHA256 {
		return fmt.Errorf("backup file %s is damaged: SHA-256 %s, the manifest says %s", f.Path, sum, f.SHA256)
	}
	return nil
}

// writeManifest writes m as the backup's last file.
func writeManifest(st Store, m *Manifest) error {
	w, err := st.Create(ManifestName)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		_ = w.Abort()
		return err
	}
	return w.Close()
}
