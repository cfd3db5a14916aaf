package client

import (
	"context"

	"github.com/novagraph/novagraph/proto/metapb"
)

// Snapshots (CREATE SNAPSHOT, SHOW SNAPSHOTS, DROP SNAPSHOT; docs/backup.md)
// are not part of the catalog: these calls read and write metad directly.

// CreateSnapshot makes a snapshot of the spaces (every space if none) and
// returns it once every storaged made its checkpoint.
func (c *Client) CreateSnapshot(ctx context.Context, spaces []int32) (*metapb.SnapshotDesc, error) {
	var resp *metapb.CreateSnapshotResp
	err := c.call(ctx, "CreateSnapshot", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.CreateSnapshot(ctx, &metapb.CreateSnapshotReq{SpaceIds: spaces})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return nil, err
	}
	return resp.Snapshot, nil
}

// ListSnapshots returns every snapshot, oldest first, without catalogs.
func (c *Client) ListSnapshots(ctx context.Context) ([]*metapb.SnapshotDesc, error) {
	var resp *metapb.ListSnapshotsResp
	err := c.call(ctx, "ListSnapshots", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.ListSnapshots(ctx, &metapb.ListSnapshotsReq{})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return nil, err
	}
	return resp.Snapshots, nil
}

// GetSnapshot returns one snapshot with its catalog.
func (c *Client) GetSnapshot(ctx context.Context, name string) (*metapb.SnapshotDesc, error) {
	var resp *metapb.GetSnapshotResp
	err := c.call(ctx, "GetSnapshot", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.GetSnapshot(ctx, &metapb.GetSnapshotReq{Name: name})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	if err != nil {
		return nil, err
	}
	return resp.Snapshot, nil
}

// DropSnapshot deletes a snapshot's checkpoints and its record.
func (c *Client) DropSnapshot(ctx context.Context, name string, ifExists bool) error {
	var resp *metapb.DropSnapshotResp
	err := c.call(ctx, "DropSnapshot", func(s metapb.MetaServiceClient) (err error) {
		resp, err = s.DropSnapshot(ctx, &metapb.DropSnapshotReq{Name: name, IfExists: ifExists})
		return err
	})
	if err == nil {
		err = statusErr(resp.Status)
	}
	return err
}

// RestoreCatalog recreates the spaces of a backup's catalog with their ids
// (nova-br restore) and returns once the cache has them. ctx must carry
// root's credential (WithCredential).
// replicaFactor > 0 replaces the backup's replica factor.
func (c *Client) RestoreCatalog(ctx context.Context, cat *metapb.Catalog, spaces []int32, replicaFactor int32) (int64, error) {
	ctx = AttachCredential(ctx)
	return c.writeUser(ctx, "RestoreCatalog", func(s metapb.MetaServiceClient) (*metapb.Status, int64, error) {
		resp, err := s.RestoreCatalog(ctx, &metapb.RestoreCatalogReq{Catalog: cat, SpaceIds: spaces, ReplicaFactor: replicaFactor})
		return resp.GetStatus(), resp.GetVersion(), err
	})
}
