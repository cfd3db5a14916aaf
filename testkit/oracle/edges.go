package oracle

import (
	"cmp"
	"fmt"
	"slices"
)

// EdgeList lists the edges of the given types (every type when none is
// given), ordered by type, source, destination and rank, so that a test
// can enumerate them deterministically (LOOKUP ON an edge type scans them
// all). The edges are the graph's own.
func (g *Graph) EdgeList(types ...string) []*Edge {
	want := typeSet(types)
	out := make([]*Edge, 0, len(g.edges))
	for k, e := range g.edges {
		if len(types) == 0 || want[k.typ] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *Edge) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), CompareVids(a.Src, b.Src), CompareVids(a.Dst, b.Dst), cmp.Compare(a.Rank, b.Rank))
	})
	return out
}

// CompareVids orders vertex ids: int64 ids numerically and before string
// ids, string ids lexically.
func CompareVids(a, b Vid) int {
	switch a := a.(type) {
	case int64:
		if b, ok := b.(int64); ok {
			return cmp.Compare(a, b)
		}
		return -1
	case string:
		if b, ok := b.(string); ok {
			return cmp.Compare(a, b)
		}
		if _, ok := b.(int64); ok {
			return 1
		}
	}
	return cmp.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

// Degree counts the edges of the given types at v in a direction: Out its
// out-edges, In its in-edges, Both the two (a self-loop counts twice under
// Both, as GO BIDIRECT follows it twice).
func (g *Graph) Degree(v Vid, types []string, dir Direction) int {
	return len(g.edgesFrom(v, typeSet(types), dir))
}
