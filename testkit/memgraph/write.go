package memgraph

import (
	"fmt"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// The writes follow storaged/write.go (the checks a leader makes before
// proposing) and storaged/apply.go (what applying the entry does), with
// the apply's own row work (index entries, tag deletion, UPDATE) from
// storaged/rowread, and the edge pair rule of storaged/pair.go carried
// out at once: the in-edge half of an edge changes with its out-edge.
// Index entries and rows change together, as in the apply; degrees are
// not stored (with_degree counts the edges), nor are in-edge tombstones (a
// deleted in-edge is gone).

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
	r       *rowread.Reader // schemas; tag and edge add the indexes to maintain
}

func (st *applyState) partOf(vid []byte) int32 {
	return partition.PartOf(vid, partition.VidType(st.space.GetVidType()), st.space.GetPartitionNum())
}

// tag is tag id with the indexes its writes maintain.
func (st *applyState) tag(id int32) (*rowread.Schema, error) {
	sv, err := st.r.Tag(id)
	if err != nil {
		return nil, err
	}
	return st.indexed(sv, false), nil
}

// edge is the edge type of edgeType with the indexes its writes maintain.
func (st *applyState) edge(edgeType int32) (*rowread.Schema, error) {
	sv, err := st.r.Edge(edgeType)
	if err != nil {
		return nil, err
	}
	return st.indexed(sv, true), nil
}

// indexed adds to sv, a schema of st.r (which is st's own), the indexes
// on it, as storaged's command carries them.
func (st *applyState) indexed(sv *rowread.Schema, isEdge bool) *rowread.Schema {
	if sv.Indexes == nil && sv.Versions.Latest() != nil {
		for _, ix := range st.snap.IndexesOn(st.spaceID, isEdge, sv.ID) {
			sv.Indexes = append(sv.Indexes, schema.NewIndexLayout(ix, sv.Versions.Latest()))
		}
	}
	return sv
}

// ---- vertices ----

// putTagRow writes one tag row of a vertex and moves its index entries
// from the old row's values to the new one's.
func (st *applyState) putTagRow(sv *rowread.Schema, vid, old, row []byte) error {
	if err := rowread.TagIndexes(st.data, st.spaceID, st.part, sv, sv.Indexes, vid, old, row); err != nil {
		return err
	}
	st.data.Put(partition.TagKey(st.spaceID, st.part, vid, sv.ID), row)
	return nil
}

func (st *applyState) putVertex(v *storagepb.NewVertex, ifNotExists bool) error {
	for _, t := range v.Tags {
		sv, err := st.tag(t.GetTagId())
		if err != nil {
			return err
		}
		if _, err := sv.Decode(t.GetRow()); err != nil {
			return rowread.Invalid("vertex %x: %v", v.Vid, err)
		}
		old := st.data.get(partition.TagKey(st.spaceID, st.part, v.Vid, t.GetTagId()))
		if old != nil && ifNotExists {
			if exp, err := sv.RowExpired(old, st.now); err != nil || !exp {
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
	return rowread.DeleteTags(st.data, st.space, st.part, vid, ids, func(id int32) *rowread.Schema {
		sv, _ := st.tag(id)
		return sv
	})
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

// inEdgeKey is the key of the in-edge half of out-edge k, in its
// destination's partition.
func (st *applyState) inEdgeKey(k *storagepb.EdgeKey) []byte {
	return partition.EdgeKey(st.spaceID, st.partOf(k.Dst), k.Dst, -k.EdgeType, k.Rank, k.Src)
}

// putOutEdge writes an out-edge with its indexes, and its in-edge.
func (st *applyState) putOutEdge(sv *rowread.Schema, k *storagepb.EdgeKey, old, row []byte) error {
	if err := rowread.EdgeIndexes(st.data, st.spaceID, st.part, sv, sv.Indexes, k, old, row); err != nil {
		return err
	}
	st.data.Put(partition.EdgeKey(st.spaceID, st.part, k.Src, k.EdgeType, k.Rank, k.Dst), row)
	st.g.inVersion++
	st.data.Put(st.inEdgeKey(k), partition.EncodeInEdge(partition.InEdgeVersion{Index: st.g.inVersion}, row))
	return nil
}

func (st *applyState) putEdge(e *storagepb.NewEdge, ifNotExists bool) error {
	sv, err := st.edge(e.EdgeType)
	if err != nil {
		return err
	}
	if _, err := sv.Decode(e.Row); err != nil {
		return rowread.Invalid("edge %x->%x: %v", e.Src, e.Dst, err)
	}
	k := &storagepb.EdgeKey{Src: e.Src, EdgeType: e.EdgeType, Rank: e.Rank, Dst: e.Dst}
	old := st.data.get(partition.EdgeKey(st.spaceID, st.part, e.Src, e.EdgeType, e.Rank, e.Dst))
	if old != nil && ifNotExists {
		if exp, err := sv.RowExpired(old, st.now); err != nil || !exp {
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
		if sv, err := st.edge(k.EdgeType); err == nil {
			if err := rowread.EdgeIndexes(st.data, st.spaceID, part, sv, sv.Indexes, k, old, nil); err != nil {
				return err
			}
		}
		st.data.Delete(key)
	}
	st.data.Delete(st.inEdgeKey(k))
	return nil
}

// ---- indexes ----

// rebuildIndex clears an index's entries in the partition and indexes
// every row of its tag or edge type again (storaged's rebuildIndex, in one
// step: nothing writes meanwhile).
func (st *applyState) rebuildIndex(desc *metapb.IndexDesc) error {
	var sv *rowread.Schema
	var err error
	if desc.GetIsEdge() {
		sv, err = st.r.Edge(desc.GetSchemaId())
	} else {
		sv, err = st.r.Tag(desc.GetSchemaId())
	}
	if err != nil {
		return err
	}
	ix := []*schema.IndexLayout{schema.NewIndexLayout(desc, sv.Versions.Latest())}
	var stale [][]byte
	st.data.scanPrefix(partition.IndexPrefix(st.spaceID, st.part, desc.GetIndexId()), func(k, _ []byte) bool {
		stale = append(stale, append([]byte(nil), k...))
		return true
	})
	for _, k := range stale {
		st.data.Delete(k)
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
			if et != sv.ID {
				continue
			}
			if err := rowread.EdgeIndexes(st.data, st.spaceID, st.part, sv, ix, &storagepb.EdgeKey{Src: src, EdgeType: et, Rank: rank, Dst: dst}, nil, r.val); err != nil {
				return err
			}
			continue
		}
		_, _, vid, tagID, err := partition.ParseTagKey(r.key, st.vidLen)
		if err != nil {
			return err
		}
		if tagID != sv.ID {
			continue
		}
		if err := rowread.TagIndexes(st.data, st.spaceID, st.part, sv, ix, vid, nil, r.val); err != nil {
			return err
		}
	}
	return nil
}

// notFoundIndex is storaged's answer for an index the catalog lacks.
func notFoundIndex(space, id int32) error {
	return &partitionError{Code: commonpb.ErrorCode_E_NOT_FOUND, Msg: fmt.Sprintf("index %d not found in space %d", id, space)}
}

// update runs UPDATE / UPSERT of one vertex tag or one edge as storaged's
// apply does (storaged/update.go): read the row, evaluate the update on
// it (rowread.Update), write the row with its indexes (and, for an edge,
// its in-edge).
func (st *applyState) update(u *storagepb.UpdateReq) (*storagepb.UpdateResp, error) {
	var sv *rowread.Schema
	var key []byte
	var err error
	if k := u.Edge; k != nil {
		if sv, err = st.edge(k.EdgeType); err != nil {
			return nil, err
		}
		key = partition.EdgeKey(st.spaceID, st.part, k.Src, k.EdgeType, k.Rank, k.Dst)
	} else {
		if sv, err = st.tag(u.TagId); err != nil {
			return nil, err
		}
		key = partition.TagKey(st.spaceID, st.part, u.Vid, u.TagId)
	}
	up := rowread.NewUpdate(st.space, sv, u, st.now)
	old, row, err := up.Apply(st.data.get(key))
	if err != nil {
		return nil, err
	}
	if row != nil {
		if u.Edge != nil {
			err = st.putOutEdge(sv, u.Edge, old, row)
		} else {
			err = st.putTagRow(sv, u.Vid, old, row)
		}
		if err != nil {
			return nil, err
		}
	}
	return up.Result(row != nil)
}
