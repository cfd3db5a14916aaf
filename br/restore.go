package br

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// RestoreOptions says what Restore reads and where it goes.
type RestoreOptions struct {
	Meta    *metaclient.Client
	Storage *storageclient.Client
	Store   Store
	Spaces  []string // names; none: every space of the backup
	// User and Password sign in to metad: the catalog is restored with
	// root's credential.
	User, Password string
	// ReplicaFactor > 0 restores the spaces with it instead of the
	// backup's: into a cluster with fewer storaged than that.
	ReplicaFactor int32
	Log           *slog.Logger
	// PartAttempts bounds the tries of one partition (its replicas are
	// being created while it is first tried); 0: 60.
	PartAttempts int
}

// Restore checks every file of the backup in o.Store, recreates its spaces
// in the cluster with their ids (they must not exist there), and ingests
// each partition's file into the partition's replicas through raft.
func Restore(ctx context.Context, o RestoreOptions) (*Manifest, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.PartAttempts == 0 {
		o.PartAttempts = 60
	}
	m, err := ReadManifest(o.Store)
	if err != nil {
		return nil, err
	}
	if err := m.Verify(o.Store); err != nil {
		return nil, fmt.Errorf("refusing to restore %s: %w", o.Store, err)
	}
	cat, err := readCatalog(o.Store, m.Catalog)
	if err != nil {
		return nil, err
	}
	var ids []int32
	for _, sb := range m.Spaces {
		ids = append(ids, sb.ID)
	}
	spaces, err := pickSpaces(cat, ids, o.Spaces, "the backup in "+o.Store.String())
	if err != nil {
		return nil, err
	}
	var restore []int32
	for _, sp := range spaces {
		restore = append(restore, sp.GetSpaceId())
	}
	v, err := o.Meta.VerifyUser(ctx, o.User, o.Password)
	if err != nil {
		return nil, fmt.Errorf("signing in as %s: %w", o.User, err)
	}
	if !v.OK {
		return nil, fmt.Errorf("signing in as %s: bad user name or password", o.User)
	}
	if _, err := o.Meta.RestoreCatalog(metaclient.WithCredential(ctx, v.Credential), cat, restore, o.ReplicaFactor); err != nil {
		return nil, fmt.Errorf("restoring the catalog: %w", err)
	}
	log.Info("catalog restored", "spaces", restore, "snapshot", m.Snapshot)
	for _, sb := range m.Spaces {
		if !contains(restore, sb.ID) {
			continue
		}
		var parts []int32
		for _, p := range sb.Parts {
			if err := restorePart(ctx, o, m, sb, p, log); err != nil {
				return nil, fmt.Errorf("space %s, partition %d: %w", sb.Name, p.Part, err)
			}
			parts = append(parts, p.Part)
		}
		// Only now may the partitions carry out their intents: one
		// delivered to a partition not restored yet would be overwritten
		// by that partition's ingest.
		if err := o.Storage.FinishRestore(ctx, sb.ID, parts, m.Snapshot); err != nil {
			return nil, fmt.Errorf("space %s: ending the restore: %w", sb.Name, err)
		}
	}
	return m, nil
}

func contains(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func readCatalog(st Store, f File) (*metapb.Catalog, error) {
	r, err := st.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("backup file %s: %w", f.Path, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("backup file %s: %w", f.Path, err)
	}
	var cat metapb.Catalog
	if err := proto.Unmarshal(b, &cat); err != nil {
		return nil, fmt.Errorf("backup file %s: %w", f.Path, err)
	}
	return &cat, nil
}

// restorePart uploads a partition's file to each of its replicas and
// ingests it at the leader, trying again while the new space's replicas
// and leaders come up (uploads and the ingest are idempotent).
func restorePart(ctx context.Context, o RestoreOptions, m *Manifest, sb SpaceBackup, p PartBackup, log *slog.Logger) error {
	smallest, err := hex.DecodeString(p.Smallest)
	if err != nil {
		return fmt.Errorf("manifest: smallest key: %w", err)
	}
	largest, err := hex.DecodeString(p.Largest)
	if err != nil {
		return fmt.Errorf("manifest: largest key: %w", err)
	}
	path, release, err := o.Store.LocalPath(p.File.Path)
	if err != nil {
		return err
	}
	defer release()
	name := fmt.Sprintf("restore-%s-%d-%d.sst", m.Snapshot, sb.ID, p.Part)
	wait := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := shipPart(ctx, o, sb.ID, p.Part, name, path, smallest, largest, p.VersionHigh, m.Snapshot)
		if err == nil {
			log.Info("partition restored", "space", sb.Name, "part", p.Part, "applied_in_backup", p.AppliedIndex, "keys", p.Keys)
			return nil
		}
		if attempt >= o.PartAttempts || ctx.Err() != nil {
			return err
		}
		log.Debug("restoring a partition failed; trying again", "space", sb.Name, "part", p.Part, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

func shipPart(ctx context.Context, o RestoreOptions, space, part int32, name, path string, smallest, largest []byte, versionBase uint64, snapshotName string) error {
	snap := o.Meta.Catalog()
	stores := append(append([]uint64(nil), snap.Parts(space)[part]...), snap.Learners(space)[part]...)
	if len(stores) == 0 {
		return fmt.Errorf("no replicas in the catalog yet")
	}
	var sum []byte
	for _, store := range stores {
		s, err := o.Storage.UploadSST(ctx, store, space, part, name, path)
		if err != nil {
			return err
		}
		sum = s
	}
	return o.Storage.IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: space, PartId: part, CatalogVersion: snap.Version(), Stores: stores,
		Restore: true, VersionBase: versionBase, RestoreName: snapshotName,
		Files: []*storagepb.SSTFile{{Name: name, Smallest: smallest, Largest: largest, Checksum: sum}}})
}
