package storaged

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// The adjacency cache holds the graph data of partitions that are read and
// not written in memory, so that GO steps skip RocksDB: in a GO 3 STEPS
// profile the batched key scan in C was a third of all CPU, and in GO 3
// with properties the per-key iteration over edge rows and the point reads
// of destination tags were a third (issue 22); DuckDB answers the same hops
// from memory.
//
// What it holds. For one partition, every edge key of both directions as
// two parts: the edge prefix without the partition prefix (src vid and
// signed type, partition.EdgePrefix[9:]) as the index, and the tails (rank
// and dst as stored, partition.EdgeKeyTail) of that prefix's edges back to
// back in key order, each with its stored value (the property row, or an
// in-edge's mirror marker). And every tag row, by vid and tag id. A scan
// of a prefix in RocksDB and the tails and values of that prefix here hand
// rowread.Neighbors the same edges in the same order, and a tag read gets
// the same bytes, or the same absence, as a RocksDB Get. Degrees and index
// entries are not held: with_degree and LOOKUP read RocksDB. Edge
// properties asked for in packed columns are decoded on first use into one
// column per property over all the partition's edges (edgeColumn), so a
// vertex's cells are a run copied from it, not rows decoded again; tag
// properties asked for in columns (GO's $$ fetch) likewise into one column
// per property over all the partition's tag rows (TagColumn), so a
// vertex's cell is gathered by its tag row's ordinal.
//
// Why it is consistent. An adjacency is tagged with the raft applied index
// its build read before it opened its iterator. RocksDB holds the group's
// data at that index or later, and the group's data changes only in apply
// rounds and snapshot installs, each of which publishes a greater applied
// index once written (raftgroup.Engine.Applied). A read uses the adjacency
// only while the group's applied index equals its tag: then no write has
// landed since the build's iterator, or if one had landed before the tag
// was published the adjacency already holds it. A read that finds another
// index drops the adjacency and reads RocksDB. Reads run after ReadIndex
// as before, so what a read may see is unchanged.
//
// When it is built. A read that finds no usable adjacency notes the
// group's applied index; once the same index has been seen for quiet (a
// partition not being written), a build is queued. One goroutine builds,
// one partition at a time, with one pass over the partition's edge and tag
// keys.
//
// Memory. All adjacencies together stay within budget bytes: a build that
// would pass it is abandoned and not tried again for a while, nor until
// the cache has more room than it had then, and nothing is evicted to
// make room (the partitions built first keep their place). A partition
// whose SST bytes say it is far too big is not scanned at all.
// What is held is in the novagraph_storaged_adjacency_* metrics.
type adjacencyCache struct {
	applied func(raftgroup.GroupID) (uint64, bool) // raftgroup.Engine.Applied
	budget  int64
	quiet   time.Duration
	retry   time.Duration // adjacencyRetry; tests shorten it
	log     *slog.Logger

	queue  chan buildRequest
	cancel context.CancelFunc
	done   chan struct{} // closed when the builder exits

	mu    sync.Mutex
	parts map[raftgroup.GroupID]*adjacencyPart
	used  int64 // bytes of every adjacency in parts
	// bytesPerSSTByte is the fewest adjacency bytes per byte of SST
	// (partSSTBytes) a build of a partition with at least learnFromSST
	// bytes of SST has made; 0 before the first. Smaller partitions are
	// left out: RocksDB's estimate is coarse for them, and a recently
	// written one has much of its data in memtables, which it does not
	// count.
	bytesPerSSTByte float64
	learnFromSST    int64

	// Counters, for metrics and tests.
	hits, misses, builds, abandoned atomic.Uint64
	columns                         atomic.Uint64 // edge and tag property columns decoded and kept
	columnsSkipped                  atomic.Uint64 // columns not decoded: the budget could not hold them
}

