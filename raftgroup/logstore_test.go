package raftgroup

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// logStoreHarness drives a logStore the way the append writer does: every
// change is written to RocksDB first, then recorded in the store. Beside it
// runs raft's own MemoryStorage, the reference for what raft must read.
type logStoreHarness struct {
	t     *testing.T
	db    *grocksdb.DB
	id    GroupID
	store *logStore
	ref   *raft.MemoryStorage
}

func newLogStoreHarness(t *testing.T, cacheBytes int64) *logStoreHarness {
	t.Helper()
	db := openTestDB(t, t.TempDir())
	t.Cleanup(db.Close)
	id := GroupID{3, 9}
	st := bootstrapState([]uint64{1})
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	if err := writeBootstrap(wb, id, st); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(grocksdb.NewDefaultWriteOptions(), wb); err != nil {
		t.Fatal(err)
	}
	// The store is built from what loadState finds, as AddGroup does.
	loaded, found, err := loadState(db, id)
	if err != nil || !found {
		t.Fatalf("loadState: found %t, %v", found, err)
	}
	ref := raft.NewMemoryStorage()
	if err := ref.ApplySnapshot(&rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: new(uint64(initialIndex)), Term: new(uint64(initialTerm)), ConfState: &rpb.ConfState{}}}); err != nil {
		t.Fatal(err)
	}
	return &logStoreHarness{t: t, db: db, id: id, store: newLogStore(id, db, newEntryCache(cacheBytes), loaded), ref: ref}
}

func (h *logStoreHarness) write(fill func(wb *grocksdb.WriteBatch)) {
	h.t.Helper()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	fill(wb)
	if err := h.db.Write(grocksdb.NewDefaultWriteOptions(), wb); err != nil {
		h.t.Fatal(err)
	}
}

func (h *logStoreHarness) append(ents []*rpb.Entry) {
	h.t.Helper()
	last, _ := h.store.LastIndex()
	h.write(func(wb *grocksdb.WriteBatch) {
		if err := appendEntries(wb, h.id, ents, last); err != nil {
			h.t.Fatal(err)
		}
	})
	if err := h.store.Append(ents); err != nil {
		h.t.Fatalf("Append: %v", err)
	}
	if err := h.ref.Append(ents); err != nil {
		h.t.Fatalf("reference Append: %v", err)
	}
}

func (h *logStoreHarness) compact(to uint64) {
	h.t.Helper()
	first, _ := h.store.FirstIndex()
	term, err := h.store.Term(to)
	if err != nil {
		h.t.Fatalf("Term(%d) before compacting: %v", to, err)
	}
	h.write(func(wb *grocksdb.WriteBatch) {
		wb.DeleteRange(logKey(h.id, first), logKey(h.id, to+1))
		putTruncated(wb, h.id, to, term)
	})
	if err := h.store.Compact(to); err != nil {
		h.t.Fatalf("Compact(%d): %v", to, err)
	}
	if err := h.ref.Compact(to); err != nil {
		h.t.Fatalf("reference Compact(%d): %v", to, err)
	}
}

func (h *logStoreHarness) applySnapshot(index, term uint64) {
	h.t.Helper()
	h.write(func(wb *grocksdb.WriteBatch) {
		wb.DeleteRange(logKey(h.id, 0), logKey(h.id, 1<<62))
		putTruncated(wb, h.id, index, term)
	})
	snap := &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: new(index), Term: new(term), ConfState: &rpb.ConfState{}}}
	if err := h.store.ApplySnapshot(snap); err != nil {
		h.t.Fatalf("ApplySnapshot(%d): %v", index, err)
	}
	if err := h.ref.ApplySnapshot(snap); err != nil {
		h.t.Fatalf("reference ApplySnapshot(%d): %v", index, err)
	}
}

