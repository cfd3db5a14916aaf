package rowread

import (
	"fmt"
	"slices"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/value"
)

// Reader decodes rows for one request: it caches schemas by id, checks
// TTLs against one clock reading, and reads single properties. It is not
// safe for concurrent use.
type Reader struct {
	snap    *catalog.Snapshot
	spaceID int32
	now     int64
	tags    map[int32]*Schema
	edges   map[int32]*Schema
	row     partition.RowReader
}

// NewReader reads rows of space spaceID under the schemas of snap, with
// TTLs checked against now (seconds since the epoch).
func NewReader(snap *catalog.Snapshot, spaceID int32, now int64) *Reader {
	return &Reader{snap: snap, spaceID: spaceID, now: now, tags: map[int32]*Schema{}, edges: map[int32]*Schema{}}
}

// Tag is the tag id, or an E_TAG_NOT_FOUND Error.
func (r *Reader) Tag(id int32) (*Schema, error) {
	if v, ok := r.tags[id]; ok {
		return v, nil
	}
	desc, ok := r.snap.TagByID(r.spaceID, id)
	if !ok {
		return nil, &Error{Code: commonpb.ErrorCode_E_TAG_NOT_FOUND, Msg: fmt.Sprintf("tag %d not found in space %d", id, r.spaceID)}
	}
	v := NewSchema(id, desc.GetName(), desc.GetVersions())
	r.tags[id] = v
	return v, nil
}

// Edge is the edge type of edgeType (an in-edge's negative type is its
// edge type's), or an E_EDGE_NOT_FOUND Error.
func (r *Reader) Edge(edgeType int32) (*Schema, error) {
	if edgeType < 0 {
		edgeType = -edgeType
	}
	if v, ok := r.edges[edgeType]; ok {
		return v, nil
	}
	desc, ok := r.snap.EdgeByType(r.spaceID, edgeType)
	if !ok {
		return nil, &Error{Code: commonpb.ErrorCode_E_EDGE_NOT_FOUND, Msg: fmt.Sprintf("edge type %d not found in space %d", edgeType, r.spaceID)}
	}
	v := NewSchema(edgeType, desc.GetName(), desc.GetVersions())
	r.edges[edgeType] = v
	return v, nil
}

// prop decodes one property of a row: a property the row's schema version
// lacks reads as the latest version's default, else NULL.
func (r *Reader) prop(row []byte, sv *Schema, name string) (*commonpb.Value, error) {
	if err := r.row.ResetLayout(row, sv.Versions); err != nil {
		return nil, err
	}
	v, typ, err := getProp(&r.row, sv, name)
	if err != nil {
		return nil, err
	}
	return schema.ValueToProto(v, typ), nil
}

// getProp reads one property from a RowReader already reset to a row of
// sv: the value (nil for NULL) and its type.
func getProp(rr *partition.RowReader, sv *Schema, name string) (any, partition.PropType, error) {
	v, ok, err := rr.Get(name)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		latest := sv.Versions.Latest()
		if col := latest.Index(name); col >= 0 && latest.Columns[col].Default != nil {
			return latest.Columns[col].Default, latest.Columns[col].Type, nil
		}
		return nil, 0, nil
	}
	typ := partition.PropType(0)
	if rc := rr.Schema().Index(name); rc >= 0 {
		typ = rr.Schema().Columns[rc].Type
	}
	return v, typ, nil
}

// goValue is a row value as nGQL sees it.
func goValue(v any, typ partition.PropType) (value.Value, error) {
	if t, ok := v.(int64); ok && typ == partition.PropTimestamp {
		return value.Timestamp(t), nil
	}
	return value.FromGo(v)
}

// Expired reports whether a row of sv outlived its TTL.
func (r *Reader) Expired(row []byte, sv *Schema) (bool, error) {
	if sv.ttlCol == "" {
		return false, nil
	}
	if err := r.row.ResetLayout(row, sv.Versions); err != nil {
		return false, err
	}
	v, ok, err := r.row.Get(sv.ttlCol)
	if err != nil || !ok {
		return false, err
	}
	t, isInt := v.(int64)
	return isInt && t+sv.ttlSecs < r.now, nil
}

