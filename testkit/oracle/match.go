package oracle

// MATCH patterns, NebulaGraph 3.x semantics (graphd/exec/match_plan.go):
//
//   - A pattern is nodes joined by relationships. A node may require a tag
//     and a set of ids; a relationship follows 1 hop, or Min to Max hops
//     (variable length), over its edge types in its direction.
//   - A match binds a vertex to each node and a list of steps to each
//     relationship; within one match no edge is used twice (a trail).
//   - Match enumerates every match of a pattern: a depth-first search from
//     every vertex that can be the first node, written for obviousness.

// NodeSpec is one node of a pattern.
type NodeSpec struct {
	Tag string // "": any vertex
	IDs []Vid  // nil: any id
}

// RelSpec is one relationship of a pattern: Min to Max hops (1 and 1 for
// a plain relationship) over Types (every type when empty) in Dir.
type RelSpec struct {
	Types    []string
	Dir      Direction
	Min, Max int
	Filter   func(*Edge) bool // nil: every edge
}

// PatternSpec is a pattern: len(Nodes) == len(Rels)+1.
type PatternSpec struct {
	Nodes []NodeSpec
	Rels  []RelSpec
}

// Binding is one match: a vertex per node and the steps of each
// relationship.
type Binding struct {
	Vertices []Vid
	Steps    [][]Step
}

// Match lists every match of p. Candidates for the first node are the
// vertices with a tag or an edge, narrowed by the node's ids and tag.
func (g *Graph) Match(p PatternSpec) []Binding {
	var out []Binding
	for _, v := range g.candidates(p.Nodes[0]) {
		b := Binding{Vertices: []Vid{v}}
		g.extend(p, b, map[edgeKey]bool{}, &out)
	}
	return out
}

func (g *Graph) candidates(n NodeSpec) []Vid {
	var vs []Vid
	if n.IDs != nil {
		seen := map[Vid]bool{}
		for _, v := range n.IDs {
			if !seen[v] {
				seen[v] = true
				vs = append(vs, v)
			}
		}
	} else {
		seen := map[Vid]bool{}
		add := func(v Vid) {
			if !seen[v] {
				seen[v] = true
				vs = append(vs, v)
			}
		}
		for v := range g.tags {
			add(v)
		}
		for k := range g.edges {
			add(k.src)
			add(k.dst)
		}
	}
	var out []Vid
	for _, v := range vs {
		if g.nodeOK(n, v) {
			out = append(out, v)
		}
	}
	return out
}

func (g *Graph) nodeOK(n NodeSpec, v Vid) bool {
	if n.Tag != "" && !g.HasTag(v, n.Tag) {
		return false
	}
	if n.IDs != nil {
		for _, id := range n.IDs {
			if id == v {
				return true
			}
		}
		return false
	}
	return true
}

// extend adds the next relationship and node to b, or records b when the
// pattern is complete.
func (g *Graph) extend(p PatternSpec, b Binding, used map[edgeKey]bool, out *[]Binding) {
	i := len(b.Steps)
	if i == len(p.Rels) {
		*out = append(*out, Binding{Vertices: append([]Vid(nil), b.Vertices...), Steps: append([][]Step(nil), b.Steps...)})
		return
	}
	rel := p.Rels[i]
	types := typeSet(rel.Types)
	if len(rel.Types) == 0 {
		types = map[string]bool{}
		for k := range g.edges {
			types[k.typ] = true
		}
	}
	var walk func(at Vid, steps []Step)
	walk = func(at Vid, steps []Step) {
		if len(steps) >= rel.Min && g.nodeOK(p.Nodes[i+1], at) {
			next := Binding{Vertices: append(append([]Vid(nil), b.Vertices...), at),
				Steps: append(append([][]Step(nil), b.Steps...), append([]Step(nil), steps...))}
			g.extend(p, next, used, out)
		}
		if len(steps) == rel.Max {
			return
		}
		for _, s := range g.hops(at, types, rel.Dir, rel.Filter) {
			k := edgeKey{s.Edge.Src, s.Edge.Dst, s.Edge.Type, s.Edge.Rank}
			if used[k] {
				continue
			}
			used[k] = true
			walk(s.To, append(steps, s))
			delete(used, k)
		}
	}
	walk(b.Vertices[i], nil)
}
