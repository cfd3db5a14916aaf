package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// CreateCheckpoint asks the storaged at addr to make the checkpoint name of
// the spaces (all if none) and returns where each of its replicas stands
// in it (CREATE SNAPSHOT; storaged/checkpoint.go).
func (c *Client) CreateCheckpoint(ctx context.Context, addr, name string, spaces []int32) ([]*storagepb.CheckpointPart, error) {
	conn, err := c.conn(addr)
	if err != nil {
		return nil, err
	}
	resp, err := storagepb.NewStorageAdminServiceClient(conn).CreateCheckpoint(ctx, &storagepb.CheckpointReq{Name: name, SpaceIds: spaces})
	if err != nil {
		return nil, fmt.Errorf("storaged %s: snapshot %q: %w", addr, name, err)
	}
	return resp.GetParts(), nil
}

// VersionHighs asks the storaged at addr for each of its replicas' live
// version base plus applied index (a snapshot's version bound).
func (c *Client) VersionHighs(ctx context.Context, addr string, spaces []int32) ([]*storagepb.CheckpointPart, error) {
	conn, err := c.conn(addr)
	if err != nil {
		return nil, err
	}
	resp, err := storagepb.NewStorageAdminServiceClient(conn).VersionHighs(ctx, &storagepb.CheckpointReq{SpaceIds: spaces})
	if err != nil {
		return nil, fmt.Errorf("storaged %s: version highs: %w", addr, err)
	}
	return resp.GetParts(), nil
}

// HoldIntents asks the storaged at addr to carry out no edge intents for
// the given seconds (0: resume), returning once none is being carried out.
func (c *Client) HoldIntents(ctx context.Context, addr string, seconds int32) error {
	conn, err := c.conn(addr)
	if err != nil {
		return err
	}
	if _, err := storagepb.NewStorageAdminServiceClient(conn).HoldIntents(ctx, &storagepb.HoldIntentsReq{Seconds: seconds}); err != nil {
		return fmt.Errorf("storaged %s: holding intents: %w", addr, err)
	}
	return nil
}

// DropCheckpoint asks the storaged at addr to delete the checkpoint name.
func (c *Client) DropCheckpoint(ctx context.Context, addr, name string) error {
	conn, err := c.conn(addr)
	if err != nil {
		return err
	}
	if _, err := storagepb.NewStorageAdminServiceClient(conn).DropCheckpoint(ctx, &storagepb.CheckpointReq{Name: name}); err != nil {
		return fmt.Errorf("storaged %s: dropping snapshot %q: %w", addr, name, err)
	}
	return nil
}

// Export is what ExportCheckpointPart wrote: the SST file's size and
// SHA-256 (checked against the bytes received), the keys in it, and the
// partition's applied index in the checkpoint.
type Export struct {
	Size              int64
	SHA256            []byte
	Keys              int64
	Applied           uint64
	Smallest, Largest []byte // the file's first and last keys
	// VersionHigh is past every in-edge version and intent order in the
	// file: a restored partition's version base (IngestSSTReq.version_base).
	VersionHigh uint64
}

// ExportCheckpointPart streams a partition's data from the checkpoint name
// at the storaged at addr into w, as one SST file. The checksum storaged
// sends at the end must match the bytes received, or the export fails.
func (c *Client) ExportCheckpointPart(ctx context.Context, addr, name string, space, part int32, w io.Writer) (Export, error) {
	conn, err := c.conn(addr)
	if err != nil {
		return Export{}, err
	}
	stream, err := storagepb.NewStorageAdminServiceClient(conn).ExportCheckpointPart(ctx, &storagepb.ExportPartReq{Name: name, SpaceId: space, PartId: part})
	if err != nil {
		return Export{}, fmt.Errorf("storaged %s: exporting partition %d of space %d: %w", addr, part, space, err)
	}
	h := sha256.New()
	var got int64
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return Export{}, fmt.Errorf("storaged %s: the export of partition %d of space %d ended without its checksum", addr, part, space)
		}
		if err != nil {
			return Export{}, fmt.Errorf("storaged %s: exporting partition %d of space %d: %w", addr, part, space, err)
		}
		if len(chunk.GetSha256()) > 0 {
			sum := h.Sum(nil)
			if chunk.GetSize() != got || !bytes.Equal(sum, chunk.GetSha256()) {
				return Export{}, fmt.Errorf("storaged %s: the export of partition %d of space %d arrived damaged: %d bytes with SHA-256 %x, sent %d with %x",
					addr, part, space, got, sum, chunk.GetSize(), chunk.GetSha256())
			}
			return Export{Size: got, SHA256: sum, Keys: chunk.GetKeys(), Applied: chunk.GetAppliedIndex(),
				Smallest: chunk.GetSmallest(), Largest: chunk.GetLargest(), VersionHigh: chunk.GetVersionHigh()}, nil
		}
		if _, err := w.Write(chunk.GetData()); err != nil {
			return Export{}, fmt.Errorf("writing the export of partition %d of space %d: %w", part, space, err)
		}
		h.Write(chunk.GetData())
		got += int64(len(chunk.GetData()))
	}
}
