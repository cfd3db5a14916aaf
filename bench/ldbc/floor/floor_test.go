package floor

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/partition"
)

// smallRocksDB keeps test instances small.
var smallRocksDB = rocksopts.Options{BlockCacheMB: 8, WriteBufferMB: 4}

// randomGraph is a directed graph of n vertices with about n*avgDeg random
// edges, self-loops, duplicates and some negative ids included.
func randomGraph(seed int64, n, avgDeg int) *driver.Graph {
	r := driver.NewRand(seed)
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i*7919) - 1000 // some negative vids
	}
	var edges []driver.Edge
	for range n * avgDeg {
		a, b := ids[r.IntN(n)], ids[r.IntN(n)]
		if r.IntN(10) == 0 {
			a = ids[r.IntN(n/10+1)] // a few hubs
		}
		edges = append(edges, driver.Edge{Src: a, Dst: b})
	}
	return driver.NewGraph("random", ids, edges)
}

// bruteGo is nGQL's GO N STEPS on an adjacency map, written
// independently of the floor: the distinct frontier, every edge of the
// last step.
func bruteGo(adj map[int64][]int64, start int64, steps int) int64 {
	frontier := map[int64]bool{start: true}
	var rows int64
	for step := 1; step <= steps; step++ {
		next := map[int64]bool{}
		rows = 0
		for v := range frontier {
			for _, d := range adj[v] {
				rows++
				next[d] = true
			}
		}
		frontier = next
	}
	return rows
}

func TestGoMatchesBruteForce(t *testing.T) {
	g := randomGraph(7, 400, 4)
	adj := map[int64][]int64{}
	for _, e := range g.Edges {
		adj[e.Src] = append(adj[e.Src], e.Dst)
	}
	for _, parts := range []int32{1, 7} {
		f, err := Open(Options{Partitions: parts, RocksDB: smallRocksDB, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Load(g); err != nil {
			t.Fatal(err)
		}
		r := f.NewReader()
		for _, v := range g.Vertices {
			for steps := 1; steps <= 3; steps++ {
				got, err := r.Go(steps, v)
				if err != nil {
					t.Fatal(err)
				}
				if want := bruteGo(adj, v, steps); got != want {
					t.Fatalf("%d partitions: GO %d STEPS FROM %d: %d rows, want %d", parts, steps, v, got, want)
				}
			}
		}
		// A vertex that does not exist has no edges.
		if got, err := r.Go(2, 123456789); err != nil || got != 0 {
			t.Fatalf("GO FROM a missing vertex: %d, %v", got, err)
		}
		if _, err := r.Go(0, g.Vertices[0]); err == nil {
			t.Fatal("0 steps: no error")
		}
		r.Close()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKeys checks that Load writes storaged's keys: both halves of an
// edge, in the partitions of their owners, and the degrees.
func TestKeys(t *testing.T) {
	g := driver.NewGraph("two", nil, []driver.Edge{{Src: 3, Dst: 8}, {Src: 3, Dst: 4}})
	f, err := Open(Options{Partitions: 5, RocksDB: smallRocksDB, NoCompact: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Load(g); err != nil {
		t.Fatal(err)
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	get := func(key []byte) []byte {
		t.Helper()
		v, err := f.DB().GetBytes(ro, key)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	vid := partition.EncodeInt64Vid
	out := get(partition.EdgeKey(1, partition.PartOfInt64(3, 5), vid(3), 1, 0, vid(8)))
	if out == nil {
		t.Fatal("out-edge 3->8 missing")
	}
	in := get(partition.EdgeKey(1, partition.PartOfInt64(8, 5), vid(8), -1, 0, vid(3)))
	row, live, err := partition.EdgeRow(-1, in)
	if err != nil || !live || string(row) != string(out) {
		t.Fatalf("in-edge 8<-3: row %x live %v err %v, want the out-edge's row %x", row, live, err, out)
	}
	if d, _ := partition.DecodeDegree(get(partition.DegreeKey(1, partition.PartOfInt64(3, 5), vid(3), 1))); d != 2 {
		t.Fatalf("out-degree of 3: %d, want 2", d)
	}
	if d, _ := partition.DecodeDegree(get(partition.DegreeKey(1, partition.PartOfInt64(4, 5), vid(4), -1))); d != 1 {
		t.Fatalf("in-degree of 4: %d, want 1", d)
	}
	if get(partition.TagKey(1, partition.PartOfInt64(8, 5), vid(8), 1)) == nil {
		t.Fatal("tag row of 8 missing")
	}
	// NoCompact: reads still see the memtable.
	r := f.NewReader()
	defer r.Close()
	if n, err := r.Go(1, 3); err != nil || n != 2 {
		t.Fatalf("GO FROM 3: %d, %v", n, err)
	}
}

// TestSweep runs the floor through the driver's machinery at two
// concurrencies, under -race.
func TestSweep(t *testing.T) {
	g := randomGraph(3, 300, 5)
	f, err := Open(Options{Partitions: 4, RocksDB: smallRocksDB})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Load(g); err != nil {
		t.Fatal(err)
	}
	s, err := driver.NewSampler(g, driver.SizeBiased)
	if err != nil {
		t.Fatal(err)
	}
	inputs, _ := driver.MakeInputs(driver.InputVertex, g, s, 1, 200)
	steps, err := Steps("go2")
	if err != nil || steps != 2 {
		t.Fatalf("Steps(go2) = %d, %v", steps, err)
	}
	if _, err := Steps("fetch_edge"); err == nil || !strings.Contains(err.Error(), "go1, go2, go3") {
		t.Fatalf("Steps(fetch_edge): %v, want an error listing go1, go2, go3", err)
	}
	var mu sync.Mutex
	var observed int64
	res, err := driver.Sweep(context.Background(), "go2", f.Target(steps), []int{1, 4},
		driver.RunConfig{Count: 300, Warmup: 10 * time.Millisecond, Inputs: inputs, Observe: func(in driver.Input, out driver.Outcome) {
			mu.Lock()
			observed++
			mu.Unlock()
		}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || observed != 600 {
		t.Fatalf("%d results, %d observed, want 2 and 600", len(res), observed)
	}
	for _, r := range res {
		if r.Count != 300 || r.Errors != 0 || r.Server != nil || r.Rows == 0 || r.QPS <= 0 {
			t.Fatalf("result %+v", r)
		}
	}
}
