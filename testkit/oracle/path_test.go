package oracle

import (
	"sort"
	"testing"
)

func pathStrings(g *Graph, ps []Path) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = g.FormatPath(p, false)
	}
	sort.Strings(out)
	return out
}

func sameStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if len(got) != len(want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %q, want %q", what, got, want)
		}
	}
}

func TestShortestPaths(t *testing.T) {
	g := sample() // 1→2, 1→3, 2→3, 3→1, 3→4 over e; 2→4 over f
	ef := []string{"e", "f"}
	v := func(i int64) Vid { return i }
	sameStrings(t, "1 to 4 out", pathStrings(g, g.ShortestPaths([]Vid{v(1)}, []Vid{v(4)}, ef, Out, 5, nil)),
		[]string{"<(1)-[:e@0 {}]->(2)-[:f@0 {}]->(4)>", "<(1)-[:e@0 {}]->(3)-[:e@0 {}]->(4)>"})
	sameStrings(t, "4 to 1 in", pathStrings(g, g.ShortestPaths([]Vid{v(4)}, []Vid{v(1)}, ef, In, 5, nil)),
		[]string{"<(4)<-[:e@0 {}]-(3)<-[:e@0 {}]-(1)>", "<(4)<-[:f@0 {}]-(2)<-[:e@0 {}]-(1)>"})
	sameStrings(t, "4 to 1 out", pathStrings(g, g.ShortestPaths([]Vid{v(4)}, []Vid{v(1)}, ef, Out, 5, nil)), nil)
	sameStrings(t, "too far", pathStrings(g, g.ShortestPaths([]Vid{v(1)}, []Vid{v(4)}, ef, Out, 1, nil)), nil)
	sameStrings(t, "self", pathStrings(g, g.ShortestPaths([]Vid{v(1)}, []Vid{v(1)}, ef, Out, 5, nil)), nil)
	// Both ways: 1-3 directly in both directions (1→3 and 3→1 are two edges).
	sameStrings(t, "1 to 3 both", pathStrings(g, g.ShortestPaths([]Vid{v(1)}, []Vid{v(3)}, []string{"e"}, Both, 5, nil)),
		[]string{"<(1)-[:e@0 {}]->(3)>", "<(1)<-[:e@0 {}]-(3)>"})
	// A filter removes 1→3: the shortest becomes 1→2→3.
	no13 := func(e *Edge) bool { return !(e.Src == v(1) && e.Dst == v(3)) }
	sameStrings(t, "filtered", pathStrings(g, g.ShortestPaths([]Vid{v(1)}, []Vid{v(3)}, []string{"e"}, Out, 5, no13)),
		[]string{"<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)>"})
	// Several sources and targets: every pair.
	sameStrings(t, "pairs", pathStrings(g, g.ShortestPaths([]Vid{v(1), v(2)}, []Vid{v(3), v(4)}, []string{"f"}, Out, 5, nil)),
		[]string{"<(2)-[:f@0 {}]->(4)>"})
	if d := g.Distance(v(4), v(1), ef, Both); d != 2 {
		t.Fatalf("Distance(4, 1) = %d, want 2", d)
	}
	if d := g.Distance(v(4), v(1), ef, Out); d != -1 {
		t.Fatalf("Distance(4, 1) out = %d, want -1", d)
	}
	if d := g.Distance(v(4), v(4), ef, Out); d != 0 {
		t.Fatalf("Distance(4, 4) = %d, want 0", d)
	}
}

