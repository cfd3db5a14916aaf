package raftgroup

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/linxGnu/grocksdb"
	rpb "go.etcd.io/raft/v3/raftpb"

	"github.com/novagraph/novagraph/partition"
)

// ApplyBatch is what an Applier writes into: the write batch of one apply
// round on one RocksDB instance, plus reads that see the database as it
// will be once the batch is written. A state machine that reads while
// applying (to maintain indexes and degrees, to evaluate an UPDATE) must
// see the effects of the entries applied before it in the same round, or
// two entries on one key in one round would each read the stale value.
//
// Reads are deterministic because every replica applies the same entries in
// the same order on the same state: the database holds exactly the entries
// applied in earlier rounds (a round's batch is written before the next
// round applies), and the overlay holds those of this round.
//
// Groups own disjoint key ranges, so groups sharing one batch never see
// each other's keys. An ApplyBatch is used by one goroutine (the worker of
// the round) and is only valid during Apply.
//
// The Applier's writes reach RocksDB as the round's final state, one
// record per key in key order (stage), not as the sequence of Puts and
// Deletes that produced it. Both give the same database, since the batch
// is written atomically; the difference is the memtable's cost. A
// memtable insert that lands next to the previous one reuses its place
// in the skiplist, while one that lands elsewhere searches it from the
// top, missing the cache at almost every level (3.5-4.5 us here, the
// largest cost of an online import: docs/benchmarks.md). An edge write
// touches its edge, its vertex's degree and an intent, three regions of
// the key space, so in call order no insert lands near the last; in key
// order the edges of one vertex, the intents of one entry and the edges
// of one source row batch are neighbours, and a degree or index key
// written by many commands of the round is inserted once.
type ApplyBatch struct {
	db *grocksdb.DB
	// wb holds the raft state of the round (applied indexes, conf states)
	// as the engine writes it, and the Applier's writes once staged.
	wb *grocksdb.WriteBatch
	ro *grocksdb.ReadOptions
	// overlay holds every key written in this round and not yet staged
	// into wb: a nil value is a delete. Values are copies, since callers
	// may reuse their buffers.
	overlay map[string][]byte
	// undo records the overlay entries that writes since the oldest open
	// savepoint replaced, so Atomically can roll the overlay back together
	// with the write batch.
	undo       []undoEntry
	savepoints []int
	// cur is the entry being applied, set by the engine before each
	// Apply: IngestFiles records the applied index of the entries before
	// it.
	cur struct {
		g     GroupID
		index uint64
		conf  *rpb.ConfState
		// cache is the group's applyCache, nil when it has none or must
		// not use it now (a snapshot is being installed).
		cache *applyCache
	}
	// cacheKey picks the keys the caches hold (Config.ApplyCacheKey).
	cacheKey func(key []byte) bool
	// cachedWrites are this round's writes of cached keys: their final
	// values go into the caches once the batch is written.
	cachedWrites []cachedWrite
	// writeErr is a failed write of IngestFiles. It is a disk failure,
	// not the entry's result: the engine halts on it as on any failed
	// apply write, whatever the Applier returned.
	writeErr error
}

type undoEntry struct {
	key  string
	prev []byte
	had  bool
}

// NewApplyBatch returns a batch over db for driving an Applier outside the
// engine (state machine tests, offline tools); Write commits it and Destroy
// frees it. The engine makes its own.
func NewApplyBatch(db *grocksdb.DB) *ApplyBatch { return newApplyBatch(db) }

// Write commits the batch to its database.
func (b *ApplyBatch) Write(wo *grocksdb.WriteOptions) error {
	fills := b.stage()
	if err := b.db.Write(wo, b.wb); err != nil {
		// What reached the database is unknown: forget what the caches
		// of the keys written would have to be sure of.
		for _, f := range fills {
			f.cache.clear()
		}
		return err
	}
	for _, f := range fills {
		f.cache.put(f.key, f.value)
	}
	return nil
}

// stage moves the overlay into the write batch: one record per key, the
// key's final state in this round, in key order (why: the type comment).
// The overlay is emptied, so stage runs once per write of wb. It returns
// the final values of the cached keys written, for Write to put into
// their caches once the batch is written.
func (b *ApplyBatch) stage() []cacheFill {
	var fills []cacheFill
	for _, w := range b.cachedWrites {
		// A key a failed command wrote may be out of the overlay again:
		// then its stored value, and the cache, stay as they are.
		if v, ok := b.overlay[w.key]; ok {
			fills = append(fills, cacheFill{cache: w.cache, key: w.key, value: v})
		}
	}
	b.cachedWrites = b.cachedWrites[:0]
	if len(b.overlay) == 0 {
		return fills
	}
	keys := make([]string, 0, len(b.overlay))
	for k := range b.overlay {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		// RocksDB copies the key into the batch: no Go copy is needed.
		kb := unsafe.Slice(unsafe.StringData(k), len(k))
		if v := b.overlay[k]; v == nil {
			b.wb.Delete(kb)
		} else {
			b.wb.Put(kb, v)
		}
	}
	clear(b.overlay)
	return fills
}

