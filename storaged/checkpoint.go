package storaged

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// Snapshots (CREATE SNAPSHOT, docs/backup.md) are RocksDB checkpoints:
// each data path of each store gets <data path>/checkpoints/<name>, hard
// links to its SST files plus a copy of what the memtables held, all at
// one instant of that RocksDB. A replica's data and its applied index are
// written in one batch per apply round (raftgroup), so in the checkpoint
// every partition replica stands exactly at the applied index the
// checkpoint holds for it: consistent per partition. Before the
// checkpoint, the partitions this store leads confirm with a read index
// that they applied everything committed, so a write acknowledged before
// CREATE SNAPSHOT is in the leader's copy; metad keeps, for each
// partition, the copy with the highest applied index.
//
// A checkpoint costs no copy while it is fresh, and keeps the SST files
// it links from being deleted by compaction: the disk they take grows as
// the live data moves on, until DROP SNAPSHOT.

// checkpointName is what a snapshot may be called: a directory name of
// its own, never a path.
var checkpointName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// exportChunk is the size of the ExportCheckpointPart messages.
const exportChunk = 1 << 20

func checkCheckpointName(name string) error {
	if !checkpointName.MatchString(name) {
		return status.Errorf(codes.InvalidArgument, "snapshot name %q: want 1 to 128 of [A-Za-z0-9_-]", name)
	}
	return nil
}

// checkpointDir is where data path i keeps the checkpoint name.
func (s *Server) checkpointDir(i int, name string) string {
	return filepath.Join(s.cfg.DataPaths[i], "checkpoints", name)
}

// CreateCheckpoint implements StorageAdminService.
func (a *adminService) CreateCheckpoint(ctx context.Context, req *storagepb.CheckpointReq) (*storagepb.CheckpointResp, error) {
	if err := checkCheckpointName(req.GetName()); err != nil {
		return nil, err
	}
	want := func(space int32) bool {
		if len(req.GetSpaceIds()) == 0 {
			return true
		}
		for _, id := range req.GetSpaceIds() {
			if id == space {
				return true
			}
		}
		return false
	}
	s := a.srv
	// The leaders' copies hold every acknowledged write once their read
	// index returns: what was committed before it is applied.
	confirmed := map[raftgroup.GroupID]bool{}
	for _, l := range s.engine.Leading() {
		if !want(l.Group.Space) {
			continue
		}
		if err := s.engine.ReadIndex(ctx, l.Group); err == nil {
			confirmed[l.Group] = true
		} else if ctx.Err() != nil {
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	for i := range s.dbs {
		if _, err := os.Stat(s.checkpointDir(i, req.GetName())); err == nil {
			return nil, status.Errorf(codes.AlreadyExists, "storaged %s: snapshot %q exists already", s.addr, req.GetName())
		}
	}
	// On any failure, no checkpoint of this name stays behind here: it
	// would pin SST files that metad does not know to drop.
	made := 0
	rollback := func() {
		for i := range made {
			_ = os.RemoveAll(s.checkpointDir(i, req.GetName()))
		}
	}
	for i, db := range s.dbs {
		dir := s.checkpointDir(i, req.GetName())
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			rollback()
			return nil, fmt.Errorf("snapshot %q: %w", req.GetName(), err)
		}
		cp, err := db.NewCheckpoint()
		if err != nil {
			rollback()
			return nil, fmt.Errorf("snapshot %q of %s: %w", req.GetName(), s.cfg.DataPaths[i], err)
		}
		err = cp.CreateCheckpoint(dir, 0)
		cp.Destroy()
		if err != nil {
			_ = os.RemoveAll(dir)
			rollback()
			return nil, fmt.Errorf("snapshot %q of %s: %w", req.GetName(), s.cfg.DataPaths[i], err)
		}
		made++
	}
	// Where each replica stands in the checkpoint: its applied index as
	// the checkpoint holds it, not as the live database has moved on.
	resp := &storagepb.CheckpointResp{}
	for i := range s.dbs {
		err := s.withCheckpoint(i, req.GetName(), func(db *grocksdb.DB, ro *grocksdb.ReadOptions) error {
			for _, g := range s.engine.Groups() {
				if !want(g.Space) || s.dbOf(g) != s.dbs[i] {
					continue
				}
				applied, ok, err := appliedIn(db, ro, g)
				if err != nil {
					return err
				}
				// A replica caught installing a raft snapshot has its
				// new applied index written and its data not yet: no
				// copy to offer (raftgroup/snapshot.go).
				if pending, err := db.GetBytes(ro, partition.RaftSnapshotApplyKey(g.Space, g.Part)); err != nil {
					return err
				} else if pending != nil {
					continue
				}
				if ok {
					resp.Parts = append(resp.Parts, &storagepb.CheckpointPart{SpaceId: g.Space, PartId: g.Part, AppliedIndex: applied, Leader: confirmed[g]})
				}
			}
			return nil
		})
		if err != nil {
			rollback()
			return nil, err
		}
	}
	s.log.Info("snapshot created", "name", req.GetName(), "replicas", len(resp.Parts))
	return resp, nil
}

// HoldIntents implements StorageAdminService.
func (a *adminService) HoldIntents(ctx context.Context, req *storagepb.HoldIntentsReq) (*storagepb.AdminResp, error) {
	var until time.Time
	if req.GetSeconds() > 0 {
		until = time.Now().Add(time.Duration(req.GetSeconds()) * time.Second)
	}
	if err := a.srv.resolver.hold(ctx, until); err != nil {
		return nil, err
	}
	return &storagepb.AdminResp{}, nil
}

// VersionHighs implements StorageAdminService: each replica's live version
// base plus applied index, a bound on the versions it has given out.
func (a *adminService) VersionHighs(_ context.Context, req *storagepb.CheckpointReq) (*storagepb.CheckpointResp, error) {
	s := a.srv
	resp := &storagepb.CheckpointResp{}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	for _, g := range s.engine.Groups() {
		if len(req.GetSpaceIds()) > 0 && !slices.Contains(req.GetSpaceIds(), g.Space) {
			continue
		}
		db := s.dbOf(g)
		applied, ok := s.engine.Applied(g)
		if db == nil || !ok {
			continue
		}
		v, err := db.GetBytes(ro, partition.VersionBaseKey(g.Space, g.Part))
		if err != nil {
			return nil, err
		}
		base, err := partition.DecodeVersionBase(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g, err)
		}
		resp.Parts = append(resp.Parts, &storagepb.CheckpointPart{SpaceId: g.Space, PartId: g.Part, AppliedIndex: applied, VersionHigh: base + applied})
	}
	return resp, nil
}

