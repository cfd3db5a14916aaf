package client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// sstChunk is the size of one UploadSST message.
const sstChunk = 1 << 20

// UploadSST stages the SST file at path on the store storeID for
// partition part of space, under name (see storaged/ingest.go). It goes to
// that store whether or not it leads the partition: every replica needs
// the file before IngestSST. It returns the content checksum (XXH64,
// storaged/sstsum.go) of what it sent, which the store checked: the
// checksum IngestSST names the file by.
func (c *Client) UploadSST(ctx context.Context, store uint64, space, part int32, name, path string) ([]byte, error) {
	addr, ok := c.meta.Catalog().HostAddr(store)
	if !ok {
		return nil, fmt.Errorf("uploading %s: store %d is not in the catalog", name, store)
	}
	conn, err := c.conn(addr)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("uploading %s: %w", name, err)
	}
	defer f.Close()
	stream, err := storagepb.NewStorageServiceClient(conn).UploadSST(ctx)
	if err != nil {
		return nil, fmt.Errorf("uploading %s to %s: %w", name, addr, err)
	}
	r := bufio.NewReaderSize(f, sstChunk)
	h := NewSSTHash(nil) // the content checksum (sstsum.go)
	buf := make([]byte, sstChunk)
	var sum []byte
	for {
		n, rerr := io.ReadFull(r, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("uploading %s: reading %s: %w", name, path, rerr)
		}
		h.Write(buf[:n])
		last := rerr != nil
		msg := &storagepb.SSTChunk{SpaceId: space, PartId: part, Name: name, Data: buf[:n], Last: last}
		if last {
			sum = h.Sum(nil)
			msg.Checksum = sum
		}
		if err := stream.Send(msg); err != nil {
			_, err = stream.CloseAndRecv() // the server's reason, if it gave one
			return nil, fmt.Errorf("uploading %s to %s: %w", name, addr, err)
		}
		if last {
			break
		}
	}
	if _, err := stream.CloseAndRecv(); err != nil {
		return nil, fmt.Errorf("uploading %s to %s: %w", name, addr, err)
	}
	return sum, nil
}

// IngestSST asks the leader of req.PartId to ingest staged files through
// the partition's raft log. Repeating it is harmless: the files hold whole
// keys, and degrees are recounted when the partition already had edges.
func (c *Client) IngestSST(ctx context.Context, req *storagepb.IngestSSTReq) error {
	_, err := singlePart(c, ctx, req.SpaceId, req.PartId, true, func(ctx context.Context, cli storagepb.StorageServiceClient) (*storagepb.IngestSSTResp, *storagepb.PartResult, error) {
		resp, err := cli.IngestSST(ctx, req)
		return resp, resp.GetResult(), err
	})
	return err
}
