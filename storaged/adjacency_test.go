package storaged

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// adjFixture is one partition of a space with two edge types in a RocksDB,
// written by the test, with a fake applied index the test bumps after each
// write as the raft engine does after each apply round.
type adjFixture struct {
	t       *testing.T
	db      *grocksdb.DB
	snap    *catalog.Snapshot
	space   *metapb.SpaceDesc
	g       raftgroup.GroupID
	applied atomic.Uint64
	rng     *rand.Rand
	srcs    [][]byte
}

const (
	adjSpace = 9
	adjPart  = 1
	adjTypeA = 3
	adjTypeB = 4
)

func newAdjFixture(t *testing.T, seed uint64) *adjFixture {
	f := &adjFixture{t: t, db: openProductionDB(t, t.TempDir(), rocksopts.Options{}), rng: rand.New(rand.NewPCG(seed, 1)),
		g: raftgroup.GroupID{Space: adjSpace, Part: adjPart}}
	f.space = &metapb.SpaceDesc{SpaceId: adjSpace, Name: "adj", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64, VidLen: 8}
	f.snap = catalog.NewSnapshot(&metapb.Catalog{Version: 1, Spaces: []*metapb.SpaceDesc{f.space},
		Edges: []*metapb.EdgeDesc{
			{SpaceId: adjSpace, EdgeType: adjTypeA, Name: "a", Versions: []*metapb.Schema{{Version: 0}}},
			{SpaceId: adjSpace, EdgeType: adjTypeB, Name: "b", Versions: []*metapb.Schema{{Version: 0}}},
		}})
	for v := range int64(60) {
		f.srcs = append(f.srcs, partition.EncodeInt64Vid(v-20)) // negative vids too
	}
	f.applied.Store(1)
	return f
}

// write puts n random edges (and their in-edge halves) and deletes del
// random existing out-edges, then publishes a new applied index.
func (f *adjFixture) write(n, del int) {
	f.t.Helper()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for range n {
		src := f.srcs[f.rng.IntN(len(f.srcs))]
		dst := f.srcs[f.rng.IntN(len(f.srcs))]
		et := int32(adjTypeA + f.rng.IntN(2))
		rank := int64(f.rng.IntN(5)) - 2     // negative ranks sort before 0
		row := []byte{byte(f.rng.IntN(256))} // rows are opaque to the cache
		wb.Put(partition.EdgeKey(adjSpace, adjPart, src, et, rank, dst), row)
		version := partition.InEdgeVersion{Index: f.applied.Load(), Seq: uint32(f.rng.IntN(100))}
		if f.rng.IntN(4) == 0 {
			wb.Put(partition.EdgeKey(adjSpace, adjPart, dst, -et, rank, src), partition.EncodeInEdgeTombstone(version))
		} else {
			wb.Put(partition.EdgeKey(adjSpace, adjPart, dst, -et, rank, src), partition.EncodeInEdge(version, row))
		}
		if f.rng.IntN(3) == 0 {
			wb.Put(partition.TagKey(adjSpace, adjPart, src, int32(1+f.rng.IntN(2))), []byte{byte(f.rng.IntN(256))})
		}
	}
	if del > 0 {
		var keys [][]byte
		it := f.db.NewIterator(grocksdb.NewDefaultReadOptions())
		prefix := partition.KindPrefix(adjSpace, adjPart, partition.KindEdge)
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			k := append([]byte(nil), it.Key().Data()...)
			keys = append(keys, k) // deleting an in-edge key is what a mirror cleanup does

		}
		it.Close()
		for range min(del, len(keys)) {
			wb.Delete(keys[f.rng.IntN(len(keys))])
		}
	}
	f.commit(wb)
}

// commit writes wb and publishes a new applied index, as an apply round
// does.
func (f *adjFixture) commit(wb *grocksdb.WriteBatch) {
	f.t.Helper()
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := f.db.Write(wo, wb); err != nil {
		f.t.Fatal(err)
	}
	f.applied.Add(1)
}

func (f *adjFixture) appliedIndex(g raftgroup.GroupID) (uint64, bool) {
	if g != f.g {
		return 0, false
	}
	return f.applied.Load(), true
}

