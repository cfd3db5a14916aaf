package exec

import (
	"context"
	"errors"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// A node whose vertex the query reads only as v.tag.prop (and through
// id(v)) has only those properties fetched, in columns (GetPropColumns),
// as GO fetches $$ properties: a tag marker (_tag) per tag the node
// names, and the properties read. They are kept per property, by vertex
// index (slimColumn), and read by matchContext.TagProp and RETURN's
// columns; a vertex read whole takes the every-tag path (fetchVertexProps).

// errBadPropColumns is an answer of GetPropColumns not in the shape asked.
var errBadPropColumns = errors.New("storage answered property columns of another shape than asked")

// evalIn evaluates e over row of b.
func (m *matchRun) evalIn(b *bindings, row int, e ast.Expr) (value.Value, error) {
	return eval.Eval(m.ctx(b, row), e)
}

// slimColumn is one property of the vertices fetched so: val[i] of vertex
// i, once has[i].
type slimColumn struct {
	vals []value.Value
	has  []bool
}

func (c *slimColumn) set(i int32, v value.Value) {
	if int(i) >= len(c.vals) {
		n := max(int(i)+1, 2*len(c.vals))
		c.vals = append(c.vals, make([]value.Value, n-len(c.vals))...)
		c.has = append(c.has, make([]bool, n-len(c.has))...)
	}
	c.vals[i], c.has[i] = v, true
}

func (c *slimColumn) get(i int32) (value.Value, bool) {
	if c == nil || int(i) >= len(c.has) || !c.has[i] {
		return value.Value{}, false
	}
	return c.vals[i], true
}

// fetchSlim reads refs of the vertices ids (distinct), those not read yet.
func (m *matchRun) fetchSlim(ctx context.Context, ids []int32, refs []propKey) error {
	if m.slim == nil {
		m.slim = map[propKey]*slimColumn{}
	}
	var props []*storagepb.PropRef
	var cols []*slimColumn
	for _, k := range refs {
		tag, ok := m.p.snap.TagByName(m.p.space.GetSpaceId(), k.tag)
		if !ok {
			continue // the planner checked the node's tags; a name read from no tag is NULL
		}
		if k.prop != "_tag" && !hasColumn(tag.GetVersions(), k.prop) {
			continue
		}
		c := m.slim[k]
		if c == nil {
			c = &slimColumn{}
			m.slim[k] = c
		}
		props = append(props, &storagepb.PropRef{SchemaId: tag.GetTagId(), Name: k.prop})
		cols = append(cols, c)
	}
	if len(props) == 0 {
		return nil
	}
	parts := map[int32]*storagepb.VidList{}
	n := 0
	for _, i := range ids {
		done := true
		for _, c := range cols {
			if _, ok := c.get(i); !ok {
				done = false
				break
			}
		}
		if done {
			continue
		}
		key := []byte(m.verts.key(i))
		pt := m.t.vids.part(key)
		if parts[pt] == nil {
			parts[pt] = &storagepb.VidList{}
		}
		parts[pt].Vids = append(parts[pt].Vids, key)
		// Absent unless the answer holds it (a vertex without any of the
		// tags is not in it).
		for _, c := range cols {
			c.set(i, value.Null())
		}
		n++
	}
	if n == 0 {
		return nil
	}
	req := &storagepb.GetPropsReq{SpaceId: m.p.space.GetSpaceId(), CatalogVersion: m.p.snap.Version(), Props: props, PackedStrings: true}
	var onBlocks func([]*storagepb.PropColumns) error
	if m.t.budget != nil {
		onBlocks = func(blocks []*storagepb.PropColumns) error {
			return m.t.grow(propColumnsSize(blocks), "receiving MATCH vertex properties from storage")
		}
	}
	blocks, err := m.r.x.storage.GetPropColumns(ctx, req, parts, onBlocks)
	if err != nil {
		if e, ok := isLimitError(err); ok {
			return e
		}
		if ctx.Err() != nil {
			return ctxError(ctx, "MATCH")
		}
		return storageError("MATCH fetching vertex properties", err)
	}
	for _, b := range blocks {
		if len(b.PackedVids)%m.vidLen != 0 || len(b.Columns) != len(props) {
			return storageError("MATCH fetching vertex properties", errBadPropColumns)
		}
		rows := len(b.PackedVids) / m.vidLen
		for _, c := range b.Columns {
			if err := c.Check(rows); err != nil {
				return storageError("MATCH fetching vertex properties", err)
			}
		}
		for r := 0; r < rows; r++ {
			vi := m.vertex(b.PackedVids[r*m.vidLen : (r+1)*m.vidLen])
			for j, c := range b.Columns {
				cols[j].set(vi, columnValue(c, r))
			}
		}
	}
	return m.t.grow(int64(n*len(cols))*valueStruct, "MATCH vertex properties")
}

// columnValue is cell i of a checked column as a value.
func columnValue(c *commonpb.Column, i int) value.Value {
	if c.GetKind() == commonpb.ColumnKind_COL_ANY {
		return value.FromProto(c.Values[i])
	}
	if c.NullAt(i) {
		return value.Null()
	}
	switch c.GetKind() {
	case commonpb.ColumnKind_COL_INT:
		return value.Int(c.Ints[i])
	case commonpb.ColumnKind_COL_FLOAT:
		return value.Float(c.Floats[i])
	case commonpb.ColumnKind_COL_STR:
		return value.Str(string(c.Str(i)))
	}
	return value.Bool(c.Bools[i] != 0)
}

// slimNodeMatches is nodeMatches over the columns fetched for the node.
func (m *matchRun) slimNodeMatches(pp *patternPlan, n int, vi int32, b *bindings, row int) (bool, error) {
	node := pp.pat.Nodes[n]
	for _, l := range node.Labels {
		marker, _ := m.slim[propKey{l.Name, "_tag"}].get(vi)
		if marker.IsNull() {
			return false, nil
		}
		if l.Props == nil {
			continue
		}
		for _, it := range l.Props.Items {
			want, err := m.evalIn(b, row, it.Value)
			if err != nil {
				return false, at(node, "%s: %v", node, err)
			}
			got, _ := m.slim[propKey{l.Name, it.Key}].get(vi)
			if !value.IsTrue(value.Equal(got, want)) {
				return false, nil
			}
		}
	}
	return true, nil
}
