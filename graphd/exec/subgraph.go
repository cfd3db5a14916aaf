package exec

import (
	"context"
	"fmt"
	"sort"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/value"
)

// GET SUBGRAPH [WITH PROP] N STEPS FROM vids [IN|OUT|BOTH edge, ...],
// NebulaGraph 3.x semantics. V₀ is the start vertices; Vₖ₊₁ the vertices
// first reached by following the chosen edges from Vₖ. The result has a
// row per k from 0 to N while Vₖ is not empty:
//
//   - row k < N: Vₖ and every edge followed from Vₖ (to any vertex);
//   - row N: V_N and only the edges from V_N whose other end is a vertex
//     already collected (V₀ ∪ … ∪ V_N), so that the subgraph holds no edge
//     to a vertex it does not list.
//
// No edge is listed twice, even when it is followed from both ends (BOTH,
// or its two ends in the same Vₖ): each row has only edges not listed in an
// earlier row. Vertices are listed whether or not they have a tag (an edge
// may lead to a vertex without data); WITH PROP prints their tags and
// properties, and the edges' properties. With no IN/OUT/BOTH every edge
// type is followed both ways. Within a row, vertices and edges are ordered
// by their printed form.
func (r *runState) getSubgraph(ctx context.Context, s *ast.SubgraphStmt, input *table) (*table, error) {
	t, err := r.newTraversal(ctx, s, "GET SUBGRAPH", s.WithProp)
	if err != nil {
		return nil, err
	}
	var types []int32
	seenType := map[int32]bool{}
	addType := func(et int32) {
		if !seenType[et] {
			seenType[et] = true
			types = append(types, et)
		}
	}
	var used []*metapb.EdgeDesc
	if len(s.Edges) == 0 {
		used = t.snap.Edges(t.space.GetSpaceId())
		for _, e := range used {
			addType(e.GetEdgeType())
			addType(-e.GetEdgeType())
		}
	}
	for _, clause := range s.Edges {
		for _, name := range clause.Edges {
			e, err := t.edgeByName(clause, name)
			if err != nil {
				return nil, err
			}
			used = append(used, e)
			switch clause.Direction {
			case ast.Forward:
				addType(e.GetEdgeType())
			case ast.Reversely:
				addType(-e.GetEdgeType())
			default:
				addType(e.GetEdgeType())
				addType(-e.GetEdgeType())
			}
		}
	}
	t.useEdges(used)

	cols := []*ast.SubgraphColumn{{Pos: s.Pos, Alias: "_vertices"}, {Pos: s.Pos, Edges: true, Alias: "_edges"}}
	if s.Yield != nil {
		cols = s.Yield
	}
	out := newTable()
	for _, c := range cols {
		out.cols = append(out.cols, c.Alias)
	}
	if len(cols) == 2 && cols[0].Alias == cols[1].Alias {
		return nil, at(cols[1], "duplicate column name %q", cols[1].Alias)
	}

	start, err := r.startVids(t.vids, s.From, input)
	if err != nil {
		return nil, err
	}
	visited := map[string]bool{}
	var cur []string
	for _, v := range start.vids {
		if !visited[string(v)] {
			visited[string(v)] = true
			cur = append(cur, string(v))
		}
	}
	listed := map[string]bool{} // stored edges already in a row
	type row struct {
		vertices []string
		edges    []value.Edge
	}
	var rows []row
	for step := 0; step <= s.Steps && len(cur) > 0; step++ {
		if err := t.checkCtx(ctx); err != nil {
			return nil, err
		}
		last := step == s.Steps
		hops := map[string][]hop{}
		need := map[string]bool{}
		for _, v := range cur {
			need[v] = true
		}
		if err := t.fetchHops(ctx, need, types, false, hops, fmt.Sprintf("step %d", step+1)); err != nil {
			return nil, err
		}
		rw := row{vertices: cur}
		var next []string
		for _, v := range cur {
			for _, h := range hops[v] {
				if last && !visited[h.to] {
					continue
				}
				key := t.edgeKey(v, h)
				if !listed[key] {
					listed[key] = true
					rw.edges = append(rw.edges, t.edgeValue(v, h))
				}
				if !visited[h.to] {
					visited[h.to] = true
					next = append(next, h.to)
				}
			}
		}
		rows = append(rows, rw)
		cur = next
	}
	if err := t.fetchVertexProps(ctx, visited); err != nil {
		return nil, err
	}
	for _, rw := range rows {
		vs := make([]value.Value, len(rw.vertices))
		for i, v := range rw.vertices {
			vs[i] = value.VertexValue(t.vertexValue(v))
		}
		es := make([]value.Value, len(rw.edges))
		for i, e := range rw.edges {
			es[i] = value.EdgeValue(e)
		}
		sortByText(vs)
		sortByText(es)
		vals := make([]value.Value, len(cols))
		for i, c := range cols {
			if c.Edges {
				vals[i] = value.List(es...)
			} else {
				vals[i] = value.List(vs...)
			}
		}
		out.add(vals...)
	}
	if err := t.grow(tableSize(out), "building the GET SUBGRAPH result"); err != nil {
		return nil, err
	}
	return out, nil
}

func sortByText(vs []value.Value) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].String() < vs[j].String() })
}
