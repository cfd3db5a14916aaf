package oracle

import (
	"sort"
	"strconv"
	"strings"
)

// Paths and subgraphs, NebulaGraph 3.x semantics (FIND PATH, GET SUBGRAPH):
//
//   - A hop follows an edge of one of the given types from a vertex: Out
//     follows out-edges, In in-edges (against their direction), Both both —
//     so a self-loop is two hops under Both. A filter, if not nil, keeps only
//     the edges it accepts.
//   - ShortestPaths: for each (source, target) pair of distinct vertices,
//     every path of the least number of hops, if that is ≤ maxSteps.
//   - AllPaths: for each pair (a vertex may be its own target), every path
//     of 1 to maxSteps hops that uses no edge twice (a trail; vertices may
//     repeat); with noLoop, that repeats no vertex (the source included).
//   - Subgraph: see Subgraph.
//
// Everything is written for obviousness: BFS for distances, DFS for paths.

// Step is one hop of a path: the edge followed, whether against its
// direction, and the vertex reached.
type Step struct {
	Edge    *Edge
	Reverse bool
	To      Vid
}

// Path is a start vertex and hops.
type Path struct {
	From  Vid
	Steps []Step
}

// hops lists the hops leaving v.
func (g *Graph) hops(v Vid, types map[string]bool, dir Direction, filter func(*Edge) bool) []Step {
	var out []Step
	if dir == Out || dir == Both {
		for _, k := range g.out[v] {
			if e := g.edges[k]; types[k.typ] && (filter == nil || filter(e)) {
				out = append(out, Step{Edge: e, To: k.dst})
			}
		}
	}
	if dir == In || dir == Both {
		for _, k := range g.in[v] {
			if e := g.edges[k]; types[k.typ] && (filter == nil || filter(e)) {
				out = append(out, Step{Edge: e, Reverse: true, To: k.src})
			}
		}
	}
	return out
}

func typeSet(types []string) map[string]bool {
	m := map[string]bool{}
	for _, t := range types {
		m[t] = true
	}
	return m
}

// Distance is the least number of hops from one vertex to another (0 for
// itself), or -1 when there is no path.
func (g *Graph) Distance(from, to Vid, types []string, dir Direction) int {
	ts := typeSet(types)
	dist := map[Vid]int{from: 0}
	frontier := []Vid{from}
	for len(frontier) > 0 {
		if d, ok := dist[to]; ok {
			return d
		}
		var next []Vid
		for _, v := range frontier {
			for _, h := range g.hops(v, ts, dir, nil) {
				if _, seen := dist[h.To]; !seen {
					dist[h.To] = dist[v] + 1
					next = append(next, h.To)
				}
			}
		}
		frontier = next
	}
	if d, ok := dist[to]; ok {
		return d
	}
	return -1
}

// ShortestPaths lists every shortest path of ≤ maxSteps hops for each pair.
func (g *Graph) ShortestPaths(from, to []Vid, types []string, dir Direction, maxSteps int, filter func(*Edge) bool) []Path {
	ts := typeSet(types)
	var out []Path
	for _, s := range distinct(from) {
		// BFS distances from s.
		dist := map[Vid]int{s: 0}
		frontier := []Vid{s}
		for d := 1; d <= maxSteps && len(frontier) > 0; d++ {
			var next []Vid
			for _, v := range frontier {
				for _, h := range g.hops(v, ts, dir, filter) {
					if _, seen := dist[h.To]; !seen {
						dist[h.To] = d
						next = append(next, h.To)
					}
				}
			}
			frontier = next
		}
		for _, t := range distinct(to) {
			d, ok := dist[t]
			if !ok || d == 0 {
				continue
			}
			// Every path of d hops from s to t climbs the BFS levels one
			// at a time.
			var walk func(v Vid, steps []Step)
			walk = func(v Vid, steps []Step) {
				if len(steps) == d {
					if v == t {
						out = append(out, Path{From: s, Steps: append([]Step(nil), steps...)})
					}
					return
				}
				for _, h := range g.hops(v, ts, dir, filter) {
					if dh, ok := dist[h.To]; ok && dh == len(steps)+1 {
						walk(h.To, append(steps, h))
					}
				}
			}
			walk(s, nil)
		}
	}
	return out
}

