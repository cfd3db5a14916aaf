package exec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// GO reads single properties through properties(): properties(edge).p,
// properties($^).p and properties($$).p, as NebulaGraph 3 writes them. The
// planner rewrites each into the property reference it stands for, so
// that storage is asked for exactly that property:
//
//   - properties(edge).p is edge.p for the edge types of OVER that have a
//     property p (coalesce(e1.p, e2.p) for several: a row's edge has one
//     type, and the others read NULL);
//   - properties($^).p and properties($$).p are $^.tag.p and $$.tag.p for
//     the tags of the space that have p, coalesced in tag order when there
//     are several.
//
// A column keeps its name (properties(EDGE).p) unless aliased.
//
// properties(EDGE), properties($^) and properties($$) without .p are the
// whole edge or vertex as a MAP (eval.PropsSource): GO then asks storage for
// every property of the edge types of OVER, or of every tag of the space
// with each tag's existence marker (so that a vertex's map has exactly the
// tags it has), and goRowContext.AllProps assembles the map. FETCH does the
// same for properties(VERTEX) (the fetched tags) and properties(EDGE).

// rewriteProperties returns s with properties(...).p replaced, or s itself
// if it has none.
func rewriteProperties(snap *catalog.Snapshot, space *metapb.SpaceDesc, s *ast.GoStmt) (*ast.GoStmt, error) {
	var over []*metapb.EdgeDesc
	if s.Over.All {
		over = snap.Edges(space.GetSpaceId())
	} else {
		for _, name := range s.Over.Edges {
			if e, ok := snap.EdgeByName(space.GetSpaceId(), name); ok {
				over = append(over, e)
			}
		}
	}
	tags := snap.Tags(space.GetSpaceId())
	changed := false
	f := func(x ast.Expr) (ast.Expr, error) {
		a, ok := x.(*ast.AttributeExpr)
		if !ok {
			return nil, nil
		}
		c, ok := a.X.(*ast.FuncCall)
		if !ok || !strings.EqualFold(c.Name, "properties") || len(c.Args) != 1 {
			return nil, nil
		}
		var refs []ast.Expr
		switch arg := c.Args[0].(type) {
		case *ast.EdgeExpr:
			for _, e := range over {
				if hasColumn(e.GetVersions(), a.Name) {
					refs = append(refs, &ast.EdgePropExpr{Pos: a.Pos, Edge: e.GetName(), Prop: a.Name})
				}
			}
			if len(refs) == 0 {
				return nil, at(a, "%s: no edge type of OVER has a property %q", a, a.Name)
			}
		case *ast.VertexExpr:
			if arg.Role == ast.RowVertex {
				return nil, nil // rejected as VERTEX in GO
			}
			for _, t := range tags {
				if !hasColumn(t.GetVersions(), a.Name) {
					continue
				}
				if arg.Role == ast.DstVertex {
					refs = append(refs, &ast.DstPropExpr{Pos: a.Pos, Tag: t.GetName(), Prop: a.Name})
				} else {
					refs = append(refs, &ast.SrcPropExpr{Pos: a.Pos, Tag: t.GetName(), Prop: a.Name})
				}
			}
			if len(refs) == 0 {
				return nil, at(a, "%s: no tag of space %q has a property %q", a, space.GetName(), a.Name)
			}
		default:
			return nil, nil
		}
		changed = true
		if len(refs) == 1 {
			return refs[0], nil
		}
		return &ast.FuncCall{Pos: a.Pos, Name: "coalesce", Args: refs}, nil
	}
	where, err := rewrite(s.Where, f)
	if err != nil {
		return nil, err
	}
	var yield *ast.YieldClause
	if s.Yield != nil {
		yield = &ast.YieldClause{Pos: s.Yield.Pos, Distinct: s.Yield.Distinct}
		for _, col := range s.Yield.Columns {
			before := changed
			changed = false
			e, err := rewrite(col.Expr, f)
			if err != nil {
				return nil, err
			}
			nc := col
			if changed {
				nc = &ast.YieldColumn{Pos: col.Pos, Expr: e, Alias: col.Name()}
			}
			yield.Columns = append(yield.Columns, nc)
			changed = changed || before
		}
	}
	if !changed {
		return s, nil
	}
	ns := *s
	ns.Where, ns.Yield = where, yield
	return &ns, nil
}

// wholeProps is what properties(EDGE), properties($^) and properties($$)
// read whole: the properties of each edge type and of each tag.
type wholeProps struct {
	edges map[string][]string // edge type name → its properties
	tags  []wholeTag          // by name
}

type wholeTag struct {
	name  string
	props []string
	// always: every row has the tag (LOOKUP ON it), so no marker is read.
	always bool
}

