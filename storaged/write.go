package storaged

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/linxGnu/grocksdb"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// cmdBuilder assembles a Command with the schemas and indexes its
// mutations need, taken from this leader's catalog at proposal time.
type cmdBuilder struct {
	snap  *catalog.Snapshot
	cmd   *storagepb.Command
	tags  map[int32]bool
	edges map[int32]bool
}

func newCommand(snap *catalog.Snapshot, space *metapb.SpaceDesc) *cmdBuilder {
	return &cmdBuilder{
		snap:  snap,
		cmd:   &storagepb.Command{Space: space, Now: time.Now().Unix()},
		tags:  map[int32]bool{},
		edges: map[int32]bool{},
	}
}

func (b *cmdBuilder) spaceID() int32 { return b.cmd.Space.GetSpaceId() }

func (b *cmdBuilder) withTag(id int32) error {
	if b.tags[id] {
		return nil
	}
	desc, ok := b.snap.TagByID(b.spaceID(), id)
	if !ok {
		return &partitionError{Code: commonpb.ErrorCode_E_TAG_NOT_FOUND, Msg: fmt.Sprintf("tag %d not found in space %d", id, b.spaceID())}
	}
	b.tags[id] = true
	b.cmd.Tags = append(b.cmd.Tags, desc)
	b.cmd.Indexes = append(b.cmd.Indexes, b.snap.IndexesOn(b.spaceID(), false, id)...)
	return nil
}

func (b *cmdBuilder) withEdge(edgeType int32) error {
	if edgeType < 0 {
		edgeType = -edgeType
	}
	if b.edges[edgeType] {
		return nil
	}
	desc, ok := b.snap.EdgeByType(b.spaceID(), edgeType)
	if !ok {
		return &partitionError{Code: commonpb.ErrorCode_E_EDGE_NOT_FOUND, Msg: fmt.Sprintf("edge type %d not found in space %d", edgeType, b.spaceID())}
	}
	b.edges[edgeType] = true
	b.cmd.Edges = append(b.cmd.Edges, desc)
	b.cmd.Indexes = append(b.cmd.Indexes, b.snap.IndexesOn(b.spaceID(), true, edgeType)...)
	return nil
}

