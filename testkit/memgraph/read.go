package memgraph

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

// The reads mirror storaged/read.go and storaged/lookup.go, step by step,
// on the ordered map instead of RocksDB; the names are storaged's.

// schemaView is what reads and writes need of one tag or edge type.
type schemaView struct {
	id       int32
	name     string
	versions *schema.Versions
	ttlCol   string
	ttlSecs  int64
	indexes  []*schema.IndexLayout // writes: the indexes to maintain
}

func newSchemaView(snap *catalog.Snapshot, space, id int32, isEdge bool, name string, versions []*metapb.Schema) *schemaView {
	sv := &schemaView{id: id, name: name, versions: schema.NewVersions(versions)}
	var latest *metapb.Schema
	for _, v := range versions {
		if latest == nil || v.GetVersion() > latest.GetVersion() {
			latest = v
		}
	}
	if latest != nil && latest.GetTtlCol() != "" && latest.GetTtlDuration() > 0 {
		sv.ttlCol, sv.ttlSecs = latest.GetTtlCol(), latest.GetTtlDuration()
	}
	if sv.versions.Latest() != nil {
		for _, ix := range snap.IndexesOn(space, isEdge, id) {
			sv.indexes = append(sv.indexes, schema.NewIndexLayout(ix, sv.versions.Latest()))
		}
	}
	return sv
}

// expiredVals reports whether a row of values laid out as the latest
// schema outlived its TTL at now.
func (sv *schemaView) expiredVals(vals []any, now int64) bool {
	if sv.ttlCol == "" {
		return false
	}
	i := sv.versions.Latest().Index(sv.ttlCol)
	if i < 0 || i >= len(vals) {
		return false
	}
	t, ok := vals[i].(int64)
	return ok && t+sv.ttlSecs < now
}

// reader decodes rows for one request: it caches schemas by id, checks
// TTLs against one clock reading, and reads single properties.
type reader struct {
	snap    *catalog.Snapshot
	spaceID int32
	now     int64
	tags    map[int32]*schemaView
	edges   map[int32]*schemaView
	row     partition.RowReader
}

func newReader(snap *catalog.Snapshot, spaceID int32, now int64) *reader {
	return &reader{snap: snap, spaceID: spaceID, now: now, tags: map[int32]*schemaView{}, edges: map[int32]*schemaView{}}
}

func (r *reader) tag(id int32) (*schemaView, error) {
	if v, ok := r.tags[id]; ok {
		return v, nil
	}
	desc, ok := r.snap.TagByID(r.spaceID, id)
	if !ok {
		return nil, &partitionError{code: commonpb.ErrorCode_E_TAG_NOT_FOUND, msg: fmt.Sprintf("tag %d not found in space %d", id, r.spaceID)}
	}
	v := newSchemaView(r.snap, r.spaceID, id, false, desc.GetName(), desc.GetVersions())
	r.tags[id] = v
	return v, nil
}

func (r *reader) edge(edgeType int32) (*schemaView, error) {
	if edgeType < 0 {
		edgeType = -edgeType
	}
	if v, ok := r.edges[edgeType]; ok {
		return v, nil
	}
	desc, ok := r.snap.EdgeByType(r.spaceID, edgeType)
	if !ok {
		return nil, &partitionError{code: commonpb.ErrorCode_E_EDGE_NOT_FOUND, msg: fmt.Sprintf("edge type %d not found in space %d", edgeType, r.spaceID)}
	}
	v := newSchemaView(r.snap, r.spaceID, edgeType, true, desc.GetName(), desc.GetVersions())
	r.edges[edgeType] = v
	return v, nil
}

