package memgraph

import (
	"fmt"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// The writes mirror storaged/write.go (the checks a leader makes before
// proposing) and storaged/apply.go (what applying the entry does), with the
// edge pair rule of storaged/pair.go carried out at once: the in-edge half
// of an edge changes with its out-edge. Index entries and rows change
// together, as in the apply; degrees are not stored (with_degree counts
// the edges), nor are in-edge tombstones (a deleted in-edge is gone).

// applyState is the apply of one partition's writes, on a copy of the
// space's data that replaces it only if every write succeeds.
type applyState struct {
	g       *Graph
	data    *kvs
	snap    *catalog.Snapshot
	space   *metapb.SpaceDesc
	spaceID int32
	part    int32
	vidLen  int
	now     int64
	r       *reader // schemas, with the indexes to maintain
}

func (st *applyState) partOf(vid []byte) int32 {
	return partition.PartOf(vid, partition.VidType(st.space.GetVidType()), st.space.GetPartitionNum())
}

// decodeRow returns a row's values laid out as the latest schema.
func decodeRow(sv *schemaView, row []byte) ([]any, error) {
	vals, err := partition.ReadWithSchema(row, sv.versions.Source(), sv.versions.Latest())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sv.name, err)
	}
	return vals, nil
}

// rowExpired is the TTL check of an encoded row.
func (st *applyState) rowExpired(sv *schemaView, row []byte) (bool, error) {
	if sv.ttlCol == "" {
		return false, nil
	}
	vals, err := partition.ReadWithSchema(row, sv.versions.Source(), sv.versions.Latest())
	if err != nil {
		return false, err
	}
	return sv.expiredVals(vals, st.now), nil
}

// ---- vertices ----

func (st *applyState) tagIndexEntry(sv *schemaView, ix *schema.IndexLayout, vid, row []byte, put bool) error {
	vals, err := decodeRow(sv, row)
	if err != nil {
		return err
	}
	enc, err := ix.Values(vals)
	if err != nil {
		return err
	}
	k := partition.TagIndexKey(st.spaceID, st.part, ix.Desc.GetIndexId(), enc, vid)
	if put {
		st.data.put(k, nil)
	} else {
		st.data.delete(k)
	}
	return nil
}

// putTagRow writes one tag row of a vertex and moves its index entries
// from the old row's values to the new one's.
func (st *applyState) putTagRow(sv *schemaView, vid, old, row []byte) error {
	for _, ix := range sv.indexes {
		if old != nil {
			if err := st.tagIndexEntry(sv, ix, vid, old, false); err != nil {
				return err
			}
		}
		if err := st.tagIndexEntry(sv, ix, vid, row, true); err != nil {
			return err
		}
	}
	st.data.put(partition.TagKey(st.spaceID, st.part, vid, sv.id), row)
	return nil
}

func (st *applyState) putVertex(v *storagepb.NewVertex, ifNotExists bool) error {
	for _, t := range v.Tags {
		sv, err := st.r.tag(t.GetTagId())
		if err != nil {
			return err
		}
		if _, err := decodeRow(sv, t.GetRow()); err != nil {
			return invalid("vertex %x: %v", v.Vid, err)
		}
		old := st.data.get(partition.TagKey(st.spaceID, st.part, v.Vid, t.GetTagId()))
		if old != nil && ifNotExists {
			if exp, err := st.rowExpired(sv, old); err != nil || !exp {
				continue
			}
		}
		if err := st.putTagRow(sv, v.Vid, old, t.GetRow()); err != nil {
			return err
		}
	}
	return nil
}

// deleteTagRows removes tags of a vertex (all if ids is empty) with their
// index entries. Tags the catalog no longer has (dropped) lose their rows
// but can have no index.
func (st *applyState) deleteTagRows(vid []byte, ids []int32) error {
	want := map[int32]bool{}
	for _, id := range ids {
		want[id] = true
	}
	type found struct {
		id  int32
		row []byte
	}
	var rows []found
	var failed error
	st.data.scanPrefix(partition.TagPrefix(st.spaceID, st.part, vid), func(k, v []byte) bool {
		_, _, _, id, err := partition.ParseTagKey(k, st.vidLen)
		if err != nil {
			failed = err
			return false
		}
		if len(want) == 0 || want[id] {
			rows = append(rows, found{id: id, row: v})
		}
		return true
	})
	if failed != nil {
		return failed
	}
	for _, r := range rows {
		if sv, err := st.r.tag(r.id); err == nil {
			for _, ix := range sv.indexes {
				if err := st.tagIndexEntry(sv, ix, vid, r.row, false); err != nil {
					return err
				}
			}
		}
		st.data.delete(partition.TagKey(st.spaceID, st.part, vid, r.id))
	}
	return nil
}

