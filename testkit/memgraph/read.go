package memgraph

import (
	"context"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// The reads are storaged's (storaged/rowread) on the ordered map instead
// of RocksDB: what is memgraph's is only how the keys are read.

// read is a point read of the map as rowread reads keys (nil: no key).
func (s *kvs) read(key []byte) ([]byte, error) { return s.get(key), nil }

// scanNeighbors answers GetNeighbors for the vids of one partition, in
// their order (storaged's scanNeighbors).
func scanNeighbors(ctx context.Context, data *kvs, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32,
	req *storagepb.GetNeighborsReq, vids [][]byte, now int64) ([]*storagepb.VertexNeighbors, error) {
	// storaged seeds sample_per_vertex with the clock; a fixed seed per
	// partition keeps tests repeatable.
	nb, err := rowread.NewNeighbors(snap, space, part, req, vids, now, 1)
	if err != nil || len(vids) == 0 {
		return nil, err
	}
	out := make([]*storagepb.VertexNeighbors, 0, len(vids))
	for _, vid := range vids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vn, err := nb.Vertex(vid, data.read,
			func(et int32) (int64, error) {
				return degree(data, partition.EdgePrefix(req.SpaceId, part, vid, et)), nil
			},
			func(et int32) error { return edges(nb, data, partition.EdgePrefix(req.SpaceId, part, vid, et)) })
		if err != nil {
			return nil, err
		}
		out = append(out, vn)
	}
	return out, nil
}

// degree is the number of edges of one type and direction of a vertex
// (their prefix), which is what storaged's stored degree counts (expired
// edges included; memgraph keeps no in-edge tombstones).
func degree(data *kvs, prefix []byte) int64 {
	n := int64(0)
	data.scanPrefix(prefix, func(_, _ []byte) bool {
		n++
		return true
	})
	return n
}

// edges hands the edges under prefix, in key order, to nb.
func edges(nb *rowread.Neighbors, data *kvs, prefix []byte) error {
	var failed error
	data.scanPrefix(prefix, func(key, val []byte) bool {
		if nb.Full() {
			return false
		}
		failed = nb.AddEdge(key, val)
		return failed == nil
	})
	return failed
}

// lookupPart answers LookupIndex for one partition (storaged's lookupPart).
func lookupPart(data *kvs, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.LookupIndexReq, now int64) ([]*storagepb.PropRow, error) {
	return rowread.Lookup(snap, space, part, req, now, data.read, func(lower, upper []byte, visit func(key []byte) (bool, error)) error {
		var failed error
		data.scan(lower, upper, func(key, _ []byte) bool {
			var more bool
			more, failed = visit(key)
			return more && failed == nil
		})
		return failed
	})
}
