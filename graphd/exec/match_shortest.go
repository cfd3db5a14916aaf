package exec

import (
	"context"
	"slices"
	"time"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// shortestParent is how a breadth-first search reached a vertex: from the
// vertex before over edge.
type shortestParent struct {
	from, edge int32
}

// shortest matches p = shortestPath((a)-[...]-(b)) (or allShortestPaths)
// from every row: a breadth-first search from a's vertex, one GetNeighbors
// round per level over the level's new vertices, that stops at the level
// where it has reached every target (b's vertices) or at the upper bound.
// Each target reached gives one row per shortest path (the first found,
// for shortestPath). A path never repeats a vertex, so it is a trail.
func (m *matchRun) shortest(ctx context.Context, pp *patternPlan, h hopPlan, cp *clausePlan, cr *clauseRows, bound map[int]bool) error {
	start := time.Now()
	rel := pp.pat.Rels[h.rel]
	fromCol, toCol, relCol := pp.nodeCols[h.from], pp.nodeCols[h.to], pp.relCols[h.rel]
	minHops, maxHops := 1, 1
	if rel.VarLen {
		minHops, maxHops = min(rel.Min, 1), rel.Max
	}
	all := pp.pat.Shortest == ast.ShortestAll
	props := pp.relProps[h.rel]
	b := cr.b
	var parents, ends []int32
	var lists [][]int32
	for row := 0; row < b.n; row++ {
		src := b.vecs[fromCol].ids[row]
		targets, err := m.shortestTargets(pp, b, row, toCol, bound[toCol])
		if err != nil {
			return err
		}
		if len(targets) == 0 {
			continue
		}
		level := map[int32]int{src: 0}
		via := map[int32][]shortestParent{}
		found := 0
		if targets[src] {
			found++
		}
		frontier := []int32{src}
		for depth := 1; depth <= maxHops && len(frontier) > 0 && found < len(targets); depth++ {
			if err := m.t.checkCtx(ctx); err != nil {
				return err
			}
			nbrs, err := m.neighbors(ctx, frontier, h, props)
			if err != nil {
				return err
			}
			var next []int32
			for _, from := range frontier {
				for _, e := range nbrs[from] {
					if m.usedIn(cp, b, row, e, relCol) {
						continue // one MATCH uses an edge once
					}
					if ok, err := m.relMatches(rel, e, b, row); err != nil {
						return err
					} else if !ok {
						continue
					}
					to := m.otherEnd(e, from)
					d, seen := level[to]
					switch {
					case !seen:
						level[to] = depth
						via[to] = []shortestParent{{from, e}}
						next = append(next, to)
						if targets[to] {
							found++
						}
					case d == depth && all:
						via[to] = append(via[to], shortestParent{from, e})
					}
				}
			}
			if err := m.t.grow(int64(len(next))*(mapEntryBytes+2*pointerBytes), "MATCH shortest path search"); err != nil {
				return err
			}
			frontier = next
		}
		for t := range targets {
			d, reached := level[t]
			if !reached || d < minHops {
				continue
			}
			var paths [][]int32
			var walk func(v int32, suffix []int32) bool
			walk = func(v int32, suffix []int32) bool {
				if v == src {
					paths = append(paths, slices.Clone(suffix))
					return all && len(paths) < maxPartialPaths
				}
				if len(paths) >= maxPartialPaths {
					return false
				}
				for _, p := range via[v] {
					if !walk(p.from, append([]int32{p.edge}, suffix...)) || !all {
						return false
					}
				}
				return true
			}
			walk(t, []int32{})
			if len(paths) >= maxPartialPaths {
				return execErrorf("MATCH %s: more than %d shortest paths between two vertices", pp.pat, maxPartialPaths)
			}
			if err := m.t.grow(int64(len(paths))*(sliceBytes+int64(d)*4), "MATCH shortest paths"); err != nil {
				return err
			}
			for _, edges := range paths {
				if h.reverse {
					slices.Reverse(edges)
				}
				parents = append(parents, int32(row))
				ends = append(ends, t)
				lists = append(lists, edges)
			}
		}
	}
	cr.gather(parents)
	cr.b.vecs[toCol] = idsVec(bindNode, ends)
	if rel.VarLen {
		cr.b.vecs[relCol] = listsVec(bindEdges, lists)
	} else {
		rels := make([]int32, len(lists))
		for i, l := range lists {
			rels[i] = l[0]
		}
		cr.b.vecs[relCol] = idsVec(bindEdge, rels)
	}
	if err := m.grow(cr.b.n, len(cr.b.vecs), "MATCH shortest paths"); err != nil {
		return err
	}
	m.record("ShortestPath", cr.b.n, start)
	return nil
}

// shortestTargets are the vertices a shortest-path search from row looks
// for: the other node's, bound before or given by its id condition.
func (m *matchRun) shortestTargets(pp *patternPlan, b *bindings, row, toCol int, toBound bool) (map[int32]bool, error) {
	targets := map[int32]bool{}
	if toBound || pp.targetIDs == nil {
		if i := b.vecs[toCol].ids[row]; i != noCell {
			targets[i] = true
		}
		return targets, nil
	}
	v, err := eval.Eval(m.ctx(b, row), pp.targetIDs)
	if err != nil {
		return nil, at(pp.targetIDs, "%s: %v", pp.targetIDs, err)
	}
	ids := []value.Value{v}
	if pp.targetList {
		if v.IsNull() {
			return nil, nil
		}
		var ok bool
		if ids, ok = v.ListVal(); !ok {
			return nil, at(pp.targetIDs, "%s: expected a LIST, got %s", pp.targetIDs, v.Kind())
		}
	}
	for _, id := range ids {
		if id.IsNull() {
			continue
		}
		key, err := m.t.vids.encode(id)
		if err != nil {
			return nil, at(pp.targetIDs, "%v", err)
		}
		targets[m.vertex(key)] = true
	}
	return targets, nil
}
