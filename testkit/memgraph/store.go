package memgraph

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// Storage is a Graph as graphd/exec.Storage: storaged's StorageService as
// the storage client presents it (requests keyed by partition, the first
// failed partition's error as a storaged/client PartError).
type Storage struct{ g *Graph }

func (g *Graph) now() int64 { return g.opts.Now().Unix() }

// spaceFor is the catalog and space a request reads or writes, and the
// space's data; g.mu must be held (for reading at least).
func (g *Graph) spaceFor(spaceID int32, version int64) (*catalog.Snapshot, *metapb.SpaceDesc, *kvs, error) {
	snap := g.snap
	if version > snap.Version() {
		return nil, nil, nil, &partitionError{Code: commonpb.ErrorCode_E_CATALOG_STALE,
			Msg: fmt.Sprintf("storaged catalog is older than version %d the request needs: memgraph is at %d", version, snap.Version())}
	}
	space, ok := snap.SpaceByID(spaceID)
	if !ok {
		return nil, nil, nil, &partitionError{Code: commonpb.ErrorCode_E_SPACE_NOT_FOUND, Msg: fmt.Sprintf("space %d not found", spaceID)}
	}
	data := g.data[spaceID]
	if data == nil {
		// Not stored here: readers hold g.mu only for reading. A write
		// stores what it built (write).
		data = newKVs()
	}
	return snap, space, data, nil
}

// sortedParts lists a request's partitions in ascending order, the order
// memgraph answers them in.
func sortedParts[V any](m map[int32]V) []int32 {
	return slices.Sorted(maps.Keys(m))
}

// allParts is every partition of a space, ascending.
func allParts(space *metapb.SpaceDesc) []int32 {
	out := make([]int32, space.GetPartitionNum())
	for i := range out {
		out[i] = int32(i + 1)
	}
	return out
}

// firstPart is the lowest of parts, for a failure every partition shares
// (the client reports the first failed partition it is told of).
func firstPart(parts []int32) int32 {
	if len(parts) == 0 {
		return 0
	}
	return slices.Min(parts)
}

// GetNeighbors answers tmpl for the vids of each partition.
func (s *Storage) GetNeighbors(ctx context.Context, tmpl *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList) ([]*storagepb.VertexNeighbors, error) {
	return s.GetNeighborsStream(ctx, tmpl, parts, nil)
}

