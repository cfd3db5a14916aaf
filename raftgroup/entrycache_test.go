package raftgroup

import (
	"testing"

	rpb "go.etcd.io/raft/v3/raftpb"
)

// indexesOf lists the entries' indexes and terms, for comparing.
func indexesOf(ents []*rpb.Entry) [][2]uint64 {
	var out [][2]uint64
	for _, e := range ents {
		out = append(out, [2]uint64{e.GetIndex(), e.GetTerm()})
	}
	return out
}

func TestEntryCache(t *testing.T) {
	a, b := GroupID{1, 1}, GroupID{1, 2}
	type get struct {
		id      GroupID
		lo, hi  uint64
		maxSize uint64
		want    [][2]uint64 // nil: a miss
	}
	for _, tc := range []struct {
		name  string
		limit int64
		do    func(c *entryCache)
		gets  []get
	}{{
		name: "a run is served whole or not at all",
		do:   func(c *entryCache) { c.add(a, entriesOf(6, 10, 2, 10)) },
		gets: []get{
			{a, 6, 11, noLimit, [][2]uint64{{6, 2}, {7, 2}, {8, 2}, {9, 2}, {10, 2}}},
			{a, 8, 9, noLimit, [][2]uint64{{8, 2}}},
			{a, 5, 8, noLimit, nil},  // starts before the run
			{a, 9, 12, noLimit, nil}, // ends after it
			{b, 6, 7, noLimit, nil},  // another group
		},
	}, {
		name: "maxSize cuts but gives one entry at least",
		do:   func(c *entryCache) { c.add(a, entriesOf(6, 10, 2, 100)) },
		gets: []get{
			{a, 6, 11, 0, [][2]uint64{{6, 2}}},
			{a, 6, 11, 250, [][2]uint64{{6, 2}, {7, 2}}}, // an entry encodes to 100 bytes and a few
		},
	}, {
		name: "an overwrite replaces the suffix",
		do: func(c *entryCache) {
			c.add(a, entriesOf(6, 10, 2, 10))
			c.add(a, entriesOf(8, 8, 3, 10))
		},
		gets: []get{
			{a, 6, 9, noLimit, [][2]uint64{{6, 2}, {7, 2}, {8, 3}}},
			{a, 9, 10, noLimit, nil},
		},
	}, {
		name: "a gap or an overwrite before the run starts over",
		do: func(c *entryCache) {
			c.add(a, entriesOf(6, 10, 2, 10))
			c.add(a, entriesOf(13, 14, 2, 10))
			c.add(b, entriesOf(6, 10, 2, 10))
			c.add(b, entriesOf(3, 4, 3, 10))
		},
		gets: []get{
			{a, 6, 7, noLimit, nil},
			{a, 13, 15, noLimit, [][2]uint64{{13, 2}, {14, 2}}},
			{b, 6, 7, noLimit, nil},
			{b, 3, 5, noLimit, [][2]uint64{{3, 3}, {4, 3}}},
		},
	}, {
		name: "truncate and drop",
		do: func(c *entryCache) {
			c.add(a, entriesOf(6, 10, 2, 10))
			c.truncate(a, 7)
			c.add(b, entriesOf(6, 10, 2, 10))
			c.drop(b)
		},
		gets: []get{
			{a, 7, 8, noLimit, nil},
			{a, 8, 11, noLimit, [][2]uint64{{8, 2}, {9, 2}, {10, 2}}},
			{b, 6, 7, noLimit, nil},
		},
	}, {
		name:  "over budget the biggest run loses its oldest entries",
		limit: 10 * (100 + entryCacheOverhead),
		do: func(c *entryCache) {
			c.add(a, entriesOf(1, 3, 1, 100))
			// 11 entries: over the budget, evicted down to 15/16 of it
			// (9.4 entries), so two of b's go.
			c.add(b, entriesOf(1, 8, 1, 100))
		},
		gets: []get{
			{a, 1, 4, noLimit, [][2]uint64{{1, 1}, {2, 1}, {3, 1}}},
			{b, 2, 3, noLimit, nil},
			{b, 3, 9, noLimit, [][2]uint64{{3, 1}, {4, 1}, {5, 1}, {6, 1}, {7, 1}, {8, 1}}},
		},
	}, {
		name:  "no budget, nothing held",
		limit: -1,
		do:    func(c *entryCache) { c.add(a, entriesOf(6, 10, 2, 10)) },
		gets:  []get{{a, 6, 7, noLimit, nil}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			limit := tc.limit
			if limit == 0 {
				limit = 1 << 20
			}
			c := newEntryCache(limit)
			tc.do(c)
			for _, g := range tc.gets {
				ents, ok := c.get(g.id, g.lo, g.hi, g.maxSize)
				if ok != (g.want != nil) {
					t.Fatalf("get(%s, %d, %d): hit %t, want %t", g.id, g.lo, g.hi, ok, g.want != nil)
				}
				if got := indexesOf(ents); ok && !equalPairs(got, g.want) {
					t.Fatalf("get(%s, %d, %d, %d) = %v, want %v", g.id, g.lo, g.hi, g.maxSize, got, g.want)
				}
			}
			st := c.stats()
			if limit > 0 && (st.Bytes > limit || st.HighWater > limit) {
				t.Fatalf("cache holds %d bytes (high water %d) over its budget %d", st.Bytes, st.HighWater, limit)
			}
			var sum int64
			for _, run := range c.runs {
				for _, e := range run.ents {
					sum += entryCost(e)
				}
			}
			if sum != st.Bytes {
				t.Fatalf("cache accounts %d bytes, its entries cost %d", st.Bytes, sum)
			}
		})
	}
}

func equalPairs(a, b [][2]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