// adjacencyPart is one partition's entry; mu guards it.
type adjacencyPart struct {
	adj *adjacency // nil: none usable yet
	// seen is the applied index reads last saw, since seenAt.
	seen     uint64
	seenAt   time.Time
	queued   bool      // a build is queued or running
	retireAt time.Time // no build before this (one was abandoned)
	// needs is more than the room a build over the budget had: none is
	// tried again until the cache has this much free. Nothing is
	// evicted, so a full cache would otherwise rescan every partition
	// it cannot hold every adjacencyRetry, in vain, on its one builder:
	// at SF1000, where six GiB hold 15 of 100 partitions, it did so all
	// the time (it was not what limited the QPS: docs/benchmarks.md,
	// "Issue 23, twentieth session").
	needs int64
}

// buildRequest is what the builder needs to build one partition.
type buildRequest struct {
	g      raftgroup.GroupID
	db     *grocksdb.DB
	vidLen int
}

// adjacency is one partition's edges and tag rows as of one applied index.
// Immutable once built, but for its decoded property columns (cols,
// under colMu) and what it is charged (bytes, under the cache's mu).
type adjacency struct {
	applied uint64
	vidLen  int
	// index maps src vid ‖ signed edge type (as in the key) to the range
	// of its edges in tails and rowEnds, in edges.
	index keyMap[adjacencySpan]
	tails []byte // EdgeTailLen bytes per edge
	// rows holds the edges' values back to back; edge i's is
	// rows[rowEnds[i-1]:rowEnds[i]] (from 0 for the first).
	rows    []byte
	rowEnds []uint32
	// tags maps vid ‖ tag id (as in the key) to the ordinal of the tag's
	// row, in key order; tagRows holds the rows back to back, row i being
	// tagRows[tagRowEnds[i-1]:tagRowEnds[i]] (from 0 for the first), and
	// decoded tag columns number their cells by the same ordinals.
	// tagPrefix is the partition's KindTag prefix its keys start with.
	tags       keyMap[uint32]
	tagRows    []byte
	tagRowEnds []uint32
	tagPrefix  []byte
	bytes      int64 // what it holds, as charged against the budget; after the build, under the cache's mu

	// Decoded property columns (edgeColumn, TagColumn), made on first
	// use: the one part of an adjacency that changes after its build,
	// under colMu, and charged to cache's budget while the adjacency is
	// g's.
	group raftgroup.GroupID
	cache *adjacencyCache
	colMu sync.Mutex
	cols  map[propColumnKey]propColumn
}

// propColumnKey names a decoded property column: of a tag's rows or of an
// edge type's out-edges (positive), and the property.
type propColumnKey struct {
	tag  bool
	id   int32
	name string
}

// propColumn is one decoded column, as of the schema's latest version
// when it was decoded (a new version may give a property a default or a
// type another column; versions never change once made). col nil:
// allNull, every cell is NULL; or else there is none to give and the rows
// are read one at a time: a row did not decode or the cells are of no one
// typed kind (untyped, for good), or the budget had no room (then until
// retryAt).
type propColumn struct {
	version int32
	col     *commonpb.Column
	allNull bool
	// untyped: this version's cells are of no one typed kind, or a row
	// does not decode; read row by row, and never decoded again.
	untyped bool
	retryAt time.Time
	bytes   int64
}

type adjacencySpan struct{ from, to uint32 }

// keyMap maps byte keys of one length to values. A key of 12 bytes (an
// 8-byte vid and a 4-byte edge type or tag id: INT64 and FIXED_STRING(8)
// spaces) is an array in the map's own slots, so a lookup compares it
// there instead of following a string pointer to its bytes: one cache
// miss less per lookup, which is per vertex a GO step reaches (issue 22).
// Other lengths key a map of strings.
type keyMap[V any] struct {
	by12  map[[12]byte]V
	byStr map[string]V
}

func newKeyMap[V any](keyLen int) keyMap[V] {
	if keyLen == 12 {
		return keyMap[V]{by12: map[[12]byte]V{}}
	}
	return keyMap[V]{byStr: map[string]V{}}
}

func (m keyMap[V]) put(k []byte, v V) {
	if m.by12 != nil {
		m.by12[[12]byte(k)] = v
		return
	}
	m.byStr[string(k)] = v
}

// each calls fn with every key and value, in no order; the key is only
// valid during the call.
func (m keyMap[V]) each(fn func(k []byte, v V)) {
	for k, v := range m.by12 {
		fn(k[:], v)
	}
	for k, v := range m.byStr {
		fn([]byte(k), v)
	}
}

// get is k's value; the zero V when k is absent or of another length.
func (m keyMap[V]) get(k []byte) V {
	v, _ := m.lookup(k)
	return v
}

// lookup is k's value and whether k is in the map.
func (m keyMap[V]) lookup(k []byte) (V, bool) {
	if m.by12 != nil {
		if len(k) != 12 {
			var zero V
			return zero, false
		}
		v, ok := m.by12[[12]byte(k)]
		return v, ok
	}
	v, ok := m.byStr[string(k)]
	return v, ok
}

// adjacencyIndexEntryBytes approximates the memory of one index or tag
// entry beyond its key and row: the string header, the span or slice
// header and the map's own overhead.
const adjacencyIndexEntryBytes = 64

// DefaultAdjacencyQuiet is Config.AdjacencyQuiet's default.
const DefaultAdjacencyQuiet = time.Second

// DefaultAdjacencyCacheBytes is Config.AdjacencyCacheBytes's default on
// this machine: AdjacencyCacheBytesFor the memory this process may use,
// its cgroup's limit (a container's, a systemd unit's MemoryMax) or else
// the machine's.
func DefaultAdjacencyCacheBytes() int64 {
	mem, err := memlimit.ApplyFallback(memlimit.FromCgroup, memlimit.FromSystem)()
	if err != nil {
		mem = 0
	}
	return AdjacencyCacheBytesFor(mem)
}

// AdjacencyCacheBytesFor is the default adjacency cache of a storaged that
// may use memory bytes: a quarter of it, at least minAdjacencyCacheBytes
// (512 MiB when memory is unknown, 0).
//
// Why a quarter: at SF100 on three storaged each store leads 1.1-1.4 GB
// of adjacency; a fixed 512 MiB held 12-13 of its 33 partitions, and GO 3
// at c=8 ran at 1.8 QPS against 6.6 with 2 GiB, which held them all
// (docs/benchmarks.md, "Issue 23"). The cache fills only with partitions
// that are read, so where the data is smaller the bound costs nothing. The
// other three quarters are for RocksDB's block cache (1 GiB by default),
// memtables, the OS page cache under the SST files and the collector's
// headroom, and for graphd when it shares the host. Several storaged on
// one host each take a quarter: give them --adjacency-cache-size.
func AdjacencyCacheBytesFor(memory uint64) int64 {
	if memory == 0 {
		return 512 << 20
	}
	return max(int64(memory/4), minAdjacencyCacheBytes)
}

const minAdjacencyCacheBytes = 256 << 20

// maxAdjacencyBytes bounds one partition's adjacency below 4 GiB, the
// reach of its 32-bit row offsets (rowEnds), whatever the budget; the
// budget is checked every 4,096 keys, so the margin is generous.
const maxAdjacencyBytes = 3 << 30

// adjacencyRetry is how long a partition whose build was abandoned (over
// the budget, or failed) waits before another try; over the budget, it
// also waits for more room than it had (adjacencyPart.needs).
const adjacencyRetry = 30 * time.Second

func newAdjacencyCache(applied func(raftgroup.GroupID) (uint64, bool), budget int64, quiet time.Duration, log *slog.Logger) *adjacencyCache {
	ctx, cancel := context.WithCancel(context.Background())
	c := &adjacencyCache{
		applied: applied, budget: budget, quiet: quiet, retry: adjacencyRetry, learnFromSST: 16 << 20, log: log,
		queue: make(chan buildRequest, 64), cancel: cancel, done: make(chan struct{}),
		parts: map[raftgroup.GroupID]*adjacencyPart{},
	}
	go c.builder(ctx)
	return c
}

