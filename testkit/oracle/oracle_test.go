package oracle

import "testing"

// A hand-checked graph: 1→2, 1→3, 2→3, 3→1, 3→4 over "e", and 2→4 over "f".
func sample() *Graph {
	g := New()
	for _, e := range [][2]int64{{1, 2}, {1, 3}, {2, 3}, {3, 1}, {3, 4}} {
		g.AddEdge(Edge{Src: e[0], Dst: e[1], Type: "e"})
	}
	g.AddEdge(Edge{Src: int64(2), Dst: int64(4), Type: "f"})
	return g
}

func dsts(rows []Row) map[Vid]int {
	m := map[Vid]int{}
	for _, r := range rows {
		m[r.To]++
	}
	return m
}

func TestGoSemantics(t *testing.T) {
	g := sample()
	cases := []struct {
		name     string
		from     []Vid
		min, max int
		types    []string
		dir      Direction
		want     map[Vid]int
	}{
		{"one step", []Vid{int64(1)}, 1, 1, []string{"e"}, Out, map[Vid]int{int64(2): 1, int64(3): 1}},
		// frontier₁ = {2,3}; edges leaving it: 2→3, 3→1, 3→4.
		{"two steps", []Vid{int64(1)}, 2, 2, []string{"e"}, Out, map[Vid]int{int64(3): 1, int64(1): 1, int64(4): 1}},
		// duplicate start vids are deduplicated.
		{"dedup start", []Vid{int64(1), int64(1)}, 1, 1, []string{"e"}, Out, map[Vid]int{int64(2): 1, int64(3): 1}},
		// frontier₂ = {3,1,4} (3 reached once, no visited set): edges 3→1, 3→4, 1→2, 1→3.
		{"three steps", []Vid{int64(1)}, 3, 3, []string{"e"}, Out, map[Vid]int{int64(1): 1, int64(4): 1, int64(2): 1, int64(3): 1}},
		{"m to n", []Vid{int64(1)}, 1, 2, []string{"e"}, Out, map[Vid]int{int64(2): 1, int64(3): 2, int64(1): 1, int64(4): 1}},
		{"reversely", []Vid{int64(3)}, 1, 1, []string{"e"}, In, map[Vid]int{int64(1): 1, int64(2): 1}},
		{"bidirect", []Vid{int64(4)}, 1, 1, []string{"e", "f"}, Both, map[Vid]int{int64(3): 1, int64(2): 1}},
		{"two types", []Vid{int64(2)}, 1, 1, []string{"e", "f"}, Out, map[Vid]int{int64(3): 1, int64(4): 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := dsts(g.Go(c.from, c.min, c.max, c.types, c.dir))
			if len(got) != len(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			for k, n := range c.want {
				if got[k] != n {
					t.Fatalf("got %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestReplaceEdge(t *testing.T) {
	g := New()
	g.AddEdge(Edge{Src: "a", Dst: "b", Type: "e", Props: map[string]any{"w": int64(1)}})
	g.AddEdge(Edge{Src: "a", Dst: "b", Type: "e", Props: map[string]any{"w": int64(2)}})
	rows := g.Go([]Vid{"a"}, 1, 1, []string{"e"}, Out)
	if len(rows) != 1 || rows[0].Edge.Props["w"] != int64(2) {
		t.Fatalf("re-insert must replace: %+v", rows)
	}
}

func TestDeletes(t *testing.T) {
	g := sample()
	g.AddVertex(int64(3), "t", map[string]any{"x": int64(1)})
	g.AddVertex(int64(3), "u", map[string]any{})
	g.DeleteTag(int64(3), "u")
	if !g.HasTag(int64(3), "t") || g.HasTag(int64(3), "u") {
		t.Fatal("DeleteTag removed the wrong tag")
	}
	g.DeleteEdge(int64(1), int64(2), "e", 0)
	g.DeleteEdge(int64(1), int64(2), "e", 0) // absent: no-op
	if got := dsts(g.Go([]Vid{int64(1)}, 1, 1, []string{"e"}, Out)); len(got) != 1 || got[int64(3)] != 1 {
		t.Fatalf("after DeleteEdge, out of 1 = %v", got)
	}
	g.DeleteVertex(int64(3))
	if g.HasTag(int64(3), "t") {
		t.Fatal("DeleteVertex kept a tag")
	}
	for _, v := range []int64{1, 2, 4} {
		for _, r := range g.Go([]Vid{v}, 1, 1, []string{"e", "f"}, Both) {
			if r.To == int64(3) {
				t.Fatalf("edge %v-%v survived DeleteVertex(3)", r.Edge.Src, r.Edge.Dst)
			}
		}
	}
	if got := dsts(g.Go([]Vid{int64(2)}, 1, 1, []string{"f"}, Out)); got[int64(4)] != 1 {
		t.Fatal("an unrelated edge was removed")
	}
}
