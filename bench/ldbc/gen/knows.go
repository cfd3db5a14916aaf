package gen

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
)

// KnowsRow is one row of person_knows_person_0_0.csv: an undirected
// friendship, written once, with Src < Dst (Src is the person that "owns" the
// row). (It cannot be called Knows: that is the streaming function.)
type KnowsRow struct {
	Src, Dst, CreationDate int64
}

// knowsGen generates the knows rows owner by owner; not safe for concurrent
// use. Its memory is O(max degree): the acceptance ring covers one kernel
// support, the set and partner slice one owner.
type knowsGen struct {
	m *model

	ring   []uint64 // acceptance thresholds of persons filled-len(ring) .. filled-1
	mask   int64
	filled int64

	pcg      rand.PCG // owner's stream
	set      idSet
	partners []int64

	want, made int // dim-1 quota and result of the last owner
}

func newKnowsGen(m *model) *knowsGen {
	size := int64(1)
	for size < m.maxReach+2 {
		size <<= 1
	}
	g := &knowsGen{m: m, ring: make([]uint64, size), mask: size - 1}
	g.set.init(m.maxC + 2*dim2Window + 8)
	return g
}

// fill makes the ring hold persons up to and including j.
func (g *knowsGen) fill(j int64) {
	for ; g.filled <= j; g.filled++ {
		g.ring[g.filled&g.mask] = g.m.acceptThreshold(g.filled)
	}
}

// sround rounds x stochastically (up with probability frac(x)).
func sround(x float64, bits uint64) int {
	f := math.Floor(x)
	if unit(bits) < x-f {
		f++
	}
	return int(f)
}

// owner returns the sorted indices of the persons j > i that person i is
// friends with and owns the rows of.
func (g *knowsGen) owner(i int64) []int64 {
	m := g.m
	g.set.reset()
	g.partners = g.partners[:0]
	add := func(j int64) {
		if j > i && g.set.add(j) {
			g.partners = append(g.partners, j)
		}
	}

	// Random dimension: the pairs (p, p±d) of permuted positions, p = perm(i).
	p := m.perm.apply(i)
	for d := int64(1); d <= dim2Window && p+d < m.n; d++ {
		if m.dim2Edge(p, d) {
			add(m.perm.inverse(p + d))
		}
	}
	for d := int64(1); d <= dim2Window && d <= p; d++ {
		if m.dim2Edge(p-d, d) {
			add(m.perm.inverse(p - d))
		}
	}

	// Sliding window: c new friends j > i, distance j-i drawn from an
	// exponential kernel, candidate j accepted with probability ∝ its weight.
	g.pcg.Seed(hash2(m.keys[tagOwner], uint64(i)), hash2(m.keys[tagOwner]+1, uint64(i)))
	r := &g.pcg
	c := min(sround(m.created(m.degree(i)), r.Uint64()), m.maxC) // (never clamps)
	g.want, g.made = c, 0
	reach := m.n - 1 - i
	if c > 0 && reach > 0 {
		mu := max(m.mu0, kernelMult*float64(c))
		reach = min(reach, int64(math.Ceil(kernelSpan*mu)), m.maxReach)
		g.fill(i + reach)
		a := -math.Expm1(-float64(reach) / mu) // CDF mass of [0, reach)
		limit := 50*c + 200
		made := 0
		for tries := 0; made < c && tries < limit; tries++ {
			d := 1 + int64(-mu*math.Log(1-unit(r.Uint64())*a))
			d = min(d, reach)
			j := i + d
			if r.Uint64() >= g.ring[j&g.mask] {
				continue
			}
			if g.set.add(j) {
				g.partners = append(g.partners, j)
				made++
			}
		}
		g.made = made
	}
	slices.Sort(g.partners)
	return g.partners
}

// eachKnows calls fn for every knows row owned by the persons of
// shard/shards, in (Src, Dst) order.
func (m *model) eachKnows(ctx context.Context, shard, shards int64, fn func(k KnowsRow) error) error {
	g := newKnowsGen(m)
	for i := shard; i < m.n; i += shards {
		if (i/shards)&255 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		src, ci := PersonID(i), m.creation(i)
		for _, j := range g.owner(i) {
			k := KnowsRow{Src: src, Dst: PersonID(j), CreationDate: m.knowsDate(i, j, ci, m.creation(j))}
			if err := fn(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// Knows streams the knows rows owned by the persons selected by cfg (all, or
// one shard), ordered by Src then Dst. cfg.OutDir and cfg.Gzip are ignored.
// An error from fn stops the stream and is returned.
func Knows(cfg Config, fn func(k KnowsRow) error) error {
	m, err := newModel(cfg.ScaleFactor, cfg.Seed)
	if err != nil {
		return err
	}
	shard, shards, err := shardOf(cfg)
	if err != nil {
		return err
	}
	return m.eachKnows(context.Background(), shard, shards, fn)
}

// idSet is an open-addressing set of non-negative int64 that is cleared in
// O(1) by bumping an epoch.
type idSet struct {
	keys   []int64
	epochs []uint32
	epoch  uint32
	mask   uint64
}

func (s *idSet) init(capacity int) {
	size := 16
	for size < 2*capacity {
		size <<= 1
	}
	s.keys = make([]int64, size)
	s.epochs = make([]uint32, size)
	s.mask = uint64(size - 1)
	s.epoch = 1
}

func (s *idSet) reset() {
	s.epoch++
	if s.epoch == 0 { // wrapped: really clear
		clear(s.epochs)
		s.epoch = 1
	}
}

// add inserts k and reports whether it was absent.
func (s *idSet) add(k int64) bool {
	h := mix64(uint64(k)) & s.mask
	for s.epochs[h] == s.epoch {
		if s.keys[h] == k {
			return false
		}
		h = (h + 1) & s.mask
	}
	s.epochs[h], s.keys[h] = s.epoch, k
	return true
}
