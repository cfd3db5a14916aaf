package gen

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Time range of the simulated network, epoch milliseconds (UTC).
const (
	msPerDay   = 86_400_000
	simStart   = 1_262_304_000_000 // 2010-01-01T00:00:00Z
	simEnd     = 1_356_998_400_000 // 2013-01-01T00:00:00Z: every date is before it
	birthStart = 315_532_800_000   // 1980-01-01T00:00:00Z
	birthEnd   = 631_152_000_000   // 1990-01-01T00:00:00Z
)

// Degree model constants (see the package documentation).
const (
	degSigma   = 1.0  // σ of the lognormal target degree
	degCap     = 16.0 // target degrees are capped at degCap × mean
	acceptCap  = 3.0  // κ: dim-1 acceptance weight is min(T, κ·mean T)
	dim2Frac   = 0.1  // share of each person's degree from the random dimension
	dim2Window = 32   // W2: random-dimension window, in permuted positions
	kernelMult = 3.0  // an owner's kernel mean is ≥ kernelMult × its created count
	kernelSpan = 10.0 // the kernel is truncated at kernelSpan × its mean
	kernelMax  = 1000 // base kernel mean, for large n
	quadPoints = 1 << 16
)

// PersonID returns the id of the i-th person (i ≥ 0). Ids are positive,
// strictly increasing with i and sparse: the i-th id is i·2^20 + 1 + h(i)
// where h(i) ∈ [0, 2^20−2] is a fixed hash of i (independent of the seed).
// That gives LDBC-like magnitudes (LDBC ids are up to ~3.5·10^13 at SF0.1;
// ours exceed 2^32 from i = 4096 on) and catches code that assumes dense or
// 32-bit ids. PersonIndex inverts it.
func PersonID(i int64) int64 {
	return i<<idShift + 1 + int64(mix64(uint64(i)^0x1d5e_a7c3_9b24_f061)%(1<<idShift-1))
}

const idShift = 20

// PersonIndex returns i such that PersonID(i) == id, and whether id is a
// person id at all.
func PersonIndex(id int64) (int64, bool) {
	if id <= 0 {
		return 0, false
	}
	i := (id - 1) >> idShift
	return i, PersonID(i) == id
}

// mix64 is the SplitMix64 finaliser: a cheap, well-mixing bijection.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hash2(key, x uint64) uint64 { return mix64(key ^ mix64(x+0x9e3779b97f4a7c15)) }

// unit maps 64 random bits to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) * 0x1p-53 }

// feistel is a keyed pseudo-random permutation of [0, n): a 4-round balanced
// Feistel network on the smallest even number of bits covering n, restricted
// to [0, n) by cycle walking. Both directions are O(1) expected.
type feistel struct {
	n    uint64
	half uint
	mask uint64
	keys [4]uint64
}

func newFeistel(n int64, key uint64) feistel {
	b := uint(bits.Len64(uint64(n - 1)))
	b = max(b, 2)
	b += b & 1
	f := feistel{n: uint64(n), half: b / 2, mask: 1<<(b/2) - 1}
	for k := range f.keys {
		f.keys[k] = hash2(key, uint64(k))
	}
	return f
}

func (f *feistel) round(k int, x uint64) uint64 { return mix64(x^f.keys[k]) & f.mask }

func (f *feistel) apply(x int64) int64 {
	v := uint64(x)
	for {
		l, r := v>>f.half, v&f.mask
		for k := 0; k < 4; k++ {
			l, r = r, l^f.round(k, r)
		}
		v = l<<f.half | r
		if v < f.n {
			return int64(v)
		}
	}
}

func (f *feistel) inverse(x int64) int64 {
	v := uint64(x)
	for {
		l, r := v>>f.half, v&f.mask
		for k := 3; k >= 0; k-- {
			l, r = r^f.round(k, l), l
		}
		v = l<<f.half | r
		if v < f.n {
			return int64(v)
		}
	}
}

// Per-purpose key tags, so that independent decisions use independent bits.
const (
	tagRank = iota + 1
	tagDegree
	tagPerm
	tagDim2
	tagOwner
	tagDate
	tagCreate
	tagPerson
)

// model holds everything derived from (scale factor, seed): sizes, the
// calibrated degree model and the keyed permutations. It is immutable and
// shared by all generators of one run.
type model struct {
	sf     float64
	seed   uint64
	n      int64 // persons
	target int64 // knows rows (Sizes)
	keys   [tagPerson + 1]uint64

	rank feistel // stratified degree ranks: person i gets quantile stratum rank(i)
	perm feistel // the random ("dim-2") order of persons

	degScale float64 // D = degScale · min(X, degCap), E[X] = 1
	dim2Thr  uint64  // a (position, offset) pair is a dim-2 edge iff its hash < dim2Thr
	dim2Deg  float64 // expected dim-2 degree of a person (2·W2·p2)
	dim2Rows float64 // expected number of dim-2 rows
	tBar     float64 // mean dim-1 degree target
	wBar     float64 // mean dim-1 acceptance weight
	lambda   float64 // final correction of created counts so E[knows] = target
	mu0      float64 // base kernel mean (persons)
	maxC     int     // upper bound of an owner's dim-1 created count
	maxReach int64   // upper bound of an owner's kernel support
}

