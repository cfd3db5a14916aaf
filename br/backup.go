package br

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"slices"

	"google.golang.org/protobuf/proto"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/metapb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// catalogFile is the catalog's name in a backup.
const catalogFile = "catalog.pb"

// BackupOptions says what Backup copies where.
type BackupOptions struct {
	Meta     *metaclient.Client
	Storage  *storageclient.Client
	Snapshot string   // a VALID snapshot (CREATE SNAPSHOT)
	Spaces   []string // names; none: every space of the snapshot
	Store    Store
	Log      *slog.Logger
}

// counting hashes and counts what is written through it.
type counting struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (c *counting) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.h.Write(b[:n])
	c.n += int64(n)
	return n, err
}

// create writes name through fn, returning its File entry.
func create(st Store, name string, fn func(w io.Writer) error) (File, error) {
	w, err := st.Create(name)
	if err != nil {
		return File{}, fmt.Errorf("backup file %s: %w", name, err)
	}
	c := &counting{w: w, h: sha256.New()}
	if err := fn(c); err != nil {
		_ = w.Abort()
		return File{}, err
	}
	if err := w.Close(); err != nil {
		return File{}, fmt.Errorf("backup file %s: %w", name, err)
	}
	return File{Path: name, Size: c.n, SHA256: hex.EncodeToString(c.h.Sum(nil))}, nil
}

// Backup copies a snapshot's catalog and the chosen copy of every
// partition of its spaces into o.Store, then writes the manifest.
func Backup(ctx context.Context, o BackupOptions) (*Manifest, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d, err := o.Meta.GetSnapshot(ctx, o.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", o.Snapshot, err)
	}
	if d.GetStatus() != metapb.SnapshotDesc_VALID {
		return nil, fmt.Errorf("snapshot %s is %s (%s): take another", o.Snapshot, d.GetStatus(), d.GetError())
	}
	spaces, err := pickSpaces(d.GetCatalog(), d.GetSpaceIds(), o.Spaces, "snapshot "+o.Snapshot)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Format: manifestFormat, Snapshot: d.GetName(), CreatedMs: d.GetCreatedMs(), CatalogVersion: d.GetCatalog().GetVersion()}
	m.Catalog, err = create(o.Store, catalogFile, func(w io.Writer) error {
		b, err := proto.Marshal(d.GetCatalog())
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, sp := range spaces {
		sb := SpaceBackup{ID: sp.GetSpaceId(), Name: sp.GetName(), Partitions: sp.GetPartitionNum()}
		for _, p := range d.GetParts() {
			if p.GetSpaceId() != sp.GetSpaceId() {
				continue
			}
			name := fmt.Sprintf("data/%d/%d.sst", p.GetSpaceId(), p.GetPartId())
			var exp storageclient.Export
			f, err := create(o.Store, name, func(w io.Writer) error {
				var err error
				exp, err = o.Storage.ExportCheckpointPart(ctx, p.GetHost(), d.GetName(), p.GetSpaceId(), p.GetPartId(), w)
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("space %s, partition %d: %w", sp.GetName(), p.GetPartId(), err)
			}
			// The snapshot's bound (the live applied index after the last
			// checkpoint) covers versions other partitions' copies hold
			// that this copy may not have reached.
			sb.Parts = append(sb.Parts, PartBackup{Part: p.GetPartId(), AppliedIndex: exp.Applied, VersionHigh: max(exp.VersionHigh, p.GetVersionHigh()), Keys: exp.Keys,
				Smallest: hex.EncodeToString(exp.Smallest), Largest: hex.EncodeToString(exp.Largest), File: f})
			log.Info("partition backed up", "space", sp.GetName(), "part", p.GetPartId(), "applied", exp.Applied, "keys", exp.Keys, "bytes", f.Size, "from", p.GetHost())
		}
		if len(sb.Parts) != int(sp.GetPartitionNum()) {
			return nil, fmt.Errorf("snapshot %s has %d of the %d partitions of space %s", d.GetName(), len(sb.Parts), sp.GetPartitionNum(), sp.GetName())
		}
		m.Spaces = append(m.Spaces, sb)
	}
	if err := writeManifest(o.Store, m); err != nil {
		return nil, fmt.Errorf("writing the manifest: %w", err)
	}
	return m, nil
}

// pickSpaces returns the spaces of cat named by names (all of ids when
// none), refusing a name that is not among them.
func pickSpaces(cat *metapb.Catalog, ids []int32, names []string, what string) ([]*metapb.SpaceDesc, error) {
	var out []*metapb.SpaceDesc
	for _, sp := range cat.GetSpaces() {
		if !slices.Contains(ids, sp.GetSpaceId()) {
			continue
		}
		if len(names) == 0 || slices.Contains(names, sp.GetName()) {
			out = append(out, sp)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(out, func(sp *metapb.SpaceDesc) bool { return sp.GetName() == n }) {
			return nil, fmt.Errorf("%s has no space %q", what, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no space", what)
	}
	return out, nil
}
