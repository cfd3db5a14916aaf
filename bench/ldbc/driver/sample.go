package driver

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// SampleMode is how start vertices are drawn.
type SampleMode string

const (
	// Uniform draws every vertex with the same probability.
	Uniform SampleMode = "uniform"
	// SizeBiased draws a vertex with probability proportional to its
	// out-degree (for LDBC knows, stored in both directions, its number of
	// friends): the start vertices of a workload that follows edges, as
	// a random edge's source is. Vertices without out-edges are never drawn.
	SizeBiased SampleMode = "size-biased"
)

// ParseSampleMode accepts uniform and size-biased.
func ParseSampleMode(s string) (SampleMode, error) {
	switch m := SampleMode(s); m {
	case Uniform, SizeBiased:
		return m, nil
	}
	return "", fmt.Errorf("unknown sampling %q (want %s or %s)", s, Uniform, SizeBiased)
}

// Sampler draws start vertices of a Graph.
type Sampler struct {
	ids []int64
	cum []uint64 // size-biased: cum[i] = sum of the degrees of ids[0..i]
}

// NewSampler returns a sampler of g's vertices in mode.
func NewSampler(g *Graph, mode SampleMode) (*Sampler, error) {
	if len(g.Vertices) == 0 {
		return nil, fmt.Errorf("sampling %s: the graph has no vertices", g.Source)
	}
	switch mode {
	case Uniform:
		return &Sampler{ids: g.Vertices}, nil
	case SizeBiased:
		deg := g.OutDegree()
		s := &Sampler{ids: make([]int64, 0, len(deg)), cum: make([]uint64, 0, len(deg))}
		total := uint64(0)
		for i, d := range deg {
			if d > 0 {
				total += uint64(d)
				s.ids = append(s.ids, g.Vertices[i])
				s.cum = append(s.cum, total)
			}
		}
		if total == 0 {
			return nil, fmt.Errorf("size-biased sampling of %s: the graph has no edges", g.Source)
		}
		return s, nil
	}
	return nil, fmt.Errorf("unknown sampling %q (want %s or %s)", mode, Uniform, SizeBiased)
}

// Draw returns one vertex.
func (s *Sampler) Draw(r *rand.Rand) int64 {
	if s.cum == nil {
		return s.ids[r.IntN(len(s.ids))]
	}
	x := r.Uint64N(s.cum[len(s.cum)-1])
	// The first i with cum[i] > x.
	i, _ := slices.BinarySearch(s.cum, x+1)
	return s.ids[i]
}

// Sample returns n vertices drawn with a PRNG seeded by seed: the same seed
// gives the same sequence.
func (s *Sampler) Sample(seed int64, n int) []int64 {
	r := NewRand(seed)
	out := make([]int64, n)
	for i := range out {
		out[i] = s.Draw(r)
	}
	return out
}

// NewRand is the seeded PRNG of the package (PCG).
func NewRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
}

// SampleEdges returns n edges of g drawn uniformly (so their sources are
// size-biased) with a PRNG seeded by seed.
func SampleEdges(g *Graph, seed int64, n int) ([]Edge, error) {
	if len(g.Edges) == 0 {
		return nil, fmt.Errorf("sampling edges of %s: the graph has no edges", g.Source)
	}
	r := NewRand(seed)
	out := make([]Edge, n)
	for i := range out {
		out[i] = g.Edges[r.IntN(len(g.Edges))]
	}
	return out, nil
}
