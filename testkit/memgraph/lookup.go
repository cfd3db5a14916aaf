package memgraph

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

// indexRange turns column hints into the key range to scan (storaged's
// indexRange): equalities on a prefix of the index's fields, then at most
// one range. A STRING value that fills its field may have been cut to the
// field's width, so its bounds are taken inclusively; the filter, which
// the caller always sends whole, removes what the cut lets through.
func indexRange(prefix []byte, ix *schema.IndexLayout, hints []*storagepb.IndexColumnHint) (lower, upper []byte, err error) {
	fields := ix.Desc.GetFields()
	key := append([]byte(nil), prefix...)
	for i, h := range hints {
		if i >= len(fields) || fields[i].GetName() != h.Column {
			return nil, nil, invalid("hint on %q does not follow the fields of index %q", h.Column, ix.Desc.GetName())
		}
		enc := func(v *commonpb.Value) ([]byte, bool, error) {
			gv := schema.ValueFromProto(v)
			b, err := partition.AppendIndexValue(nil, ix.Types[i], ix.Widths[i], gv)
			if err != nil {
				return nil, false, invalid("hint on %q: %v", h.Column, err)
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
			return nil, nil, invalid("range hint on %q must be the last hint", h.Column)
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

// lookupPart answers LookupIndex for one partition (storaged's lookupPart).
func lookupPart(data *kvs, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.LookupIndexReq, now int64) ([]*storagepb.PropRow, error) {
	desc, ok := snap.IndexByID(req.SpaceId, req.IndexId)
	if !ok {
		return nil, &partitionError{code: commonpb.ErrorCode_E_NOT_FOUND, msg: fmt.Sprintf("index %d not found in space %d", req.IndexId, req.SpaceId)}
	}
	r := newReader(snap, req.SpaceId, now)
	isEdge := desc.GetIsEdge()
	var sv *schemaView
	var err error
	if isEdge {
		sv, err = r.edge(desc.GetSchemaId())
	} else {
		sv, err = r.tag(desc.GetSchemaId())
	}
	if err != nil {
		return nil, err
	}
	ix := schema.NewIndexLayout(desc, sv.versions.Latest())
	filter, err := parseFilter(snap, req.SpaceId, req.Filter)
	if err != nil {
		return nil, err
	}
	lower, upper, err := indexRange(partition.IndexPrefix(req.SpaceId, part, req.IndexId), ix, req.Hints)
	if err != nil {
		return nil, err
	}
	vidLen := int(space.GetVidLen())
	var out []*storagepb.PropRow
	var failed error
	data.scan(lower, upper, func(key, _ []byte) bool {
		if req.Limit > 0 && int64(len(out)) >= req.Limit {
			return false
		}
		if !bytes.HasPrefix(key, lower[:partition.KeyPrefixLen+4]) {
			return false
		}
		src, rank, dst, err := partition.ParseIndexTarget(key, ix.ValuesLen, vidLen, isEdge)
		if err != nil {
			failed = err
			return false
		}
		src = append([]byte(nil), src...)
		dst = append([]byte(nil), dst...)
		var row []byte
		if isEdge {
			row = data.get(partition.EdgeKey(req.SpaceId, part, src, desc.GetSchemaId(), rank, dst))
		} else {
			row = data.get(partition.TagKey(req.SpaceId, part, src, desc.GetSchemaId()))
		}
		if row == nil {
			return true
		}
		if exp, err := r.expired(row, sv); err != nil {
			failed = err
			return false
		} else if exp {
			return true
		}
		fr := &filterRow{r: r, space: space, vid: src, tags: vertexRows{}}
		if isEdge {
			fr.edgeType, fr.edgeName = desc.GetSchemaId(), sv.name
			fr.setEdge(rank, dst, row)
		} else {
			fr.tags[desc.GetSchemaId()] = row
		}
		if filter != nil {
			ok, err := eval.Filter(fr, filter.expr)
			if err != nil {
				failed = invalid("filter: %v", err)
				return false
			}
			if !ok {
				return true
			}
		}
		if isEdge {
			values, err := r.edgeProps(req.Props, row, desc.GetSchemaId(), rank, src, dst)
			if err != nil {
				failed = err
				return false
			}
			out = append(out, &storagepb.PropRow{Edge: &storagepb.EdgeKey{Src: src, EdgeType: desc.GetSchemaId(), Rank: rank, Dst: dst}, Values: values})
			return true
		}
		values, _, err := r.tagProps(fr.tags, req.Props)
		if err != nil {
			failed = err
			return false
		}
		out = append(out, &storagepb.PropRow{Vid: src, Values: values})
		return true
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}
