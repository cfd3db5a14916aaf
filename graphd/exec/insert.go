package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/parser"
	"github.com/novagraph/novagraph/query/value"
)

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
		if v, err = schema.Coerce(v, col); err != nil {
			return nil, at(e, "%s: %v", enc.what, err)
		}
		values[enc.listed[k]] = v.ToGo()
	}
	for _, i := range enc.missing {
		col := enc.desc.GetColumns()[i]
		if e := enc.defExprs[i]; e != nil {
			v, err := schema.ColumnValue(e, col)
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
	var pe partitionError
	if errors.As(err, &pe) {
		return execErrorf("%s failed on %v", what, pe)
	}
	return execErrorf("%s failed: %v", what, err)
}