// Config is the group's configuration where the entry being applied sits
// in its log: the same on every replica, so an applier may decide by it.
func (b *ApplyBatch) Config() Members {
	if b.cur.conf == nil {
		return Members{}
	}
	return membersOf(b.cur.conf)
}

// DB is the database the batch writes to (IngestFiles' callers stage
// files next to it).
func (b *ApplyBatch) DB() *grocksdb.DB { return b.db }

// Destroy frees the batch.
func (b *ApplyBatch) Destroy() { b.destroy() }

func newApplyBatch(db *grocksdb.DB) *ApplyBatch {
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetFillCache(true)
	ro.SetTotalOrderSeek(true) // Scan crosses prefixes; storaged sets a prefix extractor
	return &ApplyBatch{db: db, wb: grocksdb.NewWriteBatch(), ro: ro, overlay: map[string][]byte{}}
}

// IngestFiles ingests SST files (RocksDB IngestExternalFile, moving them
// into the database) as the effect of the entry being applied: after the
// writes of every entry before it, before those of every entry after.
//
// Ingested data cannot be part of the round's write batch, so the batch
// is written first, together with the applied index of the entry before
// this one; the round then goes on with an empty batch. A crash after the
// ingest and before the round's own write replays only this entry and
// the ones after it: never an entry whose effects were written already
// (degree counters are not idempotent). Replaying this entry ingests the
// files again, so the caller passes links it made to files it keeps
// (storaged keeps its staged files), and the files' keys must be written
// whole by the ingest (no read-modify-write). It must not be called
// inside Atomically.
//
// If RocksDB refuses the files, the entries before this one are written
// and nothing of this one is: the Applier either returns the error as the
// entry's result (every replica refuses the same files alike) or wraps it
// in ErrApplyHalted (a failure of this replica's own: the group stops
// here and tries again later instead of skipping the ingest alone).
func (b *ApplyBatch) IngestFiles(paths []string) error {
	if len(b.savepoints) > 0 {
		return fmt.Errorf("raftgroup: IngestFiles inside Atomically")
	}
	if b.cur.index > 0 {
		putApplied(b.wb, b.cur.g, b.cur.index-1)
	}
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := b.Write(wo); err != nil {
		b.writeErr = fmt.Errorf("writing the entries applied before an ingest: %w", err)
		return b.writeErr
	}
	b.wb.Clear()
	b.undo = b.undo[:0]
	opts := grocksdb.NewDefaultIngestExternalFileOptions()
	defer opts.Destroy()
	opts.SetMoveFiles(true)
	opts.SetAllowGlobalSeqNo(true)
	opts.SetAllowBlockingFlush(true)
	// The files may hold any key of the group, cached ones included.
	b.cur.cache.clear()
	if err := b.db.IngestExternalFile(paths, opts); err != nil {
		// The Applier decides whether this is the entry's result (the
		// files are the same everywhere and RocksDB refuses them) or
		// this replica's own failure (ErrApplyHalted).
		return fmt.Errorf("ingesting %d SST files: %w", len(paths), err)
	}
	return nil
}

// DeleteRange deletes every key in [lo, hi) as the effect of the entry
// being applied (storaged's CLEAR SPACE), which must be the group's own
// range. The overlay cannot hold a range, so the round so far is written
// at once with the range deletion and this entry's applied index, in one
// RocksDB write: the deletion lands exactly once, after the entries
// before it, and the round goes on from an empty batch whose reads see
// the range empty. The group's apply cache is emptied, since the keys it
// held are gone. It must not be called inside Atomically.
//
// A failed write is a disk failure of this replica, not the entry's
// result: the engine halts on it as on any failed apply write.
func (b *ApplyBatch) DeleteRange(lo, hi []byte) error {
	if len(b.savepoints) > 0 {
		return fmt.Errorf("raftgroup: DeleteRange inside Atomically")
	}
	fills := b.stage()
	b.wb.DeleteRange(lo, hi)
	if b.cur.index > 0 {
		putApplied(b.wb, b.cur.g, b.cur.index)
		// The data format version written at bootstrap (writeBootstrap)
		// lies in the data range; it describes the replica, not its
		// rows, so it stays. Later in the batch, the put wins.
		if vk := partition.DataVersionKey(b.cur.g.Space, b.cur.g.Part); bytes.Compare(vk, lo) >= 0 && bytes.Compare(vk, hi) < 0 {
			putDataVersion(b.wb, b.cur.g)
		}
	}
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := b.db.Write(wo, b.wb); err != nil {
		for _, f := range fills {
			f.cache.clear() // as Write: what reached the database is unknown
		}
		b.cur.cache.clear()
		b.writeErr = fmt.Errorf("deleting a key range: %w", err)
		return b.writeErr
	}
	for _, f := range fills {
		f.cache.put(f.key, f.value)
	}
	b.cur.cache.clear() // after the puts: this group's keys are gone
	b.wb.Clear()
	b.undo = b.undo[:0]
	return nil
}