// withIndexedSchemas adds every tag and edge type that has an index: a
// delete must remove index entries of whatever it finds.
func (b *cmdBuilder) withIndexedSchemas() error {
	for _, ix := range b.snap.Indexes(b.spaceID()) {
		var err error
		if ix.GetIsEdge() {
			err = b.withEdge(ix.GetSchemaId())
		} else {
			err = b.withTag(ix.GetSchemaId())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *cmdBuilder) add(m *storagepb.Mutation) { b.cmd.Mutations = append(b.cmd.Mutations, m) }

// propose replicates a command through g and returns the apply's result.
func (s *Server) propose(ctx context.Context, g raftgroup.GroupID, cmd *storagepb.Command) error {
	_, err := s.proposeResult(ctx, g, cmd)
	return err
}

func (s *Server) proposeResult(ctx context.Context, g raftgroup.GroupID, cmd *storagepb.Command) ([]byte, error) {
	if cmd.Space == nil {
		space, ok := s.meta.Catalog().SpaceByID(g.Space)
		if !ok {
			return nil, &partitionError{Code: commonpb.ErrorCode_E_SPACE_NOT_FOUND, Msg: fmt.Sprintf("space %d not found", g.Space)}
		}
		cmd.Space = space
	}
	data, err := encodeCommand(cmd)
	if err != nil {
		return nil, err
	}
	return s.engine.ProposeResult(ctx, g, data)
}

// mirrorMode is what a write does about the intents it leaves.
type mirrorMode uint8

const (
	mirrorsNone mirrorMode = iota // writes no intents (vertices, tags)
	mirrorsKick                   // starts a resolver pass, does not wait for it
	mirrorsWait                   // waits (bounded) for a pass to carry them out
)

// writeParts builds and proposes one command per partition, concurrently,
// then, with mirrorsWait, waits (bounded) for the intents they wrote to be
// carried out, so that an acknowledged edge is normally visible from both
// ends.
//
// Every StorageService write goes through here or calls refuseWrite
// itself (Update, IngestSST; UploadSST calls refuseUpload): a partition
// this store leads on a full data disk fails with E_DISK_FULL before
// anything is proposed (diskguard.go). That includes MirrorEdges, the
// in-edge halves other owners send: refusing them breaks no pair, since
// the owner keeps its intent (replicated data) until the mirror applies
// and its resolver retries every resolveScanEvery, so the in-edges land
// once space is back; until then GO REVERSELY misses them, as it does
// while a destination partition has no leader. Accepting them would let
// writes taken elsewhere keep filling the full disk. FlushIntents is not
// refused: it only makes this store carry out its own intents, sending
// mirrors to other partitions and deleting the intents here, which frees
// rather than takes space, and refusing it would stall other stores'
// DELETE VERTEX. The resolver's and the engine's own writes (intent
// clean-up, tombstone purges, raft appends and applies as a follower)
// are not client writes and go on; the released reserve is their room.
func (s *service) writeParts(ctx context.Context, spaceID int32, version int64, parts []int32, mirrors mirrorMode,
	build func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error) []*storagepb.PartResult {
	snap, space, err := s.spaceFor(ctx, spaceID, version)
	if err != nil {
		return allFailed(snap, s, parts, err)
	}
	return s.forEachPart(snap, parts, func(part int32) error {
		g := raftgroup.GroupID{Space: spaceID, Part: part}
		if err := s.srv.refuseWrite(g); err != nil {
			return err
		}
		b := newCommand(snap, space)
		if err := build(b, space, part); err != nil {
			return err
		}
		if len(b.cmd.Mutations) == 0 {
			return nil
		}
		if err := s.srv.propose(ctx, g, b.cmd); err != nil {
			return err
		}
		switch mirrors {
		case mirrorsKick:
			s.srv.resolver.kick(g)
		case mirrorsWait:
			wctx, cancel := context.WithTimeout(ctx, s.srv.cfg.MirrorWait)
			defer cancel()
			if err := s.srv.resolver.flush(wctx, g); err != nil {
				// Durable already: the resolver finishes it later. While
				// a snapshot holds the intents every edge write lands
				// here, by design: no warning each.
				if errors.Is(err, errIntentsHeld) {
					s.srv.log.Debug("write applied, its other halves wait for the snapshot's hold", "group", g)
				} else {
					s.srv.log.Warn("write applied, its other halves are still pending", "group", g, "err", err)
				}
			}
		}
		return nil
	})
}

// mirrorsFor is the mirror mode of a request with a no_mirror_wait flag.
func mirrorsFor(noWait bool) mirrorMode {
	if noWait {
		return mirrorsKick
	}
	return mirrorsWait
}

// AddVertices implements StorageService.
func (s *service) AddVertices(ctx context.Context, req *storagepb.AddVerticesReq) (*storagepb.ExecResp, error) {
	failed := s.writeParts(ctx, req.SpaceId, req.CatalogVersion, keysOf(req.Parts), mirrorsNone, func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error {
		for _, v := range req.Parts[part].GetVertices() {
			if err := rowread.CheckVid(space, part, v.Vid); err != nil {
				return err
			}
			for _, t := range v.Tags {
				if err := b.withTag(t.TagId); err != nil {
					return err
				}
			}
			b.add(&storagepb.Mutation{Op: &storagepb.Mutation_PutVertex{PutVertex: v}, IfNotExists: req.IfNotExists})
		}
		return nil
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// AddEdges implements StorageService: out-edges only, at their owner.
func (s *service) AddEdges(ctx context.Context, req *storagepb.AddEdgesReq) (*storagepb.ExecResp, error) {
	failed := s.writeParts(ctx, req.SpaceId, req.CatalogVersion, keysOf(req.Parts), mirrorsFor(req.NoMirrorWait), func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error {
		for _, e := range req.Parts[part].GetEdges() {
			if err := rowread.CheckEdge(space, part, e.Src, e.EdgeType, e.Dst); err != nil {
				return err
			}
			if err := b.withEdge(e.EdgeType); err != nil {
				return err
			}
			b.add(&storagepb.Mutation{Op: &storagepb.Mutation_PutEdge{PutEdge: e}, IfNotExists: req.IfNotExists})
		}
		return nil
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// DeleteVertices implements StorageService. A deleted vertex's in-edges
// are removed by their owners (pair.go): once this partition's intents are
// carried out, the owners' resulting mirrors are flushed too, so the
// statement returns with no half of any of the vertex's edges left.
func (s *service) DeleteVertices(ctx context.Context, req *storagepb.DeleteVerticesReq) (*storagepb.ExecResp, error) {
	var mu sync.Mutex
	owners := map[int32]bool{}
	failed := s.writeParts(ctx, req.SpaceId, req.CatalogVersion, keysOf(req.Parts), mirrorsWait, func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error {
		if err := b.withIndexedSchemas(); err != nil {
			return err
		}
		db := s.srv.dbOf(raftgroup.GroupID{Space: req.SpaceId, Part: part})
		for _, vid := range req.Parts[part].GetVids() {
			if err := rowread.CheckVid(space, part, vid); err != nil {
				return err
			}
			if db != nil {
				parts, err := inEdgeOwners(db, space, part, vid)
				if err != nil {
					return err
				}
				mu.Lock()
				for _, p := range parts {
					owners[p] = true
				}
				mu.Unlock()
			}
			b.add(&storagepb.Mutation{Op: &storagepb.Mutation_DeleteVertex{DeleteVertex: vid}})
		}
		return nil
	})
	if len(owners) > 0 {
		wctx, cancel := context.WithTimeout(ctx, s.srv.cfg.MirrorWait)
		defer cancel()
		if err := s.srv.resolver.client.FlushIntents(wctx, req.SpaceId, keysOf(owners)); err != nil {
			s.srv.log.Warn("vertices deleted, in-edges at their owners are still pending", "space", req.SpaceId, "err", err)
		}
	}
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// inEdgeOwners lists the partitions owning a vertex's live in-edges, read
// from this replica (a hint: the apply decides what is deleted).
func inEdgeOwners(db *grocksdb.DB, space *metapb.SpaceDesc, part int32, vid []byte) ([]int32, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true)
	it := db.NewIterator(ro)
	defer it.Close()
	prefix := partition.VertexEdgePrefix(space.GetSpaceId(), part, vid)
	vidLen := int(space.GetVidLen())
	seen := map[int32]bool{}
	var out []int32
	// In-edge types are negative and sort first: stop at the first out-edge.
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		_, _, _, et, _, other, err := partition.ParseEdgeKey(it.Key().Data(), vidLen)
		if err != nil {
			return nil, err
		}
		if et > 0 {
			break
		}
		if _, live, err := partition.EdgeRow(et, it.Value().Data()); err != nil || !live {
			continue
		}
		p := partition.PartOf(other, partition.VidType(space.GetVidType()), space.GetPartitionNum())
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, it.Err()
}

// FlushIntents implements StorageService.
func (s *service) FlushIntents(ctx context.Context, req *storagepb.FlushIntentsReq) (*storagepb.ExecResp, error) {
	snap, _, err := s.spaceFor(ctx, req.SpaceId, 0)
	if err != nil {
		return &storagepb.ExecResp{FailedParts: allFailed(snap, s, req.Parts, err)}, nil
	}
	failed := s.forEachPart(snap, req.Parts, func(part int32) error {
		return flushError(s.srv.resolver.flush(ctx, raftgroup.GroupID{Space: req.SpaceId, Part: part}))
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// FinishRestore implements StorageService: each partition drops its restore
// hold for the snapshot through raft, and its intents are carried out.
func (s *service) FinishRestore(ctx context.Context, req *storagepb.FinishRestoreReq) (*storagepb.ExecResp, error) {
	snap, space, err := s.spaceFor(ctx, req.SpaceId, 0)
	if err != nil {
		return &storagepb.ExecResp{FailedParts: allFailed(snap, s, req.Parts, err)}, nil
	}
	failed := s.forEachPart(snap, req.Parts, func(part int32) error {
		g := raftgroup.GroupID{Space: req.SpaceId, Part: part}
		b := newCommand(snap, space)
		b.add(&storagepb.Mutation{Op: &storagepb.Mutation_FinishRestore{FinishRestore: req.GetName()}})
		if err := s.srv.propose(ctx, g, b.cmd); err != nil {
			return err
		}
		s.srv.resolver.kick(g)
		return nil
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// flushError is how a failed pass of the resolver reaches FlushIntents'
// caller. A resolve or mirror proposal whose outcome is unknown (its
// leader lost leadership, or it timed out: raftgroup.ErrAmbiguous) is no
// reason to give up a flush: carrying out intents is idempotent, and this
// leader's next pass, or the next leader's, finds what is left. So the
// caller is told E_TIMEOUT, which the storage client retries for a read
// (it follows a leader change on the next try), not E_OUTCOME_UNKNOWN,
// which it must not retry for a write and so passes on: an import under
// load failed at its very last step that way. Intents left because their
// target partitions failed (errIntentsLeft) are the same case: the next
// pass tries them again.
func flushError(err error) error {
	if errors.Is(err, raftgroup.ErrAmbiguous) || errors.Is(err, errIntentsLeft) {
		return &partitionError{Code: commonpb.ErrorCode_E_TIMEOUT, Msg: fmt.Sprintf("a pass over the intents did not finish, ask again: %v", err)}
	}
	return err
}

// DeleteTags implements StorageService.
func (s *service) DeleteTags(ctx context.Context, req *storagepb.DeleteTagsReq) (*storagepb.ExecResp, error) {
	failed := s.writeParts(ctx, req.SpaceId, req.CatalogVersion, keysOf(req.Parts), mirrorsNone, func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error {
		if err := b.withIndexedSchemas(); err != nil {
			return err
		}
		for _, vid := range req.Parts[part].GetVids() {
			if err := rowread.CheckVid(space, part, vid); err != nil {
				return err
			}
			b.add(&storagepb.Mutation{Op: &storagepb.Mutation_DeleteTags{DeleteTags: &storagepb.DeleteTagsOp{Vid: vid, TagIds: req.TagIds}}})
		}
		return nil
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// DeleteEdges implements StorageService.
func (s *service) DeleteEdges(ctx context.Context, req *storagepb.DeleteEdgesReq) (*storagepb.ExecResp, error) {
	failed := s.writeParts(ctx, req.SpaceId, req.CatalogVersion, keysOf(req.Parts), mirrorsFor(req.NoMirrorWait), func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error {
		for _, k := range req.Parts[part].GetKeys() {
			if err := rowread.CheckEdge(space, part, k.Src, k.EdgeType, k.Dst); err != nil {
				return err
			}
			// A dropped edge type has no schema left; its edges still go.
			if _, ok := b.snap.EdgeByType(space.GetSpaceId(), k.EdgeType); ok {
				if err := b.withEdge(k.EdgeType); err != nil {
					return err
				}
			}
			b.add(&storagepb.Mutation{Op: &storagepb.Mutation_DeleteEdge{DeleteEdge: k}})
		}
		return nil
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// MirrorEdges implements StorageService: in-edges sent by their owners.
func (s *service) MirrorEdges(ctx context.Context, req *storagepb.MirrorEdgesReq) (*storagepb.ExecResp, error) {
	failed := s.writeParts(ctx, req.SpaceId, 0, []int32{req.PartId}, mirrorsNone, func(b *cmdBuilder, space *metapb.SpaceDesc, part int32) error {
		for _, m := range req.Edges {
			b.add(&storagepb.Mutation{Op: &storagepb.Mutation_MirrorEdge{MirrorEdge: m}})
		}
		return nil
	})
	return &storagepb.ExecResp{FailedParts: failed}, nil
}

// Update implements StorageService: UPDATE/UPSERT evaluated in the apply.
func (s *service) Update(ctx context.Context, req *storagepb.UpdateReq) (*storagepb.UpdateResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err == nil {
		var resp *storagepb.UpdateResp
		if resp, err = s.update(ctx, snap, space, g, req); err == nil {
			return resp, nil
		}
	}
	return &storagepb.UpdateResp{Result: s.partError(snap, req.PartId, err)}, nil
}

func (s *service) update(ctx context.Context, snap *catalog.Snapshot, space *metapb.SpaceDesc, g raftgroup.GroupID, req *storagepb.UpdateReq) (*storagepb.UpdateResp, error) {
	b := newCommand(snap, space)
	isEdge := req.Edge != nil
	if isEdge {
		if err := rowread.CheckEdge(space, g.Part, req.Edge.Src, req.Edge.EdgeType, req.Edge.Dst); err != nil {
			return nil, err
		}
		if err := b.withEdge(req.Edge.EdgeType); err != nil {
			return nil, err
		}
	} else {
		if err := rowread.CheckVid(space, g.Part, req.Vid); err != nil {
			return nil, err
		}
		if err := b.withTag(req.TagId); err != nil {
			return nil, err
		}
	}
	b.add(&storagepb.Mutation{Op: &storagepb.Mutation_Update{Update: req}})
	if err := s.srv.refuseWrite(g); err != nil {
		return nil, err
	}
	result, err := s.srv.proposeResult(ctx, g, b.cmd)
	if err != nil {
		return nil, err
	}
	resp := &storagepb.UpdateResp{}
	if err := proto.Unmarshal(result, resp); err != nil {
		return nil, fmt.Errorf("decoding update result: %w", err)
	}
	if isEdge && resp.Updated {
		wctx, cancel := context.WithTimeout(ctx, s.srv.cfg.MirrorWait)
		defer cancel()
		if err := s.srv.resolver.flush(wctx, g); err != nil {
			s.srv.log.Warn("edge updated, its in-edge is still pending", "group", g, "err", err)
		}
	}
	return resp, nil
}
