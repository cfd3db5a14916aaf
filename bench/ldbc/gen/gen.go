// Package gen generates LDBC-SNB-like Person and knows data: the files
// person_0_0.csv and person_knows_person_0_0.csv of the LDBC SNB Interactive
// v1 "CsvComposite" export with epoch-millisecond dates ('|'-delimited, one
// header line, same headers and value formats as ../shared/data/ldbc-sf0.1),
// at any scale factor in [0.1, 1000], deterministically from a seed, in
// memory independent of the scale factor.
//
// # Sizes
//
// Sizes gives the published person and knows counts per scale factor
// (interpolated log-log in between). Generated data has exactly that many
// persons and a number of knows rows within ±2% of it (in practice within
// ±0.6% at SF0.1 and ±0.1% from SF1 on, see below).
//
// # Persons
//
// Person i (0 ≤ i < n) has id PersonID(i) — sparse and increasing with i,
// above 2^32 from i = 4096 — and attributes drawn from a PRNG keyed by
// (seed, i): a coarse "country" profile picks Zipf-skewed first and last
// names (so that a few first names such as "John", "Jun" or "Rahul" are far
// more frequent than the rest, as IC1-style queries expect), the languages
// ("zh;en", "en", …), the first octet of locationIP and a local mail domain;
// gender is male/female, birthday a day in 1980–1989, browserUsed one of
// Firefox/Chrome/Internet Explorer/Safari/Opera with LDBC's frequencies, email
// 1–3 addresses "<firstName><id>@<domain>". creationDate lies in
// 2010-01-01..2012-12-31 UTC and grows with i (±1 month of jitter), like
// LDBC's ids which are grouped by join time.
//
// # Knows: degrees
//
// Each person gets a target degree D_i from a lognormal distribution
// (σ = 1, median ≈ 0.6 × mean) capped at 16 × mean, scaled so that the mean
// is 2·knows/persons. That mean grows slowly with the scale factor (18 at
// SF0.1, 37 at SF1, 67 at SF10, 136 at SF1000), as in LDBC's Datagen, which
// draws degrees from a Facebook degree histogram rescaled per scale factor.
// The degrees are stratified: person i gets the quantile stratum rank(i) of
// the distribution (rank a keyed pseudo-random permutation), jittered inside
// the stratum, so the n degrees follow the distribution almost exactly and
// the total hardly depends on the seed.
//
// # Knows: edges
//
// Friends are found along two "correlation dimensions", as in Datagen:
//
//   - Random dimension (≈10% of the edges). A keyed permutation perm orders
//     the persons randomly; each pair of positions (q, q+d), 1 ≤ d ≤ 32, is a
//     friendship with probability p2 = 0.1·mean/64, decided by a hash of
//     (seed, q, d), so either end can evaluate it. Everyone gets ≈ 10% of
//     the mean degree this way (independently of its own target, which keeps
//     the check to one hash). These long-range edges make the graph
//     small-world: without them k-hop neighbourhoods and shortest paths would
//     be those of a band graph.
//
//   - Sliding window (the rest). Persons are in index order, which plays
//     the role of Datagen's similarity order. Person i creates c_i
//     friendships with persons j > i at distances j−i drawn from an
//     exponential kernel (Datagen uses a geometric one) of mean
//     μ_i = max(μ0, 3·c_i), μ0 = min(1000, n/16) persons, truncated at
//     10·μ_i and at the last person: most friends are within a few hundred to
//     a few thousand positions. A candidate j is accepted with probability
//     ∝ w_j = min(T_j, 3·mean T), T_j = D_j − (expected random-dimension
//     degree) being j's target in this dimension, so j receives about
//     w_j/mean(w) · mean(T)/2 friendships from smaller persons. c_i is T_i
//     minus that expected inflow, so each person's final degree matches its
//     target in expectation. c_i is multiplied by a correction λ ≈ 1,
//     computed by quadrature so that the expected total is exact. The
//     distinct j are kept in a per-person set.
//
// Person i can own at most n−1−i rows, so the last persons fall short of
// their quota (by up to a few percent of all rows at SF0.1, depending on
// where high-degree persons land). The model measures that shortfall once, by
// generating those owners up front (8·c_i > n−1−i: a few hundred plus the
// high-degree ones near the end), and raises λ to compensate. The
// measurement is deterministic, so every shard finds the same λ. This keeps
// the knows count within ±0.6% of Sizes' at SF0.1 and ±0.1% from SF1 on
// (over 20 seeds; ±2% is promised).
//
// A friendship {i, j} with i < j is written once, by i (its "owner"), as the
// row i|j|date; the rows of one owner are sorted by j, owners come in index
// (= id) order. Pairs are unique because only the smaller end writes a pair
// and it dedupes its own set. There are no self-loops. The friendship's
// creationDate is after both persons' creationDate and before 2013, skewed
// towards soon after the later one joined.
//
// # Streaming, constant memory
//
// Every decision is a pure function of (scale factor, seed, person or
// position index): attributes, target degree, creationDate and each owner's
// draws come from PRNGs (math/rand/v2 PCG) or hashes keyed by the index, and
// the permutations are Feistel networks computed on the fly. Generating the
// rows of owner i needs only the acceptance weights of persons i+1 ..
// i+reach (a ring buffer of at most 10·max(μ0, 3·max c) entries), i's
// partner set and 64 hashes for the random dimension. Memory is therefore
// O(max degree) — under a megabyte of state at SF1000 (3.6M persons, 245M
// rows; ~9 MB RSS in all) — and output goes through 1 MB buffers as it is
// produced.
//
// # Shards
//
// With Shards = s > 1, shard k generates only the persons i ≡ k (mod s) and
// the knows rows they own, into person_k_0.csv and person_knows_person_k_0.csv
// (like Datagen's per-thread part files). The shards can run anywhere, in any
// order; their union equals the unsharded output row for row. Output is
// byte-identical for the same (scale factor, seed) whatever the sharding, run
// or machine of the same architecture (floating-point library differences
// between architectures could in principle move a row).
package gen

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// Config selects what to generate.
type Config struct {
	ScaleFactor float64 // in [0.1, 1000]; see Sizes
	Seed        int64
	// OutDir is created if missing; Generate writes person_0_0.csv and
	// person_knows_person_0_0.csv (or person_<Shard>_0.csv and
	// person_knows_person_<Shard>_0.csv when Shards > 1) into it.
	OutDir string
	// Shard and Shards optionally restrict generation to the persons i with
	// i % Shards == Shard and the knows rows they own. Shards 0 or 1 means all.
	Shard, Shards int
	// Gzip writes .csv.gz files instead of .csv.
	Gzip bool
}

