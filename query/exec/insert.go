package exec

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// coerce converts v to the type of column c, as INSERT and DEFAULT accept
// it: NULL stays NULL (the codec checks nullability), ints widen to double,
// ints are timestamps, strings must fit a fixed_string; a date, time,
// datetime or duration column takes only its own kind (date("2024-01-02"),
// not the string).
func coerce(v value.Value, c *metapb.ColumnDef) (value.Value, error) {
	if v.IsNull() {
		return v, nil
	}
	mismatch := func() (value.Value, error) {
		return value.Null(), fmt.Errorf("property %q is %s, got %s %s", c.GetName(), propTypeString(c), v.Kind(), v)
	}
	switch c.GetType() {
	case metapb.PropType_INT64:
		if v.Kind() != value.KindInt {
			return mismatch()
		}
	case metapb.PropType_DOUBLE:
		if i, ok := v.IntVal(); ok && v.Kind() == value.KindInt {
			return value.Float(float64(i)), nil
		}
		if v.Kind() != value.KindFloat {
			return mismatch()
		}
	case metapb.PropType_BOOL:
		if v.Kind() != value.KindBool {
			return mismatch()
		}
	case metapb.PropType_STRING:
		if v.Kind() != value.KindString {
			return mismatch()
		}
	case metapb.PropType_FIXED_STRING:
		s, ok := v.StrVal()
		if !ok {
			return mismatch()
		}
		if n := int(c.GetFixedLen()); len(s) > n {
			// NebulaGraph truncates a longer value; cut at a character
			// boundary so the stored bytes stay valid UTF-8.
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			return value.Str(s[:n]), nil
		}
	case metapb.PropType_TIMESTAMP:
		i, ok := v.IntVal()
		if !ok {
			return mismatch()
		}
		return value.Timestamp(i), nil
	case metapb.PropType_DATE:
		if v.Kind() != value.KindDate {
			return mismatch()
		}
	case metapb.PropType_TIME:
		if v.Kind() != value.KindTime {
			return mismatch()
		}
	case metapb.PropType_DATETIME:
		if v.Kind() != value.KindDateTime {
			return mismatch()
		}
	case metapb.PropType_DURATION:
		if v.Kind() != value.KindDuration {
			return mismatch()
		}
	}
	return v, nil
}

// rowEncoder builds property rows of one tag or edge type with its newest
// schema version, from the property names a statement lists.
type rowEncoder struct {
	what    string // `tag "player"`, for errors
	desc    *metapb.Schema
	schema  *partition.Schema
	listed  []int                  // position in desc.Columns of each listed property
	missing []int                  // columns not listed: filled with default or NULL
	params  map[string]value.Value // the request's query parameters
	// defExprs are the parsed default_expr of missing columns (DEFAULT
	// now()): evaluated for every row, with the clock read here, before
	// the write is proposed.
	defExprs map[int]ast.Expr
}

func newRowEncoder(what string, versions []*metapb.Schema, props []string, n ast.Node) (*rowEncoder, error) {
	desc := versions[len(versions)-1]
	enc := &rowEncoder{what: what, desc: desc, schema: schema.FromProto(desc)}
	seen := map[int]bool{}
	for _, p := range props {
		i := enc.schema.Index(p)
		if i < 0 {
			return nil, at(n, "%s has no property %q", what, p)
		}
		if seen[i] {
			return nil, at(n, "property %q of %s is listed twice", p, what)
		}
		seen[i] = true
		enc.listed = append(enc.listed, i)
	}
	for i, c := range desc.GetColumns() {
		if seen[i] {
			continue
		}
		if c.GetDefaultValue() == nil && !c.GetNullable() {
			return nil, at(n, "property %q of %s is NOT NULL and has no default: it must be inserted", c.GetName(), what)
		}
		enc.missing = append(enc.missing, i)
		if text := c.GetDefaultExpr(); text != "" {
			e, err := parser.ParseExpr(text)
			if err != nil {
				return nil, at(n, "default of property %q of %s: %v", c.GetName(), what, err)
			}
			if enc.defExprs == nil {
				enc.defExprs = map[int]ast.Expr{}
			}
			enc.defExprs[i] = e
		}
	}
	return enc, nil
}