// latestColumns lists the property names of a schema's latest version.
func latestColumns(versions []*metapb.Schema) []string {
	if len(versions) == 0 {
		return nil
	}
	cols := versions[len(versions)-1].GetColumns()
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.GetName()
	}
	return out
}

// wholeTagsOf lists tags and their properties, by name.
func wholeTagsOf(tags []*metapb.TagDesc) []wholeTag {
	out := make([]wholeTag, 0, len(tags))
	for _, t := range tags {
		out = append(out, wholeTag{name: t.GetName(), props: latestColumns(t.GetVersions())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// addPropRef asks for owner.name under schema id, once; index maps
// "owner.name" to its position in refs.
func addPropRef(index map[string]int, refs *[]*storagepb.PropRef, id int32, owner, name string) {
	key := owner + "." + name
	if _, ok := index[key]; !ok {
		index[key] = len(*refs)
		*refs = append(*refs, &storagepb.PropRef{SchemaId: id, Name: name})
	}
}

// planWholeProps adds to a GO plan's storage requests what the whole
// properties() of its expressions read: every property of the edge types
// of OVER for properties(EDGE); every property and the existence marker
// of every tag for properties($^) and properties($$).
func (p *goPlan) planWholeProps(snap *catalog.Snapshot, props *eval.Props, over []*metapb.EdgeDesc) {
	if !props.AllEdge && !props.AllSrc && !props.AllDst {
		return
	}
	w := &wholeProps{edges: map[string][]string{}}
	if props.AllEdge {
		for _, e := range over {
			cols := latestColumns(e.GetVersions())
			w.edges[e.GetName()] = cols
			for _, c := range cols {
				addPropRef(p.edgeIndex, &p.edgeProps, e.GetEdgeType(), e.GetName(), c)
			}
		}
	}
	if props.AllSrc || props.AllDst {
		tags := snap.Tags(p.space.GetSpaceId())
		w.tags = wholeTagsOf(tags)
		for _, t := range tags {
			for _, c := range append(latestColumns(t.GetVersions()), "_tag") {
				if props.AllSrc {
					addPropRef(p.srcIndex, &p.srcProps, t.GetTagId(), t.GetName(), c)
				}
				if props.AllDst {
					addPropRef(p.dstIndex, &p.dstProps, t.GetTagId(), t.GetName(), c)
				}
			}
		}
	}
	p.whole = w
}

// AllProps implements eval.PropsSource for GO: properties(EDGE),
// properties($^) and properties($$).
func (c *goRowContext) AllProps(scope eval.Scope) (value.Value, error) {
	w := c.p.whole
	if w == nil {
		return value.Null(), fmt.Errorf("properties(%s) was not fetched", scope)
	}
	switch scope {
	case eval.ScopeEdge:
		e := c.row
		abs := e.edgeType
		if abs < 0 {
			abs = -abs
		}
		name := c.p.edgeNames[abs]
		return edgePropsMap(w.edges[name], name, c.p.edgeIndex, e.props), nil
	case eval.ScopeSrc:
		return vertexPropsMap(w.tags, c.p.srcIndex, c.row.fromProps), nil
	case eval.ScopeDst:
		return vertexPropsMap(w.tags, c.p.dstIndex, c.dstValueList()), nil
	}
	return value.Null(), fmt.Errorf("properties(%s) is not available in GO", scope)
}

// AllProps implements eval.PropsSource for FETCH: properties(VERTEX) reads
// the fetched tags, properties(EDGE) the fetched edge.
func (c *fetchContext) AllProps(scope eval.Scope) (value.Value, error) {
	w := c.whole
	switch {
	case w == nil:
		return value.Null(), fmt.Errorf("properties(%s) was not fetched", scope)
	case c.edge != nil && scope == eval.ScopeEdge:
		return edgePropsMap(w.edges[c.edgeName], c.edgeName, c.index, c.values), nil
	case c.edge == nil && scope == eval.ScopeSrc:
		return vertexPropsMap(w.tags, c.index, c.values), nil
	}
	return value.Null(), fmt.Errorf("properties(%s) is not available in FETCH", scope)
}

// VertexOf implements eval.GraphSource for GO: $^ and $$ as VERTEX values.
func (c *goRowContext) VertexOf(scope eval.Scope) (value.Value, error) {
	w := c.p.whole
	if w == nil {
		return value.Null(), fmt.Errorf("%s was not fetched", scope)
	}
	switch scope {
	case eval.ScopeSrc:
		return vertexValue(c.p.vids.decode(c.row.from), w.tags, c.p.srcIndex, c.row.fromProps), nil
	case eval.ScopeDst:
		return vertexValue(c.p.vids.decode(c.row.dst), w.tags, c.p.dstIndex, c.dstValueList()), nil
	}
	return value.Null(), fmt.Errorf("%s is not available in GO", scope)
}

// EdgeOf implements eval.GraphSource for GO: EDGE as an EDGE value, its
// endpoints as stored (an edge followed in reverse keeps its direction).
func (c *goRowContext) EdgeOf() (value.Value, error) {
	w := c.p.whole
	if w == nil {
		return value.Null(), fmt.Errorf("EDGE was not fetched")
	}
	src, _ := c.EdgeProp(eval.AnyEdge, eval.PropSrc)
	dst, _ := c.EdgeProp(eval.AnyEdge, eval.PropDst)
	e := c.row
	abs := e.edgeType
	if abs < 0 {
		abs = -abs
	}
	name := c.p.edgeNames[abs]
	return edgeValue(src, dst, name, e.rank, edgePropsMap(w.edges[name], name, c.p.edgeIndex, e.props)), nil
}

// VertexOf implements eval.GraphSource for FETCH PROP ON tags: VERTEX.
func (c *fetchContext) VertexOf(scope eval.Scope) (value.Value, error) {
	if c.whole == nil || c.edge != nil || scope != eval.ScopeSrc {
		return value.Null(), fmt.Errorf("%s is not available in this FETCH", scope)
	}
	return vertexValue(c.vids.decode(c.vid), c.whole.tags, c.index, c.values), nil
}

// EdgeOf implements eval.GraphSource for FETCH PROP ON an edge type: EDGE.
func (c *fetchContext) EdgeOf() (value.Value, error) {
	if c.whole == nil || c.edge == nil {
		return value.Null(), fmt.Errorf("EDGE is not available in this FETCH")
	}
	props := edgePropsMap(c.whole.edges[c.edgeName], c.edgeName, c.index, c.values)
	return edgeValue(c.vids.decode(c.edge.Src), c.vids.decode(c.edge.Dst), c.edgeName, c.edge.Rank, props), nil
}

// vertexValue is a VERTEX with every tag of tags the row says it has
// (its "tag._tag" marker, as vertexPropsMap reads it) and their
// properties.
func vertexValue(vid value.Value, tags []wholeTag, index map[string]int, values []*commonpb.Value) value.Value {
	v := value.Vertex{VID: vid, Tags: []value.TagProps{}}
	for _, t := range tags {
		if !t.always {
			i, ok := index[t.name+"._tag"]
			if !ok || i >= len(values) || value.FromProto(values[i]).IsNull() {
				continue
			}
		}
		tp := value.TagProps{Name: t.name}
		for _, col := range t.props {
			if j, ok := index[t.name+"."+col]; ok && j < len(values) {
				tp.Props = append(tp.Props, value.Prop{Name: col, Value: value.FromProto(values[j])})
			}
		}
		v.Tags = append(v.Tags, tp)
	}
	return value.VertexValue(v)
}

// edgeValue is an EDGE from its key and its properties map.
func edgeValue(src, dst value.Value, name string, rank int64, props value.Value) value.Value {
	ps, _ := props.MapVal()
	return value.EdgeValue(value.Edge{Src: src, Dst: dst, Type: name, Rank: rank, Props: append([]value.Prop(nil), ps...)})
}

// edgePropsMap is the map of an edge's properties cols, read from values by
// index ("edge.prop").
func edgePropsMap(cols []string, edge string, index map[string]int, values []*commonpb.Value) value.Value {
	props := make([]value.Prop, 0, len(cols))
	for _, col := range cols {
		if i, ok := index[edge+"."+col]; ok && i < len(values) {
			props = append(props, value.Prop{Name: col, Value: value.FromProto(values[i])})
		}
	}
	return value.Map(props...)
}

// vertexPropsMap is the map of a vertex's properties of every tag whose
// marker ("tag._tag") is set in values, merged (the first tag by name wins
// a name they share); NULL when it has none of the tags.
func vertexPropsMap(tags []wholeTag, index map[string]int, values []*commonpb.Value) value.Value {
	var props []value.Prop
	seen := map[string]bool{}
	found := false
	for _, t := range tags {
		if !t.always {
			i, ok := index[t.name+"._tag"]
			if !ok || i >= len(values) || value.FromProto(values[i]).IsNull() {
				continue
			}
		}
		found = true
		for _, col := range t.props {
			j, ok := index[t.name+"."+col]
			if !ok || j >= len(values) || seen[col] {
				continue
			}
			seen[col] = true
			props = append(props, value.Prop{Name: col, Value: value.FromProto(values[j])})
		}
	}
	if !found {
		return value.Null()
	}
	return value.Map(props...)
}
