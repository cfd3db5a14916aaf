package raftgroup

import "sync/atomic"

// applyCache holds, for one group, the stored values of the keys its
// Applier reads on nearly every command (Config.ApplyCacheKey; storaged:
// vertex degrees, read and rewritten by every edge write). Such a key is
// present, so a Get of it is a full memtable or SST search that misses the
// CPU cache at almost every step: 8-9 us on the 2-core VMs of
// docs/benchmarks.md, the largest single cost of an online import. From
// the cache it is a map lookup.
//
// Invariant: an entry is the key's value in the database (nil: the key is
// absent there), never the value of a round not yet written. ApplyBatch
// keeps it so: it fills an entry from a database read (the database holds
// exactly the rounds written; the round in progress is in the overlay,
// which Get consults first), and puts a round's final values in only once
// the batch holding them is written. What changes a group's data any other
// way clears the cache: an SST ingest (ApplyBatch.IngestFiles), a snapshot
// raft restored, the group's removal, and a failed write of a batch. For
// the snapshot, raft itself hands out no committed entries between giving
// the snapshot to the append writer and hearing it is installed, and the
// worker clears the cache at both ends; it also applies without the cache
// while a snapshot is pending (g.snapPending), so that holds even if an
// entry did come in between.
//
// Owned by the group's worker, like the rest of the apply state. The
// budget is shared by the engine's groups, so the memory bound holds for
// the store, and each group keeps to its share of it, so a group that
// filled the cache and went idle does not leave the others without one.
type applyCache struct {
	vals   map[string][]byte
	budget *applyCacheBudget
}

// applyCacheBudget is the entry bound of all groups' caches of an engine.
type applyCacheBudget struct {
	max    int64
	total  atomic.Int64 // entries in all caches
	groups atomic.Int64 // caches that exist
}

func newApplyCache(budget *applyCacheBudget) *applyCache {
	budget.groups.Add(1)
	return &applyCache{vals: map[string][]byte{}, budget: budget}
}

// share is how many entries one group may hold now.
func (b *applyCacheBudget) share() int {
	return int(max(b.max/max(b.groups.Load(), 1), 1))
}

// get returns the stored value of key, and whether the cache knows it.
func (c *applyCache) get(key []byte) ([]byte, bool) {
	v, ok := c.vals[string(key)]
	return v, ok
}

// put records value (nil: absent) as the stored value of key. value must
// not change afterwards. A group at its share, or finding the store's
// bound reached (groups that were added since others filled up), makes
// room with one of its own entries (map order: an arbitrary one); one
// holding none caches nothing more until the others shrink.
func (c *applyCache) put(key string, value []byte) {
	if _, ok := c.vals[key]; ok {
		c.vals[key] = value
		return
	}
	c.trimTo(c.budget.share() - 1)
	// Reserve first, so that workers adding at once cannot overshoot.
	if c.budget.total.Add(1) > c.budget.max && !c.evictOne() {
		c.budget.total.Add(-1)
		return
	}
	c.vals[key] = value
}

// trim gives up the entries over the group's share: called on every tick,
// so that a group keeps to a share that shrank while it was idle (groups
// were added) and the others find room within a tick. When groups are
// added, the caches of the others are over their new shares and the new
// groups' first puts find the store's bound reached, until that tick.
func (c *applyCache) trim() {
	if c != nil {
		c.trimTo(c.budget.share())
	}
}

func (c *applyCache) trimTo(n int) {
	for len(c.vals) > n && c.evictOne() {
	}
}

// evictOne drops one entry, if there is one, and reports whether it did.
func (c *applyCache) evictOne() bool {
	for k := range c.vals {
		delete(c.vals, k)
		c.budget.total.Add(-1)
		return true
	}
	return false
}

// clear forgets every entry.
func (c *applyCache) clear() {
	if c == nil || len(c.vals) == 0 {
		return
	}
	c.budget.total.Add(-int64(len(c.vals)))
	clear(c.vals)
}

// release clears the cache of a group that goes away and gives its share
// back to the others.
func (c *applyCache) release() {
	if c == nil {
		return
	}
	c.clear()
	c.budget.groups.Add(-1)
}

// cachedWrite is a write of a cached key in the round: at the batch's
// write, the key's final value goes into its group's cache.
type cachedWrite struct {
	cache *applyCache
	key   string
}

// cacheFill is one final value to put into a cache once written.
type cacheFill struct {
	cache *applyCache
	key   string
	value []byte
}
