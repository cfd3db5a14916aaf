package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// Resuming an SST import.
//
// Nothing of an SST import is in the space before its partitions are
// ingested, so an import that stops while reading or sorting starts over.
// Once a partition's files are written, though, they are durable in the
// working folder, and an import that fails to ship some partitions (a
// store down past the retries, a full disk on a replica) should not read,
// sort and write everything again: at scale that is hours. So the working
// folder is named after the import (its config, space, shard and
// compression) and keeps a manifest of what was built and what was
// shipped. A ship failure does not stop the other partitions' builds;
// when every partition is built, the manifest says so, and a rerun of the
// same import finds it and only uploads and ingests the partitions not
// yet ingested. Ingests are idempotent, so a partition shipped twice (the
// manifest written just before the ingest was acknowledged) is harmless.
// --restart (Options.Restart) discards the folder and builds again.

// sstManifest is the working folder's record of an import.
type sstManifest struct {
	Key      string                  `json:"key"`      // the import it belongs to
	Complete bool                    `json:"complete"` // every partition's files are written
	Rows     int64                   `json:"rows"`
	Vertices int64                   `json:"vertices"`
	Edges    int64                   `json:"edges"`
	Failed   int64                   `json:"failed"`
	Parts    map[int32]*manifestPart `json:"parts"`
}

type manifestPart struct {
	Files   []manifestFile `json:"files"`
	Shipped bool           `json:"shipped"`
}

type manifestFile struct {
	Name     string `json:"name"`
	Smallest []byte `json:"smallest"`
	Largest  []byte `json:"largest"`
	// Checksum is XXH64, or a SHA-256 in a manifest of an importer
	// before it (under its old JSON name); see storaged/sstsum.go.
	Checksum []byte `json:"checksum,omitempty"`
	Sha256   []byte `json:"sha256,omitempty"`
}

// checksum is the file's content checksum, under either JSON name.
func (f manifestFile) checksum() []byte {
	if len(f.Checksum) > 0 {
		return f.Checksum
	}
	return f.Sha256
}

const manifestName = "manifest.json"

// loadManifest reads the manifest in dir, or returns nil if there is none
// or it belongs to another import or is unreadable (the folder then
// starts over).
func loadManifest(dir, key string) *sstManifest {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil
	}
	m := &sstManifest{}
	if json.Unmarshal(b, m) != nil || m.Key != key || !m.Complete {
		return nil
	}
	return m
}

// save writes the manifest atomically. The caller holds b.manifestMu.
func (b *sstBuilder) saveManifest() error {
	data, err := json.Marshal(b.manifest)
	if err != nil {
		return err
	}
	tmp := filepath.Join(b.dir, manifestName+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("sst manifest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(b.dir, manifestName)); err != nil {
		return fmt.Errorf("sst manifest: %w", err)
	}
	return nil
}

// noteBuilt records a partition's files.
func (b *sstBuilder) noteBuilt(pf *partFiles) error {
	mp := &manifestPart{}
	for _, f := range pf.files {
		mp.Files = append(mp.Files, manifestFile{Name: f.Name, Smallest: f.Smallest, Largest: f.Largest, Checksum: f.Checksum})
	}
	b.manifestMu.Lock()
	defer b.manifestMu.Unlock()
	b.manifest.Parts[pf.part] = mp
	return b.saveManifest()
}

// noteChecksums records the checksums the uploads of a partition's files
// took, so that a resumed run names the files by the same ones.
func (b *sstBuilder) noteChecksums(pf *partFiles) error {
	b.manifestMu.Lock()
	defer b.manifestMu.Unlock()
	mp := b.manifest.Parts[pf.part]
	if mp == nil || len(mp.Files) != len(pf.files) {
		return nil
	}
	changed := false
	for i, f := range pf.files {
		if mf := &mp.Files[i]; len(mf.checksum()) == 0 && len(f.Checksum) > 0 {
			mf.Checksum, changed = f.Checksum, true
		}
	}
	if !changed {
		return nil
	}
	return b.saveManifest()
}

// noteShipped records that a partition's files are ingested.
func (b *sstBuilder) noteShipped(part int32) error {
	b.manifestMu.Lock()
	defer b.manifestMu.Unlock()
	if mp := b.manifest.Parts[part]; mp != nil {
		mp.Shipped = true
	}
	return b.saveManifest()
}

// noteComplete records that every partition is built, with the import's
// counts for a resumed run's summary.
func (b *sstBuilder) noteComplete(st *Stats) error {
	b.manifestMu.Lock()
	defer b.manifestMu.Unlock()
	m := b.manifest
	m.Complete = true
	m.Rows, m.Vertices, m.Edges, m.Failed = st.Rows.Load(), st.Vertices.Load(), st.Edges.Load(), st.Failed.Load()
	return b.saveManifest()
}

// unshipped are the partitions a resumed import still has to ship, with
// their files checked to be there.
func (b *sstBuilder) unshipped() ([]*partFiles, error) {
	b.manifestMu.Lock()
	defer b.manifestMu.Unlock()
	var out []*partFiles
	for _, part := range slices.Sorted(maps.Keys(b.manifest.Parts)) {
		mp := b.manifest.Parts[part]
		if mp.Shipped {
			continue
		}
		pf := &partFiles{part: part}
		for _, f := range mp.Files {
			path := filepath.Join(b.dir, f.Name)
			if _, err := os.Stat(path); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("resuming the SST import: partition %d's file %s is gone from %s: run with --restart to build again", part, f.Name, b.dir)
				}
				return nil, fmt.Errorf("resuming the SST import: %w", err)
			}
			pf.files = append(pf.files, &storagepb.SSTFile{Name: f.Name, Smallest: f.Smallest, Largest: f.Largest, Checksum: f.checksum()})
			pf.paths = append(pf.paths, path)
		}
		out = append(out, pf)
	}
	return out, nil
}
