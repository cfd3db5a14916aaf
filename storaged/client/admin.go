package client

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

type adminMethod func(storagepb.StorageAdminServiceClient, context.Context, *storagepb.PartPeerReq, ...grpc.CallOption) (*storagepb.AdminResp, error)

// admin runs one StorageAdminService call on the partition's leader,
// following leader changes like every other call.
func (c *Client) admin(ctx context.Context, space, part int32, store uint64, method adminMethod) error {
	// Admin steps are idempotent (each checks the state it moves from), so
	// they retry like reads.
	return c.fanOut(ctx, space, []int32{part}, false, func(ctx context.Context, conn grpc.ClientConnInterface, _ []int32) ([]*storagepb.PartResult, error) {
		resp, err := method(storagepb.NewStorageAdminServiceClient(conn), ctx, &storagepb.PartPeerReq{SpaceId: space, PartId: part, StoreId: store})
		return resp.GetFailedParts(), err
	})
}

// AddReplica adds store to a partition (learner, catch-up, voter; the
// catalog follows). The store must be registered and running.
func (c *Client) AddReplica(ctx context.Context, space, part int32, store uint64) error {
	return c.admin(ctx, space, part, store, storagepb.StorageAdminServiceClient.AddReplica)
}

// RemoveReplica removes store from a partition. It must not be the leader:
// call TransferLeader first.
func (c *Client) RemoveReplica(ctx context.Context, space, part int32, store uint64) error {
	return c.admin(ctx, space, part, store, storagepb.StorageAdminServiceClient.RemoveReplica)
}

// TransferLeader moves a partition's leadership to store.
func (c *Client) TransferLeader(ctx context.Context, space, part int32, store uint64) error {
	return c.admin(ctx, space, part, store, storagepb.StorageAdminServiceClient.TransferLeader)
}

// ReplaceReplica moves a partition's replica from one store to another in
// one joint-consensus change. from must not lead the partition.
func (c *Client) ReplaceReplica(ctx context.Context, space, part int32, from, to uint64) error {
	return c.fanOut(ctx, space, []int32{part}, false, func(ctx context.Context, conn grpc.ClientConnInterface, _ []int32) ([]*storagepb.PartResult, error) {
		resp, err := storagepb.NewStorageAdminServiceClient(conn).ReplaceReplica(ctx, &storagepb.PartMoveReq{SpaceId: space, PartId: part, FromStore: from, ToStore: to})
		return resp.GetFailedParts(), err
	})
}

// RebuildIndex rebuilds an index on every partition of the space, each on
// its leader, partitions in parallel.
func (c *Client) RebuildIndex(ctx context.Context, space, indexID int32, catalogVersion int64) error {
	parts := keys(c.meta.Catalog().Parts(space))
	return c.fanOut(ctx, space, parts, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		cli := storagepb.NewStorageAdminServiceClient(conn)
		var failed []*storagepb.PartResult
		for _, p := range ps {
			resp, err := cli.RebuildIndex(ctx, &storagepb.RebuildIndexReq{SpaceId: space, PartId: p, IndexId: indexID, CatalogVersion: catalogVersion})
			if err != nil {
				return nil, err
			}
			failed = append(failed, resp.GetFailedParts()...)
		}
		return failed, nil
	})
}

// ClearSpace deletes every vertex, edge and index entry of the space
// (CLEAR SPACE), each partition through raft on its leader, partitions of
// one host in turn and hosts in parallel. It is idempotent, so a host the
// client retries clears its partitions again harmlessly.
//
// First every partition carries out its pending edge intents
// (FlushIntents): an edge written before CLEAR whose other half was still
// on its way (an import does not wait for it) would otherwise land in a
// partition cleared already, from a partition cleared after it, and stay.
func (c *Client) ClearSpace(ctx context.Context, space int32) error {
	parts := keys(c.meta.Catalog().Parts(space))
	if len(parts) == 0 {
		return fmt.Errorf("space %d has no partitions in the catalog", space)
	}
	if err := c.FlushIntents(ctx, space, parts); err != nil {
		return fmt.Errorf("carrying out pending edge halves before clearing: %w", err)
	}
	return c.fanOut(ctx, space, parts, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		cli := storagepb.NewStorageAdminServiceClient(conn)
		var failed []*storagepb.PartResult
		for _, p := range ps {
			resp, err := cli.ClearPart(ctx, &storagepb.ClearPartReq{SpaceId: space, PartId: p})
			if err != nil {
				return nil, err
			}
			failed = append(failed, resp.GetFailedParts()...)
		}
		return failed, nil
	})
}

// SpaceStats counts the space's rows for a STATS job: every partition's
// leader counts its copy (PartStats), and the counts are summed. Each
// partition's count is kept by partition, so a host the client retries
// (after it answered some of its partitions) is not counted twice. A
// partition without a leader for the client's retries fails the call.
func (c *Client) SpaceStats(ctx context.Context, space int32) (*metapb.SpaceStats, error) {
	parts := keys(c.meta.Catalog().Parts(space))
	if len(parts) == 0 {
		return nil, fmt.Errorf("space %d has no partitions in the catalog", space)
	}
	var mu sync.Mutex
	byPart := map[int32]*metapb.SpaceStats{}
	err := c.fanOut(ctx, space, parts, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		cli := storagepb.NewStorageAdminServiceClient(conn)
		var failed []*storagepb.PartResult
		for _, p := range ps {
			resp, err := cli.PartStats(ctx, &storagepb.PartStatsReq{SpaceId: space, PartId: p})
			if err != nil {
				return nil, err
			}
			if f := resp.GetFailedParts(); len(f) > 0 {
				failed = append(failed, f...)
				continue
			}
			mu.Lock()
			byPart[p] = resp.GetStats()
			mu.Unlock()
		}
		return failed, nil
	})
	if err != nil {
		return nil, err
	}
	total := &metapb.SpaceStats{}
	tags, edges := map[int32]int64{}, map[int32]int64{}
	for _, st := range byPart {
		total.Vertices += st.GetVertices()
		total.Edges += st.GetEdges()
		for _, t := range st.GetTags() {
			tags[t.GetSchemaId()] += t.GetCount()
		}
		for _, e := range st.GetEdgeTypes() {
			edges[e.GetSchemaId()] += e.GetCount()
		}
	}
	if len(byPart) != len(parts) {
		return nil, fmt.Errorf("space %d: %d of %d partitions counted", space, len(byPart), len(parts))
	}
	for id, n := range tags {
		total.Tags = append(total.Tags, &metapb.SchemaCount{SchemaId: id, Count: n})
	}
	for id, n := range edges {
		total.EdgeTypes = append(total.EdgeTypes, &metapb.SchemaCount{SchemaId: id, Count: n})
	}
	slices.SortFunc(total.Tags, func(a, b *metapb.SchemaCount) int { return cmp.Compare(a.SchemaId, b.SchemaId) })
	slices.SortFunc(total.EdgeTypes, func(a, b *metapb.SchemaCount) int { return cmp.Compare(a.SchemaId, b.SchemaId) })
	return total, nil
}