// GetNeighborsStream is GetNeighbors showing each partition's answer to
// onBatch, in partition order, once every partition answered.
func (s *Storage) GetNeighborsStream(ctx context.Context, tmpl *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList,
	onBatch func(batch []*storagepb.VertexNeighbors) error) ([]*storagepb.VertexNeighbors, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g := s.g
	order := sortedParts(parts)
	var batches [][]*storagepb.VertexNeighbors
	err := func() error {
		g.mu.RLock()
		defer g.mu.RUnlock()
		snap, space, data, err := g.spaceFor(tmpl.SpaceId, tmpl.CatalogVersion)
		if err != nil {
			return partError(firstPart(order), err)
		}
		now := g.now()
		for _, part := range order {
			vns, err := scanNeighbors(ctx, data, snap, space, part, tmpl, parts[part].GetVids(), now)
			if err != nil {
				return partError(part, err)
			}
			batches = append(batches, vns)
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}
	return showBatches(batches, onBatch)
}

// GetProps reads properties of vertices or of edges.
func (s *Storage) GetProps(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
	edgeParts map[int32]*storagepb.EdgeKeyList) ([]*storagepb.PropRow, error) {
	// Exactly one of the maps is set (GetPropsReq).
	order := slices.Concat(sortedParts(vertexParts), sortedParts(edgeParts))
	var out []*storagepb.PropRow
	err := s.readParts(ctx, tmpl, order, func(r *rowread.Reader, space *metapb.SpaceDesc, read func([]byte) ([]byte, error), part int32) error {
		rows, err := r.GetProps(read, space, part, tmpl, vertexParts[part].GetVids(), edgeParts[part].GetKeys())
		out = append(out, rows...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetPropColumns is GetProps of vertices in columns: a block per
// partition that found any of them, shown to onBlocks as storaged's hosts
// would show them.
func (s *Storage) GetPropColumns(ctx context.Context, tmpl *storagepb.GetPropsReq, vertexParts map[int32]*storagepb.VidList,
	onBlocks func(blocks []*storagepb.PropColumns) error) ([]*storagepb.PropColumns, error) {
	req := &storagepb.GetPropsReq{SpaceId: tmpl.SpaceId, CatalogVersion: tmpl.CatalogVersion, Props: tmpl.Props, Columns: true, PackedStrings: tmpl.PackedStrings}
	var batches [][]*storagepb.PropColumns
	err := s.readParts(ctx, req, sortedParts(vertexParts), func(r *rowread.Reader, space *metapb.SpaceDesc, read func([]byte) ([]byte, error), part int32) error {
		block, err := r.GetPropColumns(read, nil, space, part, req, vertexParts[part].GetVids())
		if block != nil {
			batches = append(batches, []*storagepb.PropColumns{block})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return showBatches(batches, onBlocks)
}

// readParts runs read for each partition of order in turn, under the
// graph's read lock, with a reader of req's space; a failure is that
// partition's, as storaged reports it.
func (s *Storage) readParts(ctx context.Context, req *storagepb.GetPropsReq, order []int32,
	read func(r *rowread.Reader, space *metapb.SpaceDesc, get func([]byte) ([]byte, error), part int32) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g := s.g
	g.mu.RLock()
	defer g.mu.RUnlock()
	snap, space, data, err := g.spaceFor(req.SpaceId, req.CatalogVersion)
	if err != nil {
		return partError(firstPart(order), err)
	}
	r := rowread.NewReader(snap, req.SpaceId, g.now())
	for _, part := range order {
		if err := read(r, space, data.read, part); err != nil {
			return partError(part, err)
		}
	}
	return nil
}

// showBatches shows each partition's non-empty answer to show (nil: none),
// as storaged's streams arrive, and returns them all in order; an error
// from show ends the call with it, as the real client's calls do.
func showBatches[T any](batches [][]T, show func([]T) error) ([]T, error) {
	var out []T
	for _, b := range batches {
		if show != nil && len(b) > 0 {
			if err := show(b); err != nil {
				return nil, err
			}
		}
		out = append(out, b...)
	}
	return out, nil
}

// LookupIndex scans an index on the partitions of req (all of the space's
// if none), with its limit per partition.
func (s *Storage) LookupIndex(ctx context.Context, req *storagepb.LookupIndexReq) ([]*storagepb.PropRow, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g := s.g
	g.mu.RLock()
	defer g.mu.RUnlock()
	order := slices.Sorted(slices.Values(req.Parts))
	snap, space, data, err := g.spaceFor(req.SpaceId, req.CatalogVersion)
	if err != nil {
		return nil, partError(firstPart(order), err)
	}
	if len(order) == 0 {
		order = allParts(space)
	}
	now := g.now()
	var out []*storagepb.PropRow
	for _, part := range order {
		rows, err := lookupPart(data, snap, space, part, req, now)
		if err != nil {
			return nil, partError(part, err)
		}
		out = append(out, rows...)
	}
	return out, nil
}

// write runs build for each partition, in ascending order: each
// partition's writes apply whole or not at all, on a copy of the space's
// data that replaces it once they all succeeded (a raft entry per
// partition, in storaged). check runs first for the whole partition, as
// storaged's leader checks a request before it proposes it. The error is
// the lowest failed partition's; the other partitions' writes stay.
func (g *Graph) write(spaceID int32, version int64, parts []int32,
	check func(space *metapb.SpaceDesc, part int32) error, apply func(st *applyState) error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	snap, space, data, err := g.spaceFor(spaceID, version)
	if err != nil {
		return partError(firstPart(parts), err)
	}
	var first error
	for _, part := range parts {
		if err := check(space, part); err != nil {
			if first == nil {
				first = partError(part, err)
			}
			continue
		}
		st := &applyState{g: g, data: data.clone(), snap: snap, space: space, spaceID: spaceID, part: part,
			vidLen: int(space.GetVidLen()), now: g.now(), r: rowread.NewReader(snap, spaceID, g.now())}
		if err := apply(st); err != nil {
			if first == nil {
				first = partError(part, err)
			}
			continue
		}
		data = st.data
		g.data[spaceID] = data
	}
	return first
}

// ClearSpace deletes every key of the space (storaged's ClearPart on
// every partition): memgraph holds nothing else of it.
func (s *Storage) ClearSpace(_ context.Context, space int32) error {
	g := s.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.snap.SpaceByID(space); !ok {
		return partError(1, &partitionError{Code: commonpb.ErrorCode_E_SPACE_NOT_FOUND, Msg: fmt.Sprintf("space %d not found", space)})
	}
	g.data[space] = newKVs()
	return nil
}

// AddVertices writes vertices (storaged's AddVertices and putVertex).
func (s *Storage) AddVertices(_ context.Context, req *storagepb.AddVerticesReq) error {
	return s.g.write(req.SpaceId, req.CatalogVersion, sortedParts(req.Parts), func(space *metapb.SpaceDesc, part int32) error {
		rd := rowread.NewReader(s.g.snap, req.SpaceId, 0)
		for _, v := range req.Parts[part].GetVertices() {
			if err := rowread.CheckVid(space, part, v.Vid); err != nil {
				return err
			}
			for _, t := range v.Tags {
				if _, err := rd.Tag(t.TagId); err != nil {
					return err
				}
			}
		}
		return nil
	}, func(st *applyState) error {
		for _, v := range req.Parts[st.part].GetVertices() {
			if err := st.putVertex(v, req.IfNotExists); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddEdges writes out-edges and their in-edges (storaged's AddEdges and
// putEdge, with the mirror applied at once).
func (s *Storage) AddEdges(_ context.Context, req *storagepb.AddEdgesReq) error {
	return s.g.write(req.SpaceId, req.CatalogVersion, sortedParts(req.Parts), func(space *metapb.SpaceDesc, part int32) error {
		rd := rowread.NewReader(s.g.snap, req.SpaceId, 0)
		for _, e := range req.Parts[part].GetEdges() {
			if err := rowread.CheckEdge(space, part, e.Src, e.EdgeType, e.Dst); err != nil {
				return err
			}
			if _, err := rd.Edge(e.EdgeType); err != nil {
				return err
			}
		}
		return nil
	}, func(st *applyState) error {
		for _, e := range req.Parts[st.part].GetEdges() {
			if err := st.putEdge(e, req.IfNotExists); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteVertices deletes vertices with their tags and the edges of both
// directions.
func (s *Storage) DeleteVertices(_ context.Context, req *storagepb.DeleteVerticesReq) error {
	return s.g.write(req.SpaceId, req.CatalogVersion, sortedParts(req.Parts), func(space *metapb.SpaceDesc, part int32) error {
		for _, vid := range req.Parts[part].GetVids() {
			if err := rowread.CheckVid(space, part, vid); err != nil {
				return err
			}
		}
		return nil
	}, func(st *applyState) error {
		for _, vid := range req.Parts[st.part].GetVids() {
			if err := st.deleteVertex(vid); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteTags removes tags (all if req.TagIds is empty) from vertices.
func (s *Storage) DeleteTags(_ context.Context, req *storagepb.DeleteTagsReq) error {
	return s.g.write(req.SpaceId, req.CatalogVersion, sortedParts(req.Parts), func(space *metapb.SpaceDesc, part int32) error {
		for _, vid := range req.Parts[part].GetVids() {
			if err := rowread.CheckVid(space, part, vid); err != nil {
				return err
			}
		}
		return nil
	}, func(st *applyState) error {
		for _, vid := range req.Parts[st.part].GetVids() {
			if err := st.deleteTagRows(vid, req.TagIds); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteEdges deletes edges given by their out-edge keys, with their
// in-edges.
func (s *Storage) DeleteEdges(_ context.Context, req *storagepb.DeleteEdgesReq) error {
	return s.g.write(req.SpaceId, req.CatalogVersion, sortedParts(req.Parts), func(space *metapb.SpaceDesc, part int32) error {
		for _, k := range req.Parts[part].GetKeys() {
			if err := rowread.CheckEdge(space, part, k.Src, k.EdgeType, k.Dst); err != nil {
				return err
			}
		}
		return nil
	}, func(st *applyState) error {
		for _, k := range req.Parts[st.part].GetKeys() {
			if err := st.deleteEdge(st.part, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Update runs one UPDATE or UPSERT (storaged's Update and its apply).
func (s *Storage) Update(_ context.Context, req *storagepb.UpdateReq) (*storagepb.UpdateResp, error) {
	var resp *storagepb.UpdateResp
	err := s.g.write(req.SpaceId, req.CatalogVersion, []int32{req.PartId}, func(space *metapb.SpaceDesc, part int32) error {
		rd := rowread.NewReader(s.g.snap, req.SpaceId, 0)
		if req.Edge != nil {
			if err := rowread.CheckEdge(space, part, req.Edge.Src, req.Edge.EdgeType, req.Edge.Dst); err != nil {
				return err
			}
			_, err := rd.Edge(req.Edge.EdgeType)
			return err
		}
		if err := rowread.CheckVid(space, part, req.Vid); err != nil {
			return err
		}
		_, err := rd.Tag(req.TagId)
		return err
	}, func(st *applyState) error {
		var err error
		resp, err = st.update(req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// RebuildIndex rebuilds an index on every partition of the space.
func (s *Storage) RebuildIndex(_ context.Context, space, indexID int32, catalogVersion int64) error {
	g := s.g
	snap := g.catalog()
	sp, ok := snap.SpaceByID(space)
	if !ok {
		return partError(1, &partitionError{Code: commonpb.ErrorCode_E_SPACE_NOT_FOUND, Msg: fmt.Sprintf("space %d not found", space)})
	}
	return g.write(space, catalogVersion, allParts(sp), func(_ *metapb.SpaceDesc, _ int32) error {
		if _, ok := g.snap.IndexByID(space, indexID); !ok {
			return notFoundIndex(space, indexID)
		}
		return nil
	}, func(st *applyState) error {
		desc, _ := st.snap.IndexByID(space, indexID)
		return st.rebuildIndex(desc)
	})
}
