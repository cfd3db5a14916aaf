package raftgroup

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// TestApplyBatchReadsItsOwnWrites checks that Get and Scan see the database
// merged with this round's writes: new keys, overwrites and deletes.
func TestApplyBatchReadsItsOwnWrites(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	for _, k := range []string{"p/a", "p/c", "p/e", "q/z"} {
		if err := db.Put(wo, []byte(k), []byte("db:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	b := newApplyBatch(db)
	defer b.destroy()
	b.Put([]byte("p/b"), []byte("new:b"))
	b.Put([]byte("p/c"), []byte("new:c"))
	b.Delete([]byte("p/e"))
	b.Put([]byte("p/f"), []byte("new:f"))
	b.Delete([]byte("p/f"))
	b.Put([]byte("p/g"), []byte("new:g"))

	get := func(k string) string {
		v, err := b.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return "<nil>"
		}
		return string(v)
	}
	for k, want := range map[string]string{"p/a": "db:p/a", "p/b": "new:b", "p/c": "new:c", "p/e": "<nil>", "p/f": "<nil>", "p/x": "<nil>"} {
		if got := get(k); got != want {
			t.Errorf("Get(%s) = %s, want %s", k, got, want)
		}
	}

	scan := func(start string, limit int) []string {
		var out []string
		var st []byte
		if start != "" {
			st = []byte(start)
		}
		err := b.Scan([]byte("p/"), st, func(k, v []byte) (bool, error) {
			out = append(out, fmt.Sprintf("%s=%s", k, v))
			return len(out) < limit, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := scan("", 100), []string{"p/a=db:p/a", "p/b=new:b", "p/c=new:c", "p/g=new:g"}; !slices.Equal(got, want) {
		t.Errorf("Scan = %v, want %v", got, want)
	}
	if got, want := scan("p/bb", 100), []string{"p/c=new:c", "p/g=new:g"}; !slices.Equal(got, want) {
		t.Errorf("Scan from p/bb = %v, want %v", got, want)
	}
	if got, want := scan("", 2), []string{"p/a=db:p/a", "p/b=new:b"}; !slices.Equal(got, want) {
		t.Errorf("Scan stopped after 2 = %v, want %v", got, want)
	}

	// Once written, the database alone holds the same state.
	if err := b.Write(wo); err != nil {
		t.Fatal(err)
	}
	fresh := newApplyBatch(db)
	defer fresh.destroy()
	var after []string
	if err := fresh.Scan([]byte("p/"), nil, func(k, v []byte) (bool, error) {
		after = append(after, fmt.Sprintf("%s=%s", k, v))
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"p/a=db:p/a", "p/b=new:b", "p/c=new:c", "p/g=new:g"}; !slices.Equal(after, want) {
		t.Errorf("after write: %v, want %v", after, want)
	}
}

// TestApplyBatchAtomically checks that a failed command leaves neither
// overlay nor write batch changed, and a successful one keeps everything.
func TestApplyBatchAtomically(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := db.Put(wo, []byte("k/a"), []byte("db")); err != nil {
		t.Fatal(err)
	}
	b := newApplyBatch(db)
	defer b.destroy()
	b.Put([]byte("k/b"), []byte("kept"))
	err := b.Atomically(func() error {
		b.Put([]byte("k/a"), []byte("lost"))
		b.Delete([]byte("k/b"))
		b.Put([]byte("k/c"), []byte("lost"))
		return fmt.Errorf("boom")
	})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("Atomically = %v, want boom", err)
	}
	if err := b.Atomically(func() error {
		b.Put([]byte("k/d"), []byte("ok"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"k/a": "db", "k/b": "kept", "k/c": "", "k/d": "ok"}
	check := func(when string, get func(string) []byte) {
		for k, w := range want {
			if got := string(get(k)); got != w {
				t.Errorf("%s: %s = %q, want %q", when, k, got, w)
			}
		}
	}
	check("overlay", func(k string) []byte { v, _ := b.Get([]byte(k)); return v })
	if err := b.Write(wo); err != nil {
		t.Fatal(err)
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	check("written", func(k string) []byte { v, _ := db.GetBytes(ro, []byte(k)); return v })
}

// TestApplyBatchStagesFinalStateInKeyOrder checks what reaches RocksDB: one
// record per key written this round, its last value (or a delete), in key
// order, after the raft state the engine wrote directly; and that a
// rolled-back command leaves no record.
func TestApplyBatchStagesFinalStateInKeyOrder(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	b := newApplyBatch(db)
	defer b.destroy()
	b.wb.Put([]byte("raft/applied"), []byte("7")) // as putApplied does
	b.Put([]byte("k/d"), []byte("d1"))
	b.Put([]byte("k/b"), []byte("b1"))
	b.Put([]byte("k/d"), []byte("d2"))
	b.Delete([]byte("k/a"))
	b.Put([]byte("k/c"), []byte("c1"))
	b.Delete([]byte("k/c"))
	b.Put([]byte("k/b"), []byte("b2"))
	_ = b.Atomically(func() error {
		b.Put([]byte("k/0"), []byte("rolled back"))
		return fmt.Errorf("refused")
	})
	b.stage()
	var got []string
	it := b.wb.NewIterator()
	for it.Next() {
		r := it.Record()
		switch r.Type {
		case grocksdb.WriteBatchValueRecord:
			got = append(got, fmt.Sprintf("put %s=%s", r.Key, r.Value))
		case grocksdb.WriteBatchDeletionRecord:
			got = append(got, fmt.Sprintf("delete %s", r.Key))
		default:
			got = append(got, fmt.Sprintf("record type %d %s", r.Type, r.Key))
		}
	}
	want := []string{"put raft/applied=7", "delete k/a", "put k/b=b2", "delete k/c", "put k/d=d2"}
	if !slices.Equal(got, want) {
		t.Errorf("write batch = %v\nwant %v", got, want)
	}
	b.stage() // staged already: adds nothing
	if n := b.wb.Count(); n != len(want) {
		t.Errorf("after a second stage the batch has %d records, want %d", n, len(want))
	}
}

// BenchmarkApplyRoundWrite measures what an apply round's writes cost when
// shaped like an online edge import: per edge, its edge key, its source's
// degree key and the entry's next intent key, 1000 edges a round, into a
// 64 MiB memtable with flushes and compactions on. Sources are random
// vertices (of 2M, in 10 partitions) or, as in an edge file sorted by
// source (LDBC, SNAP), each source's 20 edges in a row; destinations are
// random. "call-order" is how the batch was written before it was staged:
// every Put into the WriteBatch as it is made (and into the overlay, which
// reads need either way); "staged" is ApplyBatch, the round's final state
// in key order. ns/op is per edge (three keys).
//
//	go test ./raftgroup -run '^$' -bench BenchmarkApplyRoundWrite -benchtime 1000000x
func BenchmarkApplyRoundWrite(b *testing.B) {
	const perRound = 1000
	for _, c := range []struct{ sources, mode string }{
		{"random", "call-order"}, {"random", "staged"}, {"by-source", "call-order"}, {"by-source", "staged"},
	} {
		mode := c.mode
		b.Run(c.sources+"/"+mode, func(b *testing.B) {
			db := openBenchDB(b)
			defer db.Close()
			wo := grocksdb.NewDefaultWriteOptions()
			defer wo.Destroy()
			rng := rand.New(rand.NewSource(1))
			edgeRow, degree := make([]byte, 20), make([]byte, 8)
			wb := grocksdb.NewWriteBatch()
			defer wb.Destroy()
			overlay := map[string][]byte{}
			ab := newApplyBatch(db)
			index := uint64(0)
			n, edges := 0, 0
			for b.Loop() {
				v := int64(rng.Intn(2_000_000))
				if c.sources == "by-source" {
					v = int64(edges / 20)
				}
				edges++
				part := int32(v%10 + 1)
				src := partition.EncodeInt64Vid(v)
				dst := partition.EncodeInt64Vid(int64(rng.Intn(2_000_000)))
				keys := [3][]byte{
					partition.EdgeKey(1, part, src, 1, 0, dst),
					partition.DegreeKey(1, part, src, 1),
					partition.IntentKey(1, part, index, uint32(n)),
				}
				vals := [3][]byte{edgeRow, degree, edgeRow}
				for i, k := range keys {
					if mode == "staged" {
						ab.Put(k, vals[i])
					} else {
						wb.Put(k, vals[i])
						overlay[string(k)] = append([]byte(nil), vals[i]...)
					}
				}
				if n++; n < perRound {
					continue
				}
				var err error
				if mode == "staged" {
					err = ab.Write(wo)
					ab.destroy()
					ab = newApplyBatch(db)
				} else {
					err = db.Write(wo, wb)
					wb.Clear()
					clear(overlay)
				}
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				index++
			}
			ab.destroy()
		})
	}
}

// TestApplyBatchDeleteRange checks that a range deletion lands after the
// round's earlier writes and before its later ones, together with the
// entry's applied index, and that it is refused inside Atomically.
func TestApplyBatchDeleteRange(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	for _, k := range []string{"p/a", "p/c", "q/z"} {
		if err := db.Put(wo, []byte(k), []byte("db:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	b := newApplyBatch(db)
	defer b.destroy()
	g := GroupID{Space: 1, Part: 2}
	b.cur.g, b.cur.index = g, 7
	b.Put([]byte("p/b"), []byte("before"))  // an earlier entry's write: deleted
	b.Put([]byte("q/y"), []byte("outside")) // outside the range: kept
	if err := b.Atomically(func() error { return b.DeleteRange([]byte("p/"), []byte("p0")) }); err == nil {
		t.Fatal("DeleteRange inside Atomically succeeded")
	}
	if err := b.DeleteRange([]byte("p/"), []byte("p0")); err != nil {
		t.Fatal(err)
	}
	// Written at once, applied index included.
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	if v, err := db.GetBytes(ro, partition.RaftAppliedKey(g.Space, g.Part)); err != nil || len(v) != 8 || v[7] != 7 {
		t.Fatalf("applied index after DeleteRange: %q, %v", v, err)
	}
	b.Put([]byte("p/d"), []byte("after")) // a later entry's write: kept
	for k, want := range map[string]string{"p/a": "", "p/b": "", "p/c": "", "p/d": "after", "q/y": "outside", "q/z": "db:q/z"} {
		if v, err := b.Get([]byte(k)); err != nil || string(v) != want {
			t.Errorf("Get(%s) = %q, %v; want %q", k, v, err, want)
		}
	}
	if err := b.Write(wo); err != nil {
		t.Fatal(err)
	}
	it := db.NewIterator(ro)
	defer it.Close()
	var keys []string
	for it.Seek([]byte("p/")); it.ValidForPrefix([]byte("p/")); it.Next() {
		keys = append(keys, string(it.Key().Data()))
	}
	if !slices.Equal(keys, []string{"p/d"}) {
		t.Errorf("keys under p/ = %v, want [p/d]", keys)
	}
}

// TestApplyBatchDeleteRangeForgetsCachedValues: a value the group's apply
// cache held for a key in the range (a degree) is gone after the range
// deletion, not read back from the cache; and the replica's data format
// version, inside the data range, stays.
func TestApplyBatchDeleteRangeForgetsCachedValues(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	g := GroupID{Space: 3, Part: 1}
	lo, hi := partition.DataRange(g.Space, g.Part)
	cached := append(append([]byte(nil), lo...), "c/degree"...) // in the range, and a cached key
	if err := db.Put(wo, cached, []byte("5")); err != nil {
		t.Fatal(err)
	}
	wb := grocksdb.NewWriteBatch()
	putDataVersion(wb, g)
	if err := db.Write(wo, wb); err != nil {
		t.Fatal(err)
	}
	wb.Destroy()
	cache := newApplyCache(&applyCacheBudget{max: 100})
	b := newApplyBatch(db)
	defer b.destroy()
	b.cacheKey = func(k []byte) bool { return bytes.Contains(k, []byte("c/")) }
	b.cur.g, b.cur.index, b.cur.cache = g, 9, cache
	if v, err := b.Get(cached); err != nil || string(v) != "5" {
		t.Fatalf("Get before = %q, %v", v, err)
	}
	if _, ok := cache.get(cached); !ok {
		t.Fatal("the read did not fill the cache")
	}
	if err := b.DeleteRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Get(cached); err != nil || v != nil {
		t.Fatalf("Get after DeleteRange = %q, %v; want nothing", v, err)
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	if v, err := db.GetBytes(ro, partition.DataVersionKey(g.Space, g.Part)); err != nil || len(v) != 4 {
		t.Fatalf("data version after DeleteRange: %x, %v", v, err)
	}
}
