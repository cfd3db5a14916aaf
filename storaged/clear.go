package storaged

import (
	"context"
	"fmt"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// CLEAR SPACE empties a space and keeps its schema: graphd asks every
// partition's leader (ClearPart), which proposes one ClearPartOp through
// raft; each replica applies it as a RocksDB range deletion of the
// partition's data range (partition.DataRange: tags, edges, indexes,
// degrees, intents, tombstones), so replicas stay identical and a replica
// that catches up later by log or by snapshot ends up the same. The raft
// state outside that range stays. The deleted keys' space comes back at
// compaction (SUBMIT JOB COMPACT), as NebulaGraph advises after CLEAR.
//
// Before clearing, the client has every partition carry out its pending
// edge intents (storaged/client ClearSpace), so that no half of an edge
// written before CLEAR arrives in a partition already cleared. Partitions
// are cleared one by one, not at one instant: a write that lands during
// CLEAR SPACE may survive in a partition cleared before it, and an edge
// written then may keep one of its two copies.

// ClearPart implements StorageAdminService.
func (a *adminService) ClearPart(ctx context.Context, req *storagepb.ClearPartReq) (*storagepb.AdminResp, error) {
	g := raftgroup.GroupID{Space: req.GetSpaceId(), Part: req.GetPartId()}
	if err := a.requireLeader(g); err != nil {
		return a.fail(g, err), nil
	}
	cmd := &storagepb.Command{Mutations: []*storagepb.Mutation{{Op: &storagepb.Mutation_ClearPart{ClearPart: &storagepb.ClearPartOp{}}}}}
	if _, err := a.srv.proposeResult(ctx, g, cmd); err != nil {
		return a.fail(g, err), nil
	}
	a.srv.log.Info("cleared partition", "group", g)
	return &storagepb.AdminResp{}, nil
}

// clearPart applies a ClearPartOp: the whole data range goes in one range
// deletion written with the entry's applied index (ApplyBatch.DeleteRange).
func (st *applyState) clearPart() error {
	lo, hi := partition.DataRange(st.g.Space, st.g.Part)
	if err := st.b.DeleteRange(lo, hi); err != nil {
		return fmt.Errorf("%s entry %d: clearing the partition: %w", st.g, st.index, err)
	}
	return nil
}