// scan answers req on the partition, from adj or (adj nil) from RocksDB.
func (f *adjFixture) scan(req *storagepb.GetNeighborsReq, adj *adjacency) []*storagepb.VertexNeighbors {
	f.t.Helper()
	var out []*storagepb.VertexNeighbors
	err := scanNeighbors(context.Background(), f.db, adj, f.snap, f.space, adjPart, req, func(vn *storagepb.VertexNeighbors) error {
		out = append(out, vn)
		return nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// waitBuilt looks the partition up until its adjacency is current.
func waitBuilt(t *testing.T, c *adjacencyCache, f *adjFixture) *adjacency {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if adj := c.lookup(f.g, f.db, 8); adj != nil {
			return adj
		}
		if time.Now().After(deadline) {
			t.Fatalf("no adjacency after 10s (builds %d, abandoned %d)", c.builds.Load(), c.abandoned.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAdjacencyAnswersAsRocksDB: through random writes and deletes, every
// request shape that needs keys only gets the same answer from the
// adjacency as from RocksDB, and a write makes the adjacency unusable
// until it is rebuilt.
func TestAdjacencyAnswersAsRocksDB(t *testing.T) {
	for seed := range uint64(4) {
		f := newAdjFixture(t, seed)
		c := newAdjacencyCache(f.appliedIndex, 1<<30, time.Nanosecond, slog.New(slog.DiscardHandler))
		defer c.close()
		f.write(400, 0)
		vids := append([][]byte{partition.EncodeInt64Vid(1000)}, f.srcs...) // 1000 has no edges
		reqs := map[string]*storagepb.GetNeighborsReq{
			"packed":        {EdgeTypes: []int32{adjTypeA}, DstOnly: true},
			"edges":         {EdgeTypes: []int32{adjTypeA, adjTypeB}},
			"limit":         {EdgeTypes: []int32{adjTypeB, adjTypeA}, LimitPerVertex: 2},
			"dedup":         {EdgeTypes: []int32{adjTypeA, adjTypeB}, DedupDst: true, DstOnly: true},
			"count":         {EdgeTypes: []int32{adjTypeA}, CountOnly: true},
			"limit, packed": {EdgeTypes: []int32{adjTypeA}, DstOnly: true, LimitPerVertex: 1},
			"type b":        {EdgeTypes: []int32{adjTypeB}},
			"packed edges":  {EdgeTypes: []int32{adjTypeB}, PackedEdges: true},
		}
		for round := range 6 {
			adj := waitBuilt(t, c, f)
			for name, r := range reqs {
				r.SpaceId = adjSpace
				r.Parts = map[int32]*storagepb.VidList{adjPart: {Vids: vids}}
				want, got := f.scan(r, nil), f.scan(r, adj)
				if len(want) != len(got) {
					t.Fatalf("seed %d round %d %s: %d vertices from the adjacency, %d from RocksDB", seed, round, name, len(got), len(want))
				}
				for i := range want {
					if !proto.Equal(want[i], got[i]) {
						t.Fatalf("seed %d round %d %s: vertex %x:\nadjacency %v\nRocksDB   %v", seed, round, name, want[i].Vid, got[i], want[i])
					}
				}
			}
			// A write: the adjacency no longer holds the partition.
			f.write(30, 20)
			if c.lookup(f.g, f.db, 8) != nil {
				t.Fatalf("seed %d round %d: adjacency served after a write", seed, round)
			}
		}
		// The answers above came from memory: with every edge deleted
		// behind the cache's back (no new applied index, which the engine
		// never does), the adjacency still has them.
		adj := waitBuilt(t, c, f)
		wb := grocksdb.NewWriteBatch()
		prefix := partition.KindPrefix(adjSpace, adjPart, partition.KindEdge)
		wb.DeleteRange(prefix, partition.PrefixEnd(prefix))
		wo := grocksdb.NewDefaultWriteOptions()
		if err := f.db.Write(wo, wb); err != nil {
			t.Fatal(err)
		}
		wb.Destroy()
		wo.Destroy()
		for name, r := range reqs {
			if r.CountOnly {
				continue
			}
			edges := 0
			for _, vn := range f.scan(r, adj) {
				edges += len(vn.Edges) + len(vn.PackedDsts)
			}
			if edges == 0 {
				t.Fatalf("seed %d %s: nothing from the adjacency; it was not read", seed, name)
			}
		}
	}
}

// TestAdjacencyHoldsEdgesAndTags: every edge of the partition, both
// directions, with its stored value, and every tag row; tag reads answer
// as RocksDB Gets do, absent keys included; other partitions' keys and
// other kinds of keys are not answered from it.
func TestAdjacencyHoldsEdgesAndTags(t *testing.T) {
	f := newAdjFixture(t, 7)
	c := newAdjacencyCache(f.appliedIndex, 1<<30, time.Nanosecond, slog.New(slog.DiscardHandler))
	defer c.close()
	f.write(300, 0)
	// A neighbouring partition's keys must not end up in this one's.
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := f.db.Put(wo, partition.EdgeKey(adjSpace, adjPart+1, f.srcs[0], adjTypeA, 0, f.srcs[1]), []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.Put(wo, partition.TagKey(adjSpace, adjPart+1, f.srcs[0], 1), []byte{1}); err != nil {
		t.Fatal(err)
	}
	adj := waitBuilt(t, c, f)
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	it := f.db.NewIterator(ro)
	defer it.Close()
	prefix := partition.KindPrefix(adjSpace, adjPart, partition.KindEdge)
	edges := 0
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		key := it.Key().Data()
		span := adj.span(key[partition.KeyPrefixLen : partition.KeyPrefixLen+8+4])
		found := false
		for i := span.from; i < span.to; i++ {
			if string(adj.tail(i)) == string(partition.EdgeKeyTail(key, 8)) {
				if string(adj.row(i)) != string(it.Value().Data()) {
					t.Fatalf("edge %x: value %x in the cache, %x stored", key, adj.row(i), it.Value().Data())
				}
				found = true
			}
		}
		if !found {
			t.Fatalf("edge %x is not in the cache", key)
		}
		edges++
	}
	if held := len(adj.rowEnds); held != edges || edges == 0 {
		t.Fatalf("the cache holds %d edges, the partition has %d", held, edges)
	}
	tags := 0
	for _, vid := range append(f.srcs, partition.EncodeInt64Vid(1000)) {
		for tag := int32(1); tag <= 3; tag++ {
			key := partition.TagKey(adjSpace, adjPart, vid, tag)
			stored, err := f.db.GetBytes(ro, key)
			if err != nil {
				t.Fatal(err)
			}
			row, ok := adj.tagRow(key)
			if !ok || string(row) != string(stored) || (row == nil) != (stored == nil) {
				t.Fatalf("tag %d of %x: %x, %v from the cache, %x stored", tag, vid, row, ok, stored)
			}
			if stored != nil {
				tags++
			}
		}
	}
	if tags == 0 {
		t.Fatal("the fixture wrote no tags")
	}
	for _, key := range [][]byte{
		partition.TagKey(adjSpace, adjPart+1, f.srcs[0], 1),                     // another partition
		partition.EdgeKey(adjSpace, adjPart, f.srcs[0], adjTypeA, 0, f.srcs[1]), // not a tag
		partition.DegreeKey(adjSpace, adjPart, f.srcs[0], adjTypeA),             // not held
	} {
		if _, ok := adj.tagRow(key); ok {
			t.Fatalf("key %x answered from the cache", key)
		}
	}
}

// TestAdjacencyBudgetAndQuiet: a partition over the budget is not cached
// (and reads go on from RocksDB); a partition written more recently than
// quiet is not built at all; a dropped partition is forgotten.
func TestAdjacencyBudgetAndQuiet(t *testing.T) {
	f := newAdjFixture(t, 3)
	f.write(500, 0)
	small := newAdjacencyCache(f.appliedIndex, 1024, time.Nanosecond, slog.New(slog.DiscardHandler))
	defer small.close()
	deadline := time.Now().Add(10 * time.Second)
	for small.abandoned.Load() == 0 {
		if small.lookup(f.g, f.db, 8) != nil {
			t.Fatal("an adjacency over the budget was installed")
		}
		if time.Now().After(deadline) {
			t.Fatal("the build over the budget was not abandoned")
		}
		time.Sleep(time.Millisecond)
	}
	if b, n := small.stats(); b != 0 || n != 0 {
		t.Fatalf("after an abandoned build the cache holds %d bytes in %d partitions", b, n)
	}
	// Once the retry wait is over, no build is tried again while the room
	// is what it was: it would be abandoned again, after a scan.
	small.mu.Lock()
	small.retry = 0
	small.parts[f.g].retireAt = time.Time{}
	small.mu.Unlock()
	for range 50 {
		small.lookup(f.g, f.db, 8)
		time.Sleep(100 * time.Microsecond)
	}
	if n := small.abandoned.Load() + small.builds.Load(); n != 1 {
		t.Fatalf("%d builds tried with no more room than the one abandoned", n)
	}
	// More room (here: a larger budget, as a dropped partition would free)
	// lets it build.
	small.mu.Lock()
	small.budget = 1 << 30
	small.mu.Unlock()
	waitBuilt(t, small, f)

	patient := newAdjacencyCache(f.appliedIndex, 1<<30, time.Hour, slog.New(slog.DiscardHandler))
	defer patient.close()
	for range 50 {
		if patient.lookup(f.g, f.db, 8) != nil {
			t.Fatal("adjacency built before the partition was quiet")
		}
	}
	time.Sleep(20 * time.Millisecond)
	if n := patient.builds.Load() + patient.abandoned.Load(); n != 0 {
		t.Fatalf("%d builds of a partition that is not quiet", n)
	}

	eager := newAdjacencyCache(f.appliedIndex, 1<<30, time.Nanosecond, slog.New(slog.DiscardHandler))
	defer eager.close()
	adj := waitBuilt(t, eager, f)
	if b, n := eager.stats(); b != adj.bytes || n != 1 || b < int64(len(adj.tails)+len(adj.rows)) {
		t.Fatalf("cache reports %d bytes in %d partitions; the adjacency holds %d (%d of tails, %d of rows)", b, n, adj.bytes, len(adj.tails), len(adj.rows))
	}
	eager.drop(f.g)
	if b, n := eager.stats(); b != 0 || n != 0 {
		t.Fatalf("after drop the cache holds %d bytes in %d partitions", b, n)
	}
}

// BenchmarkAdjacencyBuild reads one partition of about 85,000 edges
// (20,000 vertices of degree 17 over 4 partitions, INT64 vids, out-edges
// only) into an adjacency: what a build costs the background goroutine.
//
//	go test ./storaged -run '^$' -bench AdjacencyBuild
func BenchmarkAdjacencyBuild(b *testing.B) {
	f := newNeighborFixture(b, 20000, 17, 0)
	c := &adjacencyCache{applied: func(raftgroup.GroupID) (uint64, bool) { return 1, true }}
	r := buildRequest{g: raftgroup.GroupID{Space: nbSpace, Part: 1}, db: f.db, vidLen: 8}
	var edges int
	for b.Loop() {
		adj, err := c.read(context.Background(), r, 1<<30)
		if err != nil || adj == nil {
			b.Fatal(err)
		}
		edges = len(adj.rowEnds)
	}
	b.ReportMetric(float64(edges), "edges")
}

// TestKeyMap: keys of 12 bytes (8-byte vids) and of other lengths map the
// same way; an absent key or one of another length reads as absent.
func TestKeyMap(t *testing.T) {
	for _, keyLen := range []int{12, 36} {
		m := newKeyMap[adjacencySpan](keyLen)
		key := func(b byte) []byte {
			k := make([]byte, keyLen)
			k[0], k[keyLen-1] = b, b
			return k
		}
		for b := range byte(50) {
			m.put(key(b), adjacencySpan{uint32(b), uint32(b) + 1})
		}
		for b := range byte(60) {
			v, ok := m.lookup(key(b))
			if got := m.get(key(b)); got != v || ok != (b < 50) || ok && v != (adjacencySpan{uint32(b), uint32(b) + 1}) {
				t.Fatalf("key length %d, key %d: get %v, lookup %v %v", keyLen, b, got, v, ok)
			}
		}
		if _, ok := m.lookup(key(1)[:keyLen-1]); ok {
			t.Fatalf("key length %d: a shorter key was found", keyLen)
		}
		if v := m.get(append(key(1), 0)); v != (adjacencySpan{}) {
			t.Fatalf("key length %d: a longer key read %v", keyLen, v)
		}
	}
}

// TestAdjacencyCacheDefault: a quarter of the memory, with a floor, and a
// fixed size where the memory is unknown; the Go memory limit derived from
// the caches counts each one's default when it is 0 and nothing when it is
// off (< 0).
func TestAdjacencyCacheDefault(t *testing.T) {
	for _, c := range []struct {
		memory uint64
		want   int64
	}{
		{0, 512 << 20},
		{512 << 20, 256 << 20},
		{2 << 30, 512 << 20},
		{24 << 30, 6 << 30},
	} {
		if got := AdjacencyCacheBytesFor(c.memory); got != c.want {
			t.Errorf("AdjacencyCacheBytesFor(%d) = %d, want %d", c.memory, got, c.want)
		}
	}
	if got := DefaultAdjacencyCacheBytes(); got < minAdjacencyCacheBytes {
		t.Errorf("DefaultAdjacencyCacheBytes() = %d, below the floor", got)
	}
	for _, c := range []struct {
		cfg  Config
		want int64
	}{
		{Config{AdjacencyCacheBytes: 6 << 30, RaftEntryCacheBytes: 64 << 20, DegreeCacheEntries: 1000}, 6<<30 + 64<<20 + 100_000 + 1<<30},
		{Config{AdjacencyCacheBytes: -1, RaftEntryCacheBytes: -1, DegreeCacheEntries: -1}, 1 << 30},
		{Config{AdjacencyCacheBytes: 1 << 30, RaftEntryCacheBytes: 0, DegreeCacheEntries: 0}, 1<<30 + DefaultRaftEntryCacheBytes + 100<<20 + 1<<30},
		{Config{RaftEntryCacheBytes: -1, DegreeCacheEntries: -1}, DefaultAdjacencyCacheBytes() + 1<<30},
	} {
		if got := c.cfg.GoMemoryLimit(); got != c.want {
			t.Errorf("%+v: GoMemoryLimit() = %d, want %d", c.cfg, got, c.want)
		}
	}
}

// TestAdjacencyEstimateSkipsScan: once a build has shown how many
// adjacency bytes a byte of SST makes, a partition whose SST bytes say it
// cannot fit in the room left is given up without a scan.
func TestAdjacencyEstimateSkipsScan(t *testing.T) {
	f := newAdjFixture(t, 3)
	f.write(2000, 0)
	flushDB(t, f.db) // SST bytes for the estimate
	var logged atomic.Value
	logged.Store("")
	c := newAdjacencyCache(f.appliedIndex, 1<<30, time.Nanosecond, slog.New(recordHandler{&logged}))
	defer c.close()
	c.mu.Lock()
	c.learnFromSST = 0 // learn from this small partition
	c.mu.Unlock()
	adj := waitBuilt(t, c, f)
	c.mu.Lock()
	ratio := c.bytesPerSSTByte
	// A write makes the adjacency stale (it is dropped at the next
	// lookup); the budget is then a tenth of what the partition took,
	// under half the estimate.
	c.budget = adj.bytes / 10
	c.mu.Unlock()
	if ratio <= 0 {
		t.Fatalf("a build over %d SST bytes learned a ratio of %v", partSSTBytes(f.db, f.g), ratio)
	}
	f.write(1, 0)
	deadline := time.Now().Add(10 * time.Second)
	for c.abandoned.Load() == 0 {
		if c.lookup(f.g, f.db, 8) != nil {
			t.Fatal("an adjacency over the budget was installed")
		}
		if time.Now().After(deadline) {
			t.Fatal("the build over the budget was not given up")
		}
		time.Sleep(time.Millisecond)
	}
	if msg := logged.Load().(string); !strings.Contains(msg, "estimated") {
		t.Fatalf("given up as %q, want by the estimate, before a scan", msg)
	}
}

// recordHandler keeps the err attribute of the last record logged.
type recordHandler struct{ last *atomic.Value }

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			h.last.Store(a.Value.String())
		}
		return true
	})
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }
