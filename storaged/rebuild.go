package storaged

import (
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// Index rebuild runs inside the apply, a chunk per raft entry, so that it
// sees exactly the data the entries before it left and the writes after it
// maintain what it built: no write is missed between "scan" and "write".
// The cursor says where the next chunk starts:
//
//	empty                 first chunk: start clearing the index
//	'c' | index key       clearing: delete entries from this key on
//	'b' | data key        building: index rows from this key on
//	(result) empty        done
const (
	rebuildClearing     byte = 'c'
	rebuildBuilding     byte = 'b'
	rebuildDefaultLimit      = 5000
)

func (st *applyState) rebuildIndex(op *storagepb.RebuildIndexOp) ([]byte, error) {
	var ix *indexInfo
	var si *rowread.Schema
	for _, m := range []map[int32]*rowread.Schema{st.tags, st.edges} {
		for _, s := range m {
			for _, x := range s.Indexes {
				if x.Desc.GetIndexId() == op.IndexId {
					ix, si = x, s
				}
			}
		}
	}
	if ix == nil {
		return nil, invalid("index %d is not in the command", op.IndexId)
	}
	limit := int(op.Limit)
	if limit <= 0 {
		limit = rebuildDefaultLimit
	}
	cursor := op.Cursor
	if len(cursor) == 0 {
		cursor = append([]byte{rebuildClearing}, partition.IndexPrefix(st.g.Space, st.g.Part, op.IndexId)...)
	}
	if len(cursor) < 2 {
		return nil, invalid("bad rebuild cursor %x", cursor)
	}
	from := cursor[1:]
	if err := st.checkKeyInPart(from); err != nil {
		return nil, err
	}
	switch cursor[0] {
	case rebuildClearing:
		prefix := partition.IndexPrefix(st.g.Space, st.g.Part, op.IndexId)
		var keys [][]byte
		err := st.b.Scan(prefix, from, func(k, _ []byte) (bool, error) {
			keys = append(keys, append([]byte(nil), k...))
			return len(keys) <= limit, nil
		})
		if err != nil {
			return nil, err
		}
		if len(keys) > limit {
			next := keys[limit]
			for _, k := range keys[:limit] {
				st.b.Delete(k)
			}
			return append([]byte{rebuildClearing}, next...), nil
		}
		for _, k := range keys {
			st.b.Delete(k)
		}
		kind := partition.KindTag
		if ix.Desc.GetIsEdge() {
			kind = partition.KindEdge
		}
		return append([]byte{rebuildBuilding}, partition.KindPrefix(st.g.Space, st.g.Part, kind)...), nil
	case rebuildBuilding:
		return st.rebuildChunk(si, ix, from, limit)
	}
	return nil, invalid("bad rebuild cursor %x", cursor)
}

// rebuildChunk indexes up to limit rows from the data key from.
func (st *applyState) rebuildChunk(si *rowread.Schema, ix *indexInfo, from []byte, limit int) ([]byte, error) {
	isEdge := ix.Desc.GetIsEdge()
	kind := partition.KindTag
	if isEdge {
		kind = partition.KindEdge
	}
	prefix := partition.KindPrefix(st.g.Space, st.g.Part, kind)
	type row struct {
		key, value []byte
	}
	var rows []row
	var next []byte
	err := st.b.Scan(prefix, from, func(k, v []byte) (bool, error) {
		if len(rows) == limit {
			next = append([]byte(nil), k...)
			return false, nil
		}
		rows = append(rows, row{append([]byte(nil), k...), append([]byte(nil), v...)})
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if isEdge {
			_, _, src, et, rank, dst, err := partition.ParseEdgeKey(r.key, st.vidLen)
			if err != nil {
				return nil, err
			}
			if et != si.ID {
				continue
			}
			k := &storagepb.EdgeKey{Src: src, EdgeType: et, Rank: rank, Dst: dst}
			if err := rowread.EdgeIndexes(st.b, st.g.Space, st.g.Part, si, []*indexInfo{ix}, k, nil, r.value); err != nil {
				return nil, err
			}
			continue
		}
		_, _, vid, tagID, err := partition.ParseTagKey(r.key, st.vidLen)
		if err != nil {
			return nil, err
		}
		if tagID != si.ID {
			continue
		}
		if err := rowread.TagIndexes(st.b, st.g.Space, st.g.Part, si, []*indexInfo{ix}, vid, nil, r.value); err != nil {
			return nil, err
		}
	}
	if next == nil {
		return nil, nil
	}
	return append([]byte{rebuildBuilding}, next...), nil
}