// VertexRows are rows of tags of one vertex, by tag id.
type VertexRows map[int32][]byte

// readTags reads, with get, the rows of the given tags of one vertex;
// absent and expired tags are missing from the map.
func (r *Reader) readTags(get func(key []byte) ([]byte, error), part int32, vid []byte, tagIDs []int32) (VertexRows, error) {
	rows := VertexRows{}
	for _, id := range tagIDs {
		if _, seen := rows[id]; seen {
			continue
		}
		row, err := get(partition.TagKey(r.spaceID, part, vid, id))
		if err != nil {
			return nil, fmt.Errorf("reading vertex %x tag %d: %w", vid, id, err)
		}
		if row == nil {
			continue
		}
		sv, err := r.Tag(id)
		if err != nil {
			return nil, err
		}
		if exp, err := r.Expired(row, sv); err != nil {
			return nil, fmt.Errorf("vertex %x tag %d: %w", vid, id, err)
		} else if exp {
			continue
		}
		rows[id] = row
	}
	return rows, nil
}

// TagProps answers PropRefs of tags from a vertex's rows; found says
// whether any requested tag exists.
func (r *Reader) TagProps(rows VertexRows, refs []*storagepb.PropRef) ([]*commonpb.Value, bool, error) {
	found := false
	out := make([]*commonpb.Value, len(refs))
	for i, ref := range refs {
		pv, v, typ, ok, err := r.tagProp(rows, ref)
		if err != nil {
			return nil, false, err
		}
		found = found || ok
		if pv == nil {
			pv = schema.ValueToProto(v, typ)
		}
		out[i] = pv
	}
	return out, found, nil
}

// tagProp reads one property of a vertex from its tag rows: pv when it is
// a wire value already (NULL for a tag the vertex lacks, the tag id for
// _tag), else the stored value v (nil: NULL) of type typ; found says the
// vertex has the tag.
func (r *Reader) tagProp(rows VertexRows, ref *storagepb.PropRef) (pv *commonpb.Value, v any, typ partition.PropType, found bool, err error) {
	row, ok := rows[ref.SchemaId]
	if !ok {
		return schema.NullValue(), nil, 0, false, nil
	}
	if ref.Name == "_tag" {
		return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: int64(ref.SchemaId)}}, nil, 0, true, nil
	}
	sv, err := r.Tag(ref.SchemaId)
	if err != nil {
		return nil, nil, 0, false, err
	}
	if err := r.row.ResetLayout(row, sv.Versions); err != nil {
		return nil, nil, 0, false, fmt.Errorf("tag %d: %w", ref.SchemaId, err)
	}
	if v, typ, err = getProp(&r.row, sv, ref.Name); err != nil {
		return nil, nil, 0, false, fmt.Errorf("tag %d: %w", ref.SchemaId, err)
	}
	return nil, v, typ, true, nil
}

// appendColumn adds a property read as tagProp or edgeProp return it to a
// column: an int, float, string or bool typed, anything else (a
// timestamp, a date…) as its wire Value.
func appendColumn(b *commonpb.ColumnBuilder, pv *commonpb.Value, v any, typ partition.PropType) {
	if pv != nil {
		b.AddValue(pv)
		return
	}
	switch x := v.(type) {
	case nil:
		b.AddNull()
	case int64:
		if typ == partition.PropTimestamp {
			b.AddValue(schema.ValueToProto(v, typ))
		} else {
			b.AddInt(x)
		}
	case float64:
		b.AddFloat(x)
	case bool:
		b.AddBool(x)
	case string:
		b.AddStr([]byte(x))
	default:
		b.AddValue(schema.ValueToProto(v, typ))
	}
}