// Stats reports what Generate wrote.
type Stats struct {
	Persons, Knows int64 // rows, headers excluded
	Bytes          int64 // bytes written to the files (compressed size if Gzip)
}

const bufSize = 1 << 20

// Generate writes the Person and knows files for cfg. Both are written under
// temporary names (<file>.tmp) and renamed only when both are complete; on
// error or cancellation the temporary files are removed and the error
// (ctx.Err() on cancellation) is returned.
func Generate(ctx context.Context, cfg Config) (Stats, error) {
	m, err := newModel(cfg.ScaleFactor, cfg.Seed)
	if err != nil {
		return Stats{}, err
	}
	shard, shards, err := shardOf(cfg)
	if err != nil {
		return Stats{}, err
	}
	if cfg.OutDir == "" {
		return Stats{}, errors.New("ldbc gen: OutDir is empty")
	}
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return Stats{}, fmt.Errorf("ldbc gen: %w", err)
	}
	ext := ".csv"
	if cfg.Gzip {
		ext = ".csv.gz"
	}
	part := "_" + strconv.FormatInt(shard, 10) + "_0" + ext
	pPath := filepath.Join(cfg.OutDir, "person"+part)
	kPath := filepath.Join(cfg.OutDir, "person_knows_person"+part)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg             sync.WaitGroup
		st             Stats
		pBytes, kBytes int64
		pErr, kErr     error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		pBytes, pErr = writeFile(pPath, cfg.Gzip, PersonHeader, func(out *sink) error {
			return m.eachPerson(ctx, shard, shards, func(p *personRec) error {
				st.Persons++
				out.buf = p.appendCSV(out.buf)
				return out.maybeFlush()
			})
		})
		if pErr != nil {
			cancel()
		}
	}()
	kBytes, kErr = writeFile(kPath, cfg.Gzip, KnowsHeader, func(out *sink) error {
		return m.eachKnows(ctx, shard, shards, func(k KnowsRow) error {
			st.Knows++
			b := strconv.AppendInt(out.buf, k.Src, 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, k.Dst, 10)
			b = append(b, '|')
			b = strconv.AppendInt(b, k.CreationDate, 10)
			out.buf = append(b, '\n')
			return out.maybeFlush()
		})
	})
	if kErr != nil {
		cancel()
	}
	wg.Wait()
	st.Bytes = pBytes + kBytes
	err = firstError(pErr, kErr)
	if err == nil {
		if err = os.Rename(pPath+".tmp", pPath); err == nil {
			err = os.Rename(kPath+".tmp", kPath)
		}
	}
	if err != nil {
		os.Remove(pPath + ".tmp")
		os.Remove(kPath + ".tmp")
		return Stats{}, err
	}
	return st, nil
}

// firstError prefers a real failure over the cancellation it caused.
func firstError(errs ...error) error {
	var first error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// sink is a buffered, counted, optionally compressed output file.
type sink struct {
	buf []byte
	w   io.Writer
}

func (s *sink) maybeFlush() error {
	if len(s.buf) < bufSize {
		return nil
	}
	return s.flush()
}

func (s *sink) flush() error {
	_, err := s.w.Write(s.buf)
	s.buf = s.buf[:0]
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeFile writes header and then whatever body appends to the sink into
// path+".tmp" (removed on error; the caller renames it). It returns the bytes
// written.
func writeFile(path string, gz bool, header string, body func(*sink) error) (n int64, err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return 0, fmt.Errorf("ldbc gen: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	cw := &countingWriter{w: f}
	out := &sink{buf: make([]byte, 0, bufSize+4096), w: cw}
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(cw, gzip.BestSpeed)
		out.w = zw
	}
	out.buf = append(append(out.buf, header...), '\n')
	if err = body(out); err != nil {
		return 0, err
	}
	if err = out.flush(); err != nil {
		return 0, fmt.Errorf("ldbc gen: %w", err)
	}
	if zw != nil {
		if err = zw.Close(); err != nil {
			return 0, fmt.Errorf("ldbc gen: %w", err)
		}
	}
	if err = f.Close(); err != nil {
		return 0, fmt.Errorf("ldbc gen: %w", err)
	}
	return cw.n, nil
}