// check compares every read raft can make with the reference.
func (h *logStoreHarness) check(step string) {
	h.t.Helper()
	first, _ := h.store.FirstIndex()
	last, _ := h.store.LastIndex()
	rFirst, _ := h.ref.FirstIndex()
	rLast, _ := h.ref.LastIndex()
	if first != rFirst || last != rLast {
		h.t.Fatalf("%s: log [%d, %d], reference [%d, %d]", step, first, last, rFirst, rLast)
	}
	for i := first - 1; i <= last; i++ {
		got, err := h.store.Term(i)
		want, rerr := h.ref.Term(i)
		if got != want || (err == nil) != (rerr == nil) {
			h.t.Fatalf("%s: Term(%d) = %d, %v; reference %d, %v", step, i, got, err, want, rerr)
		}
	}
	// raft compares Storage errors with ==: a wrapped ErrCompacted would
	// make it panic.
	if _, err := h.store.Term(first - 2); first >= 2 && err != raft.ErrCompacted {
		h.t.Fatalf("%s: Term before the truncation point: %v, want ErrCompacted", step, err)
	}
	if _, err := h.store.Entries(first-1, last+1, noLimit); first > 1 && err != raft.ErrCompacted {
		h.t.Fatalf("%s: Entries from the truncation point: %v, want ErrCompacted", step, err)
	}
	for _, r := range [][2]uint64{{first, last + 1}, {first, first + 1}, {(first + last) / 2, last + 1}, {last, last + 1}} {
		if r[0] >= r[1] || r[0] < first || r[1] > last+1 {
			continue
		}
		for _, maxSize := range []uint64{noLimit, 0, 300} {
			got, err := h.store.Entries(r[0], r[1], maxSize)
			if err != nil {
				h.t.Fatalf("%s: Entries(%d, %d, %d): %v", step, r[0], r[1], maxSize, err)
			}
			want, _ := h.ref.Entries(r[0], r[1], maxSize)
			if len(got) != len(want) {
				h.t.Fatalf("%s: Entries(%d, %d, %d) gave %d entries, reference %d", step, r[0], r[1], maxSize, len(got), len(want))
			}
			for i := range got {
				if !proto.Equal(got[i], want[i]) {
					h.t.Fatalf("%s: Entries(%d, %d, %d)[%d] = %v, reference %v", step, r[0], r[1], maxSize, i, got[i], want[i])
				}
			}
		}
	}
}

func entriesOf(from, to, term uint64, payload int) []*rpb.Entry {
	var ents []*rpb.Entry
	for i := from; i <= to; i++ {
		data := fmt.Appendf(nil, "%0*d", payload, i)
		ents = append(ents, &rpb.Entry{Index: new(i), Term: new(term), Type: rpb.EntryType_EntryNormal.Enum(), Data: data})
	}
	return ents
}

// TestLogStoreMatchesMemoryStorage: a seeded run of appends (with raft's
// overwrites of a conflicting suffix), truncations and snapshots leaves the
// disk-backed logStore answering every read as raft's MemoryStorage does,
// with the entry cache large, tiny (mostly misses: reads from RocksDB) and
// off.
func TestLogStoreMatchesMemoryStorage(t *testing.T) {
	for _, cache := range []struct {
		name  string
		bytes int64
	}{{"cache holds all", 64 << 20}, {"cache of 2 KiB", 2 << 10}, {"no cache", -1}} {
		t.Run(cache.name, func(t *testing.T) {
			h := newLogStoreHarness(t, cache.bytes)
			rng := rand.New(rand.NewPCG(7, 11))
			term := uint64(initialTerm)
			for step := range 300 {
				first, _ := h.store.FirstIndex()
				last, _ := h.store.LastIndex()
				switch op := rng.IntN(10); {
				case op < 6: // append after the end
					h.append(entriesOf(last+1, last+1+uint64(rng.IntN(20)), term, 10+rng.IntN(200)))
				case op < 8 && last >= first: // a new leader overwrites a suffix
					term++
					from := first + uint64(rng.IntN(int(last-first+1)))
					h.append(entriesOf(from, from+uint64(rng.IntN(5)), term, 10+rng.IntN(200)))
				case op < 9 && last > first: // truncate
					h.compact(first + uint64(rng.IntN(int(last-first))))
				case op == 9 && rng.IntN(4) == 0: // a snapshot replaces the log
					term++
					h.applySnapshot(last+uint64(rng.IntN(10))+1, term)
				}
				h.check(fmt.Sprintf("step %d", step))
			}
			st := h.store.cache.stats()
			if cache.bytes > 0 && st.HighWater > cache.bytes {
				t.Fatalf("entry cache high water %d over its budget %d", st.HighWater, cache.bytes)
			}
			// The reads must have gone where the case says.
			if (cache.bytes > 0) != (st.Hits > 0) || (cache.bytes < 64<<20) != (st.Misses > 0) {
				t.Fatalf("entry cache of %d bytes: %d hits, %d misses", cache.bytes, st.Hits, st.Misses)
			}
		})
	}
}

