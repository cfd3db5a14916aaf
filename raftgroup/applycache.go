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
// raft restored (from the moment the worker sees it until it is installed
// the group applies without its cache, and the install clears it), the
// group's removal, and a failed write of a batch.
//
// Owned by the group's worker, like the rest of the apply state; total is
// shared by the engine's groups, so the memory bound holds for the store.
type applyCache struct {
	vals  map[string][]byte
	total *atomic.Int64 // entries in all groups' caches
	max   int64
}

func newApplyCache(total *atomic.Int64, max int64) *applyCache {
	return &applyCache{vals: map[string][]byte{}, total: total, max: max}
}

// get returns the stored value of key, and whether the cache knows it.
func (c *applyCache) get(key []byte) ([]byte, bool) {
	v, ok := c.vals[string(key)]
	return v, ok
}

// put records value (nil: absent) as the stored value of key. value must
// not change afterwards. When the store's bound is reached, an entry of
// this group makes room (map order: an arbitrary one); a group holding
// none caches nothing more until others shrink.
func (c *applyCache) put(key string, value []byte) {
	if _, ok := c.vals[key]; ok {
		c.vals[key] = value
		return
	}
	if c.total.Load() >= c.max {
		evicted := false
		for k := range c.vals {
			delete(c.vals, k)
			evicted = true
			break
		}
		if !evicted {
			return
		}
		c.total.Add(-1)
	}
	c.vals[key] = value
	c.total.Add(1)
}

// clear forgets every entry.
func (c *applyCache) clear() {
	if c == nil || len(c.vals) == 0 {
		return
	}
	c.total.Add(-int64(len(c.vals)))
	clear(c.vals)
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
