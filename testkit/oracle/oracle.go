// Package oracle is the reference implementation of novagraph's query
// semantics: a plain in-memory graph that answers GO and FETCH the way the
// brief (NebulaGraph 3.x) defines them, written for obviousness rather than
// speed. Tests compare the distributed system's answers with it.
package oracle

// Vid is a vertex id: int64 or string.
type Vid = any

// Edge is one directed edge as inserted.
type Edge struct {
	Src, Dst Vid
	Type     string
	Rank     int64
	Props    map[string]any
}

// Direction of a traversal.
type Direction int

const (
	Out Direction = iota
	In
	Both
)

// Graph is an in-memory property graph. Inserting an existing vertex tag or
// edge (same src, type, rank, dst) replaces it, as in NebulaGraph.
type Graph struct {
	tags  map[Vid]map[string]map[string]any // vid → tag → props
	edges map[edgeKey]*Edge
	out   map[Vid][]edgeKey
	in    map[Vid][]edgeKey
}

type edgeKey struct {
	src, dst Vid
	typ      string
	rank     int64
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{tags: map[Vid]map[string]map[string]any{}, edges: map[edgeKey]*Edge{}, out: map[Vid][]edgeKey{}, in: map[Vid][]edgeKey{}}
}

// AddVertex sets the properties of one tag of a vertex.
func (g *Graph) AddVertex(vid Vid, tag string, props map[string]any) {
	if g.tags[vid] == nil {
		g.tags[vid] = map[string]map[string]any{}
	}
	g.tags[vid][tag] = props
}

// AddEdge inserts or replaces an edge.
func (g *Graph) AddEdge(e Edge) {
	k := edgeKey{e.Src, e.Dst, e.Type, e.Rank}
	if _, exists := g.edges[k]; !exists {
		g.out[e.Src] = append(g.out[e.Src], k)
		g.in[e.Dst] = append(g.in[e.Dst], k)
	}
	cp := e
	g.edges[k] = &cp
}

// VertexProp returns a tag property of a vertex; ok is false (NULL) if the
// vertex lacks the tag or the property.
func (g *Graph) VertexProp(vid Vid, tag, prop string) (any, bool) {
	t, ok := g.tags[vid][tag]
	if !ok {
		return nil, false
	}
	v, ok := t[prop]
	return v, ok
}

// HasTag reports whether vid has tag.
func (g *Graph) HasTag(vid Vid, tag string) bool {
	_, ok := g.tags[vid][tag]
	return ok
}

// Row is one GO result row before YIELD: the edge, the vertex the step left
// from ($^) and the vertex it reached ($$).
type Row struct {
	From, To Vid
	Edge     *Edge
}

// edgesFrom lists the traversals leaving v over the given types.
func (g *Graph) edgesFrom(v Vid, types map[string]bool, dir Direction) []Row {
	var rows []Row
	if dir == Out || dir == Both {
		for _, k := range g.out[v] {
			if types[k.typ] {
				rows = append(rows, Row{From: v, To: k.dst, Edge: g.edges[k]})
			}
		}
	}
	if dir == In || dir == Both {
		for _, k := range g.in[v] {
			if types[k.typ] {
				rows = append(rows, Row{From: v, To: k.src, Edge: g.edges[k]})
			}
		}
	}
	return rows
}

// Go answers `GO minSteps TO maxSteps STEPS FROM from OVER types`: frontier₀
// is the distinct start vids, frontierₖ the distinct vertices reached from
// frontierₖ₋₁ (no visited set), and the result is one row per edge leaving
// frontierₖ₋₁ for every k in [minSteps, maxSteps]. `GO N STEPS` is
// Go(from, N, N, ...).
func (g *Graph) Go(from []Vid, minSteps, maxSteps int, types []string, dir Direction) []Row {
	typeSet := map[string]bool{}
	for _, t := range types {
		typeSet[t] = true
	}
	frontier := distinct(from)
	var result []Row
	for step := 1; step <= maxSteps; step++ {
		var rows []Row
		for _, v := range frontier {
			rows = append(rows, g.edgesFrom(v, typeSet, dir)...)
		}
		if step >= minSteps {
			result = append(result, rows...)
		}
		next := make([]Vid, 0, len(rows))
		for _, r := range rows {
			next = append(next, r.To)
		}
		frontier = distinct(next)
	}
	return result
}

func distinct(vids []Vid) []Vid {
	seen := make(map[Vid]bool, len(vids))
	out := make([]Vid, 0, len(vids))
	for _, v := range vids {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// DeleteEdge removes an edge if it exists.
func (g *Graph) DeleteEdge(src, dst Vid, typ string, rank int64) {
	k := edgeKey{src, dst, typ, rank}
	if _, ok := g.edges[k]; !ok {
		return
	}
	delete(g.edges, k)
	g.out[src] = removeKey(g.out[src], k)
	g.in[dst] = removeKey(g.in[dst], k)
}

func removeKey(keys []edgeKey, k edgeKey) []edgeKey {
	out := keys[:0]
	for _, x := range keys {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// DeleteTag removes one tag of a vertex; the vertex's edges stay.
func (g *Graph) DeleteTag(vid Vid, tag string) {
	delete(g.tags[vid], tag)
	if len(g.tags[vid]) == 0 {
		delete(g.tags, vid)
	}
}

// DeleteVertex removes a vertex's tags and every edge leaving or entering
// it, as NebulaGraph's DELETE VERTEX does.
func (g *Graph) DeleteVertex(vid Vid) {
	delete(g.tags, vid)
	for _, k := range append([]edgeKey(nil), g.out[vid]...) {
		g.DeleteEdge(k.src, k.dst, k.typ, k.rank)
	}
	for _, k := range append([]edgeKey(nil), g.in[vid]...) {
		g.DeleteEdge(k.src, k.dst, k.typ, k.rank)
	}
}

// Tag returns the properties of one tag of a vertex (nil if absent); the
// map is the graph's own, for a test to update in place.
func (g *Graph) Tag(vid Vid, tag string) map[string]any { return g.tags[vid][tag] }

// EdgeOf returns an edge, nil if absent; the edge is the graph's own.
func (g *Graph) EdgeOf(src, dst Vid, typ string, rank int64) *Edge {
	return g.edges[edgeKey{src, dst, typ, rank}]
}

// VerticesWith lists the vertices that have tag, in no particular order.
func (g *Graph) VerticesWith(tag string) []Vid {
	var out []Vid
	for v, tags := range g.tags {
		if _, ok := tags[tag]; ok {
			out = append(out, v)
		}
	}
	return out
}
