package storaged

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/internal/schema"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// catalogWait bounds how long a request waits for this store's catalog to
// reach the version the requester already saw.
const catalogWait = 3 * time.Second

// service implements StorageService on top of the raft engine and the
// partitions' RocksDB instances.
type service struct {
	storagepb.UnimplementedStorageServiceServer
	srv *Server
}

// partError turns a failure of one partition into its PartResult, with a
// leader hint when the replica knows the leader.
func (s *service) partError(snap *metaclient.Snapshot, part int32, err error) *storagepb.PartResult {
	pr := &storagepb.PartResult{PartId: part, Code: commonpb.ErrorCode_E_STORAGE, Message: err.Error()}
	var partErr *partitionError
	switch {
	case errors.As(err, &partErr):
		pr.Code = partErr.code
	case errors.Is(err, raftgroup.ErrGroupNotFound):
		pr.Code = commonpb.ErrorCode_E_PART_NOT_FOUND
	case errors.Is(err, raftgroup.ErrStopped):
		// This store's engine halted (a disk failure): another replica
		// must serve, so route the client away with no leader hint.
		pr.Code = commonpb.ErrorCode_E_LEADER_CHANGED
	case errors.Is(err, raftgroup.ErrAmbiguous):
		// The leader changed under an in-flight write: it may still
		// commit. Retrying it could apply it twice around another write,
		// so the caller is told the outcome is unknown.
		pr.Code = commonpb.ErrorCode_E_OUTCOME_UNKNOWN
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		pr.Code = commonpb.ErrorCode_E_TIMEOUT
	}
	if nl, ok := raftgroup.AsNotLeader(err); ok {
		pr.Code = commonpb.ErrorCode_E_LEADER_CHANGED
		pr.LeaderStoreId = nl.Leader
		if h, ok := snap.Host(nl.Leader); ok {
			pr.Leader = h.GetAddr()
		}
	}
	return pr
}

// partitionError is a per-partition failure with a specific code.
type partitionError struct {
	code commonpb.ErrorCode
	msg  string
}

func (e *partitionError) Error() string { return e.msg }

func invalid(format string, args ...any) error {
	return &partitionError{code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: fmt.Sprintf(format, args...)}
}

// spaceFor waits for the catalog version the request needs and returns the
// space.
func (s *service) spaceFor(ctx context.Context, spaceID int32, version int64) (*metaclient.Snapshot, *metapb.SpaceDesc, error) {
	if version > 0 {
		wctx, cancel := context.WithTimeout(ctx, catalogWait)
		err := s.srv.meta.WaitVersion(wctx, version)
		cancel()
		if err != nil {
			return nil, nil, &partitionError{code: commonpb.ErrorCode_E_CATALOG_STALE,
				msg: fmt.Sprintf("storaged catalog is older than version %d the request needs: %v", version, err)}
		}
	}
	snap := s.srv.meta.Catalog()
	space, ok := snap.SpaceByID(spaceID)
	if !ok {
		return snap, nil, &partitionError{code: commonpb.ErrorCode_E_SPACE_NOT_FOUND, msg: fmt.Sprintf("space %d not found", spaceID)}
	}
	return snap, space, nil
}