func newModel(sf float64, seed int64) (*model, error) {
	n, k, err := Sizes(sf)
	if err != nil {
		return nil, err
	}
	m := &model{sf: sf, seed: uint64(seed), n: n, target: k}
	for t := range m.keys {
		m.keys[t] = hash2(mix64(uint64(seed)^0x6c64_6263_736e_6221), uint64(t))
	}
	m.rank = newFeistel(n, m.keys[tagRank])
	m.perm = newFeistel(n, m.keys[tagPerm])
	m.mu0 = min(kernelMax, max(float64(n)/16, 16))

	// Calibrate by midpoint quadrature over the quantiles of X; the persons'
	// degrees are stratified over the same quantiles (one stratum each), so
	// population sums track these integrals closely.
	mean := 2 * float64(k) / float64(n)
	xs := make([]float64, quadPoints)
	var ex float64
	for q := range xs {
		xs[q] = capX((float64(q) + 0.5) / quadPoints)
		ex += xs[q]
	}
	ex /= quadPoints
	m.degScale = mean / ex
	// Random dimension: each of the pairs (q, q+d), d ∈ [1, W2], of permuted
	// positions is an edge with probability p2, giving everyone ≈ dim2Frac
	// of the mean degree.
	p2 := min(dim2Frac*mean/(2*dim2Window), 0.5)
	m.dim2Thr = uint64(p2 * 0x1p64)
	m.dim2Deg = 2 * dim2Window * p2
	w2 := min(float64(dim2Window), float64(n-1))
	m.dim2Rows = p2 * (float64(n)*w2 - w2*(w2+1)/2)
	var tSum float64
	for _, x := range xs {
		tSum += m.dim1Target(m.degScale * x)
	}
	m.tBar = tSum / quadPoints
	var wSum float64
	for _, x := range xs {
		wSum += m.weight(m.dim1Target(m.degScale * x))
	}
	m.wBar = wSum / quadPoints
	m.lambda = 1
	var cSum float64
	for _, x := range xs {
		cSum += m.created(m.degScale * x)
	}
	cBar := cSum / quadPoints
	if cBar <= 0 || m.wBar <= 0 {
		return nil, fmt.Errorf("ldbc gen: degenerate degree model at sf %g", sf)
	}
	m.lambda = (float64(k) - m.dim2Rows) / (float64(n) * cBar)
	m.setBounds()
	m.calibrateTail()
	return m, nil
}

// setBounds derives, from the current lambda, the largest dim-1 quota an
// owner can draw and the largest kernel support, which size a knowsGen.
func (m *model) setBounds() {
	m.maxC = int(m.created(m.degScale*degCap)) + 1
	mu := max(m.mu0, kernelMult*float64(m.maxC))
	m.maxReach = min(m.n-1, int64(math.Ceil(kernelSpan*mu))+1)
}

// calibrateTail corrects lambda for the dim-1 friendships the last persons
// cannot create: person i owns at most n-1-i rows, so an owner near the end
// falls short of its quota c when c is a sizeable fraction of the persons
// after it, most of all when a high-degree person lands there. The shortfall
// depends on the realisation, so it is measured by generating those owners
// (8·c > n-1-i; others fill their quota) once, deterministically, so every
// shard finds the same value, and spread over everyone by raising lambda;
// a second pass takes out the first one's second-order effect. Cost: a few
// hundred owners plus the high-degree ones among the last persons.
func (m *model) calibrateTail() {
	dim1 := float64(m.target) - m.dim2Rows // expected dim-1 rows
	lambda0 := m.lambda
	var pcg rand.PCG
	for range 2 {
		g := newKnowsGen(m)
		var short int
		for i := max(0, m.n-1-m.maxReach); i < m.n; i++ {
			pcg.Seed(hash2(m.keys[tagOwner], uint64(i)), hash2(m.keys[tagOwner]+1, uint64(i)))
			if c := sround(m.created(m.degree(i)), pcg.Uint64()); int64(8*c) <= m.n-1-i {
				continue // same draw as owner's: it will fill its quota
			}
			g.filled = max(g.filled, i+1)
			g.owner(i)
			short += g.want - g.made
		}
		if short <= 0 || float64(short) > dim1/2 {
			return
		}
		m.lambda = lambda0 * dim1 / (dim1 - float64(short))
		m.setBounds()
	}
}