// prop decodes one property of a row: a property the row's schema version
// lacks reads as the latest version's default, else NULL.
func (r *reader) prop(row []byte, sv *schemaView, name string) (*commonpb.Value, error) {
	if err := r.row.Reset(row, sv.versions.Source()); err != nil {
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
func getProp(rr *partition.RowReader, sv *schemaView, name string) (any, partition.PropType, error) {
	v, ok, err := rr.Get(name)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		latest := sv.versions.Latest()
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

// expired reports whether a row outlived its schema's TTL.
func (r *reader) expired(row []byte, sv *schemaView) (bool, error) {
	if sv.ttlCol == "" {
		return false, nil
	}
	if err := r.row.Reset(row, sv.versions.Source()); err != nil {
		return false, err
	}
	v, ok, err := r.row.Get(sv.ttlCol)
	if err != nil || !ok {
		return false, err
	}
	t, isInt := v.(int64)
	return isInt && t+sv.ttlSecs < r.now, nil
}

// vertexRows are the rows of the tags of one vertex read; absent and
// expired tags are missing from the map.
type vertexRows map[int32][]byte

func (r *reader) readTags(data *kvs, part int32, vid []byte, tagIDs []int32) (vertexRows, error) {
	rows := vertexRows{}
	for _, id := range tagIDs {
		if _, seen := rows[id]; seen {
			continue
		}
		row := data.get(partition.TagKey(r.spaceID, part, vid, id))
		if row == nil {
			continue
		}
		sv, err := r.tag(id)
		if err != nil {
			return nil, err
		}
		if exp, err := r.expired(row, sv); err != nil {
			return nil, fmt.Errorf("vertex %x tag %d: %w", vid, id, err)
		} else if exp {
			continue
		}
		rows[id] = row
	}
	return rows, nil
}

// tagProps answers PropRefs of tags from rows; found says whether any
// requested tag exists.
func (r *reader) tagProps(rows vertexRows, refs []*storagepb.PropRef) ([]*commonpb.Value, bool, error) {
	found := false
	out := make([]*commonpb.Value, len(refs))
	for i, ref := range refs {
		row, ok := rows[ref.SchemaId]
		if !ok {
			out[i] = schema.NullValue()
			continue
		}
		found = true
		if ref.Name == "_tag" {
			out[i] = &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: int64(ref.SchemaId)}}
			continue
		}
		sv, err := r.tag(ref.SchemaId)
		if err != nil {
			return nil, false, err
		}
		if out[i], err = r.prop(row, sv, ref.Name); err != nil {
			return nil, false, fmt.Errorf("tag %d: %w", ref.SchemaId, err)
		}
	}
	return out, found, nil
}

func tagIDsOf(refs []*storagepb.PropRef) []int32 {
	var ids []int32
	for _, r := range refs {
		ids = append(ids, r.SchemaId)
	}
	return ids
}

// edgeProps answers PropRefs of edges for one stored edge; the row is
// decoded once for all of them.
func (r *reader) edgeProps(refs []*storagepb.PropRef, row []byte, edgeType int32, rank int64, keyVid, other []byte) ([]*commonpb.Value, error) {
	out := make([]*commonpb.Value, len(refs))
	abs := edgeType
	if abs < 0 {
		abs = -abs
	}
	var sv *schemaView
	for i, ref := range refs {
		if ref.SchemaId != abs {
			out[i] = schema.NullValue()
			continue
		}
		if pv, ok := edgeKeyProp(ref.Name, edgeType, rank, keyVid, other); ok {
			out[i] = pv
			continue
		}
		if sv == nil {
			var err error
			if sv, err = r.edge(edgeType); err != nil {
				return nil, err
			}
			if err := r.row.Reset(row, sv.versions.Source()); err != nil {
				return nil, fmt.Errorf("edge %x->%x type %d: %w", keyVid, other, edgeType, err)
			}
		}
		v, typ, err := getProp(&r.row, sv, ref.Name)
		if err != nil {
			return nil, fmt.Errorf("edge %x->%x type %d: %w", keyVid, other, edgeType, err)
		}
		out[i] = schema.ValueToProto(v, typ)
	}
	return out, nil
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

// pushedFilter is a GetNeighbors or LookupIndex filter: an nGQL expression
// over edge properties and the source vertex's tag properties.
type pushedFilter struct {
	expr    ast.Expr
	srcTags []int32 // tags whose rows the filter reads
}

func parseFilter(snap *catalog.Snapshot, spaceID int32, text string) (*pushedFilter, error) {
	if text == "" {
		return nil, nil
	}
	e, err := parser.ParseExpr(text)
	if err != nil {
		return nil, invalid("filter %q: %v", text, err)
	}
	if !eval.IsDeterministic(e) {
		return nil, invalid("filter %q is not deterministic (rand(), now()...): graphd must evaluate it", text)
	}
	f := &pushedFilter{expr: e}
	props := eval.CollectProps(e)
	if len(props.Dst) > 0 || len(props.Input) > 0 || len(props.Var) > 0 || len(props.Param) > 0 {
		return nil, invalid("filter %q reads $$, $-, variables or query parameters, which storage does not have", text)
	}
	for _, p := range props.Src {
		if p.Owner == eval.AnyTag {
			continue
		}
		t, ok := snap.TagByName(spaceID, p.Owner)
		if !ok {
			return nil, &partitionError{code: commonpb.ErrorCode_E_TAG_NOT_FOUND, msg: fmt.Sprintf("filter %q: tag %s not found", text, p.Owner)}
		}
		f.srcTags = append(f.srcTags, t.GetTagId())
	}
	for _, p := range props.Edge {
		if p.Owner == eval.AnyEdge {
			continue
		}
		if _, ok := snap.EdgeByName(spaceID, p.Owner); !ok {
			return nil, &partitionError{code: commonpb.ErrorCode_E_EDGE_NOT_FOUND, msg: fmt.Sprintf("filter %q: edge %s not found", text, p.Owner)}
		}
	}
	return f, nil
}

// filterRow is the eval.Context of a pushed filter for one edge (or one
// vertex, for a tag lookup).
type filterRow struct {
	r        *reader
	space    *metapb.SpaceDesc
	vid      []byte     // the source vertex (the key's vertex)
	tags     vertexRows // the source vertex's rows the filter reads
	edgeType int32      // 0: no edge
	edgeName string
	rank     int64
	other    []byte
	row      []byte
	// edgeRow decodes row, once per edge (setEdge), however many of its
	// properties the filter reads.
	edgeRow    partition.RowReader
	edgeLoaded bool
}

// setEdge points the filter at the next edge.
func (f *filterRow) setEdge(rank int64, other, row []byte) {
	f.rank, f.other, f.row, f.edgeLoaded = rank, other, row, false
}

func (f *filterRow) EdgeProp(edge, prop string) (value.Value, error) {
	if f.edgeType == 0 {
		return value.Value{}, fmt.Errorf("edge property %s.%s is not available here", edge, prop)
	}
	if edge != eval.AnyEdge && edge != f.edgeName {
		return value.Null(), nil // a property of another edge type
	}
	// The reserved properties mean what graphd's GO gives them (so a WHERE
	// selects the same rows pushed down or not): src(edge), dst(edge) and
	// type(edge) are the stored edge's endpoints and its type's name;
	// edge._src, edge._dst and edge._type follow the traversal (the vertex
	// the step leaves from, the one it reaches, the signed type).
	if edge != eval.AnyEdge {
		switch prop {
		case eval.PropSrc:
			return vidValue(f.space, f.vid), nil
		case eval.PropDst:
			return vidValue(f.space, f.other), nil
		case eval.PropType:
			return value.Int(int64(f.edgeType)), nil
		}
	} else if prop == eval.PropType {
		return value.Str(f.edgeName), nil
	}
	if pv, ok := edgeKeyProp(prop, f.edgeType, f.rank, f.vid, f.other); ok {
		if prop == eval.PropSrc || prop == eval.PropDst {
			return vidValue(f.space, pv.GetStrVal()), nil
		}
		return value.FromProto(pv), nil
	}
	sv, err := f.r.edge(f.edgeType)
	if err != nil {
		return value.Value{}, err
	}
	if !f.edgeLoaded {
		if err := f.edgeRow.Reset(f.row, sv.versions.Source()); err != nil {
			return value.Value{}, err
		}
		f.edgeLoaded = true
	}
	v, typ, err := getProp(&f.edgeRow, sv, prop)
	if err != nil {
		return value.Value{}, err
	}
	return goValue(v, typ)
}

func (f *filterRow) SrcProp(tag, prop string) (value.Value, error) {
	if tag == eval.AnyTag && prop == eval.PropVID {
		return vidValue(f.space, f.vid), nil
	}
	t, ok := f.r.snap.TagByName(f.r.spaceID, tag)
	if !ok {
		return value.Value{}, fmt.Errorf("tag %s not found", tag)
	}
	row, ok := f.tags[t.GetTagId()]
	if !ok {
		return value.Null(), nil
	}
	sv, err := f.r.tag(t.GetTagId())
	if err != nil {
		return value.Value{}, err
	}
	pv, err := f.r.prop(row, sv, prop)
	if err != nil {
		return value.Value{}, err
	}
	return value.FromProto(pv), nil
}

func (f *filterRow) DstProp(tag, prop string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$$.%s.%s is not available in storage", tag, prop)
}

func (f *filterRow) InputProp(col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$-.%s is not available in storage", col)
}

func (f *filterRow) VarProp(variable, col string) (value.Value, error) {
	return value.Value{}, fmt.Errorf("$%s.%s is not available in storage", variable, col)
}

// vidValue is an encoded vid as nGQL sees it: INT64 or a string without
// its padding.
func vidValue(space *metapb.SpaceDesc, vid []byte) value.Value {
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		if i, err := partition.DecodeInt64Vid(vid); err == nil {
			return value.Int(i)
		}
	}
	return value.Str(partition.DecodeStringVid(vid))
}

// showVid writes a stored vid as the user wrote it, for errors: "name" or
// 42, not its padded key bytes.
func showVid(space *metapb.SpaceDesc, vid []byte) string {
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		if i, err := partition.DecodeInt64Vid(vid); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return fmt.Sprintf("%x", vid)
	}
	return strconv.Quote(partition.DecodeStringVid(vid))
}