// forEachPart runs fn for every partition concurrently and collects the
// failures.
func (s *service) forEachPart(snap *metaclient.Snapshot, parts []int32, fn func(part int32) error) []*storagepb.PartResult {
	var mu sync.Mutex
	var failed []*storagepb.PartResult
	var wg sync.WaitGroup
	for _, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(part); err != nil {
				pr := s.partError(snap, part, err)
				mu.Lock()
				failed = append(failed, pr)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return failed
}

func allFailed(snap *metaclient.Snapshot, s *service, parts []int32, err error) []*storagepb.PartResult {
	out := make([]*storagepb.PartResult, len(parts))
	for i, p := range parts {
		out[i] = s.partError(snap, p, err)
	}
	return out
}

func keysOf[V any](m map[int32]V) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkVid verifies that an encoded vid has the space's length and belongs
// to the partition it was sent to: a misrouted write would be invisible to
// every read.
func checkVid(space *metapb.SpaceDesc, part int32, vid []byte) error {
	if len(vid) != int(space.GetVidLen()) {
		return invalid("vid %x has %d bytes, space %q needs %d", vid, len(vid), space.GetName(), space.GetVidLen())
	}
	if got := partition.PartOf(vid, partition.VidType(space.GetVidType()), space.GetPartitionNum()); got != part {
		return invalid("vid %x belongs to partition %d, not %d", vid, got, part)
	}
	return nil
}

// AddVertices implements StorageService.
func (s *service) AddVertices(ctx context.Context, req *storagepb.AddVerticesReq) (*storagepb.ExecResp, error) {
	parts := keysOf(req.Parts)
	snap, space, err := s.spaceFor(ctx, req.SpaceId, 0)
	if err != nil {
		return &storagepb.ExecResp{FailedParts: allFailed(snap, s, parts, err)}, nil
	}
	failed := s.forEachPart(snap, parts, func(part int32) error {
		var ops []writeOp
		for _, v := range req.Parts[part].GetVertices() {
			if err := checkVid(space, part, v.Vid); err != nil {
				return err
			}
			for _, t := range v.Tags {
				ops = append(ops, writeOp{kind: opPut, key: partition.TagKey(req.SpaceId, part, v.Vid, t.TagId), value: t.Row})
			}
		}
		return s.srv.engine.Propose(ctx, raftgroup.GroupID{Space: req.SpaceId, Part: part}, encodeCommand(ops))
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// AddEdges implements StorageService.
func (s *service) AddEdges(ctx context.Context, req *storagepb.AddEdgesReq) (*storagepb.ExecResp, error) {
	parts := keysOf(req.Parts)
	snap, space, err := s.spaceFor(ctx, req.SpaceId, 0)
	if err != nil {
		return &storagepb.ExecResp{FailedParts: allFailed(snap, s, parts, err)}, nil
	}
	failed := s.forEachPart(snap, parts, func(part int32) error {
		var ops []writeOp
		for _, e := range req.Parts[part].GetEdges() {
			if err := checkVid(space, part, e.Src); err != nil {
				return err
			}
			if len(e.Dst) != int(space.GetVidLen()) {
				return invalid("dst vid %x has %d bytes, space %q needs %d", e.Dst, len(e.Dst), space.GetName(), space.GetVidLen())
			}
			if e.EdgeType == 0 {
				return invalid("edge type 0 is not valid")
			}
			ops = append(ops, writeOp{kind: opPut, key: partition.EdgeKey(req.SpaceId, part, e.Src, e.EdgeType, e.Rank, e.Dst), value: e.Row})
		}
		return s.srv.engine.Propose(ctx, raftgroup.GroupID{Space: req.SpaceId, Part: part}, encodeCommand(ops))
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// propDecoder reads requested properties out of rows, caching each
// schema's versions for the duration of one request.
type propDecoder struct {
	snap    *metaclient.Snapshot
	spaceID int32
	tags    map[int32]*schema.Versions
	edges   map[int32]*schema.Versions
	reader  partition.RowReader
}

func newPropDecoder(snap *metaclient.Snapshot, spaceID int32) *propDecoder {
	return &propDecoder{snap: snap, spaceID: spaceID, tags: map[int32]*schema.Versions{}, edges: map[int32]*schema.Versions{}}
}

func (d *propDecoder) tagVersions(tagID int32) (*schema.Versions, error) {
	if v, ok := d.tags[tagID]; ok {
		return v, nil
	}
	desc, ok := d.snap.TagByID(d.spaceID, tagID)
	if !ok {
		return nil, &partitionError{code: commonpb.ErrorCode_E_TAG_NOT_FOUND, msg: fmt.Sprintf("tag %d not found in space %d", tagID, d.spaceID)}
	}
	v := schema.NewVersions(desc.GetVersions())
	d.tags[tagID] = v
	return v, nil
}

func (d *propDecoder) edgeVersions(edgeType int32) (*schema.Versions, error) {
	if edgeType < 0 {
		edgeType = -edgeType
	}
	if v, ok := d.edges[edgeType]; ok {
		return v, nil
	}
	desc, ok := d.snap.EdgeByType(d.spaceID, edgeType)
	if !ok {
		return nil, &partitionError{code: commonpb.ErrorCode_E_EDGE_NOT_FOUND, msg: fmt.Sprintf("edge type %d not found in space %d", edgeType, d.spaceID)}
	}
	v := schema.NewVersions(desc.GetVersions())
	d.edges[edgeType] = v
	return v, nil
}

// readProp decodes one property of a row, NULL if the row's schema version
// lacks it (a property added later reads as its default, else NULL).
func (d *propDecoder) readProp(row []byte, versions *schema.Versions, name string) (*commonpb.Value, error) {
	if err := d.reader.Reset(row, versions.Source()); err != nil {
		return nil, err
	}
	v, ok, err := d.reader.Get(name)
	if err != nil {
		return nil, err
	}
	latest := versions.Latest()
	col := latest.Index(name)
	if !ok {
		if col >= 0 && latest.Columns[col].Default != nil {
			return schema.ValueToProto(latest.Columns[col].Default, latest.Columns[col].Type), nil
		}
		return schema.NullValue(), nil
	}
	typ := partition.PropType(0)
	if rc := d.reader.Schema().Index(name); rc >= 0 {
		typ = d.reader.Schema().Columns[rc].Type
	}
	return schema.ValueToProto(v, typ), nil
}

// GetNeighbors implements StorageService. Each partition's result is sent
// only after the partition finished without error, in batches of at most
// max_edges_per_batch edges, so a client that retries failed partitions
// never receives a partition twice.
func (s *service) GetNeighbors(req *storagepb.GetNeighborsReq, stream grpc.ServerStreamingServer[storagepb.GetNeighborsResp]) error {
	ctx := stream.Context()
	parts := keysOf(req.Parts)
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return stream.Send(&storagepb.GetNeighborsResp{FailedParts: allFailed(snap, s, parts, err)})
	}
	var sendMu sync.Mutex
	var sendErr error
	failed := s.forEachPart(snap, parts, func(part int32) error {
		g := raftgroup.GroupID{Space: req.SpaceId, Part: part}
		if err := s.srv.engine.ReadIndex(ctx, g); err != nil {
			return err
		}
		db := s.srv.dbOf(g)
		if db == nil {
			return fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
		}
		out, err := scanNeighbors(db, newPropDecoder(snap, req.SpaceId), space, part, req.Parts[part].GetVids(), req)
		if err != nil {
			return err
		}
		sendMu.Lock()
		defer sendMu.Unlock()
		if sendErr == nil {
			sendErr = sendNeighborBatches(stream, out, int(req.MaxEdgesPerBatch))
		}
		return nil
	})
	if sendErr != nil {
		return sendErr
	}
	return stream.Send(&storagepb.GetNeighborsResp{FailedParts: failed})
}

// defaultEdgesPerBatch bounds one GetNeighbors response message.
const defaultEdgesPerBatch = 4096

func sendNeighborBatches(stream grpc.ServerStreamingServer[storagepb.GetNeighborsResp], vs []*storagepb.VertexNeighbors, maxEdges int) error {
	if maxEdges <= 0 {
		maxEdges = defaultEdgesPerBatch
	}
	batch := &storagepb.GetNeighborsResp{}
	n := 0
	for _, v := range vs {
		batch.Vertices = append(batch.Vertices, v)
		n += len(v.Edges) + 1
		if n >= maxEdges {
			if err := stream.Send(batch); err != nil {
				return err
			}
			batch, n = &storagepb.GetNeighborsResp{}, 0
		}
	}
	if len(batch.Vertices) > 0 {
		return stream.Send(batch)
	}
	return nil
}

func scanNeighbors(db *grocksdb.DB, dec *propDecoder, space *metapb.SpaceDesc, part int32, vids [][]byte, req *storagepb.GetNeighborsReq) ([]*storagepb.VertexNeighbors, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	vidLen := int(space.GetVidLen())
	out := make([]*storagepb.VertexNeighbors, 0, len(vids))
	for _, vid := range vids {
		if err := checkVid(space, part, vid); err != nil {
			return nil, err
		}
		vn := &storagepb.VertexNeighbors{Vid: vid}
		if len(req.VertexProps) > 0 {
			props, _, err := readVertexProps(db, ro, dec, req.SpaceId, part, vid, req.VertexProps)
			if err != nil {
				return nil, err
			}
			vn.Props = props
		}
		for _, et := range req.EdgeTypes {
			if err := scanEdges(db, ro, dec, req, part, vid, et, vidLen, vn); err != nil {
				return nil, err
			}
		}
		out = append(out, vn)
	}
	return out, nil
}

// readVertexProps reads the requested tag properties of one vertex; found
// says whether the vertex has any of the requested tags.
func readVertexProps(db *grocksdb.DB, ro *grocksdb.ReadOptions, dec *propDecoder, spaceID, part int32, vid []byte, refs []*storagepb.PropRef) ([]*commonpb.Value, bool, error) {
	rows := map[int32][]byte{}
	found := false
	props := make([]*commonpb.Value, len(refs))
	for i, ref := range refs {
		row, seen := rows[ref.SchemaId]
		if !seen {
			var err error
			row, err = db.GetBytes(ro, partition.TagKey(spaceID, part, vid, ref.SchemaId))
			if err != nil {
				return nil, false, fmt.Errorf("reading vertex %x tag %d: %w", vid, ref.SchemaId, err)
			}
			rows[ref.SchemaId] = row
		}
		if row == nil {
			props[i] = schema.NullValue()
			continue
		}
		found = true
		if ref.Name == "_tag" {
			props[i] = &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: int64(ref.SchemaId)}}
			continue
		}
		versions, err := dec.tagVersions(ref.SchemaId)
		if err != nil {
			return nil, false, err
		}
		v, err := dec.readProp(row, versions, ref.Name)
		if err != nil {
			return nil, false, fmt.Errorf("vertex %x tag %d: %w", vid, ref.SchemaId, err)
		}
		props[i] = v
	}
	return props, found, nil
}

func scanEdges(db *grocksdb.DB, ro *grocksdb.ReadOptions, dec *propDecoder, req *storagepb.GetNeighborsReq, part int32, vid []byte, et int32, vidLen int, vn *storagepb.VertexNeighbors) error {
	prefix := partition.EdgePrefix(req.SpaceId, part, vid, et)
	it := db.NewIterator(ro)
	defer it.Close()
	var versions *schema.Versions
	n := int64(0)
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		if req.LimitPerVertex > 0 && n >= req.LimitPerVertex {
			break
		}
		k := it.Key()
		_, _, _, edgeType, rank, dst, err := partition.ParseEdgeKey(k.Data(), vidLen)
		if err != nil {
			k.Free()
			return fmt.Errorf("vertex %x: %w", vid, err)
		}
		dst = append([]byte(nil), dst...)
		k.Free()
		ne := &storagepb.NeighborEdge{EdgeType: edgeType, Rank: rank, Dst: dst}
		if !req.DstOnly && len(req.EdgeProps) > 0 {
			v := it.Value()
			row := append([]byte(nil), v.Data()...)
			v.Free()
			ne.Props = make([]*commonpb.Value, len(req.EdgeProps))
			for i, ref := range req.EdgeProps {
				abs := edgeType
				if abs < 0 {
					abs = -abs
				}
				if ref.SchemaId != abs {
					ne.Props[i] = schema.NullValue()
					continue
				}
				if pv, ok := edgeKeyProp(ref.Name, edgeType, rank, vid, dst); ok {
					ne.Props[i] = pv
					continue
				}
				if versions == nil {
					if versions, err = dec.edgeVersions(edgeType); err != nil {
						return err
					}
				}
				if ne.Props[i], err = dec.readProp(row, versions, ref.Name); err != nil {
					return fmt.Errorf("edge %x->%x type %d: %w", vid, dst, edgeType, err)
				}
			}
		}
		vn.Edges = append(vn.Edges, ne)
		n++
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("scanning edges of %x: %w", vid, err)
	}
	return nil
}

// edgeKeyProp answers the reserved edge properties from the key. For an
// in-edge (negative type) the stored key is (dst, -type, rank, src), so the
// edge's own source is the vertex reached.
func edgeKeyProp(name string, edgeType int32, rank int64, keyVid, reached []byte) (*commonpb.Value, bool) {
	src, dst := keyVid, reached
	if edgeType < 0 {
		src, dst = reached, keyVid
	}
	switch name {
	case "_src":
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: src}}, true
	case "_dst":
		return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: dst}}, true
	case "_rank":
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: rank}}, true
	case "_type":
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: int64(edgeType)}}, true
	}
	return nil, false
}

