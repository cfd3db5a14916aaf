package client

import (
	"context"
	"fmt"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// Compact runs a RocksDB manual compaction of the space's keys on the
// storaged at addr ("host:port"). Unlike the partition calls it goes to
// one host, not to a leader, and is not retried: compaction is
// idempotent, and the caller (a COMPACT job's task) decides about retries.
func (c *Client) Compact(ctx context.Context, addr string, space int32) error {
	conn, err := c.conn(addr)
	if err != nil {
		return err
	}
	resp, err := storagepb.NewStorageAdminServiceClient(conn).Compact(ctx, &storagepb.CompactReq{SpaceId: space})
	if err != nil {
		return fmt.Errorf("storaged %s: compact: %w", addr, err)
	}
	if f := resp.GetFailedParts(); len(f) > 0 {
		return &PartError{Part: f[0].PartId, Code: f[0].Code, Msg: fmt.Sprintf("storaged %s: compact: %s", addr, f[0].Message)}
	}
	return nil
}
