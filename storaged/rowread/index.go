package rowread

import (
	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// Writer takes the key writes of a write: storaged's raft apply batch,
// memgraph's map.
type Writer interface {
	Put(key, value []byte)
	Delete(key []byte)
}

// Store is a Writer that a write reads too: Scan calls fn for every key
// with the prefix, in key order, from start (nil: the prefix itself),
// until fn returns false or an error, which Scan returns. Key and value
// are only valid during the call.
type Store interface {
	Writer
	Scan(prefix, start []byte, fn func(key, value []byte) (bool, error)) error
}

// DeleteTags deletes the rows of tags ids (every tag if ids is empty) of
// vertex vid in partition part, with their index entries. schema is the
// tag of an id with its indexes, or nil for a tag the write has no schema
// for (a dropped one): its row goes, and it can have no index.
func DeleteTags(s Store, space *metapb.SpaceDesc, part int32, vid []byte, ids []int32, schema func(id int32) *Schema) error {
	want := map[int32]bool{}
	for _, id := range ids {
		want[id] = true
	}
	type found struct {
		id  int32
		row []byte
	}
	var rows []found
	spaceID, vidLen := space.GetSpaceId(), int(space.GetVidLen())
	err := s.Scan(partition.TagPrefix(spaceID, part, vid), nil, func(k, v []byte) (bool, error) {
		_, _, _, id, err := partition.ParseTagKey(k, vidLen)
		if err != nil {
			return false, err
		}
		if len(want) == 0 || want[id] {
			rows = append(rows, found{id: id, row: append([]byte(nil), v...)})
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, r := range rows {
		if sv := schema(r.id); sv != nil {
			if err := TagIndexes(s, spaceID, part, sv, sv.Indexes, vid, r.row, nil); err != nil {
				return err
			}
		}
		s.Delete(partition.TagKey(spaceID, part, vid, r.id))
	}
	return nil
}

// TagIndexes moves the entries that indexes (indexes on tag sv) have for
// vid's row of sv in partition part from the values of old to those of
// row: old's entries are deleted, row's put. Either may be nil (a new
// row, a deleted one).
func TagIndexes(w Writer, space, part int32, sv *Schema, indexes []*schema.IndexLayout, vid, old, row []byte) error {
	return moveEntries(w, sv, indexes, old, row, func(ix *schema.IndexLayout, values []byte) []byte {
		return partition.TagIndexKey(space, part, ix.Desc.GetIndexId(), values, vid)
	})
}

// EdgeIndexes is TagIndexes for the out-edge k of edge type sv.
func EdgeIndexes(w Writer, space, part int32, sv *Schema, indexes []*schema.IndexLayout, k *storagepb.EdgeKey, old, row []byte) error {
	return moveEntries(w, sv, indexes, old, row, func(ix *schema.IndexLayout, values []byte) []byte {
		return partition.EdgeIndexKey(space, part, ix.Desc.GetIndexId(), values, k.Src, k.Rank, k.Dst)
	})
}

// moveEntries deletes the entries of old and puts those of row, index by
// index; key is an entry's key given its encoded values.
func moveEntries(w Writer, sv *Schema, indexes []*schema.IndexLayout, old, row []byte,
	key func(ix *schema.IndexLayout, values []byte) []byte) error {
	if len(indexes) == 0 {
		return nil
	}
	var oldVals, rowVals []any
	var err error
	if old != nil {
		if oldVals, err = sv.Decode(old); err != nil {
			return err
		}
	}
	if row != nil {
		if rowVals, err = sv.Decode(row); err != nil {
			return err
		}
	}
	for _, ix := range indexes {
		if old != nil {
			enc, err := ix.Values(oldVals)
			if err != nil {
				return err
			}
			w.Delete(key(ix, enc))
		}
		if row != nil {
			enc, err := ix.Values(rowVals)
			if err != nil {
				return err
			}
			w.Put(key(ix, enc), nil)
		}
	}
	return nil
}