// close stops the builder and waits for it; the cache is empty after.
func (c *adjacencyCache) close() {
	c.cancel()
	<-c.done
	c.mu.Lock()
	c.parts, c.used = map[raftgroup.GroupID]*adjacencyPart{}, 0
	c.mu.Unlock()
}

// lookup returns g's adjacency if it holds g's data now, and otherwise
// nil, after queuing a build if g has not been written for quiet. db and
// vidLen are what a build reads.
func (c *adjacencyCache) lookup(g raftgroup.GroupID, db *grocksdb.DB, vidLen int) *adjacency {
	if c == nil || c.budget <= 0 {
		return nil
	}
	applied, ok := c.applied(g)
	if !ok {
		c.drop(g)
		return nil
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.parts[g]
	if p == nil {
		p = &adjacencyPart{seen: applied, seenAt: now}
		c.parts[g] = p
	}
	if p.adj != nil {
		if p.adj.applied == applied {
			c.hits.Add(1)
			return p.adj
		}
		c.used -= p.adj.bytes
		p.adj = nil
	}
	c.misses.Add(1)
	if applied != p.seen {
		p.seen, p.seenAt = applied, now
		p.needs = 0 // written: its size may have changed
	}
	if !p.queued && now.Sub(p.seenAt) >= c.quiet && !now.Before(p.retireAt) && c.budget-c.used >= p.needs {
		select {
		case c.queue <- buildRequest{g: g, db: db, vidLen: vidLen}:
			p.queued = true
		default: // the builder is busy; a later read asks again
		}
	}
	return nil
}

// drop forgets g's adjacency: its replica is gone from this store.
func (c *adjacencyCache) drop(g raftgroup.GroupID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.parts[g]; p != nil {
		if p.adj != nil {
			c.used -= p.adj.bytes
		}
		delete(c.parts, g)
	}
}

// stats is what the metrics report.
func (c *adjacencyCache) stats() (bytes int64, partitions int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.parts {
		if p.adj != nil {
			partitions++
		}
	}
	return c.used, partitions
}

// builder builds the queued partitions one at a time until ctx ends.
func (c *adjacencyCache) builder(ctx context.Context) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-c.queue:
			c.build(ctx, r)
		}
	}
}