// checkVid verifies that an encoded vid has the space's length and belongs
// to the partition it was sent to (storaged's checkVid).
func checkVid(space *metapb.SpaceDesc, part int32, vid []byte) error {
	if len(vid) != int(space.GetVidLen()) {
		return invalid("vid %x has %d bytes, space %q needs %d", vid, len(vid), space.GetName(), space.GetVidLen())
	}
	if got := partition.PartOf(vid, partition.VidType(space.GetVidType()), space.GetPartitionNum()); got != part {
		return invalid("vid %x belongs to partition %d, not %d", vid, got, part)
	}
	return nil
}

// neighborScan runs GetNeighbors on one partition.
type neighborScan struct {
	req    *storagepb.GetNeighborsReq
	space  *metapb.SpaceDesc
	part   int32
	vidLen int
	r      *reader
	filter *pushedFilter
	data   *kvs
	rng    *rand.Rand
	seen   map[string]bool // dedup_dst: per partition, as in storaged
}

// scanNeighbors answers GetNeighbors for the vids of one partition, in
// their order. What fails for every vertex alike (a vid of another
// partition, an unknown edge type, a bad filter) is checked first, as
// storaged checks it.
func scanNeighbors(ctx context.Context, data *kvs, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32,
	req *storagepb.GetNeighborsReq, vids [][]byte, now int64) ([]*storagepb.VertexNeighbors, error) {
	filter, err := parseFilter(snap, req.SpaceId, req.Filter)
	if err != nil {
		return nil, err
	}
	if len(vids) == 0 {
		return nil, nil
	}
	r := newReader(snap, req.SpaceId, now)
	for _, vid := range vids {
		if err := checkVid(space, part, vid); err != nil {
			return nil, err
		}
	}
	for _, et := range req.EdgeTypes {
		if _, err := r.edge(et); err != nil {
			return nil, err
		}
	}
	ns := &neighborScan{req: req, space: space, part: part, vidLen: int(space.GetVidLen()), r: r, filter: filter, data: data}
	if req.SamplePerVertex > 0 {
		// storaged seeds with the clock; a fixed seed per partition keeps
		// tests repeatable.
		ns.rng = rand.New(rand.NewPCG(1, uint64(part)))
	}
	if req.DedupDst {
		ns.seen = map[string]bool{}
	}
	out := make([]*storagepb.VertexNeighbors, 0, len(vids))
	for _, vid := range vids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vn, err := ns.vertex(vid)
		if err != nil {
			return nil, err
		}
		out = append(out, vn)
	}
	return out, nil
}

func (ns *neighborScan) vertex(vid []byte) (*storagepb.VertexNeighbors, error) {
	req := ns.req
	vn := &storagepb.VertexNeighbors{Vid: vid}
	tagIDs := tagIDsOf(req.VertexProps)
	if ns.filter != nil {
		tagIDs = append(tagIDs, ns.filter.srcTags...)
	}
	var rows vertexRows
	if len(tagIDs) > 0 {
		var err error
		if rows, err = ns.r.readTags(ns.data, ns.part, vid, tagIDs); err != nil {
			return nil, err
		}
	}
	if len(req.VertexProps) > 0 {
		props, _, err := ns.r.tagProps(rows, req.VertexProps)
		if err != nil {
			return nil, err
		}
		vn.Props = props
	}
	for _, et := range req.EdgeTypes {
		if req.WithDegree {
			vn.Degrees = append(vn.Degrees, ns.degree(vid, et))
		}
		if err := ns.edges(vid, et, rows, vn); err != nil {
			return nil, err
		}
	}
	return vn, nil
}

// degree is the number of live edges of one type and direction of vid,
// which is what storaged's stored degree counts (expired edges included).
func (ns *neighborScan) degree(vid []byte, et int32) int64 {
	n := int64(0)
	ns.data.scanPrefix(partition.EdgePrefix(ns.req.SpaceId, ns.part, vid, et), func(_, _ []byte) bool {
		n++
		return true
	})
	return n
}

