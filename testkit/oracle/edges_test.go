package oracle

import (
	"fmt"
	"testing"
)

func TestEdgeListByTypeInOrder(t *testing.T) {
	g := sample()
	g.AddEdge(Edge{Src: int64(1), Dst: int64(2), Type: "e", Rank: 1})
	g.AddEdge(Edge{Src: int64(1), Dst: int64(2), Type: "e", Rank: 1}) // replaces, no duplicate
	render := func(es []*Edge) string {
		s := ""
		for _, e := range es {
			s += fmt.Sprintf("%s:%v->%v@%d ", e.Type, e.Src, e.Dst, e.Rank)
		}
		return s
	}
	if got, want := render(g.EdgeList("e")), "e:1->2@0 e:1->2@1 e:1->3@0 e:2->3@0 e:3->1@0 e:3->4@0 "; got != want {
		t.Fatalf("EdgeList(e) = %s, want %s", got, want)
	}
	if got, want := render(g.EdgeList("f")), "f:2->4@0 "; got != want {
		t.Fatalf("EdgeList(f) = %s, want %s", got, want)
	}
	if got := len(g.EdgeList()); got != 7 {
		t.Fatalf("EdgeList() has %d edges, want 7", got)
	}
	if got := len(g.EdgeList("e", "f")); got != 7 {
		t.Fatalf("EdgeList(e, f) has %d edges, want 7", got)
	}
	g.DeleteEdge(int64(1), int64(3), "e", 0)
	if got, want := render(g.EdgeList("e")), "e:1->2@0 e:1->2@1 e:2->3@0 e:3->1@0 e:3->4@0 "; got != want {
		t.Fatalf("after delete EdgeList(e) = %s, want %s", got, want)
	}
}

func TestCompareVids(t *testing.T) {
	cases := []struct {
		a, b Vid
		want int
	}{
		{int64(1), int64(2), -1}, {int64(10), int64(9), 1}, {int64(-3), int64(-3), 0},
		{"a", "b", -1}, {"b", "a", 1}, {"x", "x", 0},
		{int64(5), "a", -1}, {"a", int64(5), 1},
	}
	for _, c := range cases {
		if got := CompareVids(c.a, c.b); got != c.want {
			t.Errorf("CompareVids(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestDegree(t *testing.T) {
	g := sample()
	g.AddEdge(Edge{Src: int64(4), Dst: int64(4), Type: "e"}) // self-loop
	cases := []struct {
		v     int64
		types []string
		dir   Direction
		want  int
	}{
		{1, []string{"e"}, Out, 2}, {1, []string{"e"}, In, 1}, {1, []string{"e"}, Both, 3},
		{2, []string{"e"}, Out, 1}, {2, []string{"e", "f"}, Out, 2}, {2, []string{"f"}, In, 0},
		// the self-loop is one out-edge, one in-edge, two hops both ways
		{4, []string{"e"}, Out, 1}, {4, []string{"e"}, In, 2}, {4, []string{"e"}, Both, 3},
		{4, []string{"e", "f"}, In, 3}, {9, []string{"e"}, Both, 0},
	}
	for _, c := range cases {
		if got := g.Degree(c.v, c.types, c.dir); got != c.want {
			t.Errorf("Degree(%d, %v, %d) = %d, want %d", c.v, c.types, c.dir, got, c.want)
		}
	}
}
