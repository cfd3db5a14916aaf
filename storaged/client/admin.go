package client

import (
	"context"

	"google.golang.org/grpc"

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