// ColumnValue evaluates a column's default expression (a clock, read
// now, unless e is evaluated by a storaged with its command's time) and
// converts it to the row codec's value for the column, as INSERT converts
// a listed value.
func ColumnValue(e ast.Expr, col *metapb.ColumnDef) (any, error) {
	return columnValueIn(nil, e, col)
}

// columnValueIn is ColumnValue with the clock of ctx, if it has one
// (eval.Clock).
func columnValueIn(ctx eval.Context, e ast.Expr, col *metapb.ColumnDef) (any, error) {
	v, err := eval.Eval(ctx, e)
	if err != nil {
		return nil, err
	}
	if v, err = coerce(v, col); err != nil {
		return nil, err
	}
	return v.ToGo(), nil
}

func (enc *rowEncoder) encode(exprs []ast.Expr, n ast.Node) ([]byte, error) {
	if len(exprs) != len(enc.listed) {
		return nil, at(n, "%s: %d values for %d properties", enc.what, len(exprs), len(enc.listed))
	}
	values := make([]any, len(enc.desc.GetColumns()))
	for k, e := range exprs {
		col := enc.desc.GetColumns()[enc.listed[k]]
		v, err := constantWith(enc.params, e)
		if err != nil {
			return nil, at(e, "%v", err)
		}
		if v, err = coerce(v, col); err != nil {
			return nil, at(e, "%s: %v", enc.what, err)
		}
		values[enc.listed[k]] = v.ToGo()
	}
	for _, i := range enc.missing {
		col := enc.desc.GetColumns()[i]
		if e := enc.defExprs[i]; e != nil {
			v, err := ColumnValue(e, col)
			if err != nil {
				return nil, at(n, "%s: default of %q: %v", enc.what, col.GetName(), err)
			}
			values[i] = v
		} else if d := col.GetDefaultValue(); d != nil {
			values[i] = schema.ValueFromProto(d)
		}
	}
	row, err := partition.EncodeRow(enc.schema, values)
	if err != nil {
		return nil, at(n, "%s: %v", enc.what, err)
	}
	return row, nil
}

func (r *runState) insertVertices(ctx context.Context, s *ast.InsertVertexStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	vids := vidCodec{space}
	type tagEnc struct {
		id  int32
		enc *rowEncoder
	}
	tags := make([]tagEnc, len(s.Tags))
	for i, tp := range s.Tags {
		tag, ok := snap.TagByName(space.GetSpaceId(), tp.Tag)
		if !ok {
			return at(tp, "tag %q not found in space %q", tp.Tag, space.GetName())
		}
		enc, err := newRowEncoder(fmt.Sprintf("tag %q", tp.Tag), tag.GetVersions(), tp.Props, tp)
		if err != nil {
			return err
		}
		enc.params = r.params
		tags[i] = tagEnc{id: tag.GetTagId(), enc: enc}
	}
	parts := map[int32]*storagepb.VertexList{}
	for _, row := range s.Rows {
		v, err := constantWith(r.params, row.VID)
		if err != nil {
			return at(row.VID, "%v", err)
		}
		vid, err := vids.encode(v)
		if err != nil {
			return at(row.VID, "%v", err)
		}
		nv := &storagepb.NewVertex{Vid: vid}
		if len(row.Values) != len(tags) {
			return at(row, "vertex %s: values for %d tags, statement names %d", v, len(row.Values), len(tags))
		}
		for i, t := range tags {
			enc, err := t.enc.encode(row.Values[i], row)
			if err != nil {
				return err
			}
			nv.Tags = append(nv.Tags, &storagepb.NewTag{TagId: t.id, Row: enc})
		}
		p := vids.part(vid)
		if parts[p] == nil {
			parts[p] = &storagepb.VertexList{}
		}
		parts[p].Vertices = append(parts[p].Vertices, nv)
	}
	req := &storagepb.AddVerticesReq{SpaceId: space.GetSpaceId(), Parts: parts, CatalogVersion: snap.Version(), IfNotExists: s.IfNotExists}
	if err := r.x.storage.AddVertices(ctx, req); err != nil {
		return storageError("INSERT VERTEX", err)
	}
	return nil
}