// TestLogStoreReloads: what loadState finds after a restart (terms, sizes,
// bounds; the entries stay on disk) answers as the store did before it.
func TestLogStoreReloads(t *testing.T) {
	h := newLogStoreHarness(t, 1<<20)
	h.append(entriesOf(6, 40, 6, 50))
	h.append(entriesOf(30, 60, 7, 80))
	h.compact(20)
	h.write(func(wb *grocksdb.WriteBatch) {
		hs := &rpb.HardState{Term: new(uint64(7)), Commit: new(uint64(60))}
		if err := putHardState(wb, h.id, hs); err != nil {
			t.Fatal(err)
		}
		putApplied(wb, h.id, 60)
	})
	loaded, found, err := loadState(h.db, h.id)
	if err != nil || !found {
		t.Fatalf("loadState: found %t, %v", found, err)
	}
	h.store = newLogStore(h.id, h.db, newEntryCache(1<<20), loaded)
	h.check("after reload")
	if got := h.store.catchUpStart(20, 60, 5*80); got != 55 {
		t.Fatalf("catchUpStart keeping 400 payload bytes of 80-byte entries up to 60: %d, want 55 (entries 56…60 kept)", got)
	}
	if got := h.store.catchUpStart(50, 60, 1<<20); got != 50 {
		t.Fatalf("catchUpStart with room for all: %d, want 50", got)
	}
}

// TestLogStoreTruncationWindow: between the worker's decision to truncate
// and the append writer recording it, RocksDB may already lack the
// entries; a read of them must answer exactly raft.ErrCompacted (raft
// then sends a snapshot), never another error, on which raft panics.
func TestLogStoreTruncationWindow(t *testing.T) {
	for _, cacheBytes := range []int64{-1, 1 << 20} {
		t.Run(fmt.Sprintf("cache %d", cacheBytes), func(t *testing.T) {
			h := newLogStoreHarness(t, cacheBytes)
			h.append(entriesOf(6, 40, 6, 50))
			h.store.markTruncating(20)
			h.write(func(wb *grocksdb.WriteBatch) { wb.DeleteRange(logKey(h.id, 6), logKey(h.id, 21)) })
			for _, lo := range []uint64{6, 10, 20} {
				if _, err := h.store.Entries(lo, 30, noLimit); err != raft.ErrCompacted {
					t.Fatalf("Entries(%d, 30) after the decision, before Compact: %v, want ErrCompacted", lo, err)
				}
			}
			if ents, err := h.store.Entries(21, 30, noLimit); err != nil || len(ents) != 9 {
				t.Fatalf("Entries(21, 30): %d entries, %v", len(ents), err)
			}
			if term, err := h.store.Term(15); err != nil || term != 6 {
				t.Fatalf("Term(15) before Compact: %d, %v (terms are kept in memory)", term, err)
			}
			if err := h.store.Compact(20); err != nil {
				t.Fatal(err)
			}
			if _, err := h.store.Entries(20, 30, noLimit); err != raft.ErrCompacted {
				t.Fatalf("Entries(20, 30) after Compact: %v", err)
			}
		})
	}
}

// TestLogStoreStaleSnapshotFollowsDisk: installSnapshot resets the log on
// disk before the logStore hears of the snapshot; even one at or below the
// truncation point leaves the store describing what is on disk (an empty
// log at the snapshot), reported with ErrSnapOutOfDate.
func TestLogStoreStaleSnapshotFollowsDisk(t *testing.T) {
	h := newLogStoreHarness(t, 1<<20)
	h.append(entriesOf(6, 40, 6, 50))
	h.compact(30)
	snap := &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{Index: new(uint64(25)), Term: new(uint64(6)), ConfState: &rpb.ConfState{}}}
	if err := h.store.ApplySnapshot(snap); err != raft.ErrSnapOutOfDate {
		t.Fatalf("ApplySnapshot below the truncation point: %v, want ErrSnapOutOfDate", err)
	}
	first, _ := h.store.FirstIndex()
	last, _ := h.store.LastIndex()
	if first != 26 || last != 25 {
		t.Fatalf("after a stale snapshot at 25: log [%d, %d], want empty at 26", first, last)
	}
	if _, ok := h.store.cache.get(h.id, 31, 41, noLimit); ok {
		t.Fatal("the cache still serves entries the snapshot removed")
	}
}