// deleteVertex removes a vertex's tags and every edge stored under it: its
// out-edges here (with their in-edges), and its in-edges by deleting the
// edge at its owner, as storaged's forward-delete intents do.
func (st *applyState) deleteVertex(vid []byte) error {
	if err := st.deleteTagRows(vid, nil); err != nil {
		return err
	}
	var outs, owners []*storagepb.EdgeKey
	var failed error
	st.data.scanPrefix(partition.VertexEdgePrefix(st.spaceID, st.part, vid), func(k, v []byte) bool {
		_, _, _, et, rank, other, err := partition.ParseEdgeKey(k, st.vidLen)
		if err != nil {
			failed = err
			return false
		}
		if et > 0 {
			outs = append(outs, &storagepb.EdgeKey{Src: vid, EdgeType: et, Rank: rank, Dst: other})
			return true
		}
		if _, live, err := partition.EdgeRow(et, v); err != nil || !live {
			failed = err
			return err == nil
		}
		owners = append(owners, &storagepb.EdgeKey{Src: other, EdgeType: -et, Rank: rank, Dst: vid})
		return true
	})
	if failed != nil {
		return failed
	}
	for _, k := range outs {
		if err := st.deleteEdge(st.part, k); err != nil {
			return err
		}
	}
	for _, k := range owners {
		if err := st.deleteEdge(st.partOf(k.Src), k); err != nil {
			return err
		}
	}
	return nil
}

// ---- edges ----

func (st *applyState) edgeIndexEntry(part int32, sv *schemaView, ix *schema.IndexLayout, k *storagepb.EdgeKey, row []byte, put bool) error {
	vals, err := decodeRow(sv, row)
	if err != nil {
		return err
	}
	enc, err := ix.Values(vals)
	if err != nil {
		return err
	}
	key := partition.EdgeIndexKey(st.spaceID, part, ix.Desc.GetIndexId(), enc, k.Src, k.Rank, k.Dst)
	if put {
		st.data.put(key, nil)
	} else {
		st.data.delete(key)
	}
	return nil
}

// inEdgeKey is the key of the in-edge half of out-edge k, in its
// destination's partition.
func (st *applyState) inEdgeKey(k *storagepb.EdgeKey) []byte {
	return partition.EdgeKey(st.spaceID, st.partOf(k.Dst), k.Dst, -k.EdgeType, k.Rank, k.Src)
}

// putOutEdge writes an out-edge with its indexes, and its in-edge.
func (st *applyState) putOutEdge(sv *schemaView, k *storagepb.EdgeKey, old, row []byte) error {
	for _, ix := range sv.indexes {
		if old != nil {
			if err := st.edgeIndexEntry(st.part, sv, ix, k, old, false); err != nil {
				return err
			}
		}
		if err := st.edgeIndexEntry(st.part, sv, ix, k, row, true); err != nil {
			return err
		}
	}
	st.data.put(partition.EdgeKey(st.spaceID, st.part, k.Src, k.EdgeType, k.Rank, k.Dst), row)
	st.g.inVersion++
	st.data.put(st.inEdgeKey(k), partition.EncodeInEdge(partition.InEdgeVersion{Index: st.g.inVersion}, row))
	return nil
}

