package client

import (
	"context"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// splitParts fans out a request whose partitions are the keys of one map:
// each host gets a copy of req holding only its partitions (set by
// withParts), and rpc sends it.
func splitParts[R proto.Message, L any](c *Client, ctx context.Context, space int32, write bool, req R, parts map[int32]L,
	withParts func(R, map[int32]L), rpc func(context.Context, storagepb.StorageServiceClient, R) ([]*storagepb.PartResult, error)) error {
	return c.fanOut(ctx, space, keys(parts), write, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		sub := proto.CloneOf(req)
		mine := make(map[int32]L, len(ps))
		for _, p := range ps {
			mine[p] = parts[p]
		}
		withParts(sub, mine)
		return rpc(ctx, storagepb.NewStorageServiceClient(conn), sub)
	})
}

// AddVertices writes vertices, grouped by partition in req.Parts, and
// returns once every partition applied them.
func (c *Client) AddVertices(ctx context.Context, req *storagepb.AddVerticesReq) error {
	return splitParts(c, ctx, req.SpaceId, true, req, req.Parts,
		func(r *storagepb.AddVerticesReq, m map[int32]*storagepb.VertexList) { r.Parts = m },
		func(ctx context.Context, cli storagepb.StorageServiceClient, r *storagepb.AddVerticesReq) ([]*storagepb.PartResult, error) {
			resp, err := cli.AddVertices(ctx, r)
			return resp.GetFailedParts(), err
		})
}

// AddEdges writes edges given as out-edges, grouped by their source's
// partition; storaged mirrors the in-edges (see storaged/pair.go).
func (c *Client) AddEdges(ctx context.Context, req *storagepb.AddEdgesReq) error {
	return splitParts(c, ctx, req.SpaceId, true, req, req.Parts,
		func(r *storagepb.AddEdgesReq, m map[int32]*storagepb.EdgeList) { r.Parts = m },
		func(ctx context.Context, cli storagepb.StorageServiceClient, r *storagepb.AddEdgesReq) ([]*storagepb.PartResult, error) {
			resp, err := cli.AddEdges(ctx, r)
			return resp.GetFailedParts(), err
		})
}

// DeleteVertices deletes vertices with their tags and edges.
func (c *Client) DeleteVertices(ctx context.Context, req *storagepb.DeleteVerticesReq) error {
	return splitParts(c, ctx, req.SpaceId, true, req, req.Parts,
		func(r *storagepb.DeleteVerticesReq, m map[int32]*storagepb.VidList) { r.Parts = m },
		func(ctx context.Context, cli storagepb.StorageServiceClient, r *storagepb.DeleteVerticesReq) ([]*storagepb.PartResult, error) {
			resp, err := cli.DeleteVertices(ctx, r)
			return resp.GetFailedParts(), err
		})
}

// DeleteTags deletes tags of vertices.
func (c *Client) DeleteTags(ctx context.Context, req *storagepb.DeleteTagsReq) error {
	return splitParts(c, ctx, req.SpaceId, true, req, req.Parts,
		func(r *storagepb.DeleteTagsReq, m map[int32]*storagepb.VidList) { r.Parts = m },
		func(ctx context.Context, cli storagepb.StorageServiceClient, r *storagepb.DeleteTagsReq) ([]*storagepb.PartResult, error) {
			resp, err := cli.DeleteTags(ctx, r)
			return resp.GetFailedParts(), err
		})
}

// DeleteEdges deletes edges given by their out-edge keys, grouped by their
// source's partition.
func (c *Client) DeleteEdges(ctx context.Context, req *storagepb.DeleteEdgesReq) error {
	return splitParts(c, ctx, req.SpaceId, true, req, req.Parts,
		func(r *storagepb.DeleteEdgesReq, m map[int32]*storagepb.EdgeKeyList) { r.Parts = m },
		func(ctx context.Context, cli storagepb.StorageServiceClient, r *storagepb.DeleteEdgesReq) ([]*storagepb.PartResult, error) {
			resp, err := cli.DeleteEdges(ctx, r)
			return resp.GetFailedParts(), err
		})
}

// MirrorEdges sends in-edge mirrors, one request per destination
// partition, each routed and retried on its own, and returns the error of
// every partition that did not apply its mirrors (none: a nil map). It is
// storaged's own call (the edge-pair resolver, storaged/pair.go), which
// keeps the intents of the failed partitions and resolves the others: one
// partition without a leader must not hold back the in-edges of all the
// others (at SF100 with 100 partitions it held back nearly all of them).
func (c *Client) MirrorEdges(ctx context.Context, space int32, parts map[int32]*storagepb.MirrorEdgesReq) map[int32]error {
	return eachPart(c, ctx, space, parts, func(ctx context.Context, cli storagepb.StorageServiceClient, _ int32, req *storagepb.MirrorEdgesReq) ([]*storagepb.PartResult, error) {
		resp, err := cli.MirrorEdges(ctx, req)
		return resp.GetFailedParts(), err
	})
}

// DeleteEdgesEach deletes edges given by their out-edge keys, one request
// per owner partition, and returns the error of every partition that did
// not apply its deletes (none: a nil map): the resolver's forward deletes,
// which fail apart as MirrorEdges does.
func (c *Client) DeleteEdgesEach(ctx context.Context, space int32, parts map[int32]*storagepb.EdgeKeyList, noMirrorWait bool) map[int32]error {
	return eachPart(c, ctx, space, parts, func(ctx context.Context, cli storagepb.StorageServiceClient, p int32, keys *storagepb.EdgeKeyList) ([]*storagepb.PartResult, error) {
		resp, err := cli.DeleteEdges(ctx, &storagepb.DeleteEdgesReq{SpaceId: space, Parts: map[int32]*storagepb.EdgeKeyList{p: keys}, NoMirrorWait: noMirrorWait})
		return resp.GetFailedParts(), err
	})
}