// DropCheckpoint implements StorageAdminService: the checkpoint's
// directories go; a name this store does not have is no error.
func (a *adminService) DropCheckpoint(_ context.Context, req *storagepb.CheckpointReq) (*storagepb.AdminResp, error) {
	if err := checkCheckpointName(req.GetName()); err != nil {
		return nil, err
	}
	for i := range a.srv.dbs {
		dir := a.srv.checkpointDir(i, req.GetName())
		for _, d := range []string{dir, dir + ".export"} {
			if err := os.RemoveAll(d); err != nil {
				return nil, fmt.Errorf("dropping snapshot %q: %w", req.GetName(), err)
			}
		}
	}
	a.srv.log.Info("snapshot dropped", "name", req.GetName())
	return &storagepb.AdminResp{}, nil
}

// withCheckpoint opens data path i's checkpoint name read-only for fn.
func (s *Server) withCheckpoint(i int, name string, fn func(db *grocksdb.DB, ro *grocksdb.ReadOptions) error) error {
	dir := s.checkpointDir(i, name)
	if _, err := os.Stat(dir); err != nil {
		return status.Errorf(codes.NotFound, "storaged %s has no snapshot %q on %s", s.addr, name, s.cfg.DataPaths[i])
	}
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	db, err := grocksdb.OpenDbForReadOnly(opts, dir, false)
	if err != nil {
		return fmt.Errorf("opening snapshot %q of %s: %w", name, s.cfg.DataPaths[i], err)
	}
	defer db.Close()
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true)
	ro.SetFillCache(false)
	return fn(db, ro)
}