func TestAllPaths(t *testing.T) {
	g := sample()
	e := []string{"e"}
	v := func(i int64) Vid { return i }
	sameStrings(t, "1 to 3", pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(3)}, e, Out, 3, false, nil)),
		[]string{"<(1)-[:e@0 {}]->(3)>", "<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)>"})
	// Four hops: a trail may come back through 1 on other edges.
	sameStrings(t, "1 to 3, 4 hops", pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(3)}, e, Out, 4, false, nil)),
		[]string{"<(1)-[:e@0 {}]->(3)>", "<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)>",
			"<(1)-[:e@0 {}]->(3)-[:e@0 {}]->(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)>",
			"<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)-[:e@0 {}]->(1)-[:e@0 {}]->(3)>"})
	sameStrings(t, "1 to 3, 4 hops, noloop", pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(3)}, e, Out, 4, true, nil)),
		[]string{"<(1)-[:e@0 {}]->(3)>", "<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)>"})
	// Cycles back to the source are paths of ALL, not of NOLOOP.
	sameStrings(t, "1 to 1", pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(1)}, e, Out, 3, false, nil)),
		[]string{"<(1)-[:e@0 {}]->(3)-[:e@0 {}]->(1)>", "<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)-[:e@0 {}]->(1)>"})
	sameStrings(t, "1 to 1 noloop", pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(1)}, e, Out, 3, true, nil)), nil)
	// Both ways an edge is used once: 1→2 then back over the same edge is
	// not a trail, so 1 to 1 in two hops goes 1→3→1 or 1←3←… only over
	// distinct edges.
	got := pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(1)}, e, Both, 2, false, nil))
	sameStrings(t, "1 to 1 both", got, []string{
		"<(1)-[:e@0 {}]->(3)-[:e@0 {}]->(1)>", "<(1)<-[:e@0 {}]-(3)<-[:e@0 {}]-(1)>",
	})
	// Through a target and on: 1 to {2, 3}.
	sameStrings(t, "targets", pathStrings(g, g.AllPaths([]Vid{v(1)}, []Vid{v(2), v(3)}, e, Out, 2, false, nil)),
		[]string{"<(1)-[:e@0 {}]->(2)>", "<(1)-[:e@0 {}]->(3)>", "<(1)-[:e@0 {}]->(2)-[:e@0 {}]->(3)>"})
}

func TestSubgraph(t *testing.T) {
	g := sample()
	g.AddVertex(int64(1), "t", map[string]any{"name": "one", "n": int64(1)})
	all := []TypeDir{{"e", Both}, {"f", Both}}
	rows := g.Subgraph([]Vid{int64(1)}, 1, all)
	render := func(r SubgraphRow) ([]string, []string) {
		var vs, es []string
		for _, v := range r.Vertices {
			vs = append(vs, g.FormatVertex(v, false))
		}
		for _, e := range r.Edges {
			es = append(es, FormatEdge(e, false))
		}
		sort.Strings(vs)
		sort.Strings(es)
		return vs, es
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	vs, es := render(rows[0])
	sameStrings(t, "row 0 vertices", vs, []string{"(1)"})
	sameStrings(t, "row 0 edges", es, []string{"[:e 1->2 @0 {}]", "[:e 1->3 @0 {}]", "[:e 3->1 @0 {}]"})
	vs, es = render(rows[1])
	sameStrings(t, "row 1 vertices", vs, []string{"(2)", "(3)"})
	// The last step keeps only edges among collected vertices: 2→3, not 2→4 or 3→4.
	sameStrings(t, "row 1 edges", es, []string{"[:e 2->3 @0 {}]"})

	// Two steps, out-edges only: 4 is reached at step 2 and nothing leaves it.
	rows = g.Subgraph([]Vid{int64(1)}, 2, []TypeDir{{"e", Out}, {"f", Out}})
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	vs, es = render(rows[1])
	sameStrings(t, "out row 1 vertices", vs, []string{"(2)", "(3)"})
	sameStrings(t, "out row 1 edges", es, []string{"[:e 2->3 @0 {}]", "[:e 3->1 @0 {}]", "[:e 3->4 @0 {}]", "[:f 2->4 @0 {}]"})
	vs, es = render(rows[2])
	sameStrings(t, "out row 2 vertices", vs, []string{"(4)"})
	sameStrings(t, "out row 2 edges", es, nil)

	// Zero steps: the start and the edges among the start vertices.
	rows = g.Subgraph([]Vid{int64(1), int64(3)}, 0, all)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	_, es = render(rows[0])
	sameStrings(t, "0 steps", es, []string{"[:e 1->3 @0 {}]", "[:e 3->1 @0 {}]"})

	if got, want := g.FormatVertex(int64(1), true), `(1 :t{n: 1, name: "one"})`; got != want {
		t.Fatalf("FormatVertex = %s, want %s", got, want)
	}
	if got, want := FormatEdge(&Edge{Src: "a", Dst: "b", Type: "e", Rank: 2, Props: map[string]any{"w": 1.5}}, true), `[:e "a"->"b" @2 {w: 1.5}]`; got != want {
		t.Fatalf("FormatEdge = %s, want %s", got, want)
	}
}
