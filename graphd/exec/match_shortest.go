package exec

import (
	"context"
	"slices"
	"time"

	"github.com/novagraph/novagraph/query/ast"
	"github.com/novagraph/novagraph/query/eval"
	"github.com/novagraph/novagraph/query/value"
)

// shortestParent is how a breadth-first search first reached a vertex:
// from the vertex before over edge.
type shortestParent struct {
	from string
	edge int32
}

// shortest matches p = shortestPath((a)-[...]-(b)) (or allShortestPaths)
// from every row: a breadth-first search from a's vertex, one GetNeighbors
// round per level over the level's new vertices, that stops at the level
// where it has reached every target (b's vertices) or at the upper bound.
// Each target reached gives one row per shortest path (the first found,
// for shortestPath). A path never repeats a vertex, so it is a trail.
func (m *matchRun) shortest(ctx context.Context, pp *patternPlan, h hopPlan, cp *clausePlan, rows [][]value.Value, bound map[int]bool) ([][]value.Value, error) {
	start := time.Now()
	rel := pp.pat.Rels[h.rel]
	fromCol, toCol, relCol := pp.nodeCols[h.from], pp.nodeCols[h.to], pp.relCols[h.rel]
	minHops, maxHops := 1, 1
	if rel.VarLen {
		minHops, maxHops = min(rel.Min, 1), rel.Max
	}
	all := pp.pat.Shortest == ast.ShortestAll
	props := pp.relProps[h.rel]
	var out [][]value.Value
	for _, row := range rows {
		src := m.verts[mustIndex(row[fromCol])].key
		targets, err := m.shortestTargets(pp, cp, row, toCol, bound[toCol])
		if err != nil {
			return nil, err
		}
		if len(targets) == 0 {
			continue
		}
		level := map[string]int{src: 0}
		parents := map[string][]shortestParent{}
		found := 0
		if targets[src] {
			found++
		}
		frontier := []string{src}
		for depth := 1; depth <= maxHops && len(frontier) > 0 && found < len(targets); depth++ {
			if err := m.t.checkCtx(ctx); err != nil {
				return nil, err
			}
			nbrs, err := m.neighbors(ctx, frontier, h, props)
			if err != nil {
				return nil, err
			}
			var next []string
			for _, from := range frontier {
				for _, e := range nbrs[from] {
					if ok, err := m.relMatches(rel, e, cp, row); err != nil {
						return nil, err
					} else if !ok {
						continue
					}
					to := m.edges[e].dst
					if m.edges[e].src != from {
						to = m.edges[e].src
					}
					d, seen := level[to]
					switch {
					case !seen:
						level[to] = depth
						parents[to] = []shortestParent{{from, e}}
						next = append(next, to)
						if targets[to] {
							found++
						}
					case d == depth && all:
						parents[to] = append(parents[to], shortestParent{from, e})
					}
				}
			}
			if err := m.t.grow(int64(len(next))*(mapEntryBytes+2*stringBytes+pointerBytes), "MATCH shortest path search"); err != nil {
				return nil, err
			}
			frontier = next
		}
		for t := range targets {
			d, reached := level[t]
			if !reached || d < minHops {
				continue
			}
			var paths [][]value.Value
			var walk func(v string, suffix []value.Value) bool
			walk = func(v string, suffix []value.Value) bool {
				if v == src {
					paths = append(paths, slices.Clone(suffix))
					return all && len(paths) < maxPartialPaths
				}
				for _, p := range parents[v] {
					if !walk(p.from, append([]value.Value{value.Int(int64(p.edge))}, suffix...)) {
						return false
					}
					if !all {
						return false
					}
				}
				return true
			}
			walk(t, nil)
			for _, edges := range paths {
				nr := slices.Clone(row)
				nr[toCol] = value.Int(int64(m.vertex([]byte(t))))
				if rel.VarLen {
					nr[relCol] = value.List(edges...)
				} else {
					nr[relCol] = edges[0]
				}
				out = append(out, nr)
			}
		}
	}
	if err := m.grow(out, "MATCH shortest paths"); err != nil {
		return nil, err
	}
	m.record("ShortestPath", len(out), start)
	return out, nil
}

// shortestTargets are the vertices a shortest-path search from row looks
// for: the other node's, bound before or given by its id condition.
func (m *matchRun) shortestTargets(pp *patternPlan, cp *clausePlan, row []value.Value, toCol int, toBound bool) (map[string]bool, error) {
	targets := map[string]bool{}
	if toBound || pp.targetIDs == nil {
		if row[toCol].IsNull() {
			return nil, nil
		}
		targets[m.verts[mustIndex(row[toCol])].key] = true
		return targets, nil
	}
	v, err := eval.Eval(m.ctx(cp.cols, row), pp.targetIDs)
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
		targets[string(key)] = true
	}
	return targets, nil
}

// mustIndex is the table index a node or edge cell holds.
func mustIndex(cell value.Value) int32 {
	i, _ := cell.IntVal()
	return int32(i)
}