// appliedIn reads a replica's applied index from db; ok is false when db
// holds no such replica.
func appliedIn(db *grocksdb.DB, ro *grocksdb.ReadOptions, g raftgroup.GroupID) (uint64, bool, error) {
	v, err := db.GetBytes(ro, partition.RaftAppliedKey(g.Space, g.Part))
	if err != nil {
		return 0, false, fmt.Errorf("%s: reading its applied index: %w", g, err)
	}
	if v == nil {
		return 0, false, nil
	}
	if len(v) != 8 {
		return 0, false, fmt.Errorf("%s: applied index of %d bytes", g, len(v))
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// ExportCheckpointPart implements StorageAdminService: the partition's data
// range in the checkpoint, written to one SST file (with the store's own
// SST options) next to the checkpoint and streamed, then removed.
func (a *adminService) ExportCheckpointPart(req *storagepb.ExportPartReq, stream grpc.ServerStreamingServer[storagepb.ExportChunk]) error {
	if err := checkCheckpointName(req.GetName()); err != nil {
		return err
	}
	s := a.srv
	g := raftgroup.GroupID{Space: req.GetSpaceId(), Part: req.GetPartId()}
	var (
		file            string
		applied         uint64
		keys            int64
		smallest, large []byte
		versionBase     uint64
		found           bool
	)
	defer func() {
		if file != "" {
			os.Remove(file) // sent, or half written
		}
	}()
	for i := range s.dbs {
		err := s.withCheckpoint(i, req.GetName(), func(db *grocksdb.DB, ro *grocksdb.ReadOptions) error {
			idx, ok, err := appliedIn(db, ro, g)
			if err != nil || !ok {
				return err
			}
			base, err := db.GetBytes(ro, partition.VersionBaseKey(g.Space, g.Part))
			if err != nil {
				return err
			}
			if versionBase, err = partition.DecodeVersionBase(base); err != nil {
				return err
			}
			found, applied = true, idx
			// Beside the checkpoint, on its disk; a name of its own, as
			// two backups may export the same partition at once.
			exportDir := s.checkpointDir(i, req.GetName()) + ".export"
			if err := os.MkdirAll(exportDir, 0o755); err != nil {
				return err
			}
			tmp, err := os.CreateTemp(exportDir, fmt.Sprintf("%d-%d-*.sst", g.Space, g.Part))
			if err != nil {
				return err
			}
			file = tmp.Name()
			tmp.Close()
			keys, smallest, large, err = s.writePartSST(db, ro, g, file)
			return err
		})
		if status.Code(err) == codes.NotFound {
			continue
		}
		if err != nil {
			return err
		}
		if found {
			break
		}
	}
	if !found {
		return status.Errorf(codes.NotFound, "storaged %s: snapshot %q holds no replica of %s", s.addr, req.GetName(), g)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, exportChunk)
	var size int64
	for {
		n, err := f.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			size += int64(n)
			if err := stream.Send(&storagepb.ExportChunk{Data: buf[:n]}); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the export of %s: %w", g, err)
		}
	}
	s.log.Info("snapshot partition exported", "name", req.GetName(), "group", g, "applied", applied, "keys", keys, "bytes", size)
	return stream.Send(&storagepb.ExportChunk{Sha256: h.Sum(nil), Size: size, AppliedIndex: applied, Keys: keys, Smallest: smallest, Largest: large,
		VersionHigh: versionBase + applied})
}

// writePartSST writes g's data range in db to an SST file at path and
// returns its keys, first and last.
func (s *Server) writePartSST(db *grocksdb.DB, ro *grocksdb.ReadOptions, g raftgroup.GroupID, path string) (keys int64, smallest, largest []byte, err error) {
	opts, err := s.sstOptions()
	if err != nil {
		return 0, nil, nil, err
	}
	defer opts.Destroy()
	env := grocksdb.NewDefaultEnvOptions()
	defer env.Destroy()
	w := grocksdb.NewSSTFileWriter(env, opts)
	defer w.Destroy()
	if err := w.Open(path); err != nil {
		return 0, nil, nil, fmt.Errorf("export of %s: %w", g, err)
	}
	lo, hi := partition.DataRange(g.Space, g.Part)
	it := db.NewIterator(ro)
	defer it.Close()
	for it.Seek(lo); it.Valid(); it.Next() {
		k := it.Key()
		if string(k.Data()) >= string(hi) {
			k.Free()
			break
		}
		if keys == 0 {
			smallest = append([]byte(nil), k.Data()...)
		}
		largest = append(largest[:0], k.Data()...)
		v := it.Value()
		err := w.Add(k.Data(), v.Data())
		k.Free()
		v.Free()
		if err != nil {
			return 0, nil, nil, fmt.Errorf("export of %s: %w", g, err)
		}
		keys++
	}
	if err := it.Err(); err != nil {
		return 0, nil, nil, fmt.Errorf("export of %s: %w", g, err)
	}
	if keys == 0 {
		// RocksDB writes no empty SST file; a replica always holds its
		// data version key, so this is a replica with nothing at all.
		return 0, nil, nil, fmt.Errorf("export of %s: the partition holds no key, not even its data version", g)
	}
	if err := w.Finish(); err != nil {
		return 0, nil, nil, fmt.Errorf("export of %s: %w", g, err)
	}
	return keys, smallest, largest, nil
}