func (st *applyState) putEdge(e *storagepb.NewEdge, ifNotExists bool) error {
	sv, err := st.r.edge(e.EdgeType)
	if err != nil {
		return err
	}
	if _, err := decodeRow(sv, e.Row); err != nil {
		return invalid("edge %x->%x: %v", e.Src, e.Dst, err)
	}
	k := &storagepb.EdgeKey{Src: e.Src, EdgeType: e.EdgeType, Rank: e.Rank, Dst: e.Dst}
	old := st.data.get(partition.EdgeKey(st.spaceID, st.part, e.Src, e.EdgeType, e.Rank, e.Dst))
	if old != nil && ifNotExists {
		if exp, err := st.rowExpired(sv, old); err != nil || !exp {
			return err
		}
	}
	return st.putOutEdge(sv, k, old, e.Row)
}

// deleteEdge removes the out-edge k, stored in part, with its index
// entries, and its in-edge (always, so that a half left by anything else
// goes too).
func (st *applyState) deleteEdge(part int32, k *storagepb.EdgeKey) error {
	key := partition.EdgeKey(st.spaceID, part, k.Src, k.EdgeType, k.Rank, k.Dst)
	if old := st.data.get(key); old != nil {
		// A dropped edge type has no schema left, and no index.
		if sv, err := st.r.edge(k.EdgeType); err == nil {
			for _, ix := range sv.indexes {
				if err := st.edgeIndexEntry(part, sv, ix, k, old, false); err != nil {
					return err
				}
			}
		}
		st.data.delete(key)
	}
	st.data.delete(st.inEdgeKey(k))
	return nil
}

// checkEdge is storaged's check of an out-edge key sent to part.
func checkEdge(space *metapb.SpaceDesc, part int32, src []byte, edgeType int32, dst []byte) error {
	if err := checkVid(space, part, src); err != nil {
		return err
	}
	if len(dst) != int(space.GetVidLen()) {
		return invalid("dst vid %x has %d bytes, space %q needs %d", dst, len(dst), space.GetName(), space.GetVidLen())
	}
	if edgeType <= 0 {
		return invalid("edge type %d: edges are written as out-edges (type > 0) at their source's partition", edgeType)
	}
	return nil
}

// ---- indexes ----

// rebuildIndex clears an index's entries in the partition and indexes
// every row of its tag or edge type again (storaged's rebuildIndex, in one
// step: nothing writes meanwhile).
func (st *applyState) rebuildIndex(desc *metapb.IndexDesc) error {
	var sv *schemaView
	var err error
	if desc.GetIsEdge() {
		sv, err = st.r.edge(desc.GetSchemaId())
	} else {
		sv, err = st.r.tag(desc.GetSchemaId())
	}
	if err != nil {
		return err
	}
	ix := schema.NewIndexLayout(desc, sv.versions.Latest())
	var stale [][]byte
	st.data.scanPrefix(partition.IndexPrefix(st.spaceID, st.part, desc.GetIndexId()), func(k, _ []byte) bool {
		stale = append(stale, append([]byte(nil), k...))
		return true
	})
	for _, k := range stale {
		st.data.delete(k)
	}
	kind := partition.KindTag
	if desc.GetIsEdge() {
		kind = partition.KindEdge
	}
	type row struct{ key, val []byte }
	var rows []row
	st.data.scanPrefix(partition.KindPrefix(st.spaceID, st.part, kind), func(k, v []byte) bool {
		rows = append(rows, row{append([]byte(nil), k...), v})
		return true
	})
	for _, r := range rows {
		if desc.GetIsEdge() {
			_, _, src, et, rank, dst, err := partition.ParseEdgeKey(r.key, st.vidLen)
			if err != nil {
				return err
			}
			if et != sv.id {
				continue
			}
			if err := st.edgeIndexEntry(st.part, sv, ix, &storagepb.EdgeKey{Src: src, EdgeType: et, Rank: rank, Dst: dst}, r.val, true); err != nil {
				return err
			}
			continue
		}
		_, _, vid, tagID, err := partition.ParseTagKey(r.key, st.vidLen)
		if err != nil {
			return err
		}
		if tagID != sv.id {
			continue
		}
		if err := st.tagIndexEntry(sv, ix, vid, r.val, true); err != nil {
			return err
		}
	}
	return nil
}

// notFoundIndex is storaged's answer for an index the catalog lacks.
func notFoundIndex(space, id int32) error {
	return &partitionError{code: commonpb.ErrorCode_E_NOT_FOUND, msg: fmt.Sprintf("index %d not found in space %d", id, space)}
}
