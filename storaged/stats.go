package storaged

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// PartStats implements StorageAdminService: what a STATS job counts in one
// partition, on its leader. It reads a RocksDB snapshot of the partition's
// tag and edge keys: the vertices (with a tag), the rows per tag, and the
// edges per type, each edge once, as its out-edge copy. Rows of a tag or
// edge type the catalog no longer has (dropped: their keys stay until
// compaction) are not counted, as NebulaGraph's STATS task skips them;
// rows a TTL has expired but compaction has not removed yet are.
func (a *adminService) PartStats(ctx context.Context, req *storagepb.PartStatsReq) (*storagepb.PartStatsResp, error) {
	g := raftgroup.GroupID{Space: req.GetSpaceId(), Part: req.GetPartId()}
	// As every read: the leader confirms it leads and has applied what
	// was committed, so rows acknowledged before the job are counted.
	if err := a.srv.engine.ReadIndex(ctx, g); err != nil {
		return &storagepb.PartStatsResp{FailedParts: a.fail(g, err).FailedParts}, nil
	}
	stats, err := a.countPart(ctx, g)
	if err != nil {
		return &storagepb.PartStatsResp{FailedParts: a.fail(g, err).FailedParts}, nil
	}
	return &storagepb.PartStatsResp{Stats: stats}, nil
}

func (a *adminService) countPart(ctx context.Context, g raftgroup.GroupID) (*metapb.SpaceStats, error) {
	db := a.srv.dbOf(g)
	if db == nil {
		return nil, fmt.Errorf("%s: stats: %w", g, raftgroup.ErrGroupNotFound)
	}
	catalog := a.srv.meta.Catalog()
	space, ok := catalog.SpaceByID(g.Space)
	if !ok {
		return nil, fmt.Errorf("%s: stats: space %d not in the catalog", g, g.Space)
	}
	vidLen := int(space.GetVidLen())
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		vidLen = partition.Int64VidLen
	}
	snap := db.NewSnapshot()
	defer db.ReleaseSnapshot(snap)
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // crosses vertex prefixes
	ro.SetSnapshot(snap)
	ro.SetFillCache(false) // a full scan would only evict the working set
	it := db.NewIterator(ro)
	defer it.Close()

	out := &metapb.SpaceStats{}
	tags, edges := map[int32]int64{}, map[int32]int64{}
	scanned := 0
	scan := func(kind byte, row func(key []byte) error) error {
		prefix := partition.KindPrefix(g.Space, g.Part, kind)
		for it.Seek(prefix); it.Valid(); it.Next() {
			k := it.Key()
			key := k.Data()
			if !bytes.HasPrefix(key, prefix) {
				k.Free()
				break
			}
			err := row(key)
			k.Free()
			if err != nil {
				return err
			}
			if scanned++; scanned%4096 == 0 && ctx.Err() != nil {
				return fmt.Errorf("%s: stats: %w", g, ctx.Err())
			}
		}
		return it.Err()
	}
	// Tag keys are ordered by vertex, then tag: a vertex is counted at its
	// first tag key.
	var lastVid []byte
	err := scan(partition.KindTag, func(key []byte) error {
		_, _, vid, tag, err := partition.ParseTagKey(key, vidLen)
		if err != nil {
			return fmt.Errorf("%s: stats: %w", g, err)
		}
		if _, ok := catalog.TagByID(g.Space, tag); !ok {
			return nil // a dropped tag's row
		}
		tags[tag]++
		if !bytes.Equal(vid, lastVid) {
			out.Vertices++
			lastVid = append(lastVid[:0], vid...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	edgeKeyLen := partition.EdgeKeyLen(vidLen)
	err = scan(partition.KindEdge, func(key []byte) error {
		if len(key) != edgeKeyLen {
			return fmt.Errorf("%s: stats: edge key %x is %d bytes, want %d", g, key, len(key), edgeKeyLen)
		}
		typ := partition.EdgeKeyType(key, vidLen)
		if typ <= 0 {
			return nil // the in-edge copy: the edge is counted at its source
		}
		if _, ok := catalog.EdgeByType(g.Space, typ); !ok {
			return nil // a dropped edge type's row
		}
		edges[typ]++
		out.Edges++
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Tags, out.EdgeTypes = schemaCounts(tags), schemaCounts(edges)
	return out, nil
}

// schemaCounts lists counts by schema id, in id order.
func schemaCounts(m map[int32]int64) []*metapb.SchemaCount {
	out := make([]*metapb.SchemaCount, 0, len(m))
	for id, n := range m {
		out = append(out, &metapb.SchemaCount{SchemaId: id, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SchemaId < out[j].SchemaId })
	return out
}
