package storaged

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// Compact implements StorageAdminService: a RocksDB manual compaction of
// every key of the space (data, indexes and raft state of all its
// partitions on this host) in every data path, one path after the other.
// It is what a COMPACT job's task runs on each host; compaction is
// idempotent, so a task that is re-run just compacts again. RocksDB cannot
// cancel a manual compaction, so ctx is not honoured once it has started.
func (a *adminService) Compact(ctx context.Context, req *storagepb.CompactReq) (*storagepb.AdminResp, error) {
	start, limit := spaceRange(req.GetSpaceId())
	began := time.Now()
	for _, db := range a.srv.dbs {
		if ctx.Err() != nil {
			break
		}
		db.CompactRange(grocksdb.Range{Start: start, Limit: limit})
	}
	a.srv.log.Info("compacted space", "space_id", req.GetSpaceId(), "data_paths", len(a.srv.dbs),
		"took", time.Since(began).Round(time.Millisecond).String())
	return &storagepb.AdminResp{}, ctx.Err()
}

// spaceRange is [start, limit) covering every key of a space: the keys of
// all its partitions start with its id (partition/key.go).
func spaceRange(space int32) (start, limit []byte) {
	start = binary.BigEndian.AppendUint32(nil, uint32(space))
	return start, partition.PrefixEnd(start)
}
