package oracle

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func renderBindings(bs []Binding) string {
	var rows []string
	for _, b := range bs {
		var parts []string
		for i, v := range b.Vertices {
			parts = append(parts, fmt.Sprint(v))
			if i < len(b.Steps) {
				var hops []string
				for _, s := range b.Steps[i] {
					hops = append(hops, fmt.Sprintf("%s@%d", s.Edge.Type, s.Edge.Rank))
				}
				parts = append(parts, "["+strings.Join(hops, ",")+"]")
			}
		}
		rows = append(rows, strings.Join(parts, " "))
	}
	sort.Strings(rows)
	return strings.Join(rows, "; ")
}

func TestMatch(t *testing.T) {
	g := sample() // 1->2, 1->3, 2->3, 3->1, 3->4 over e; 2->4 over f
	g.AddEdge(Edge{Src: int64(4), Dst: int64(4), Type: "e"})
	cases := []struct {
		name string
		p    PatternSpec
		want string
	}{
		{"one hop out", PatternSpec{Nodes: []NodeSpec{{IDs: []Vid{int64(1)}}, {}}, Rels: []RelSpec{{Types: []string{"e"}, Dir: Out, Min: 1, Max: 1}}},
			"1 [e@0] 2; 1 [e@0] 3"},
		{"one hop in", PatternSpec{Nodes: []NodeSpec{{IDs: []Vid{int64(3)}}, {}}, Rels: []RelSpec{{Types: []string{"e"}, Dir: In, Min: 1, Max: 1}}},
			"3 [e@0] 1; 3 [e@0] 2"},
		// The loop at 4 is used once: 4 reaches itself in one hop only.
		{"trail", PatternSpec{Nodes: []NodeSpec{{IDs: []Vid{int64(4)}}, {}}, Rels: []RelSpec{{Types: []string{"e"}, Dir: Out, Min: 1, Max: 3}}},
			"4 [e@0] 4"},
		{"zero hops", PatternSpec{Nodes: []NodeSpec{{IDs: []Vid{int64(2)}}, {}}, Rels: []RelSpec{{Types: []string{"f"}, Dir: Out, Min: 0, Max: 1}}},
			"2 [] 2; 2 [f@0] 4"},
		// Two relationships cannot share an edge: 1-2-1 would go back
		// over the one edge 1->2; 1-3-1 uses 1->3 and 3->1, either way.
		{"no edge twice", PatternSpec{Nodes: []NodeSpec{{IDs: []Vid{int64(1)}}, {}, {IDs: []Vid{int64(1)}}}, Rels: []RelSpec{{Types: []string{"e"}, Dir: Both, Min: 1, Max: 1}, {Types: []string{"e"}, Dir: Both, Min: 1, Max: 1}}},
			"1 [e@0] 3 [e@0] 1; 1 [e@0] 3 [e@0] 1"},
	}
	for _, c := range cases {
		if got := renderBindings(g.Match(c.p)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
