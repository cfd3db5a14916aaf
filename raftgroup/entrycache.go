package raftgroup

import (
	"slices"
	"sync"
	"sync/atomic"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// entryCacheOverhead is what one cached entry costs beyond its payload: the
// rpb.Entry struct, its optional-field pointers and the slice slot (an
// estimate; it keeps tiny entries such as empty leader appends from looking
// free).
const entryCacheOverhead = 128

// entryCache holds the newest raft log entries of every group of one engine
// in memory, within one byte budget for all of them, so that what raft reads
// most (the entries just appended, for the leader's MsgApps to followers and
// for applying them once committed) does not come back from RocksDB. The
// log itself lives in RocksDB (logStore); anything the cache does not hold
// is read from there, so the cache may drop any entry at any time.
//
// Each group's cached entries are one contiguous run, the newest suffix of
// its log. Over the budget, the group holding the most bytes loses its
// oldest entries first: its followers are the least likely to still need
// them, and a bulk load's big groups give back most.
//
// Entries read from disk are not added: a follower catching up from far
// behind would otherwise push every group's fresh tail out.
//
// Safe for concurrent use: the append writer adds and drops, the workers
// read (through each group's logStore).
type entryCache struct {
	limit int64 // bytes; <= 0: the cache holds nothing

	mu    sync.Mutex
	bytes int64
	runs  map[GroupID]*cachedRun

	hits, misses, evicted atomic.Uint64
	highWater             atomic.Int64 // the most bytes held after any add
}

// cachedRun is one group's cached entries: ents[i] has index first+i.
type cachedRun struct {
	first uint64
	ents  []*rpb.Entry
	bytes int64
}

func newEntryCache(limit int64) *entryCache {
	return &entryCache{limit: limit, runs: map[GroupID]*cachedRun{}}
}

func entryCost(e *rpb.Entry) int64 { return int64(len(e.GetData())) + entryCacheOverhead }

// add records entries just written to a group's log (contiguous, ascending).
// They replace any cached entries at or after their first index, as raft's
// overwrite of a conflicting suffix replaces the log's.
func (c *entryCache) add(id GroupID, ents []*rpb.Entry) {
	if c.limit <= 0 || len(ents) == 0 {
		return
	}
	first := ents[0].GetIndex()
	c.mu.Lock()
	defer c.mu.Unlock()
	run := c.runs[id]
	switch {
	case run == nil:
		run = &cachedRun{first: first}
		c.runs[id] = run
	case first < run.first || first > run.first+uint64(len(run.ents)):
		// Before the cached window, or after a gap: start over from here.
		c.dropFront(run, len(run.ents))
		run.first = first
	default:
		c.dropBack(run, int(first-run.first))
	}
	for _, e := range ents {
		cost := entryCost(e)
		run.ents = append(run.ents, e)
		run.bytes += cost
		c.bytes += cost
	}
	c.evictOver()
	if c.bytes > c.highWater.Load() {
		c.highWater.Store(c.bytes)
	}
}

// get returns the entries [lo, hi) of a group, limited to maxSize encoded
// bytes (at least one entry, as raft.Storage.Entries), if the cache holds
// all of them. The slice is the caller's; the entries are shared and must
// not be modified.
func (c *entryCache) get(id GroupID, lo, hi, maxSize uint64) ([]*rpb.Entry, bool) {
	if c.limit <= 0 {
		c.misses.Add(1)
		return nil, false
	}
	c.mu.Lock()
	run := c.runs[id]
	if run == nil || lo < run.first || hi > run.first+uint64(len(run.ents)) || lo >= hi {
		c.mu.Unlock()
		c.misses.Add(1)
		return nil, false
	}
	src := run.ents[lo-run.first : hi-run.first]
	n := len(src)
	if maxSize != noLimit {
		var size uint64
		for i, e := range src {
			size += uint64(proto.Size(e))
			if i > 0 && size > maxSize {
				n = i
				break
			}
		}
	}
	out := slices.Clone(src[:n])
	c.mu.Unlock()
	c.hits.Add(1)
	return out, true
}

// noLimit is raft's "no size limit" for Entries.
const noLimit = ^uint64(0)

// truncate drops a group's cached entries at or below index (the log was
// truncated up to it).
func (c *entryCache) truncate(id GroupID, index uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	run := c.runs[id]
	if run == nil || index < run.first {
		return
	}
	n := min(int(index-run.first+1), len(run.ents))
	c.dropFront(run, n)
	run.first += uint64(n)
	if len(run.ents) == 0 {
		delete(c.runs, id)
	}
}

// drop forgets a group (removed, or its log replaced by a snapshot).
func (c *entryCache) drop(id GroupID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if run := c.runs[id]; run != nil {
		c.dropFront(run, len(run.ents))
		delete(c.runs, id)
	}
}

// dropFront removes run's n oldest entries from the accounting and lets
// them be collected; the caller moves run.first.
func (c *entryCache) dropFront(run *cachedRun, n int) {
	for _, e := range run.ents[:n] {
		cost := entryCost(e)
		run.bytes -= cost
		c.bytes -= cost
	}
	clear(run.ents[:n])
	run.ents = run.ents[n:]
	if cap(run.ents) > 64 && len(run.ents) < cap(run.ents)/4 {
		// Let the old array go: an idle group would keep it until its
		// next append (up to megabytes of pointer slots).
		run.ents = slices.Clone(run.ents)
	}
}

// dropBack keeps run's first n entries.
func (c *entryCache) dropBack(run *cachedRun, n int) {
	for _, e := range run.ents[n:] {
		cost := entryCost(e)
		run.bytes -= cost
		c.bytes -= cost
	}
	clear(run.ents[n:])
	run.ents = run.ents[:n]
}

// evictOver drops the oldest entries of the biggest runs once the cache is
// over its budget, down to 15/16 of it, so that a cache at its budget does
// not scan every group on each add. Called with mu held.
func (c *entryCache) evictOver() {
	if c.bytes <= c.limit {
		return
	}
	target := c.limit - c.limit/16
	for c.bytes > target {
		var victimID GroupID
		var victim *cachedRun
		for id, run := range c.runs {
			if victim == nil || run.bytes > victim.bytes {
				victimID, victim = id, run
			}
		}
		if victim == nil {
			return
		}
		n, excess := 0, c.bytes-target
		for n < len(victim.ents) && excess > 0 {
			excess -= entryCost(victim.ents[n])
			n++
		}
		c.dropFront(victim, n)
		victim.first += uint64(n)
		c.evicted.Add(uint64(n))
		if len(victim.ents) == 0 {
			delete(c.runs, victimID)
		}
	}
}

// EntryCacheStats describes the raft entry cache (Config.EntryCacheBytes).
type EntryCacheStats struct {
	Limit, Bytes, HighWater int64
	Hits, Misses, Evicted   uint64
}

func (c *entryCache) stats() EntryCacheStats {
	c.mu.Lock()
	b := c.bytes
	c.mu.Unlock()
	return EntryCacheStats{
		Limit: c.limit, Bytes: b, HighWater: c.highWater.Load(),
		Hits: c.hits.Load(), Misses: c.misses.Load(), Evicted: c.evicted.Load(),
	}
}
