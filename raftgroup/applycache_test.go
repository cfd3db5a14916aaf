package raftgroup

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// cachedBatch returns an ApplyBatch over db whose reads of keys starting
// with "c/" go through cache, as the engine sets one up for a group.
func cachedBatch(db *grocksdb.DB, cache *applyCache) *ApplyBatch {
	b := newApplyBatch(db)
	b.cacheKey = func(k []byte) bool { return len(k) >= 2 && string(k[:2]) == "c/" }
	b.cur.cache = cache
	return b
}

// TestApplyCacheHoldsStoredValues checks the cache's invariant at the
// ApplyBatch: an entry is the key's value in the database, filled by a
// read and updated only by a written round (final values, not those of a
// failed command), and an ingest forgets it.
func TestApplyCacheHoldsStoredValues(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	put := func(k, v string) {
		t.Helper()
		if err := db.Put(wo, []byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	budget := &applyCacheBudget{max: 100}
	cache := newApplyCache(budget)
	get := func(b *ApplyBatch, k string) string {
		t.Helper()
		v, err := b.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return "<nil>"
		}
		return string(v)
	}
	round := func(fn func(b *ApplyBatch)) {
		t.Helper()
		b := cachedBatch(db, cache)
		defer b.destroy()
		fn(b)
		if err := b.Write(wo); err != nil {
			t.Fatal(err)
		}
	}
	put("c/x", "1")
	put("p/a", "1")
	round(func(b *ApplyBatch) {
		if got := get(b, "c/x"); got != "1" {
			t.Fatalf("first read of c/x = %s", got)
		}
		get(b, "c/absent")
		get(b, "p/a")
	})
	// Changed behind the batch's back: a cached key reads as cached (so
	// the cache is what answers), an uncached one as stored.
	put("c/x", "behind")
	put("c/absent", "behind")
	put("p/a", "2")
	round(func(b *ApplyBatch) {
		for k, want := range map[string]string{"c/x": "1", "c/absent": "<nil>", "p/a": "2"} {
			if got := get(b, k); got != want {
				t.Errorf("Get(%s) = %s, want %s", k, got, want)
			}
		}
		if err := b.Atomically(func() error {
			b.Put([]byte("c/x"), []byte("2"))
			b.Put([]byte("c/x"), []byte("3"))
			b.Delete([]byte("c/absent"))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := b.Atomically(func() error {
			b.Put([]byte("c/failed"), []byte("never"))
			b.Put([]byte("c/x"), []byte("never"))
			return fmt.Errorf("refused")
		}); err == nil {
			t.Fatal("failed command reported success")
		}
	})
	if v, ok := cache.get([]byte("c/x")); !ok || string(v) != "3" {
		t.Errorf("after the round, cache c/x = %q (%v), want the final value 3", v, ok)
	}
	if v, ok := cache.get([]byte("c/absent")); !ok || v != nil {
		t.Errorf("after the round, cache c/absent = %q (%v), want known absent", v, ok)
	}
	if _, ok := cache.get([]byte("c/failed")); ok {
		t.Error("a failed command's write reached the cache")
	}
	if n := budget.total.Load(); n != int64(len(cache.vals)) {
		t.Errorf("total %d, cache holds %d", n, len(cache.vals))
	}

	// An ingest may bring any key: the group's cache is forgotten.
	sst := filepath.Join(t.TempDir(), "in.sst")
	env := grocksdb.NewDefaultEnvOptions()
	defer env.Destroy()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	w := grocksdb.NewSSTFileWriter(env, opts)
	defer w.Destroy()
	if err := w.Open(sst); err != nil {
		t.Fatal(err)
	}
	if err := w.Add([]byte("c/x"), []byte("ingested")); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	round(func(b *ApplyBatch) {
		if err := b.IngestFiles([]string{sst}); err != nil {
			t.Fatal(err)
		}
		if got := get(b, "c/x"); got != "ingested" {
			t.Errorf("after an ingest, c/x = %s, want ingested", got)
		}
	})
	if n := budget.total.Load(); n != int64(len(cache.vals)) {
		t.Errorf("after ingest: total %d, cache holds %d", n, len(cache.vals))
	}
}

// TestApplyCacheBound checks that the caches of all groups together hold at
// most the configured entries, each group at most its share, that a group
// added after another filled the cache gets its share once the other has
// trimmed (as it does every tick, idle or not), and that reads stay right
// past the bound.
func TestApplyCacheBound(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	for i := range 20 {
		k := fmt.Sprintf("c/%d", i)
		if err := db.Put(wo, []byte(k), []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	budget := &applyCacheBudget{max: 4}
	read := func(cache *applyCache, i int) {
		t.Helper()
		batch := cachedBatch(db, cache)
		defer batch.destroy()
		k := fmt.Sprintf("c/%d", i)
		if v, err := batch.Get([]byte(k)); err != nil || string(v) != k {
			t.Fatalf("Get(%s) = %q, %v", k, v, err)
		}
	}
	check := func(what string, caches ...*applyCache) {
		t.Helper()
		n := 0
		for _, c := range caches {
			n += len(c.vals)
		}
		if total := budget.total.Load(); total != int64(n) || total > budget.max {
			t.Fatalf("%s: total %d for %d entries, bound %d", what, total, n, budget.max)
		}
	}
	a := newApplyCache(budget)
	for i := range 10 {
		read(a, i)
	}
	check("one group", a)
	if len(a.vals) != 4 {
		t.Fatalf("one group alone holds %d entries, want the whole bound 4", len(a.vals))
	}
	b := newApplyCache(budget)
	read(b, 10)
	check("second group before a tick", a, b)
	a.trim() // a's tick: its share is 2 now
	b.trim()
	for i := 10; i < 20; i++ {
		read(b, i)
	}
	check("two groups", a, b)
	if len(a.vals) != 2 || len(b.vals) != 2 {
		t.Fatalf("two groups hold %d and %d entries, want their shares of 2", len(a.vals), len(b.vals))
	}
	for i := range 20 { // past the bound, reads still answer right
		read(a, i)
	}
	a.release()
	b.clear()
	if n := budget.total.Load(); n != 0 || budget.groups.Load() != 1 {
		t.Fatalf("after release and clear: total %d, groups %d", n, budget.groups.Load())
	}
}

// counterApplier treats a command (key, decimal n) as "add n to the
// counter at key": its writes depend on its reads, so a replica that read
// a stale value would store a different counter from the others.
type counterApplier struct{}

func (counterApplier) Apply(b *ApplyBatch, g GroupID, index uint64, cmd []byte) ([]byte, error) {
	if len(cmd) < 8 {
		return nil, fmt.Errorf("short command")
	}
	key := partition.TagKey(g.Space, g.Part, cmd[:8], 1)
	add, err := strconv.ParseInt(string(cmd[8:]), 10, 64)
	if err != nil {
		return nil, err
	}
	old, err := b.Get(key)
	if err != nil {
		return nil, err
	}
	n := int64(0)
	if old != nil {
		if n, err = strconv.ParseInt(string(old), 10, 64); err != nil {
			return nil, err
		}
	}
	b.Put(key, []byte(strconv.FormatInt(n+add, 10)))
	return nil, nil
}

// A follower cut off while the others truncate their logs catches up by
// snapshot; the counters it had cached before must not survive the
// install, or its next increments would start from them.
func TestApplyCacheClearedBySnapshot(t *testing.T) {
	g := GroupID{6, 1}
	net, _, stores := startSnapshotCluster(t, g, 3, func(i int, c *Config) {
		shortLogs(i, c)
		c.Applier = counterApplier{}
		c.ApplyCacheKey = func([]byte) bool { return true }
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	converged := func(what string) string {
		t.Helper()
		for ctx.Err() == nil {
			v := stores[0].read(t, g, 1)
			if v != "" && stores[1].read(t, g, 1) == v && stores[2].read(t, g, 1) == v {
				return v
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%s: counters differ: %q %q %q", what, stores[0].read(t, g, 1), stores[1].read(t, g, 1), stores[2].read(t, g, 1))
		return ""
	}
	if err := propose(ctx, stores, g, 1, "1"); err != nil {
		t.Fatal(err)
	}
	converged("before the cut") // store 3 has read and cached the counter
	// Store 3 must not lead while it is cut off.
	for l := leaderOf(stores, g); l == nil || l.id == 3; l = leaderOf(stores, g) {
		if l != nil {
			if err := stores[2].engine.TransferLeadership(ctx, g, 1); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	net.mu.Lock()
	net.cut[3] = true
	net.mu.Unlock()
	for range 100 {
		if err := propose(ctx, stores[:2], g, 1, "1"); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range stores[:2] {
		if logEntryExists(t, s, g, 10) {
			t.Fatalf("store %d kept log entry 10: no snapshot would be needed", s.id)
		}
	}
	net.mu.Lock()
	net.cut[3] = false
	net.mu.Unlock()
	before := converged("after the snapshot")
	if err := propose(ctx, stores[:2], g, 1, "1000"); err != nil {
		t.Fatal(err)
	}
	after := converged("after the next increment")
	b, _ := strconv.Atoi(before)
	a, _ := strconv.Atoi(after)
	if a < b+1000 {
		t.Fatalf("counter went from %d to %d after adding 1000", b, a)
	}
}

// BenchmarkApplyDegreeReads is the read-modify-write of a counter per
// command that an edge write does to its vertices' degrees: rounds of 1000
// commands on random counters of 200K vertices (present after the first
// pass), each a Get and a Put, read from the database or through the
// group's applyCache. ns/op is per command, the round's write included.
//
//	go test ./raftgroup -run '^$' -bench BenchmarkApplyDegreeReads -benchtime 1000000x
func BenchmarkApplyDegreeReads(b *testing.B) {
	const perRound, vertices = 1000, 200_000
	for _, cached := range []bool{false, true} {
		name := "database"
		if cached {
			name = "cache"
		}
		b.Run(name, func(b *testing.B) {
			db := openBenchDB(b)
			defer db.Close()
			wo := grocksdb.NewDefaultWriteOptions()
			defer wo.Destroy()
			cache := newApplyCache(&applyCacheBudget{max: 1 << 20})
			newBatch := func() *ApplyBatch {
				ab := newApplyBatch(db)
				if cached {
					ab.cacheKey = partition.IsDegreeKey
					ab.cur.cache = cache
				}
				return ab
			}
			// Every counter exists, as degrees do once a vertex has edges.
			ab := newBatch()
			for v := range vertices {
				ab.Put(partition.DegreeKey(1, 1, partition.EncodeInt64Vid(int64(v)), 1), partition.EncodeDegree(1))
			}
			if err := ab.Write(wo); err != nil {
				b.Fatal(err)
			}
			ab.destroy()
			cache.clear()
			rng := rand.New(rand.NewSource(1))
			ab = newBatch()
			n := 0
			for b.Loop() {
				k := partition.DegreeKey(1, 1, partition.EncodeInt64Vid(int64(rng.Intn(vertices))), 1)
				cur, err := ab.Get(k)
				if err != nil {
					b.Fatal(err)
				}
				d, err := partition.DecodeDegree(cur)
				if err != nil || d == 0 {
					b.Fatalf("degree %d, %v", d, err)
				}
				ab.Put(k, partition.EncodeDegree(d+1))
				if n++; n < perRound {
					continue
				}
				if err := ab.Write(wo); err != nil {
					b.Fatal(err)
				}
				ab.destroy()
				ab = newBatch()
				n = 0
			}
			ab.destroy()
		})
	}
}
