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
		// A partition reported in failed_parts sent no vertices (one that
		// fails after sending some ends the stream with an error instead:
		// service.GetNeighbors), and a stream's vertices are kept only
		// once it ended cleanly, so keeping every batch received never
		// duplicates what a retry of failed parts returns. Batches of the
		// host's partitions interleave; vertices are independent.
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

// GetPropColumns reads properties of vertices in columns (GetPropsReq
// columns is set here): one block per partition that found any of them,
// in no particular order. onBlocks, if set, sees each host's blocks as
// they arrive, before the other hosts have answered, so that a caller can
// account for the memory of a large answer and stop the call early: when
// onBlocks returns an error, every request of the call is cancelled and
// the call returns that error as it is (no retry). As with
// GetNeighborsStream, blocks of a host whose answer is retried may be
// shown twice (an account then overcounts, never undercounts). Calls to
// onBlocks are serialised.
func (c *Client) GetPropColumns(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
	onBlocks func(blocks []*storagepb.PropColumns) error) ([]*storagepb.PropColumns, error) {
	req := &storagepb.GetPropsReq{SpaceId: tmpl.SpaceId, CatalogVersion: tmpl.CatalogVersion, Props: tmpl.Props, Columns: true, PackedStrings: tmpl.PackedStrings}
	return collectProps(ctx, c, req, vertexParts, nil, func(r *storagepb.GetPropsResp) []*storagepb.PropColumns { return r.Blocks }, onBlocks)
}

// collectProps runs req through getProps and gathers what pick takes of
// each host's answer, shown first to show (if set); an error from show
// ends the call with that error, as it is.
func collectProps[T any](ctx context.Context, c *Client, req *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
	edgeParts map[int32]*storagepb.EdgeKeyList, pick func(*storagepb.GetPropsResp) []T, show func([]T) error) ([]T, error) {
	var out []T
	var stopErr error // show's
	err := c.getProps(ctx, req, vertexParts, edgeParts, func(resp *storagepb.GetPropsResp) error {
		got := pick(resp)
		if show != nil && len(got) > 0 {
			if err := show(got); err != nil {
				stopErr = err
				return err
			}
		}
		out = append(out, got...)
		return nil
	})
	if stopErr != nil {
		return nil, stopErr
	}
	return out, err
}

// getProps sends tmpl's GetProps to every host of the parts and hands
// each host's answer to take (serialised); an error from take cancels the
// call, which returns it as it is.
func (c *Client) getProps(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
	edgeParts map[int32]*storagepb.EdgeKeyList, take func(resp *storagepb.GetPropsResp) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex // guards stopped, serialises take
	var stopped error
	all := keys(vertexParts)
	all = append(all, keys(edgeParts)...)
	err := c.fanOut(ctx, tmpl.SpaceId, all, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		cli := storagepb.NewStorageServiceClient(conn)
		req := &storagepb.GetPropsReq{SpaceId: tmpl.SpaceId, CatalogVersion: tmpl.CatalogVersion, Props: tmpl.Props, Columns: tmpl.Columns, PackedStrings: tmpl.PackedStrings}
		for _, p := range ps {
			if vl, ok := vertexParts[p]; ok {
				if req.VertexParts == nil {
					req.VertexParts = map[int32]*storagepb.VidList{}
				}
				req.VertexParts[p] = vl
			}
			if el, ok := edgeParts[p]; ok {
				if req.EdgeParts == nil {
					req.EdgeParts = map[int32]*storagepb.EdgeKeyList{}
				}
				req.EdgeParts[p] = el
			}
		}
		resp, err := cli.GetProps(ctx, req)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if stopped == nil {
			if err := take(resp); err != nil {
				stopped = err
				cancel(err)
			}
		}
		if stopped != nil {
			return nil, stopped
		}
		return resp.FailedParts, nil
	})
	mu.Lock()
	defer mu.Unlock()
	if stopped != nil {
		return stopped
	}
	return err
}
