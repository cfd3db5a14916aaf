package rowread

import (
	"bytes"
	"fmt"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/eval"
)

// indexRange turns column hints into the key range to scan: equalities on a
// prefix of the index's fields, then at most one range. A STRING value
// that fills its field may have been cut to the field's width, so its
// bounds are taken inclusively; the filter, which the caller always sends
// whole, removes what the cut lets through.
func indexRange(prefix []byte, ix *schema.IndexLayout, hints []*storagepb.IndexColumnHint) (lower, upper []byte, err error) {
	fields := ix.Desc.GetFields()
	key := append([]byte(nil), prefix...)
	for i, h := range hints {
		if i >= len(fields) || fields[i].GetName() != h.Column {
			return nil, nil, Invalid("hint on %q does not follow the fields of index %q", h.Column, ix.Desc.GetName())
		}
		enc := func(v *commonpb.Value) ([]byte, bool, error) {
			gv := schema.ValueFromProto(v)
			b, err := partition.AppendIndexValue(nil, ix.Types[i], ix.Widths[i], gv)
			if err != nil {
				return nil, false, Invalid("hint on %q: %v", h.Column, err)
			}
			s, isStr := gv.(string)
			return b, isStr && len(s) >= ix.Widths[i], nil
		}
		if h.Eq != nil {
			b, _, err := enc(h.Eq)
			if err != nil {
				return nil, nil, err
			}
			key = append(key, b...)
			continue
		}
		if i != len(hints)-1 {
			return nil, nil, Invalid("range hint on %q must be the last hint", h.Column)
		}
		// NULL sorts first (0x00): a range never includes it.
		lower = append(append([]byte(nil), key...), 0x01)
		upper = partition.PrefixEnd(key)
		if h.Begin != nil {
			b, cut, err := enc(h.Begin)
			if err != nil {
				return nil, nil, err
			}
			lower = append(append([]byte(nil), key...), b...)
			if !h.BeginIncl && !cut {
				lower = partition.PrefixEnd(lower)
			}
		}
		if h.End != nil {
			b, cut, err := enc(h.End)
			if err != nil {
				return nil, nil, err
			}
			upper = append(append([]byte(nil), key...), b...)
			if h.EndIncl || cut {
				upper = partition.PrefixEnd(upper)
			}
		}
		return lower, upper, nil
	}
	return key, partition.PrefixEnd(key), nil
}

// Lookup answers LookupIndex on one partition. It reads rows with get (a
// nil row: no such key) and the index with scan, which visits the keys of
// [lower, upper) in order until visit returns false or an error (and
// returns that error). now is the clock of TTLs (seconds since the epoch).
func Lookup(snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.LookupIndexReq, now int64,
	get func(key []byte) ([]byte, error), scan func(lower, upper []byte, visit func(key []byte) (bool, error)) error) ([]*storagepb.PropRow, error) {
	desc, ok := snap.IndexByID(req.SpaceId, req.IndexId)
	if !ok {
		return nil, &Error{Code: commonpb.ErrorCode_E_NOT_FOUND, Msg: fmt.Sprintf("index %d not found in space %d", req.IndexId, req.SpaceId)}
	}
	r := NewReader(snap, req.SpaceId, now)
	isEdge := desc.GetIsEdge()
	var sv *Schema
	var err error
	if isEdge {
		sv, err = r.Edge(desc.GetSchemaId())
	} else {
		sv, err = r.Tag(desc.GetSchemaId())
	}
	if err != nil {
		return nil, err
	}
	ix := schema.NewIndexLayout(desc, sv.Versions.Latest())
	filter, err := parseFilter(snap, req.SpaceId, req.Filter)
	if err != nil {
		return nil, err
	}
	prefix := partition.IndexPrefix(req.SpaceId, part, req.IndexId)
	lower, upper, err := indexRange(prefix, ix, req.Hints)
	if err != nil {
		return nil, err
	}
	vidLen := int(space.GetVidLen())
	var out []*storagepb.PropRow
	visit := func(key []byte) (bool, error) {
		if req.Limit > 0 && int64(len(out)) >= req.Limit {
			return false, nil
		}
		if !bytes.HasPrefix(key, prefix) {
			return false, nil
		}
		src, rank, dst, err := partition.ParseIndexTarget(key, ix.ValuesLen, vidLen, isEdge)
		if err != nil {
			return false, err
		}
		src = append([]byte(nil), src...)
		dst = append([]byte(nil), dst...)
		var row []byte
		if isEdge {
			row, err = get(partition.EdgeKey(req.SpaceId, part, src, desc.GetSchemaId(), rank, dst))
		} else {
			row, err = get(partition.TagKey(req.SpaceId, part, src, desc.GetSchemaId()))
		}
		if err != nil {
			return false, fmt.Errorf("reading the row of index entry %x: %w", key, err)
		}
		if row == nil {
			return true, nil
		}
		if exp, err := r.Expired(row, sv); err != nil {
			return false, err
		} else if exp {
			return true, nil
		}
		fr := &filterRow{r: r, space: space, vid: src, tags: VertexRows{}}
		if isEdge {
			fr.edgeType, fr.edgeName = desc.GetSchemaId(), sv.Name
			fr.setEdge(rank, dst, row)
		} else {
			fr.tags[desc.GetSchemaId()] = row
		}
		if filter != nil {
			ok, err := eval.Filter(fr, filter.expr)
			if err != nil {
				return false, Invalid("filter: %v", err)
			}
			if !ok {
				return true, nil
			}
		}
		if isEdge {
			values, err := r.EdgeProps(req.Props, row, desc.GetSchemaId(), rank, src, dst)
			if err != nil {
				return false, err
			}
			out = append(out, &storagepb.PropRow{Edge: &storagepb.EdgeKey{Src: src, EdgeType: desc.GetSchemaId(), Rank: rank, Dst: dst}, Values: values})
			return true, nil
		}
		values, _, err := r.TagProps(fr.tags, req.Props)
		if err != nil {
			return false, err
		}
		out = append(out, &storagepb.PropRow{Vid: src, Values: values})
		return true, nil
	}
	if err := scan(lower, upper, visit); err != nil {
		return nil, err
	}
	return out, nil
}