// capXExact is the capped, mean-one lognormal quantile function.
func capXExact(u float64) float64 {
	z := math.Sqrt2 * math.Erfinv(2*u-1)
	return min(math.Exp(degSigma*z-degSigma*degSigma/2), degCap)
}

// capXTable tabulates capXExact at u = k/capXPoints; capX interpolates it
// linearly (a few ns instead of Erfinv+Exp; relative error < 1e-4 except in
// the far lower tail, where degrees are ~0 anyway).
const capXPoints = 1 << 16

var capXTable = func() []float64 {
	t := make([]float64, capXPoints+2)
	for k := range t {
		t[k] = capXExact(min(float64(k)/capXPoints, 1))
	}
	return t
}()

func capX(u float64) float64 {
	x := u * capXPoints
	k := int(x)
	k = min(max(k, 0), capXPoints)
	f := x - float64(k)
	return capXTable[k] + f*(capXTable[k+1]-capXTable[k])
}

// degree is person i's target degree: stratum rank(i) of the capped
// lognormal, jittered inside the stratum.
func (m *model) degree(i int64) float64 {
	r := m.rank.apply(i)
	u := (float64(r) + unit(hash2(m.keys[tagDegree], uint64(i)))) / float64(m.n)
	return m.degScale * capX(u)
}

// dim1Target is the expected dim-1 (sliding window) degree of a person of
// target degree d: what the random dimension does not bring.
func (m *model) dim1Target(d float64) float64 { return max(0, d-m.dim2Deg) }

// dim2Edge reports whether permuted positions q and q+d (1 ≤ d ≤ W2) are
// friends: a pure function of (seed, q, d), so both ends can evaluate it.
func (m *model) dim2Edge(q, d int64) bool {
	return hash2(hash2(m.keys[tagDim2], uint64(q)), uint64(d)) < m.dim2Thr
}

// weight is the relative chance of a person of dim-1 target t to be picked as
// the larger end of a dim-1 edge.
func (m *model) weight(t float64) float64 { return min(t, acceptCap*m.tBar) }

// created is the expected number of dim-1 edges a person of target degree d
// creates towards larger indices: its dim-1 target minus what it is expected
// to receive from smaller ones.
func (m *model) created(d float64) float64 {
	t := m.dim1Target(d)
	return m.lambda * max(0, t-m.weight(t)/m.wBar*m.tBar/2)
}

// acceptThreshold is the 64-bit acceptance threshold of candidate j for the
// dim-1 rejection sampler: P(accept) = weight/(κ·tBar) ∈ [0, 1].
func (m *model) acceptThreshold(j int64) uint64 {
	a := m.weight(m.dim1Target(m.degree(j))) / (acceptCap * m.tBar)
	if a >= 1 {
		return math.MaxUint64
	}
	return uint64(a * 0x1p64)
}

// creation is person i's creationDate: increasing with i on average (like
// LDBC, where ids are grouped by join time), ±3% of the period (about a
// month) of jitter, never clamped.
func (m *model) creation(i int64) int64 {
	const j = 0.03
	u := unit(hash2(m.keys[tagCreate], uint64(i)))
	frac := j + (1-2*j)*(float64(i)+0.5)/float64(m.n) + (2*u-1)*j // in (0, 1)
	return min(simStart+int64(frac*float64(simEnd-simStart)), simEnd-1)
}

// knowsDate is the creationDate of the friendship {i, j}: after both persons
// joined, skewed towards soon after the later one did.
func (m *model) knowsDate(i, j, ci, cj int64) int64 {
	lo := max(ci, cj)
	u := unit(hash2(hash2(m.keys[tagDate], uint64(i)), uint64(j)))
	return lo + int64(float64(simEnd-1-lo)*u*u)
}

// shardOf validates and normalises the shard selection of cfg.
func shardOf(cfg Config) (shard, shards int64, err error) {
	if cfg.Shards < 0 {
		return 0, 0, fmt.Errorf("ldbc gen: Shards %d < 0", cfg.Shards)
	}
	if cfg.Shards <= 1 {
		if cfg.Shard != 0 {
			return 0, 0, fmt.Errorf("ldbc gen: Shard %d without Shards > 1", cfg.Shard)
		}
		return 0, 1, nil
	}
	if cfg.Shard < 0 || cfg.Shard >= cfg.Shards {
		return 0, 0, fmt.Errorf("ldbc gen: Shard %d out of range [0, %d)", cfg.Shard, cfg.Shards)
	}
	return int64(cfg.Shard), int64(cfg.Shards), nil
}
