package client

import (
	"context"
	"io"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// GetNeighborsStream is GetNeighbors that shows each response message to
// onBatch as it arrives, before the call completes, so that a caller can
// account for the memory a large answer takes and stop it early: when
// onBatch returns an error, every stream of the call is cancelled and the
// call returns that error as it is (no retry).
//
// onBatch looks at the batches; the call still returns every vertex once,
// collected as GetNeighbors does. A batch is shown before it is known to be
// kept: if a host's stream breaks after some batches, its partitions are
// asked again and their vertices are shown again, so onBatch may see a
// vertex more than once (a memory account then overcounts, never
// undercounts). Calls to onBatch are serialised.
func (c *Client) GetNeighborsStream(ctx context.Context, tmpl *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList,
	onBatch func(batch []*storagepb.VertexNeighbors) error) ([]*storagepb.VertexNeighbors, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex // guards out and stopped, serialises onBatch
	var out []*storagepb.VertexNeighbors
	var stopped error
	// show passes a batch to onBatch and reports the error that ends the
	// call, if any.
	show := func(vs []*storagepb.VertexNeighbors) error {
		mu.Lock()
		defer mu.Unlock()
		if stopped == nil && onBatch != nil && len(vs) > 0 {
			if err := onBatch(vs); err != nil {
				stopped = err
				cancel(err)
			}
		}
		return stopped
	}
	err := c.fanOut(ctx, tmpl.SpaceId, keys(parts), false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		cli := storagepb.NewStorageServiceClient(conn)
		req := proto.CloneOf(tmpl)
		req.Parts = make(map[int32]*storagepb.VidList, len(ps))
		for _, p := range ps {
			req.Parts[p] = parts[p]
		}
		stream, err := cli.GetNeighbors(ctx, req)
		if err != nil {
			return nil, err
		}
		// A partition's vertices arrive only once the partition finished
		// without error (service.GetNeighbors), so keeping every batch
		// received never duplicates what a retry of failed parts returns.
		var got []*storagepb.VertexNeighbors
		var failed []*storagepb.PartResult
		for {
			resp, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if err := show(resp.Vertices); err != nil {
				return nil, err
			}
			got = append(got, resp.Vertices...)
			failed = append(failed, resp.FailedParts...)
		}
		mu.Lock()
		out = append(out, got...)
		mu.Unlock()
		return failed, nil
	})
	mu.Lock()
	defer mu.Unlock()
	if stopped != nil {
		return nil, stopped
	}
	return out, err
}