// build reads r's partition and installs its adjacency, unless the budget
// cannot hold it or the partition changed meanwhile.
func (c *adjacencyCache) build(ctx context.Context, r buildRequest) {
	c.mu.Lock()
	room := c.budget - c.used
	perSST := c.bytesPerSSTByte
	c.mu.Unlock()
	// The partition's SST bytes times the fewest adjacency bytes per SST
	// byte a build of a partition of some size has made estimate what it
	// would take: one estimated at over twice the room is not scanned (a
	// scan over the budget reads up to room bytes of it before it gives
	// up, on the one builder). The estimate leaves out what is still in
	// memtables, hence the margin; it is made again at each retry.
	sst := partSSTBytes(r.db, r.g)
	var adj *adjacency
	var err error
	estimated := false
	if estimate := int64(float64(sst) * perSST); perSST > 0 && estimate > 2*min(room, maxAdjacencyBytes) {
		err = fmt.Errorf("%w (estimated %d bytes from its %d bytes of SST, %d free)", errOverBudget, estimate, sst, room)
		estimated = true
	} else {
		adj, err = c.read(ctx, r, room)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.parts[r.g]
	if p == nil {
		return // dropped while building
	}
	p.queued = false
	if err == nil && adj != nil && sst >= c.learnFromSST && sst > 0 {
		ratio := float64(adj.bytes) / float64(sst)
		if c.bytesPerSSTByte == 0 || ratio < c.bytesPerSSTByte {
			c.bytesPerSSTByte = ratio
		}
	}
	if err != nil {
		c.abandoned.Add(1)
		p.retireAt = time.Now().Add(c.retry)
		switch {
		case estimated || !errors.Is(err, errOverBudget):
		case room >= maxAdjacencyBytes:
			p.needs = math.MaxInt64 // over the per-partition cap: no room is enough
		default:
			p.needs = room + 1
		}
		c.log.Info("adjacency cache: partition not cached", "group", r.g, "err", err, "retry_in", c.retry, "retry_needs_free_bytes", p.needs)
		return
	}
	if adj == nil {
		return // the group is gone, or ctx ended
	}
	if cur, ok := c.applied(r.g); !ok || cur != adj.applied || c.used+adj.bytes > c.budget {
		return // written while building, or others took the room: a later read asks again
	}
	if p.adj != nil {
		c.used -= p.adj.bytes
	}
	p.adj = adj
	c.used += adj.bytes
	c.builds.Add(1)
}

// partSSTBytes is RocksDB's estimate of the SST bytes of g's partition's
// data (dataRange; memtables left out); 0 if it cannot tell.
func partSSTBytes(db *grocksdb.DB, g raftgroup.GroupID) int64 {
	sizes, err := db.GetApproximateSizes([]grocksdb.Range{dataRange(g)})
	if err != nil || len(sizes) != 1 {
		return 0
	}
	return int64(sizes[0])
}

// errOverBudget abandons a build that would not fit.
var errOverBudget = fmt.Errorf("its edges and tags would pass the adjacency cache budget")

// read scans r's partition's edges and tags into an adjacency of at most
// room bytes, and never of 4 GiB or more: its offsets into the rows are 32
// bits. It returns nil, nil when the group is gone or ctx ended.
func (c *adjacencyCache) read(ctx context.Context, r buildRequest, room int64) (*adjacency, error) {
	room = min(room, maxAdjacencyBytes)
	applied, ok := c.applied(r.g)
	if !ok {
		return nil, nil
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetFillCache(false) // one pass over everything: keep the block cache for the reads
	// The scan crosses vertex prefixes: without total order, files and
	// memtables whose prefix bloom lacks the first key's vertex are left
	// out, and the adjacency misses their keys (storaged/rocksdb.go).
	ro.SetTotalOrderSeek(true)
	it := r.db.NewIterator(ro)
	defer it.Close()

	vidLen := r.vidLen
	adj := &adjacency{group: r.g, cache: c, applied: applied, vidLen: vidLen, index: newKeyMap[adjacencySpan](vidLen + 4), tags: newKeyMap[uint32](vidLen + 4)}
	held := func() int64 {
		return adj.bytes + int64(cap(adj.tails)+cap(adj.rows)+4*cap(adj.rowEnds)+cap(adj.tagRows)+4*cap(adj.tagRowEnds))
	}

	// Edges, both directions, in key order.
	keyLen := partition.EdgeKeyLen(vidLen)
	srcEnd := partition.KeyPrefixLen + vidLen + 4 // end of src vid ‖ type in a key
	var cur []byte                                // src vid ‖ type of the open span
	var from uint32
	closeSpan := func(n uint32) {
		if cur != nil {
			adj.index.put(cur, adjacencySpan{from, n})
			adj.bytes += int64(len(cur)) + adjacencyIndexEntryBytes
		}
	}
	// scan hands fn every key of one kind of the partition, with its
	// value, checking the key's length, the context and the budget.
	// errStop is a cancelled build.
	errStop := errors.New("stopped")
	n := 0
	scan := func(kind byte, keyLen int, what string, fn func(key, value []byte)) error {
		prefix := partition.KindPrefix(r.g.Space, r.g.Part, kind)
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if n++; n%4096 == 0 {
				if ctx.Err() != nil {
					return errStop
				}
				if held() > room {
					return errOverBudget
				}
			}
			key := it.Key().Data()
			if len(key) != keyLen {
				return fmt.Errorf("malformed %s key %x: %w", what, key, partition.ErrMalformedKey)
			}
			fn(key, it.Value().Data())
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("scanning %ss: %w", what, err)
		}
		return nil
	}
	err := scan(partition.KindEdge, keyLen, "edge", func(key, value []byte) {
		count := uint32(len(adj.rowEnds))
		if cur == nil || string(key[partition.KeyPrefixLen:srcEnd]) != string(cur) {
			closeSpan(count)
			cur, from = append([]byte(nil), key[partition.KeyPrefixLen:srcEnd]...), count
		}
		adj.tails = append(adj.tails, partition.EdgeKeyTail(key, vidLen)...)
		adj.rows = append(adj.rows, value...)
		adj.rowEnds = append(adj.rowEnds, uint32(len(adj.rows)))
	})
	closeSpan(uint32(len(adj.rowEnds)))

	// Tag rows.
	tagKeyLen := partition.KeyPrefixLen + vidLen + 4
	adj.tagPrefix = partition.KindPrefix(r.g.Space, r.g.Part, partition.KindTag)
	if err == nil {
		err = scan(partition.KindTag, tagKeyLen, "tag", func(key, value []byte) {
			adj.tags.put(key[partition.KeyPrefixLen:], uint32(len(adj.tagRowEnds)))
			adj.tagRows = append(adj.tagRows, value...)
			adj.tagRowEnds = append(adj.tagRowEnds, uint32(len(adj.tagRows)))
			adj.bytes += int64(tagKeyLen-partition.KeyPrefixLen) + adjacencyIndexEntryBytes
		})
	}
	switch {
	case errors.Is(err, errStop):
		return nil, nil
	case err != nil:
		return nil, err
	}

	// The slices grew by doubling: keep them in arrays of their size.
	adj.tails = append([]byte(nil), adj.tails...)
	adj.rows = append([]byte(nil), adj.rows...)
	adj.rowEnds = append([]uint32(nil), adj.rowEnds...)
	adj.tagRows = append([]byte(nil), adj.tagRows...)
	adj.tagRowEnds = append([]uint32(nil), adj.tagRowEnds...)
	adj.bytes += int64(len(adj.tails) + len(adj.rows) + 4*len(adj.rowEnds) + len(adj.tagRows) + 4*len(adj.tagRowEnds))
	if adj.bytes > room {
		return nil, errOverBudget
	}
	return adj, nil
}

// span is the range of the edges under an edge prefix without its
// partition prefix (partition.EdgePrefix(...)[9:]), in key order: empty
// when there are none.
func (a *adjacency) span(srcType []byte) adjacencySpan {
	return a.index.get(srcType)
}

// tail is edge i's partition.EdgeKeyTail.
func (a *adjacency) tail(i uint32) []byte {
	n := partition.EdgeTailLen(a.vidLen)
	return a.tails[int(i)*n : int(i+1)*n : int(i+1)*n]
}

// row is edge i's stored value.
func (a *adjacency) row(i uint32) []byte {
	from := uint32(0)
	if i > 0 {
		from = a.rowEnds[i-1]
	}
	return a.rows[from:a.rowEnds[i]:a.rowEnds[i]]
}

// tagRow answers a Get of a tag key of the partition: its row, or nil if
// the key does not exist. ok is false for any other key, which the caller
// reads from RocksDB. The row is shared: read it, never change it.
func (a *adjacency) tagRow(key []byte) (row []byte, ok bool) {
	i, ok := a.TagOrdinal(key)
	if !ok || i < 0 {
		return nil, ok
	}
	return a.tagRowAt(uint32(i)), true
}

// TagOrdinal is the ordinal of the tag row of key, a tag key of the
// partition, in the adjacency's numbering (TagColumn's cells): -1 if the
// key does not exist; ok false for any other key, which the caller reads
// from RocksDB. With TagColumn, it is rowread.TagColumns.
func (a *adjacency) TagOrdinal(key []byte) (ord int32, ok bool) {
	if len(key) != partition.KeyPrefixLen+a.vidLen+4 || !bytes.HasPrefix(key, a.tagPrefix) {
		return 0, false
	}
	i, found := a.tags.lookup(key[partition.KeyPrefixLen:])
	if !found {
		return -1, true
	}
	return int32(i), true
}

// tagRowAt is tag row i.
func (a *adjacency) tagRowAt(i uint32) []byte {
	from := uint32(0)
	if i > 0 {
		from = a.tagRowEnds[i-1]
	}
	return a.tagRows[from:a.tagRowEnds[i]:a.tagRowEnds[i]]
}

// TagColumn is the decoded column of the stored property name of sv's
// tag over the adjacency's tag rows (cell i is tag row i's; NULL for rows
// of other tags), as edgeColumn is for edges: nil with ok true when every
// cell is NULL, ok false when there is none to give.
func (a *adjacency) TagColumn(sv *rowread.Schema, name string) (*commonpb.Column, bool) {
	return a.column(propColumnKey{tag: true, id: sv.ID, name: name}, sv)
}

// edgeColumn is the decoded column of the stored property name of the
// out-edges of sv's edge type, over the adjacency's edges (cell i is edge
// i's; NULL for edges of other types and in-edges), for
// rowread.Neighbors.AddColumnSpan: nil with ok true when every cell is
// NULL, ok false when there is none to give. The first request of a
// column decodes it, once per partition and schema version, and charges
// it to the cache's budget; requests wait for a column another is
// decoding rather than decode it twice. A request under an older schema
// version than the column's reads edge by edge, and leaves the column.
func (a *adjacency) edgeColumn(sv *rowread.Schema, name string) (*commonpb.Column, bool) {
	return a.column(propColumnKey{id: sv.ID, name: name}, sv)
}

// column is edgeColumn's or TagColumn's column named key, of schema sv.
func (a *adjacency) column(key propColumnKey, sv *rowread.Schema) (*commonpb.Column, bool) {
	version := sv.Versions.Latest().Version
	a.colMu.Lock()
	defer a.colMu.Unlock()
	now := time.Now()
	old, had := a.cols[key]
	switch {
	case had && old.version > version:
		return nil, false
	case had && old.version == version && (old.col != nil || old.allNull || old.untyped || now.Before(old.retryAt)):
		return old.col, old.col != nil || old.allNull
	}
	entry := propColumn{version: version}
	if a.cols == nil {
		a.cols = map[propColumnKey]propColumn{}
	}
	if had {
		a.cache.charge(a, -old.bytes)
	}
	// A column the budget cannot hold is not decoded at all: the decode
	// would be thrown away every adjacencyRetry, under colMu (on LDBC
	// SF10 a partition has 970,000 edge halves to decode), while every
	// request of the partition waits. Its least size is its cells' fixed
	// part.
	cells := len(a.rowEnds)
	decode := a.decodeEdgeColumn
	if key.tag {
		cells, decode = len(a.tagRowEnds), a.decodeTagColumn
	}
	if least := int64(cells * rowread.ColumnCellBytes(sv, key.name)); least > 0 && !a.cache.hasRoom(least) {
		entry.retryAt = now.Add(adjacencyRetry)
		a.cols[key] = entry
		a.cache.columnsSkipped.Add(1)
		return nil, false
	}
	col, err := decode(sv, key.name)
	switch {
	case err != nil:
		// A row that does not decode: the row-by-row read reports it
		// where it is; no column for this version.
		entry.untyped = true
		a.cache.log.Debug("adjacency cache: property read row by row", "group", a.group, "schema", sv.ID, "tag", key.tag, "property", key.name, "err", err)
	case allNull(col):
		entry.allNull = true
	case col.Kind != commonpb.ColumnKind_COL_ANY:
		entry.col, entry.bytes = col, columnBytes(col)
	default:
		entry.untyped = true // a timestamp, a date…: no typed column holds it
	}
	if entry.col != nil && !a.cache.charge(a, entry.bytes) {
		// Over the budget (or no longer the partition's adjacency): row
		// by row, and another try once adjacencies may have left.
		entry.col, entry.bytes, entry.retryAt = nil, 0, now.Add(adjacencyRetry)
	}
	a.cols[key] = entry
	if entry.col != nil {
		a.cache.columns.Add(1)
	}
	return entry.col, entry.col != nil || entry.allNull
}

// allNull reports whether every cell of a decoded column is NULL (which
// ColumnBuilder builds as COL_ANY).
func allNull(c *commonpb.Column) bool {
	if c.GetKind() != commonpb.ColumnKind_COL_ANY {
		return false
	}
	for i := range c.Values {
		if !c.NullAt(i) {
			return false
		}
	}
	return true
}

// decodeEdgeColumn decodes the column edgeColumn gives: the spans of the
// index whose key ends in sv's (positive) type, in edge order.
func (a *adjacency) decodeEdgeColumn(sv *rowread.Schema, name string) (*commonpb.Column, error) {
	typeBytes := partition.EdgePrefix(0, 0, nil, sv.ID)[partition.KeyPrefixLen:]
	var spans []adjacencySpan
	a.index.each(func(srcType []byte, sp adjacencySpan) {
		if bytes.HasSuffix(srcType, typeBytes) && sp.from < sp.to {
			spans = append(spans, sp)
		}
	})
	slices.SortFunc(spans, func(x, y adjacencySpan) int { return cmp.Compare(x.from, y.from) })
	k := 0
	return rowread.DecodeColumn(sv, name, len(a.rowEnds), func(i int) ([]byte, bool) {
		for k < len(spans) && int(spans[k].to) <= i {
			k++
		}
		if k < len(spans) && int(spans[k].from) <= i {
			return a.row(uint32(i)), true
		}
		return nil, false
	})
}

// decodeTagColumn decodes the column TagColumn gives: the tag rows whose
// key ends in sv's tag id, by ordinal.
func (a *adjacency) decodeTagColumn(sv *rowread.Schema, name string) (*commonpb.Column, error) {
	idBytes := partition.TagKey(0, 0, nil, sv.ID)[partition.KeyPrefixLen:]
	ofTag := make([]bool, len(a.tagRowEnds))
	a.tags.each(func(vidTag []byte, i uint32) {
		ofTag[i] = bytes.HasSuffix(vidTag, idBytes)
	})
	return rowread.DecodeColumn(sv, name, len(a.tagRowEnds), func(i int) ([]byte, bool) {
		if ofTag[i] {
			return a.tagRowAt(uint32(i)), true
		}
		return nil, false
	})
}

// columnBytes is the memory of a typed column: its arrays by capacity
// (they grew by appending), the message and its map entry.
func columnBytes(c *commonpb.Column) int64 {
	return int64(cap(c.Nulls)+8*cap(c.Ints)+8*cap(c.Floats)+cap(c.StrData)+4*cap(c.StrEnds)+cap(c.Bools)) + adjacencyIndexEntryBytes + 128
}

// hasRoom reports whether the budget has room for bytes more.
func (c *adjacencyCache) hasRoom(bytes int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used+bytes <= c.budget
}

// charge adds bytes (negative: frees them) to what a holds and the cache
// uses, if a is still its group's adjacency and, for bytes > 0, the
// budget has room; it reports whether it did. An adjacency no longer
// installed was subtracted whole when it left.
func (c *adjacencyCache) charge(a *adjacency, bytes int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.parts[a.group]
	if p == nil || p.adj != a || (bytes > 0 && c.used+bytes > c.budget) {
		return false
	}
	c.used += bytes
	a.bytes += bytes
	return true
}