// edges scans one vertex's edges of one type: TTL out, the filter
// applied, then the limit or sample, then dedup, then the shape.
func (ns *neighborScan) edges(vid []byte, et int32, rows vertexRows, vn *storagepb.VertexNeighbors) error {
	req := ns.req
	sv, err := ns.r.edge(et)
	if err != nil {
		return err
	}
	var fr *filterRow
	if ns.filter != nil {
		fr = &filterRow{r: ns.r, space: ns.space, vid: vid, tags: rows, edgeType: et, edgeName: sv.name}
	}
	kept := int64(0)
	var sample []*storagepb.NeighborEdge
	var failed error
	ns.data.scanPrefix(partition.EdgePrefix(req.SpaceId, ns.part, vid, et), func(key, val []byte) bool {
		if req.LimitPerVertex > 0 && req.SamplePerVertex <= 0 && kept >= req.LimitPerVertex {
			return false
		}
		_, _, _, _, rank, dstKey, err := partition.ParseEdgeKey(key, ns.vidLen)
		if err != nil {
			failed = fmt.Errorf("vertex %x: %w", vid, err)
			return false
		}
		row, live, err := partition.EdgeRow(et, val)
		if err != nil {
			failed = fmt.Errorf("vertex %x: %w", vid, err)
			return false
		}
		if !live {
			return true
		}
		if exp, err := ns.r.expired(row, sv); err != nil {
			failed = err
			return false
		} else if exp {
			return true
		}
		if fr != nil {
			fr.setEdge(rank, dstKey, row)
			ok, err := eval.Filter(fr, ns.filter.expr)
			if err != nil {
				failed = invalid("filter on edge %s->%s: %v", showVid(ns.space, vid), showVid(ns.space, dstKey), err)
				return false
			}
			if !ok {
				return true
			}
		}
		if ns.seen != nil {
			if ns.seen[string(dstKey)] {
				return true
			}
			ns.seen[string(dstKey)] = true
		}
		kept++
		if req.CountOnly {
			return true
		}
		if req.DstOnly && req.SamplePerVertex <= 0 {
			vn.PackedDsts = append(vn.PackedDsts, dstKey...)
			return true
		}
		ne := &storagepb.NeighborEdge{EdgeType: et, Rank: rank, Dst: dstKey}
		if !req.DstOnly && len(req.EdgeProps) > 0 {
			if ne.Props, err = ns.r.edgeProps(req.EdgeProps, row, et, rank, vid, dstKey); err != nil {
				failed = err
				return false
			}
		}
		if req.SamplePerVertex > 0 {
			// Reservoir sampling: every kept edge ends in the sample
			// with the same probability.
			if int64(len(sample)) < req.SamplePerVertex {
				sample = append(sample, ne)
			} else if j := ns.rng.Int64N(kept); j < req.SamplePerVertex {
				sample[j] = ne
			}
			return true
		}
		vn.Edges = append(vn.Edges, ne)
		return true
	})
	if failed != nil {
		return failed
	}
	if req.DstOnly {
		for _, ne := range sample {
			vn.PackedDsts = append(vn.PackedDsts, ne.Dst...)
		}
	} else {
		vn.Edges = append(vn.Edges, sample...)
	}
	vn.Count += kept
	if req.CountOnly && req.SamplePerVertex > 0 {
		vn.Count = min(vn.Count, req.SamplePerVertex)
	}
	return nil
}

// getProps answers GetProps for one partition (storaged's getProps).
func getProps(data *kvs, r *reader, space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq,
	vids [][]byte, keys []*storagepb.EdgeKey) ([]*storagepb.PropRow, error) {
	var out []*storagepb.PropRow
	tagIDs := tagIDsOf(req.Props)
	for _, vid := range vids {
		if err := checkVid(space, part, vid); err != nil {
			return nil, err
		}
		rows, err := r.readTags(data, part, vid, tagIDs)
		if err != nil {
			return nil, err
		}
		props, found, err := r.tagProps(rows, req.Props)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, &storagepb.PropRow{Vid: vid, Values: props})
		}
	}
	for _, ek := range keys {
		if err := checkVid(space, part, ek.Src); err != nil {
			return nil, err
		}
		val := data.get(partition.EdgeKey(req.SpaceId, part, ek.Src, ek.EdgeType, ek.Rank, ek.Dst))
		if val == nil {
			continue
		}
		row, live, err := partition.EdgeRow(ek.EdgeType, val)
		if err != nil {
			return nil, fmt.Errorf("edge %x->%x: %w", ek.Src, ek.Dst, err)
		}
		if !live {
			continue
		}
		sv, err := r.edge(ek.EdgeType)
		if err != nil {
			return nil, err
		}
		if exp, err := r.expired(row, sv); err != nil {
			return nil, err
		} else if exp {
			continue
		}
		values, err := r.edgeProps(req.Props, row, ek.EdgeType, ek.Rank, ek.Src, ek.Dst)
		if err != nil {
			return nil, err
		}
		out = append(out, &storagepb.PropRow{Edge: ek, Values: values})
	}
	return out, nil
}