func tagIDsOf(refs []*storagepb.PropRef) []int32 {
	var ids []int32
	for _, r := range refs {
		ids = append(ids, r.SchemaId)
	}
	return ids
}

// EdgeProps answers PropRefs of edges for one stored edge, the key's
// vertex keyVid, edgeType (negative: an in-edge), rank and other vertex;
// the row is decoded once for all of them.
func (r *Reader) EdgeProps(refs []*storagepb.PropRef, row []byte, edgeType int32, rank int64, keyVid, other []byte) ([]*commonpb.Value, error) {
	out := make([]*commonpb.Value, len(refs))
	e := edgeRow{row: row, edgeType: edgeType, rank: rank, keyVid: keyVid, other: other}
	for i, ref := range refs {
		pv, v, typ, err := r.edgeProp(&e, ref)
		if err != nil {
			return nil, err
		}
		if pv == nil {
			pv = schema.ValueToProto(v, typ)
		}
		out[i] = pv
	}
	return out, nil
}

// EdgePropColumns is EdgeProps for an answer in columns (packed_edges):
// it appends the edge's refs to cols, one builder per ref, without a wire
// Value for the ints, floats, strings and bools.
func (r *Reader) EdgePropColumns(cols []commonpb.ColumnBuilder, refs []*storagepb.PropRef, row []byte, edgeType int32, rank int64, keyVid, other []byte) error {
	e := edgeRow{row: row, edgeType: edgeType, rank: rank, keyVid: keyVid, other: other}
	for i, ref := range refs {
		pv, err := r.edgeRef(&e, ref)
		if err != nil {
			return err
		}
		if pv != nil {
			cols[i].AddValue(pv)
		} else if err := appendStored(&cols[i], &r.row, e.sv, ref.Name); err != nil {
			return fmt.Errorf("edge %x->%x type %d: %w", keyVid, other, edgeType, err)
		}
	}
	return nil
}

// edgeRow is one edge whose properties EdgeProps reads; sv is set, and
// the Reader's row reset to row, on the first stored property read.
type edgeRow struct {
	row           []byte
	edgeType      int32
	rank          int64
	keyVid, other []byte
	sv            *Schema
}

// edgeProp reads one property of e: pv when it is a wire value already (a
// key field, or NULL for a property of another edge type), else the
// stored value v (nil: NULL) of type typ.
func (r *Reader) edgeProp(e *edgeRow, ref *storagepb.PropRef) (pv *commonpb.Value, v any, typ partition.PropType, err error) {
	if pv, err = r.edgeRef(e, ref); pv != nil || err != nil {
		return pv, nil, 0, err
	}
	v, typ, err = getProp(&r.row, e.sv, ref.Name)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("edge %x->%x type %d: %w", e.keyVid, e.other, e.edgeType, err)
	}
	return nil, v, typ, nil
}