func (b *ApplyBatch) destroy() {
	b.wb.Destroy()
	b.ro.Destroy()
}

// Put sets key to value.
func (b *ApplyBatch) Put(key, value []byte) {
	b.set(string(key), append(make([]byte, 0, len(value)), value...))
}

// Delete removes key.
func (b *ApplyBatch) Delete(key []byte) {
	b.set(string(key), nil)
}

func (b *ApplyBatch) set(key string, v []byte) {
	if b.cur.cache != nil && b.cacheKey(unsafe.Slice(unsafe.StringData(key), len(key))) {
		b.cachedWrites = append(b.cachedWrites, cachedWrite{cache: b.cur.cache, key: key})
	}
	if len(b.savepoints) > 0 {
		prev, had := b.overlay[key]
		b.undo = append(b.undo, undoEntry{key: key, prev: prev, had: had})
	}
	b.overlay[key] = v
}

// Atomically runs fn and keeps its writes only if it returns nil: a command
// that fails halfway leaves nothing behind, though it shares the round's
// batch with the commands applied before it. The Applier's writes live in
// the overlay until the batch is written, so undoing the overlay undoes
// them all.
func (b *ApplyBatch) Atomically(fn func() error) error {
	b.savepoints = append(b.savepoints, len(b.undo))
	err := fn()
	mark := b.savepoints[len(b.savepoints)-1]
	b.savepoints = b.savepoints[:len(b.savepoints)-1]
	if err == nil {
		if len(b.savepoints) == 0 {
			b.undo = b.undo[:0]
		}
		return nil
	}
	for i := len(b.undo) - 1; i >= mark; i-- {
		u := b.undo[i]
		if u.had {
			b.overlay[u.key] = u.prev
		} else {
			delete(b.overlay, u.key)
		}
	}
	b.undo = b.undo[:mark]
	return err
}

// Get returns the value of key, nil if it does not exist. The returned
// slice must not be modified: it may be the overlay's or the group's
// cache's, kept across rounds.
func (b *ApplyBatch) Get(key []byte) ([]byte, error) {
	if v, ok := b.overlay[string(key)]; ok {
		return v, nil
	}
	c := b.cur.cache
	if c != nil && b.cacheKey(key) {
		if v, ok := c.get(key); ok {
			return v, nil
		}
	} else {
		c = nil
	}
	v, err := b.db.GetBytes(b.ro, key)
	if err != nil {
		return nil, fmt.Errorf("reading %x: %w", key, err)
	}
	if c != nil {
		c.put(string(key), v)
	}
	return v, nil
}

// Scan calls fn for every key with the prefix, in key order, from start
// (nil: the prefix itself), until fn returns false. Key and value are only
// valid during the call.
func (b *ApplyBatch) Scan(prefix, start []byte, fn func(key, value []byte) (bool, error)) error {
	if start == nil || bytes.Compare(start, prefix) < 0 {
		start = prefix
	}
	// This round's writes under the prefix, sorted, merged with the
	// database's keys. Rounds are small, so a linear pass over the
	// overlay is cheaper than keeping it sorted on every Put.
	var mine []string
	for k := range b.overlay {
		if len(k) >= len(prefix) && k[:len(prefix)] == string(prefix) && k >= string(start) {
			mine = append(mine, k)
		}
	}
	sort.Strings(mine)
	it := b.db.NewIterator(b.ro)
	defer it.Close()
	it.Seek(start)
	for {
		dbValid := it.ValidForPrefix(prefix)
		var dbKey []byte
		if dbValid {
			dbKey = it.Key().Data()
		}
		switch {
		case len(mine) > 0 && (!dbValid || bytes.Compare([]byte(mine[0]), dbKey) <= 0):
			k := mine[0]
			mine = mine[1:]
			if dbValid && string(dbKey) == k {
				it.Next() // shadowed by this round's write
			}
			v := b.overlay[k]
			if v == nil {
				continue // deleted this round
			}
			more, err := fn([]byte(k), v)
			if err != nil || !more {
				return err
			}
		case dbValid:
			more, err := fn(dbKey, it.Value().Data())
			if err != nil || !more {
				return err
			}
			it.Next()
		default:
			return it.Err()
		}
	}
}
