package importer

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestOnlineImportKeepsRaftEntryCacheBounded: an online import of 200,000
// edges into a replicated space, on stores whose raft entry cache is far
// smaller than the log the import writes, never holds more entries in
// memory than the budget (the cache's high-water mark, taken after each
// add's eviction), evicts (so the bound was reached), reads older entries
// from RocksDB (followers, applies), and loses no edge.
func TestOnlineImportKeepsRaftEntryCacheBounded(t *testing.T) {
	const (
		edges    = 200_000
		vertices = 20_000
		budget   = 256 << 10 // a few of the import's batches
	)
	file := filepath.Join(t.TempDir(), "edges.txt")
	out, in := writeRandomEdgeList(t, file, edges, vertices)

	c := testcluster.Start(t, testcluster.Options{Stores: 3, RaftEntryCacheBytes: budget})
	s := c.Session()
	defer s.Close()
	cfg, err := SNAPConfig(file, "link", false, presetFor(c, "bounded", 3, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	sum := mustRun(t, cfg, Options{})
	if sum.Edges != edges || sum.Failed != 0 {
		t.Fatalf("summary %+v, want %d edges, no failures", sum, edges)
	}
	for i, st := range c.Stores {
		ec := st.Server.Engine().Stats().EntryCache
		t.Logf("store %d entry cache: limit %d, high water %d, now %d, %d hits, %d misses, %d evicted",
			i, ec.Limit, ec.HighWater, ec.Bytes, ec.Hits, ec.Misses, ec.Evicted)
		if ec.Limit != budget {
			t.Fatalf("store %d: entry cache limit %d, configured %d", i, ec.Limit, budget)
		}
		if ec.HighWater > budget || ec.Bytes > budget {
			t.Fatalf("store %d: entry cache reached %d bytes (holds %d), over its %d-byte budget", i, ec.HighWater, ec.Bytes, budget)
		}
		if ec.Evicted == 0 || ec.Misses == 0 {
			t.Fatalf("store %d: the import evicted %d entries from a %d-byte entry cache and read %d times from RocksDB: the bound was never tested", i, ec.Evicted, budget, ec.Misses)
		}
	}
	outs := sample(out, 400)
	compareAdjacency(t, "out-neighbours", out, neighbours(t, s, "bounded", "link", outs, false), outs)
	ins := sample(in, 400)
	compareAdjacency(t, "in-neighbours", in, neighbours(t, s, "bounded", "link", ins, true), ins)
}

// writeRandomEdgeList writes n distinct seeded random edges (no self-loops)
// among the given number of vertices as a SNAP edge list, and returns its
// out- and in-adjacency.
func writeRandomEdgeList(t *testing.T, file string, n, vertices int) (out, in map[int64][]int64) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(23, 5))
	seen := map[[2]int64]bool{}
	out, in = map[int64][]int64{}, map[int64][]int64{}
	for len(seen) < n {
		e := [2]int64{rng.Int64N(int64(vertices)), rng.Int64N(int64(vertices))}
		if e[0] == e[1] || seen[e] {
			continue
		}
		seen[e] = true
		out[e[0]] = append(out[e[0]], e[1])
		in[e[1]] = append(in[e[1]], e[0])
		fmt.Fprintf(w, "%d\t%d\n", e[0], e[1])
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out, in
}