// AllPaths lists every trail (noLoop: every path without a repeated
// vertex) of 1 to maxSteps hops from a source to a target.
func (g *Graph) AllPaths(from, to []Vid, types []string, dir Direction, maxSteps int, noLoop bool, filter func(*Edge) bool) []Path {
	ts := typeSet(types)
	targets := map[Vid]bool{}
	for _, t := range to {
		targets[t] = true
	}
	var out []Path
	for _, s := range distinct(from) {
		usedEdge := map[*Edge]bool{}
		usedVertex := map[Vid]bool{s: true}
		var walk func(v Vid, steps []Step)
		walk = func(v Vid, steps []Step) {
			if len(steps) > 0 && targets[v] {
				out = append(out, Path{From: s, Steps: append([]Step(nil), steps...)})
			}
			if len(steps) == maxSteps {
				return
			}
			for _, h := range g.hops(v, ts, dir, filter) {
				if usedEdge[h.Edge] || (noLoop && usedVertex[h.To]) {
					continue
				}
				usedEdge[h.Edge] = true
				wasUsed := usedVertex[h.To]
				usedVertex[h.To] = true
				walk(h.To, append(steps, h))
				usedEdge[h.Edge] = false
				usedVertex[h.To] = wasUsed
			}
		}
		walk(s, nil)
	}
	return out
}

// TypeDir is one edge type of GET SUBGRAPH and the direction it is followed
// in.
type TypeDir struct {
	Type string
	Dir  Direction
}

// SubgraphRow is one row of GET SUBGRAPH: vertices first reached at one
// step and edges.
type SubgraphRow struct {
	Vertices []Vid
	Edges    []*Edge
}

// Subgraph answers GET SUBGRAPH steps STEPS FROM from over edges: V₀ is the
// distinct start vertices, Vₖ₊₁ the vertices not seen before that a hop
// from Vₖ reaches. Row k < steps holds Vₖ and every edge of a hop from Vₖ;
// row steps holds V_steps and the edges of hops from V_steps that end at a
// vertex already seen. No edge appears in two rows (nor twice in one).
// Rows stop at the first empty Vₖ.
func (g *Graph) Subgraph(from []Vid, steps int, edges []TypeDir) []SubgraphRow {
	seen := map[Vid]bool{}
	var cur []Vid
	for _, v := range distinct(from) {
		seen[v] = true
		cur = append(cur, v)
	}
	listed := map[*Edge]bool{}
	var rows []SubgraphRow
	for k := 0; k <= steps && len(cur) > 0; k++ {
		row := SubgraphRow{Vertices: cur}
		var next []Vid
		for _, v := range cur {
			for _, td := range edges {
				for _, h := range g.hops(v, map[string]bool{td.Type: true}, td.Dir, nil) {
					if k == steps && !seen[h.To] {
						continue
					}
					if !listed[h.Edge] {
						listed[h.Edge] = true
						row.Edges = append(row.Edges, h.Edge)
					}
					if !seen[h.To] {
						seen[h.To] = true
						next = append(next, h.To)
					}
				}
			}
		}
		rows = append(rows, row)
		cur = next
	}
	return rows
}

// FormatVertex prints a vertex as NebulaGraph does: ("a"), or with
// properties ("a" :player{age: 42, name: "Tim"}), tags and properties by
// name. Without withProp, or for a vertex without tags, just the id.
func (g *Graph) FormatVertex(v Vid, withProp bool) string {
	var b strings.Builder
	b.WriteByte('(')
	b.WriteString(FormatValue(v))
	if withProp {
		tags := make([]string, 0, len(g.tags[v]))
		for t := range g.tags[v] {
			tags = append(tags, t)
		}
		sort.Strings(tags)
		for _, t := range tags {
			b.WriteString(" :")
			b.WriteString(t)
			b.WriteString(formatProps(g.tags[v][t]))
		}
	}
	b.WriteByte(')')
	return b.String()
}

// FormatEdge prints an edge as GET SUBGRAPH lists it: [:e "a"->"b" @0 {}].
func FormatEdge(e *Edge, withProp bool) string {
	props := "{}"
	if withProp {
		props = formatProps(e.Props)
	}
	return "[:" + e.Type + " " + FormatValue(e.Src) + "->" + FormatValue(e.Dst) + " @" + strconv.FormatInt(e.Rank, 10) + " " + props + "]"
}

// FormatPath prints a path as NebulaGraph does:
// <("a")-[:e@0 {}]->("b")<-[:f@1 {}]-("c")>.
func (g *Graph) FormatPath(p Path, withProp bool) string {
	var b strings.Builder
	b.WriteByte('<')
	b.WriteString(g.FormatVertex(p.From, withProp))
	for _, s := range p.Steps {
		props := "{}"
		if withProp {
			props = formatProps(s.Edge.Props)
		}
		head, tail := "-[:", "]->"
		if s.Reverse {
			head, tail = "<-[:", "]-"
		}
		b.WriteString(head + s.Edge.Type + "@" + strconv.FormatInt(s.Edge.Rank, 10) + " " + props + tail)
		b.WriteString(g.FormatVertex(s.To, withProp))
	}
	b.WriteByte('>')
	return b.String()
}

func formatProps(props map[string]any) string {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + FormatValue(props[n])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// FormatValue prints a property value or vid as an nGQL literal: strings
// quoted, NULL for nil.
func FormatValue(x any) string {
	switch x := x.(type) {
	case nil:
		return "NULL"
	case string:
		return strconv.Quote(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	}
	return "?"
}
