package storaged

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// leaderDB returns the RocksDB of g once this replica may serve a
// linearizable read of it.
func (s *service) leaderDB(ctx context.Context, g raftgroup.GroupID) (*grocksdb.DB, error) {
	if err := s.srv.engine.ReadIndex(ctx, g); err != nil {
		return nil, err
	}
	db := s.srv.dbOf(g)
	if db == nil {
		return nil, fmt.Errorf("%s: %w", g, raftgroup.ErrGroupNotFound)
	}
	return db, nil
}

// LookupIndex implements StorageService.
func (s *service) LookupIndex(ctx context.Context, req *storagepb.LookupIndexReq) (*storagepb.LookupIndexResp, error) {
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return &storagepb.LookupIndexResp{FailedParts: allFailed(snap, s, req.Parts, err)}, nil
	}
	resp := &storagepb.LookupIndexResp{}
	var mu sync.Mutex
	resp.FailedParts = s.forEachPart(snap, req.Parts, func(part int32) error {
		db, err := s.leaderDB(ctx, raftgroup.GroupID{Space: req.SpaceId, Part: part})
		if err != nil {
			return err
		}
		rows, err := lookupPart(db, snap, space, part, req)
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

// lookupPart answers LookupIndex on one partition (rowread.Lookup).
func lookupPart(db *grocksdb.DB, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.LookupIndexReq) ([]*storagepb.PropRow, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	get := func(key []byte) ([]byte, error) { return db.GetBytes(ro, key) }
	scan := func(lower, upper []byte, visit func(key []byte) (bool, error)) error {
		ro.SetTotalOrderSeek(true) // crosses vertex prefixes: no prefix-bloom seek (storaged/rocksdb.go)
		ro.SetIterateUpperBound(upper)
		it := db.NewIterator(ro)
		defer it.Close()
		for it.Seek(lower); it.Valid(); it.Next() {
			if more, err := visit(it.Key().Data()); err != nil || !more {
				return err
			}
		}
		return it.Err()
	}
	return rowread.Lookup(snap, space, part, req, time.Now().Unix(), get, scan)
}

// defaultScanLimit is the page size of ScanVertex / ScanEdge.
const defaultScanLimit = 1000

// ScanVertex implements StorageService: one page of a partition's vertices,
// each with the requested properties of its tags.
func (s *service) ScanVertex(ctx context.Context, req *storagepb.ScanReq) (*storagepb.ScanResp, error) {
	return s.scan(ctx, req, false)
}

// ScanEdge implements StorageService: one page of a partition's out-edges.
func (s *service) ScanEdge(ctx context.Context, req *storagepb.ScanReq) (*storagepb.ScanResp, error) {
	return s.scan(ctx, req, true)
}

func (s *service) scan(ctx context.Context, req *storagepb.ScanReq, edges bool) (*storagepb.ScanResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return &storagepb.ScanResp{Result: s.partError(snap, req.PartId, err)}, nil
	}
	db, err := s.leaderDB(ctx, g)
	if err != nil {
		return &storagepb.ScanResp{Result: s.partError(snap, req.PartId, err)}, nil
	}
	resp, err := scanPart(db, rowread.NewReader(snap, req.SpaceId, time.Now().Unix()), space, req, edges)
	if err != nil {
		return &storagepb.ScanResp{Result: s.partError(snap, req.PartId, err)}, nil
	}
	return resp, nil
}

// scanPart reads up to limit vertices (all tags of one vertex are one row)
// or out-edges from the cursor, which is the key to start at.
func scanPart(db *grocksdb.DB, r *rowread.Reader, space *metapb.SpaceDesc, req *storagepb.ScanReq, edges bool) (*storagepb.ScanResp, error) {
	kind := partition.KindTag
	if edges {
		kind = partition.KindEdge
	}
	prefix := partition.KindPrefix(req.SpaceId, req.PartId, kind)
	start := prefix
	if len(req.Cursor) > 0 {
		if !bytes.HasPrefix(req.Cursor, prefix) {
			return nil, invalid("scan cursor %x is not a key of partition %d", req.Cursor, req.PartId)
		}
		start = req.Cursor
	}
	limit := int(req.Limit)
	if limit <= 0 {
		limit = defaultScanLimit
	}
	only := map[int32]bool{}
	for _, id := range req.SchemaIds {
		only[id] = true
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // crosses vertex prefixes: no prefix-bloom seek (storaged/rocksdb.go)
	it := db.NewIterator(ro)
	defer it.Close()
	vidLen := int(space.GetVidLen())
	resp := &storagepb.ScanResp{}
	var curVid []byte
	cur := rowread.VertexRows{}
	flush := func() error {
		if curVid == nil || len(cur) == 0 {
			return nil
		}
		values, _, err := r.TagProps(cur, req.Props)
		if err != nil {
			return err
		}
		resp.Rows = append(resp.Rows, &storagepb.PropRow{Vid: curVid, Values: values})
		return nil
	}
	for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
		key := it.Key().Data()
		if edges {
			if len(resp.Rows) >= limit {
				resp.NextCursor = append([]byte(nil), key...)
				break
			}
			_, _, src, et, rank, dst, err := partition.ParseEdgeKey(key, vidLen)
			if err != nil {
				return nil, err
			}
			if et < 0 || (len(only) > 0 && !only[et]) {
				continue
			}
			row := it.Value().Data()
			sv, err := r.Edge(et)
			if err != nil {
				continue // a dropped edge type: nothing to decode it with
			}
			if exp, err := r.Expired(row, sv); err != nil {
				return nil, err
			} else if exp {
				continue
			}
			values, err := r.EdgeProps(req.Props, row, et, rank, src, dst)
			if err != nil {
				return nil, err
			}
			resp.Rows = append(resp.Rows, &storagepb.PropRow{Edge: &storagepb.EdgeKey{Src: src, EdgeType: et, Rank: rank, Dst: dst}, Values: values})
			continue
		}
		_, _, vid, tagID, err := partition.ParseTagKey(key, vidLen)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(vid, curVid) {
			if err := flush(); err != nil {
				return nil, err
			}
			if len(resp.Rows) >= limit {
				resp.NextCursor = append([]byte(nil), key...)
				curVid = nil
				break
			}
			curVid, cur = vid, rowread.VertexRows{}
		}
		if len(only) > 0 && !only[tagID] {
			continue
		}
		row := append([]byte(nil), it.Value().Data()...)
		sv, err := r.Tag(tagID)
		if err != nil {
			continue // a dropped tag
		}
		if exp, err := r.Expired(row, sv); err != nil {
			return nil, err
		} else if exp {
			continue
		}
		cur[tagID] = row
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return resp, nil
}

// RebuildIndex implements StorageAdminService: chunk after chunk through
// raft until the apply reports the index complete.
func (a *adminService) RebuildIndex(ctx context.Context, req *storagepb.RebuildIndexReq) (*storagepb.AdminResp, error) {
	g := raftgroup.GroupID{Space: req.SpaceId, Part: req.PartId}
	if err := a.rebuild(ctx, g, req); err != nil {
		return a.fail(g, err), nil
	}
	return &storagepb.AdminResp{}, nil
}

func (a *adminService) rebuild(ctx context.Context, g raftgroup.GroupID, req *storagepb.RebuildIndexReq) error {
	if err := a.requireLeader(g); err != nil {
		return err
	}
	s := &service{srv: a.srv}
	snap, space, err := s.spaceFor(ctx, req.SpaceId, req.CatalogVersion)
	if err != nil {
		return err
	}
	desc, ok := snap.IndexByID(req.SpaceId, req.IndexId)
	if !ok {
		return &partitionError{Code: commonpb.ErrorCode_E_NOT_FOUND, Msg: fmt.Sprintf("index %d not found in space %d", req.IndexId, req.SpaceId)}
	}
	var cursor []byte
	for {
		b := newCommand(snap, space)
		if desc.GetIsEdge() {
			err = b.withEdge(desc.GetSchemaId())
		} else {
			err = b.withTag(desc.GetSchemaId())
		}
		if err != nil {
			return err
		}
		b.add(&storagepb.Mutation{Op: &storagepb.Mutation_RebuildIndex{RebuildIndex: &storagepb.RebuildIndexOp{IndexId: req.IndexId, Cursor: cursor}}})
		res, err := a.srv.proposeResult(ctx, g, b.cmd)
		if err != nil {
			return err
		}
		if len(res) == 0 {
			return nil
		}
		cursor = res
	}
}