// edgeRef answers ref for e when the key does (a key field, or NULL for a
// property of another edge type); otherwise it returns nil with the
// Reader's row reset to e's stored row (e.sv set), for the caller to read
// ref.Name from: EdgeProps boxed (getProp), EdgePropColumns typed
// (appendStored).
func (r *Reader) edgeRef(e *edgeRow, ref *storagepb.PropRef) (pv *commonpb.Value, err error) {
	abs := e.edgeType
	if abs < 0 {
		abs = -abs
	}
	if ref.SchemaId != abs {
		return schema.NullValue(), nil
	}
	if pv, ok := edgeKeyProp(ref.Name, e.edgeType, e.rank, e.keyVid, e.other); ok {
		return pv, nil
	}
	if e.sv == nil {
		if e.sv, err = r.Edge(e.edgeType); err != nil {
			return nil, err
		}
		if err := r.row.ResetLayout(e.row, e.sv.Versions); err != nil {
			e.sv = nil
			return nil, fmt.Errorf("edge %x->%x type %d: %w", e.keyVid, e.other, e.edgeType, err)
		}
	}
	return nil, nil
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

// eachVertex checks that each of vids belongs to part and hands fn its
// rows of tagIDs, read with get.
func (r *Reader) eachVertex(get func(key []byte) ([]byte, error), space *metapb.SpaceDesc, part int32, vids [][]byte,
	tagIDs []int32, fn func(vid []byte, rows VertexRows) error) error {
	for _, vid := range vids {
		if err := CheckVid(space, part, vid); err != nil {
			return err
		}
		rows, err := r.readTags(get, part, vid, tagIDs)
		if err != nil {
			return err
		}
		if err := fn(vid, rows); err != nil {
			return err
		}
	}
	return nil
}

// GetPropColumns is GetProps of vertices answered in columns (GetPropsReq
// columns): the vertices of vids that have any of the requested tags, and
// one column per ref; nil when none has. Strings come packed when the
// request asks for it (packed_strings), one entry per row otherwise.
//
// It is GetProps's loop made for the $$ fetch of a big GO (tens of
// thousands of vertices a request): each vertex's row of a tag is decoded
// once for all the tag's properties, its key built in one buffer, and the
// scalars appended without boxing (docs/benchmarks.md, issue 22). With
// tc (storaged's adjacency cache) it reads no row at all where it can: a
// vertex's tag row is an ordinal and its cells are gathered from columns
// decoded once for the partition (propColumnsByOrdinal).
func (r *Reader) GetPropColumns(get func(key []byte) ([]byte, error), tc TagColumns, space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq,
	vids [][]byte) (*storagepb.PropColumns, error) {
	cols := make([]commonpb.ColumnBuilder, len(req.Props))
	for i := range cols {
		cols[i].Reserve(len(vids), commonpb.ColumnKind_COL_ANY)
	}
	tags := tagsOfRefs(req.Props)
	if tc != nil {
		if out, ok, err := r.propColumnsByOrdinal(tc, space, part, req, vids, tags, cols); ok || err != nil {
			return out, err
		}
	}
	out := &storagepb.PropColumns{}
	var key []byte
	for _, vid := range vids {
		if err := CheckVid(space, part, vid); err != nil {
			return nil, err
		}
		found := false
		for j := range tags {
			t := &tags[j]
			key = partition.AppendTagKey(key[:0], r.spaceID, part, vid, t.id)
			row, err := get(key)
			if err != nil {
				return nil, fmt.Errorf("reading vertex %x tag %d: %w", vid, t.id, err)
			}
			if row != nil && t.sv == nil {
				if t.sv, err = r.Tag(t.id); err != nil {
					return nil, err
				}
			}
			if row != nil {
				if exp, err := r.Expired(row, t.sv); err != nil {
					return nil, fmt.Errorf("vertex %x tag %d: %w", vid, t.id, err)
				} else if exp {
					row = nil
				}
			}
			t.row = row
			found = found || row != nil
		}
		if !found {
			continue
		}
		out.PackedVids = append(out.PackedVids, vid...)
		for j := range tags {
			t := &tags[j]
			if t.row == nil {
				for _, i := range t.refs {
					cols[i].AddNull()
				}
				continue
			}
			if err := r.row.ResetLayout(t.row, t.sv.Versions); err != nil {
				return nil, fmt.Errorf("vertex %x tag %d: %w", vid, t.id, err)
			}
			for _, i := range t.refs {
				if req.Props[i].Name == "_tag" {
					cols[i].AddInt(int64(t.id))
					continue
				}
				if err := appendStored(&cols[i], &r.row, t.sv, req.Props[i].Name); err != nil {
					return nil, fmt.Errorf("vertex %x tag %d: %w", vid, t.id, err)
				}
			}
		}
	}
	return finishPropColumns(out, cols, req), nil
}

// finishPropColumns completes GetPropColumns's answer: nil when no vertex
// had a requested tag.
func finishPropColumns(out *storagepb.PropColumns, cols []commonpb.ColumnBuilder, req *storagepb.GetPropsReq) *storagepb.PropColumns {
	if len(out.PackedVids) == 0 {
		return nil
	}
	out.Columns = make([]*commonpb.Column, len(cols))
	for i := range cols {
		out.Columns[i] = cols[i].Finish()
		if !req.PackedStrings {
			out.Columns[i].UnpackStrings()
		}
	}
	return out
}

// tagRefs are the refs of a GetPropsReq that name one tag.
type tagRefs struct {
	id   int32
	sv   *Schema
	refs []int // indexes into req.Props
	row  []byte
}

// tagsOfRefs groups refs by tag, tags in the order the refs first name
// them.
func tagsOfRefs(props []*storagepb.PropRef) []tagRefs {
	var tags []tagRefs
	for i, ref := range props {
		j := slices.IndexFunc(tags, func(t tagRefs) bool { return t.id == ref.SchemaId })
		if j < 0 {
			// The schema is looked up on the tag's first row, as the
			// row path does: a tag dropped since graphd planned reads
			// as NULL where no vertex has it.
			tags = append(tags, tagRefs{id: ref.SchemaId})
			j = len(tags) - 1
		}
		tags[j].refs = append(tags[j].refs, i)
	}
	return tags
}

// TagColumns gives GetPropColumns a partition's tag properties decoded
// ahead (storaged's adjacency cache). TagOrdinal numbers the row of a tag
// key of the partition: -1 when there is no such row, ok false when the
// key is not held (its rows are then read with get). TagColumn is the
// column of sv's property name over those numbers (DecodeColumn), as
// EdgeColumns is for edges: nil with ok true when every cell is NULL, ok
// false when it has none to give.
type TagColumns interface {
	TagOrdinal(key []byte) (ord int32, ok bool)
	TagColumn(sv *Schema, name string) (col *commonpb.Column, ok bool)
}

// propColumnsByOrdinal is GetPropColumns from tc: every vertex's tag rows
// as ordinals, then each property's cells gathered from its column with
// ColumnBuilder.AppendAt, the answer the row-by-row loop gives. ok is
// false, having appended nothing to cols, when tc cannot answer: a tag
// with a TTL (each row's expiry is read from the row), a tag whose schema
// is not known (the row path reads such a tag as NULL where no row
// exists), a property with no column, or a key tc does not hold.
func (r *Reader) propColumnsByOrdinal(tc TagColumns, space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq,
	vids [][]byte, tags []tagRefs, cols []commonpb.ColumnBuilder) (out *storagepb.PropColumns, ok bool, err error) {
	// tagCols[j][k] is the column of tag j's k-th ref; nil for all-NULL
	// columns and for _tag.
	tagCols := make([][]*commonpb.Column, len(tags))
	for j := range tags {
		sv, err := r.Tag(tags[j].id)
		if err != nil || sv.ttlCol != "" {
			return nil, false, nil
		}
		tagCols[j] = make([]*commonpb.Column, len(tags[j].refs))
		for k, i := range tags[j].refs {
			if req.Props[i].Name == "_tag" {
				continue
			}
			col, ok := tc.TagColumn(sv, req.Props[i].Name)
			if !ok {
				return nil, false, nil
			}
			tagCols[j][k] = col
		}
	}
	// ords[j] are tag j's row ordinals of the vertices found, in order;
	// -1 where a found vertex lacks tag j.
	ords := make([][]int32, len(tags))
	for j := range ords {
		ords[j] = make([]int32, 0, len(vids))
	}
	gaps := make([]bool, len(tags))
	found := make([]int32, len(tags))
	out = &storagepb.PropColumns{}
	var key []byte
	for _, vid := range vids {
		if err := CheckVid(space, part, vid); err != nil {
			return nil, true, err
		}
		hasTag := false
		for j := range tags {
			key = partition.AppendTagKey(key[:0], r.spaceID, part, vid, tags[j].id)
			o, held := tc.TagOrdinal(key)
			if !held {
				return nil, false, nil
			}
			found[j] = o
			hasTag = hasTag || o >= 0
		}
		if !hasTag {
			continue
		}
		out.PackedVids = append(out.PackedVids, vid...)
		for j := range tags {
			ords[j] = append(ords[j], found[j])
			gaps[j] = gaps[j] || found[j] < 0
		}
	}
	for j := range tags {
		for k, i := range tags[j].refs {
			b, col := &cols[i], tagCols[j][k]
			switch {
			case req.Props[i].Name == "_tag":
				for _, o := range ords[j] {
					if o < 0 {
						b.AddNull()
					} else {
						b.AddInt(int64(tags[j].id))
					}
				}
			case col == nil:
				for range ords[j] {
					b.AddNull()
				}
			case !gaps[j]:
				b.AppendAt(col, ords[j])
			default:
				for _, o := range ords[j] {
					if o < 0 {
						b.AddNull()
					} else {
						b.AppendRange(col, int(o), int(o)+1)
					}
				}
			}
		}
	}
	return finishPropColumns(out, cols, req), true, nil
}

// appendStored appends the property called name of the row rr reads (a
// row of sv) to b, as appendColumn of getProp's value would, without
// boxing the scalars (the builder copies a string out of the row).
func appendStored(b *commonpb.ColumnBuilder, rr *partition.RowReader, sv *Schema, name string) error {
	if i := rr.Schema().Index(name); i >= 0 {
		s, ok, err := rr.Scalar(i)
		if err != nil {
			return err
		}
		if ok && s.Type != partition.PropTimestamp {
			switch {
			case s.Null:
				b.AddNull()
			case s.Type == partition.PropInt64:
				b.AddInt(s.I)
			case s.Type == partition.PropDouble:
				b.AddFloat(s.F)
			case s.Type == partition.PropBool:
				b.AddBool(s.I == 1)
			default:
				b.AddStr(s.Bytes)
			}
			return nil
		}
	}
	v, typ, err := getProp(rr, sv, name)
	if err != nil {
		return err
	}
	appendColumn(b, nil, v, typ)
	return nil
}

// GetProps answers GetProps on one partition for its vids and edge keys,
// reading rows with get (a nil row: no such key).
func (r *Reader) GetProps(get func(key []byte) ([]byte, error), space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq,
	vids [][]byte, keys []*storagepb.EdgeKey) ([]*storagepb.PropRow, error) {
	var out []*storagepb.PropRow
	err := r.eachVertex(get, space, part, vids, tagIDsOf(req.Props), func(vid []byte, rows VertexRows) error {
		props, found, err := r.TagProps(rows, req.Props)
		if found {
			out = append(out, &storagepb.PropRow{Vid: vid, Values: props})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, ek := range keys {
		if err := CheckVid(space, part, ek.Src); err != nil {
			return nil, err
		}
		value, err := get(partition.EdgeKey(req.SpaceId, part, ek.Src, ek.EdgeType, ek.Rank, ek.Dst))
		if err != nil {
			return nil, fmt.Errorf("reading edge %x->%x: %w", ek.Src, ek.Dst, err)
		}
		if value == nil {
			continue
		}
		row, live, err := partition.EdgeRow(ek.EdgeType, value)
		if err != nil {
			return nil, fmt.Errorf("edge %x->%x: %w", ek.Src, ek.Dst, err)
		}
		if !live {
			continue
		}
		sv, err := r.Edge(ek.EdgeType)
		if err != nil {
			return nil, err
		}
		if exp, err := r.Expired(row, sv); err != nil {
			return nil, err
		} else if exp {
			continue
		}
		values, err := r.EdgeProps(req.Props, row, ek.EdgeType, ek.Rank, ek.Src, ek.Dst)
		if err != nil {
			return nil, err
		}
		out = append(out, &storagepb.PropRow{Edge: ek, Values: values})
	}
	return out, nil
}
