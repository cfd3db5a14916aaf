package metad

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// CREATE SNAPSHOT (docs/backup.md). metad names the snapshot, takes the
// catalog at one etcd revision (the catalog version this metad serves),
// asks every online storaged for a RocksDB checkpoint of the spaces
// (storaged/checkpoint.go: each partition replica consistent at the
// applied index the checkpoint holds for it, the leaders' copies holding
// every write acknowledged before), and records, for each partition, the
// copy with the highest applied index: the one a backup takes. A snapshot
// some host failed, or where a partition has no copy, is recorded
// INVALID with the reason and its checkpoints are dropped again.
//
// Snapshots live beside the catalog, outside the watched prefix (the
// catalog inside one is large, and no daemon needs them pushed):
//
//	/novagraph-snapshots/<name>   SnapshotDesc
const prefixSnapshots = "/novagraph-snapshots/"

func snapshotKey(name string) string { return prefixSnapshots + name }

// snapshotIntentHold is how long storaged hold their edge intents for a
// snapshot at most: metad releases them when the last checkpoint is made,
// and a metad that dies meanwhile leaves them to expire.
const snapshotIntentHold = 10 * time.Minute

// snapshotHostTimeout bounds one storaged's checkpoint: a read index per
// partition it leads and a checkpoint per data path, which flushes the
// memtables first.
const snapshotHostTimeout = 2 * time.Minute

// snapshotStorage is what snapshots need of storaged (storaged/client).
type snapshotStorage interface {
	CreateCheckpoint(ctx context.Context, addr, name string, spaces []int32) ([]*storagepb.CheckpointPart, error)
	VersionHighs(ctx context.Context, addr string, spaces []int32) ([]*storagepb.CheckpointPart, error)
	HoldIntents(ctx context.Context, addr string, seconds int32) error
	DropCheckpoint(ctx context.Context, addr, name string) error
	Close()
}

// newSnapshotName is SNAPSHOT_<UTC time>_<random>, as NebulaGraph names
// them, unique across metad.
func newSnapshotName(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "SNAPSHOT_" + now.UTC().Format("2006_01_02_15_04_05") + "_" + hex.EncodeToString(b[:])
}

func (s *Server) putSnapshot(ctx context.Context, d *metapb.SnapshotDesc) error {
	v, err := proto.Marshal(d)
	if err != nil {
		return err
	}
	if _, err := s.cli.Put(ctx, snapshotKey(d.Name), string(v)); err != nil {
		return fmt.Errorf("recording snapshot %s: %w", d.Name, err)
	}
	return nil
}

func (s *Server) getSnapshot(ctx context.Context, name string) (*metapb.SnapshotDesc, error) {
	resp, err := s.cli.Get(ctx, snapshotKey(name))
	if err != nil {
		return nil, fmt.Errorf("reading snapshot %s: %w", name, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, errorf(commonpb.ErrorCode_E_NOT_FOUND, "snapshot %q not found (SHOW SNAPSHOTS lists them)", name)
	}
	var d metapb.SnapshotDesc
	if err := proto.Unmarshal(resp.Kvs[0].Value, &d); err != nil {
		return nil, fmt.Errorf("decoding snapshot %s: %w", name, err)
	}
	return &d, nil
}

func (s *Server) listSnapshots(ctx context.Context) ([]*metapb.SnapshotDesc, error) {
	resp, err := s.cli.Get(ctx, prefixSnapshots, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("listing snapshots: %w", err)
	}
	var out []*metapb.SnapshotDesc
	for _, kv := range resp.Kvs {
		var d metapb.SnapshotDesc
		if err := proto.Unmarshal(kv.Value, &d); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
		}
		d.Catalog = nil
		out = append(out, &d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedMs < out[j].CreatedMs })
	return out, nil
}