// eachPart sends one write per partition, concurrently, each routed and
// retried on its own (fanOut), and returns the error of each partition
// that failed (none: a nil map).
func eachPart[R any](c *Client, ctx context.Context, space int32, parts map[int32]R,
	rpc func(ctx context.Context, cli storagepb.StorageServiceClient, part int32, req R) ([]*storagepb.PartResult, error)) map[int32]error {
	var mu sync.Mutex
	var failed map[int32]error
	var wg sync.WaitGroup
	for p, req := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.fanOut(ctx, space, []int32{p}, true, func(ctx context.Context, conn grpc.ClientConnInterface, _ []int32) ([]*storagepb.PartResult, error) {
				return rpc(ctx, storagepb.NewStorageServiceClient(conn), p, req)
			})
			if err != nil {
				mu.Lock()
				defer mu.Unlock()
				if failed == nil {
					failed = map[int32]error{}
				}
				failed[p] = err
			}
		}()
	}
	wg.Wait()
	return failed
}

// singlePart sends one request about one partition to its leader.
func singlePart[Resp any](c *Client, ctx context.Context, space, part int32, write bool,
	rpc func(context.Context, storagepb.StorageServiceClient) (Resp, *storagepb.PartResult, error)) (Resp, error) {
	var out Resp
	err := c.fanOut(ctx, space, []int32{part}, write, func(ctx context.Context, conn grpc.ClientConnInterface, _ []int32) ([]*storagepb.PartResult, error) {
		resp, pr, err := rpc(ctx, storagepb.NewStorageServiceClient(conn))
		if err != nil {
			return nil, err
		}
		if pr != nil && pr.Code != commonpb.ErrorCode_SUCCEEDED {
			return []*storagepb.PartResult{pr}, nil
		}
		out = resp
		return nil, nil
	})
	return out, err
}

// Update runs one UPDATE/UPSERT on the leader of req.PartId.
func (c *Client) Update(ctx context.Context, req *storagepb.UpdateReq) (*storagepb.UpdateResp, error) {
	return singlePart(c, ctx, req.SpaceId, req.PartId, true, func(ctx context.Context, cli storagepb.StorageServiceClient) (*storagepb.UpdateResp, *storagepb.PartResult, error) {
		resp, err := cli.Update(ctx, req)
		return resp, resp.GetResult(), err
	})
}

// ScanVertex reads one page of a partition's vertices.
func (c *Client) ScanVertex(ctx context.Context, req *storagepb.ScanReq) (*storagepb.ScanResp, error) {
	return singlePart(c, ctx, req.SpaceId, req.PartId, false, func(ctx context.Context, cli storagepb.StorageServiceClient) (*storagepb.ScanResp, *storagepb.PartResult, error) {
		resp, err := cli.ScanVertex(ctx, req)
		return resp, resp.GetResult(), err
	})
}

// ScanEdge reads one page of a partition's out-edges.
func (c *Client) ScanEdge(ctx context.Context, req *storagepb.ScanReq) (*storagepb.ScanResp, error) {
	return singlePart(c, ctx, req.SpaceId, req.PartId, false, func(ctx context.Context, cli storagepb.StorageServiceClient) (*storagepb.ScanResp, *storagepb.PartResult, error) {
		resp, err := cli.ScanEdge(ctx, req)
		return resp, resp.GetResult(), err
	})
}

// LookupIndex scans an index on the partitions in req.Parts (all of the
// space's if empty) and returns the rows found.
func (c *Client) LookupIndex(ctx context.Context, req *storagepb.LookupIndexReq) ([]*storagepb.PropRow, error) {
	parts := req.Parts
	if len(parts) == 0 {
		parts = keys(c.meta.Catalog().Parts(req.SpaceId))
	}
	var mu sync.Mutex
	var rows []*storagepb.PropRow
	err := c.fanOut(ctx, req.SpaceId, parts, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		sub := proto.CloneOf(req)
		sub.Parts = ps
		resp, err := storagepb.NewStorageServiceClient(conn).LookupIndex(ctx, sub)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		rows = append(rows, resp.Rows...)
		mu.Unlock()
		return resp.FailedParts, nil
	})
	return rows, err
}

// FinishRestore ends the restore of parts from snapshot name (nova-br):
// each drops its restore hold, and its intents are carried out.
func (c *Client) FinishRestore(ctx context.Context, space int32, parts []int32, name string) error {
	return c.fanOut(ctx, space, parts, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		resp, err := storagepb.NewStorageServiceClient(conn).FinishRestore(ctx, &storagepb.FinishRestoreReq{SpaceId: space, Parts: ps, Name: name})
		return resp.GetFailedParts(), err
	})
}

// FlushIntents asks the leaders of parts to carry out their pending edge
// intents and returns once they did (storaged's own call).
func (c *Client) FlushIntents(ctx context.Context, space int32, parts []int32) error {
	return c.fanOut(ctx, space, parts, false, func(ctx context.Context, conn grpc.ClientConnInterface, ps []int32) ([]*storagepb.PartResult, error) {
		resp, err := storagepb.NewStorageServiceClient(conn).FlushIntents(ctx, &storagepb.FlushIntentsReq{SpaceId: space, Parts: ps})
		return resp.GetFailedParts(), err
	})
}
