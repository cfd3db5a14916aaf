package storaged

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/internal/rocksopts"
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

// ttlOf returns the TTL of a tag's or edge's latest schema version.
func ttlOf(versions []*metapb.Schema) (col string, secs int64) {
	var latest *metapb.Schema
	for _, v := range versions {
		if latest == nil || v.GetVersion() > latest.GetVersion() {
			latest = v
		}
	}
	if latest == nil || latest.GetTtlCol() == "" || latest.GetTtlDuration() <= 0 {
		return "", 0
	}
	return latest.GetTtlCol(), latest.GetTtlDuration()
}

// schemaView is what reads need of one tag or edge type.
type schemaView struct {
	name     string
	versions *schema.Versions
	ttlCol   string
	ttlSecs  int64
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

func newReader(snap *catalog.Snapshot, spaceID int32) *reader {
	return &reader{snap: snap, spaceID: spaceID, now: time.Now().Unix(), tags: map[int32]*schemaView{}, edges: map[int32]*schemaView{}}
}

func (r *reader) tag(id int32) (*schemaView, error) {
	if v, ok := r.tags[id]; ok {
		return v, nil
	}
	desc, ok := r.snap.TagByID(r.spaceID, id)
	if !ok {
		return nil, &partitionError{code: commonpb.ErrorCode_E_TAG_NOT_FOUND, msg: fmt.Sprintf("tag %d not found in space %d", id, r.spaceID)}
	}
	col, secs := ttlOf(desc.GetVersions())
	v := &schemaView{name: desc.GetName(), versions: schema.NewVersions(desc.GetVersions()), ttlCol: col, ttlSecs: secs}
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
	col, secs := ttlOf(desc.GetVersions())
	v := &schemaView{name: desc.GetName(), versions: schema.NewVersions(desc.GetVersions()), ttlCol: col, ttlSecs: secs}
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

// vertexRows reads the rows of the given tags of one vertex; absent and
// expired tags are missing from the map.
type vertexRows map[int32][]byte

func (r *reader) readTags(db *grocksdb.DB, ro *grocksdb.ReadOptions, part int32, vid []byte, tagIDs []int32) (vertexRows, error) {
	rows := vertexRows{}
	for _, id := range tagIDs {
		if _, seen := rows[id]; seen {
			continue
		}
		row, err := db.GetBytes(ro, partition.TagKey(r.spaceID, part, vid, id))
		if err != nil {
			return nil, fmt.Errorf("reading vertex %x tag %d: %w", vid, id, err)
		}
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

// neighborScan runs GetNeighbors on one partition.
type neighborScan struct {
	req    *storagepb.GetNeighborsReq
	space  *metapb.SpaceDesc
	part   int32
	vidLen int
	r      *reader
	filter *pushedFilter
	db     *grocksdb.DB
	ro     *grocksdb.ReadOptions
	it     *grocksdb.Iterator
	keys   *keyScanner // it, read many keys to a cgo call; made on first use
	rng    *rand.Rand
	seen   map[string]bool // dedup_dst
}

// scanNeighbors runs GetNeighbors on one partition and hands each vertex's
// answer to emit as soon as it is complete, in the order of the request's
// vids, so that the partition's answer is never held whole (emit sends it
// on in batches: neighborStream). A vertex is the unit: its edges are
// collected whole, in storage order, before it is emitted.
//
// What can fail for every vertex alike (a vid of another partition, an
// unknown edge type) is checked before the first vertex is emitted, so
// that such a failure is reported as a failed partition with nothing of it
// sent; what remains to fail midway (RocksDB, a malformed row, the filter
// on one edge) is rare and handled by neighborStream.runPart.
func scanNeighbors(ctx context.Context, db *grocksdb.DB, snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.GetNeighborsReq,
	emit func(*storagepb.VertexNeighbors) error) error {
	filter, err := parseFilter(snap, req.SpaceId, req.Filter)
	if err != nil {
		return err
	}
	vids := req.Parts[part].GetVids()
	if len(vids) == 0 {
		return nil
	}
	r := newReader(snap, req.SpaceId)
	for _, vid := range vids {
		if err := checkVid(space, part, vid); err != nil {
			return err
		}
	}
	for _, et := range req.EdgeTypes {
		if _, err := r.edge(et); err != nil {
			return err
		}
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	rocksopts.SetEdgeScan(ro, partition.EdgePrefixLen(int(space.GetVidLen()))) // it only reads one EdgePrefix per Seek
	it := db.NewIterator(ro)
	defer it.Close()
	ns := &neighborScan{req: req, space: space, part: part, vidLen: int(space.GetVidLen()), r: r,
		filter: filter, db: db, ro: ro, it: it}
	if req.SamplePerVertex > 0 {
		ns.rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(part)))
	}
	if req.DedupDst {
		ns.seen = map[string]bool{}
	}
	for _, vid := range vids {
		if err := ctx.Err(); err != nil {
			return err
		}
		vn, err := ns.vertex(vid)
		if err != nil {
			return err
		}
		if err := emit(vn); err != nil {
			return err
		}
	}
	return nil
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
		if rows, err = ns.r.readTags(ns.db, ns.ro, ns.part, vid, tagIDs); err != nil {
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
			d, err := ns.db.GetBytes(ns.ro, partition.DegreeKey(req.SpaceId, ns.part, vid, et))
			if err != nil {
				return nil, fmt.Errorf("reading degree of %x: %w", vid, err)
			}
			n, err := partition.DecodeDegree(d)
			if err != nil {
				return nil, err
			}
			vn.Degrees = append(vn.Degrees, int64(n))
		}
		if err := ns.edges(vid, et, rows, vn); err != nil {
			return nil, err
		}
	}
	return vn, nil
}

// edges scans one vertex's edges of one type: TTL and tombstones out, the
// filter applied, then the limit or sample, then dedup, then the shape.
func (ns *neighborScan) edges(vid []byte, et int32, rows vertexRows, vn *storagepb.VertexNeighbors) error {
	req := ns.req
	prefix := partition.EdgePrefix(req.SpaceId, ns.part, vid, et)
	sv, err := ns.r.edge(et)
	if err != nil {
		return err
	}
	// The row is read only when something needs it: in-edges (tombstones
	// are skipped), a TTL, the filter, or edge properties.
	needRow := ns.filter != nil || (!req.DstOnly && !req.CountOnly && len(req.EdgeProps) > 0) || sv.ttlCol != "" || et < 0
	var fr *filterRow
	if ns.filter != nil {
		fr = &filterRow{r: ns.r, space: ns.space, vid: vid, tags: rows, edgeType: et, edgeName: sv.name}
	}
	kept := int64(0)
	var sample []*storagepb.NeighborEdge
	// add takes one edge of the scan, key checked to be an edge key and row
	// its live, unexpired value (nil when not needed): the filter, then
	// dedup, then the limit's count, then the shape.
	add := func(key, row []byte) error {
		dstKey := partition.EdgeKeyDst(key, ns.vidLen)
		rank := partition.EdgeKeyRank(key, ns.vidLen)
		if fr != nil {
			fr.setEdge(rank, dstKey, row)
			ok, err := eval.Filter(fr, ns.filter.expr)
			if err != nil {
				return invalid("filter on edge %s->%s: %v", showVid(ns.space, vid), showVid(ns.space, dstKey), err)
			}
			if !ok {
				return nil
			}
		}
		if ns.seen != nil {
			if ns.seen[string(dstKey)] {
				return nil
			}
			ns.seen[string(dstKey)] = true
		}
		kept++
		if req.CountOnly {
			return nil
		}
		if req.DstOnly && req.SamplePerVertex <= 0 {
			vn.PackedDsts = append(vn.PackedDsts, dstKey...)
			return nil
		}
		dst := append([]byte(nil), dstKey...)
		ne := &storagepb.NeighborEdge{EdgeType: et, Rank: rank, Dst: dst}
		if !req.DstOnly && len(req.EdgeProps) > 0 {
			var err error
			if ne.Props, err = ns.r.edgeProps(req.EdgeProps, row, et, rank, vid, dst); err != nil {
				return err
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
			return nil
		}
		vn.Edges = append(vn.Edges, ne)
		return nil
	}
	limited := req.LimitPerVertex > 0 && req.SamplePerVertex <= 0
	keyLen := partition.EdgeKeyLen(ns.vidLen)
	malformed := func(key []byte) error {
		return fmt.Errorf("vertex %x: edge key %x has %d bytes, want %d: %w", vid, key, len(key), keyLen, partition.ErrMalformedKey)
	}
	it := ns.it
	if !needRow {
		// Keys only: read them in batches in C (keyscan.go); the limit
		// bounds each batch so that no more keys are read than it can
		// keep.
		if ns.keys == nil {
			ns.keys = newKeyScanner(it)
		}
		for seek := true; ; seek = false {
			want := scanBatchKeys
			if limited {
				want = int(min(int64(want), req.LimitPerVertex-kept))
			}
			keys, n, bad := ns.keys.next(prefix, seek, keyLen, want)
			for i := 0; i < n; i++ {
				if err := add(keys[i*keyLen:(i+1)*keyLen:(i+1)*keyLen], nil); err != nil {
					return err
				}
			}
			if bad {
				return malformed(it.Key().Data())
			}
			if n < want || (limited && kept >= req.LimitPerVertex) {
				break
			}
		}
	} else {
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if limited && kept >= req.LimitPerVertex {
				break
			}
			key := it.Key().Data()
			// The length check is the precondition of the partition.EdgeKey*
			// accessors in add (the prefix fixes the kind, src and type).
			if len(key) != keyLen {
				return malformed(key)
			}
			row, live, err := partition.EdgeRow(et, it.Value().Data())
			if err != nil {
				return fmt.Errorf("vertex %x: %w", vid, err)
			}
			if !live {
				continue
			}
			if exp, err := ns.r.expired(row, sv); err != nil {
				return err
			} else if exp {
				continue
			}
			if err := add(key, row); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("scanning edges of %x: %w", vid, err)
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

func getProps(db *grocksdb.DB, r *reader, space *metapb.SpaceDesc, part int32, req *storagepb.GetPropsReq) ([]*storagepb.PropRow, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	var out []*storagepb.PropRow
	tagIDs := tagIDsOf(req.Props)
	for _, vid := range req.VertexParts[part].GetVids() {
		if err := checkVid(space, part, vid); err != nil {
			return nil, err
		}
		rows, err := r.readTags(db, ro, part, vid, tagIDs)
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
	for _, ek := range req.EdgeParts[part].GetKeys() {
		if err := checkVid(space, part, ek.Src); err != nil {
			return nil, err
		}
		value, err := db.GetBytes(ro, partition.EdgeKey(req.SpaceId, part, ek.Src, ek.EdgeType, ek.Rank, ek.Dst))
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