// createSnapshot makes a snapshot of the spaces (every space if none).
func (s *Server) createSnapshot(ctx context.Context, spaces []int32, st snapshotStorage) (*metapb.SnapshotDesc, error) {
	view := s.cat.current()
	cat := s.servedCatalog(view)
	known := map[int32]*metapb.SpaceDesc{}
	for _, sp := range cat.Spaces {
		known[sp.SpaceId] = sp
	}
	for _, id := range spaces {
		if known[id] == nil {
			return nil, errorf(commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space %d not found", id)
		}
	}
	covered := spaces
	if len(covered) == 0 {
		for id := range known {
			covered = append(covered, id)
		}
	}
	slices.Sort(covered)
	d := &metapb.SnapshotDesc{Name: newSnapshotName(time.Now()), Status: metapb.SnapshotDesc_CREATING,
		CreatedMs: time.Now().UnixMilli(), SpaceIds: covered, Catalog: cat}
	if err := s.putSnapshot(ctx, d); err != nil {
		return nil, err
	}
	// asked are the hosts asked for a checkpoint: on a failure each drops
	// it, whether it answered or not (one that timed out may still make it).
	var asked, online []string
	for _, h := range cat.Hosts {
		if h.Online {
			online = append(online, fmt.Sprintf("%s:%d", h.Addr.GetHost(), h.Addr.GetPort()))
		}
	}
	// The stores checkpoint one after another: an in-edge carried out in
	// between could land in a later copy whose out-edge an earlier copy
	// lacks, for good. No store carries out intents until the last
	// checkpoint is made; writes meanwhile keep their intents, which a
	// copy holds with its out-edges.
	release := func() {
		for _, addr := range online {
			rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := st.HoldIntents(rctx, addr, 0); err != nil {
				s.log.Warn("releasing the intents held for a snapshot; they resume when the hold expires", "snapshot", d.Name, "host", addr, "err", err)
			}
			cancel()
		}
	}
	fail := func(format string, args ...any) (*metapb.SnapshotDesc, error) {
		release()
		d.Status, d.Error = metapb.SnapshotDesc_INVALID, fmt.Sprintf(format, args...)
		for _, h := range asked {
			dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := st.DropCheckpoint(dctx, h, d.Name); err != nil {
				s.log.Warn("dropping the checkpoint of a failed snapshot", "snapshot", d.Name, "host", h, "err", err)
			}
			cancel()
		}
		d.Hosts = nil
		if err := s.putSnapshot(context.Background(), d); err != nil {
			s.log.Warn("recording a failed snapshot", "snapshot", d.Name, "err", err)
		}
		return nil, errorf(commonpb.ErrorCode_E_UNKNOWN, "snapshot %s failed: %s", d.Name, d.Error)
	}

	type copyOf struct {
		store   uint64
		host    string
		applied uint64
		leader  bool
	}
	for _, addr := range online {
		hctx, cancel := context.WithTimeout(ctx, snapshotHostTimeout)
		err := st.HoldIntents(hctx, addr, int32(snapshotIntentHold/time.Second))
		cancel()
		if err != nil {
			asked = nil
			return fail("storaged %s: %v", addr, err)
		}
	}
	best := map[[2]int32]copyOf{}
	for _, h := range cat.Hosts {
		if !h.Online {
			continue
		}
		addr := fmt.Sprintf("%s:%d", h.Addr.GetHost(), h.Addr.GetPort())
		asked = append(asked, addr)
		hctx, cancel := context.WithTimeout(ctx, snapshotHostTimeout)
		parts, err := st.CreateCheckpoint(hctx, addr, d.Name, spaces)
		cancel()
		if err != nil {
			return fail("storaged %s: %v", addr, err)
		}
		d.Hosts = append(d.Hosts, addr)
		for _, p := range parts {
			k := [2]int32{p.SpaceId, p.PartId}
			c := copyOf{store: h.StoreId, host: addr, applied: p.AppliedIndex, leader: p.Leader}
			if cur, ok := best[k]; !ok || c.applied > cur.applied || (c.applied == cur.applied && c.leader && !cur.leader) {
				best[k] = c
			}
		}
	}
	// Checkpoints were taken one store after another: a partition's copy
	// may be older than in-edge versions it gave out that another
	// partition's copy holds. Its live applied index now, the largest of
	// its replicas, bounds every version it had given out by the last
	// checkpoint.
	high := map[[2]int32]uint64{}
	for _, addr := range d.Hosts {
		hctx, cancel := context.WithTimeout(ctx, snapshotHostTimeout)
		parts, err := st.VersionHighs(hctx, addr, spaces)
		cancel()
		if err != nil {
			return fail("storaged %s: %v", addr, err)
		}
		for _, p := range parts {
			k := [2]int32{p.SpaceId, p.PartId}
			high[k] = max(high[k], p.VersionHigh)
		}
	}
	for _, id := range covered {
		for part := int32(1); part <= known[id].PartitionNum; part++ {
			k := [2]int32{id, part}
			c, ok := best[k]
			if !ok {
				return fail("partition %d of space %q has no copy on an online storaged", part, known[id].Name)
			}
			d.Parts = append(d.Parts, &metapb.SnapshotPart{SpaceId: id, PartId: part, StoreId: c.store, Host: c.host, AppliedIndex: c.applied,
				VersionHigh: max(high[k], c.applied)})
		}
	}
	release()
	// The catalog now, after the checkpoints: schema versions and indexes
	// are only added, so every row and index key in them is described by
	// it, even with DDL during the snapshot.
	d.Catalog = s.servedCatalog(s.cat.current())
	d.Status = metapb.SnapshotDesc_VALID
	if err := s.putSnapshot(ctx, d); err != nil {
		return fail("%v", err)
	}
	s.log.Info("snapshot created", "snapshot", d.Name, "spaces", covered, "hosts", d.Hosts, "catalog_version", cat.Version)
	return d, nil
}

// dropSnapshot deletes a snapshot's checkpoints on every host that has
// one, then its record. A host that cannot be reached keeps the record,
// so that DROP SNAPSHOT can be run again.
func (s *Server) dropSnapshot(ctx context.Context, name string, ifExists bool, st snapshotStorage) error {
	d, err := s.getSnapshot(ctx, name)
	if err != nil {
		if ifExists && isCode(err, commonpb.ErrorCode_E_NOT_FOUND) {
			return nil
		}
		return err
	}
	for _, h := range d.Hosts {
		if err := st.DropCheckpoint(ctx, h, name); err != nil {
			return fmt.Errorf("snapshot %s: %w (its record stays; drop it again once the host is back)", name, err)
		}
	}
	if _, err := s.cli.Delete(ctx, snapshotKey(name)); err != nil {
		return fmt.Errorf("deleting snapshot %s: %w", name, err)
	}
	s.log.Info("snapshot dropped", "snapshot", name)
	return nil
}

// CreateSnapshot implements MetaService.
func (svc *service) CreateSnapshot(ctx context.Context, req *metapb.CreateSnapshotReq) (*metapb.CreateSnapshotResp, error) {
	st, err := svc.s.newSnapshotStorage()
	if err != nil {
		return &metapb.CreateSnapshotResp{Status: svc.s.toStatus("CreateSnapshot", err)}, nil
	}
	defer st.Close()
	d, err := svc.s.createSnapshot(ctx, req.GetSpaceIds(), st)
	return &metapb.CreateSnapshotResp{Status: svc.s.toStatus("CreateSnapshot", err), Snapshot: d}, nil
}

// ListSnapshots implements MetaService.
func (svc *service) ListSnapshots(ctx context.Context, _ *metapb.ListSnapshotsReq) (*metapb.ListSnapshotsResp, error) {
	ds, err := svc.s.listSnapshots(ctx)
	return &metapb.ListSnapshotsResp{Status: svc.s.toStatus("ListSnapshots", err), Snapshots: ds}, nil
}

// GetSnapshot implements MetaService.
func (svc *service) GetSnapshot(ctx context.Context, req *metapb.GetSnapshotReq) (*metapb.GetSnapshotResp, error) {
	d, err := svc.s.getSnapshot(ctx, req.GetName())
	return &metapb.GetSnapshotResp{Status: svc.s.toStatus("GetSnapshot", err), Snapshot: d}, nil
}

// DropSnapshot implements MetaService.
func (svc *service) DropSnapshot(ctx context.Context, req *metapb.DropSnapshotReq) (*metapb.DropSnapshotResp, error) {
	st, err := svc.s.newSnapshotStorage()
	if err == nil {
		defer st.Close()
		err = svc.s.dropSnapshot(ctx, req.GetName(), req.GetIfExists(), st)
	}
	return &metapb.DropSnapshotResp{Status: svc.s.toStatus("DropSnapshot", err)}, nil
}

// newSnapshotStorage connects to storaged as the job runner does; tests
// may substitute Server.snapshotStorage.
func (s *Server) newSnapshotStorage() (snapshotStorage, error) {
	if s.snapshotStorage != nil {
		return s.snapshotStorage()
	}
	st, err := selfStorageClient(s)
	if err != nil {
		return nil, err
	}
	return st, nil
}