// GetProps implements StorageService.
func (s *service) GetProps(ctx context.Context, req *storagepb.GetPropsReq) (*storagepb.GetPropsResp, error) {
	parts := keysOf(req.VertexParts)
	parts = append(parts, keysOf(req.EdgeParts)...)
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return &storagepb.GetPropsResp{FailedParts: allFailed(snap, s, parts, err)}, nil
	}
	resp := &storagepb.GetPropsResp{}
	var mu sync.Mutex
	resp.FailedParts = s.forEachPart(snap, parts, func(part int32) error {
		g := raftgroup.GroupID{Space: req.SpaceId, Part: part}
		if err := s.srv.engine.ReadIndex(ctx, g); err != nil {
			return err
		}
		db := s.srv.dbOf(g)
		if db == nil {
			return fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
		}
		rows, err := getProps(db, newPropDecoder(snap, req.SpaceId), space, part, req)
		if err != nil {
			return err
		}
		mu.Lock()
		resp.Rows = append(resp.Rows, rows...)
		mu.Unlock()
		return nil
	})
	return resp, nil
}

func getProps(db *grocksdb.DB, dec *propDecoder, space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq) ([]*storagepb.PropRow, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	var rows []*storagepb.PropRow
	for _, vid := range req.VertexParts[part].GetVids() {
		if err := checkVid(space, part, vid); err != nil {
			return nil, err
		}
		props, found, err := readVertexProps(db, ro, dec, req.SpaceId, part, vid, req.Props)
		if err != nil {
			return nil, err
		}
		if found {
			rows = append(rows, &storagepb.PropRow{Vid: vid, Values: props})
		}
	}
	for _, ek := range req.EdgeParts[part].GetKeys() {
		if err := checkVid(space, part, ek.Src); err != nil {
			return nil, err
		}
		row, err := db.GetBytes(ro, partition.EdgeKey(req.SpaceId, part, ek.Src, ek.EdgeType, ek.Rank, ek.Dst))
		if err != nil {
			return nil, fmt.Errorf("reading edge %x->%x: %w", ek.Src, ek.Dst, err)
		}
		if row == nil {
			continue
		}
		values := make([]*commonpb.Value, len(req.Props))
		for i, ref := range req.Props {
			abs := ek.EdgeType
			if abs < 0 {
				abs = -abs
			}
			if ref.SchemaId != abs {
				values[i] = schema.NullValue()
				continue
			}
			if pv, ok := edgeKeyProp(ref.Name, ek.EdgeType, ek.Rank, ek.Src, ek.Dst); ok {
				values[i] = pv
				continue
			}
			versions, err := dec.edgeVersions(ek.EdgeType)
			if err != nil {
				return nil, err
			}
			if values[i], err = dec.readProp(row, versions, ref.Name); err != nil {
				return nil, fmt.Errorf("edge %x->%x: %w", ek.Src, ek.Dst, err)
			}
		}
		rows = append(rows, &storagepb.PropRow{Edge: ek, Values: values})
	}
	return rows, nil
}
