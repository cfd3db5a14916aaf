package memgraph

import (
	"strings"
	"sync"
	"time"

	"github.com/google/btree"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Options tune a Graph.
type Options struct {
	// Hosts is how many storage hosts the catalog lists, all online
	// (default 1). As with metad, CREATE SPACE refuses a replica_factor
	// above it; replicas are only placed, never run.
	Hosts int
	// Now is the clock of TTL checks and of UPDATE's now() (default
	// time.Now).
	Now func() time.Time
}

// Graph is one in-memory cluster: a catalog and the data of its spaces.
// Meta and Storage are its two faces; both are safe for concurrent use.
type Graph struct {
	opts Options

	mu   sync.RWMutex
	snap *catalog.Snapshot // current; its catalog is never modified
	// Counters, as metad keeps them: space ids are never reused; tag and
	// edge ids share one counter per space, index ids have their own.
	lastSpace  int32
	lastSchema map[int32]int32
	lastIndex  map[int32]int32
	data       map[int32]*kvs // by space
	// inVersion numbers in-edge values (partition.EncodeInEdge), as the
	// owner's raft index does in storaged.
	inVersion uint64
}

// New returns an empty graph whose catalog has user root.
func New(opts Options) *Graph {
	if opts.Hosts <= 0 {
		opts.Hosts = 1
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	g := &Graph{opts: opts, lastSchema: map[int32]int32{}, lastIndex: map[int32]int32{}, data: map[int32]*kvs{}}
	cat := &metapb.Catalog{
		Version: 1,
		Parts:   map[int32]*metapb.SpaceParts{},
		Users:   []*metapb.UserInfo{{Name: catalog.RootUser, Roles: map[int32]metapb.RoleType{}, CreateVersion: 1}},
	}
	for i := 1; i <= opts.Hosts; i++ {
		cat.Hosts = append(cat.Hosts, &metapb.HostInfo{
			StoreId: uint64(i), Addr: &commonpb.HostAddr{Host: "memgraph", Port: int32(9778 + i)}, Online: true,
		})
	}
	g.snap = catalog.NewSnapshot(cat)
	return g
}

// Meta is the graph as the executor's Catalog (metad).
func (g *Graph) Meta() *Meta { return &Meta{g: g} }

// Storage is the graph as the executor's Storage (storaged).
func (g *Graph) Storage() *Storage { return &Storage{g: g} }

// catalog returns the current snapshot.
func (g *Graph) catalog() *catalog.Snapshot {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.snap
}

// change applies fn to a copy of the current catalog and publishes it as
// the next version; g.mu must be held for writing. A snapshot owns its
// catalog, so each version is a copy.
func (g *Graph) change(fn func(cat *metapb.Catalog)) int64 {
	cat := proto.Clone(g.snap.Catalog()).(*metapb.Catalog)
	if cat.Parts == nil {
		cat.Parts = map[int32]*metapb.SpaceParts{}
	}
	fn(cat)
	cat.Version++
	old := g.snap
	g.snap = catalog.NewSnapshot(cat)
	old.Supersede()
	return cat.Version
}

// kv is one key of a space's data: a storaged RocksDB key and its value.
type kv struct {
	key string
	val []byte
}

func lessKV(a, b kv) bool { return a.key < b.key }

// kvs is a space's data, ordered by key as RocksDB orders it.
type kvs struct{ t *btree.BTreeG[kv] }

func newKVs() *kvs { return &kvs{t: btree.NewG(16, lessKV)} }

// clone is a copy that can be changed without changing kv (copy on
// write): a partition's writes go to a clone that replaces the original
// only if all of them succeed.
func (s *kvs) clone() *kvs { return &kvs{t: s.t.Clone()} }

func (s *kvs) get(key []byte) []byte {
	it, ok := s.t.Get(kv{key: string(key)})
	if !ok {
		return nil
	}
	return it.val
}

// Put and Delete write the map; they make it the rowread.Writer of
// index entries.
func (s *kvs) Put(key, val []byte) {
	s.t.ReplaceOrInsert(kv{key: string(key), val: append([]byte{}, val...)})
}

func (s *kvs) Delete(key []byte) { s.t.Delete(kv{key: string(key)}) }

// scan visits the keys in [from, to) in order (to nil: no end) until fn
// returns false. The key and value must not be kept or changed.
func (s *kvs) scan(from, to []byte, fn func(key, val []byte) bool) {
	visit := func(it kv) bool { return fn([]byte(it.key), it.val) }
	if to == nil {
		s.t.AscendGreaterOrEqual(kv{key: string(from)}, visit)
		return
	}
	s.t.AscendRange(kv{key: string(from)}, kv{key: string(to)}, visit)
}

// Scan is scanPrefix from start (nil: the prefix itself) as rowread.Store
// scans: fn may fail, and its error ends the scan.
func (s *kvs) Scan(prefix, start []byte, fn func(key, val []byte) (bool, error)) error {
	if start == nil || string(start) < string(prefix) {
		start = prefix
	}
	var failed error
	s.scan(start, partition.PrefixEnd(prefix), func(key, val []byte) bool {
		var more bool
		more, failed = fn(key, val)
		return more && failed == nil
	})
	return failed
}

// scanPrefix visits the keys that start with prefix, in order.
func (s *kvs) scanPrefix(prefix []byte, fn func(key, val []byte) bool) {
	p := string(prefix)
	s.t.AscendGreaterOrEqual(kv{key: p}, func(it kv) bool {
		if !strings.HasPrefix(it.key, p) {
			return false
		}
		return fn([]byte(it.key), it.val)
	})
}