func (r *runState) insertEdges(ctx context.Context, s *ast.InsertEdgeStmt) error {
	snap := r.x.meta.Catalog()
	space, err := r.currentSpace(snap, s)
	if err != nil {
		return err
	}
	edge, ok := snap.EdgeByName(space.GetSpaceId(), s.Edge)
	if !ok {
		return at(s, "edge %q not found in space %q", s.Edge, space.GetName())
	}
	enc, err := newRowEncoder(fmt.Sprintf("edge %q", s.Edge), edge.GetVersions(), s.Props, s)
	if err != nil {
		return err
	}
	enc.params = r.params
	vids := vidCodec{space}
	parts := map[int32]*storagepb.EdgeList{}
	add := func(e *storagepb.NewEdge) {
		p := vids.part(e.Src)
		if parts[p] == nil {
			parts[p] = &storagepb.EdgeList{}
		}
		parts[p].Edges = append(parts[p].Edges, e)
	}
	for _, row := range s.Rows {
		src, dst, rank, err := r.edgeKey(vids, row.Key)
		if err != nil {
			return err
		}
		props, err := enc.encode(row.Values, row)
		if err != nil {
			return err
		}
		// Only the out-edge is sent, to src's partition: storaged mirrors
		// the in-edge into dst's partition itself (storaged/pair.go).
		add(&storagepb.NewEdge{Src: src, EdgeType: edge.GetEdgeType(), Rank: rank, Dst: dst, Row: props})
	}
	req := &storagepb.AddEdgesReq{SpaceId: space.GetSpaceId(), Parts: parts, CatalogVersion: snap.Version(), IfNotExists: s.IfNotExists}
	if err := r.x.storage.AddEdges(ctx, req); err != nil {
		return storageError("INSERT EDGE", err)
	}
	return nil
}

// edgeKey evaluates a literal src->dst@rank.
func (r *runState) edgeKey(vids vidCodec, k *ast.EdgeKey) (src, dst []byte, rank int64, err error) {
	sv, err := constantWith(r.params, k.Src)
	if err != nil {
		return nil, nil, 0, at(k.Src, "%v", err)
	}
	if src, err = vids.encode(sv); err != nil {
		return nil, nil, 0, at(k.Src, "%v", err)
	}
	dv, err := constantWith(r.params, k.Dst)
	if err != nil {
		return nil, nil, 0, at(k.Dst, "%v", err)
	}
	if dst, err = vids.encode(dv); err != nil {
		return nil, nil, 0, at(k.Dst, "%v", err)
	}
	if k.Rank != nil {
		rv, err := constantWith(r.params, k.Rank)
		if err != nil {
			return nil, nil, 0, at(k.Rank, "%v", err)
		}
		i, ok := rv.IntVal()
		if !ok || rv.Kind() != value.KindInt {
			return nil, nil, 0, at(k.Rank, "rank must be an int, got %s", rv)
		}
		rank = i
	}
	return src, dst, rank, nil
}

// storageError wraps a storage failure as an execution error naming the
// statement; a partition's own error keeps its code.
func storageError(what string, err error) error {
	if pe, ok := storageclient.IsPartError(err); ok {
		return execErrorf("%s failed on partition %d: %s: %s", what, pe.Part, pe.Code, pe.Msg)
	}
	return execErrorf("%s failed: %v", what, err)
}
