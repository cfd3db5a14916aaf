package storaged

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/raftgroup"
)

// openProductionDB opens a RocksDB with openDB, so with the options storaged
// runs with (o over the defaults), and turns automatic compaction off so
// that every db.Flush leaves one more L0 file: a seek then meets several
// files whose prefix blooms mostly say "not here", which is where an
// iterator without total order loses keys.
func openProductionDB(t testing.TB, dir string, o rocksopts.Options) *grocksdb.DB {
	t.Helper()
	o, err := o.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	cache := rocksopts.NewBlockCache(o)
	defer cache.Destroy()
	db, err := openDB(dir, o, cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if err := db.SetOptions([]string{"disable_auto_compactions"}, []string{"true"}); err != nil {
		t.Fatal(err)
	}
	return db
}

func flushDB(t *testing.T, db *grocksdb.DB) {
	t.Helper()
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	if err := db.Flush(fo); err != nil {
		t.Fatal(err)
	}
}

func putAll(t *testing.T, db *grocksdb.DB, kvs map[string][]byte) {
	t.Helper()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for k, v := range kvs {
		wb.Put([]byte(k), v)
	}
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := db.Write(wo, wb); err != nil {
		t.Fatal(err)
	}
}

// scanFrom returns the keys in [start, end) read by one iterator with ro.
func scanFrom(t *testing.T, db *grocksdb.DB, ro *grocksdb.ReadOptions, start, end []byte) []string {
	t.Helper()
	it := db.NewIterator(ro)
	defer it.Close()
	var out []string
	for it.Seek(start); it.Valid(); it.Next() {
		k := it.Key().Data()
		if bytes.Compare(k, end) >= 0 {
			break
		}
		out = append(out, string(k))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedKeys(kvs map[string][]byte, start, end []byte) []string {
	var out []string
	for k := range kvs {
		if k >= string(start) && k < string(end) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

const (
	bloomSpace     = 1
	bloomPart      = 1
	bloomTagA      = 3
	bloomTagB      = 4
	bloomEdge      = 5
	bloomIndex     = 7
	bloomBatches   = 6
	bloomPerBatch  = 40
	bloomDstOffset = 100000
)

// writeGraph writes bloomBatches batches of bloomPerBatch INT64 vertices of
// partition bloomPart (and a few of its neighbours in partition 2, which
// bound the range): two tags, an out-edge and its in-edge mirror, degrees, an
// intent, a tombstone and an index entry each. Every batch but the last is
// flushed into an L0 file of its own; the last stays in the memtable. It
// returns every key written with its value.
func writeGraph(t *testing.T, db *grocksdb.DB) map[string][]byte {
	t.Helper()
	all := map[string][]byte{}
	for b := 0; b < bloomBatches; b++ {
		batch := map[string][]byte{}
		for i := 0; i < bloomPerBatch; i++ {
			n := int64(b*bloomPerBatch + i)
			v := partition.EncodeInt64Vid(n)
			dst := partition.EncodeInt64Vid(n + bloomDstOffset)
			val := []byte("v" + strconv.FormatInt(n, 10))
			for _, part := range []int32{bloomPart, bloomPart + 1} {
				if part != bloomPart && i%8 != 0 {
					continue
				}
				batch[string(partition.TagKey(bloomSpace, part, v, bloomTagA))] = val
				batch[string(partition.TagKey(bloomSpace, part, v, bloomTagB))] = val
				batch[string(partition.EdgeKey(bloomSpace, part, v, bloomEdge, 0, dst))] = val
				batch[string(partition.EdgeKey(bloomSpace, part, v, -bloomEdge, 0, dst))] = val
				batch[string(partition.DegreeKey(bloomSpace, part, v, bloomEdge))] = partition.EncodeDegree(1)
				batch[string(partition.DegreeKey(bloomSpace, part, v, -bloomEdge))] = partition.EncodeDegree(1)
				batch[string(partition.IntentKey(bloomSpace, part, uint64(n+1), 0))] = nil // an empty storagepb.Intent
				edge := partition.EdgeKey(bloomSpace, part, dst, -bloomEdge, 0, v)
				batch[string(partition.TombstoneKey(bloomSpace, part, n, edge))] = nil
				batch[string(partition.TagIndexKey(bloomSpace, part, bloomIndex, binary.BigEndian.AppendUint64(nil, uint64(n)), v))] = nil
			}
		}
		putAll(t, db, batch)
		for k, v := range batch {
			all[k] = v
		}
		if b < bloomBatches-1 {
			flushDB(t, db)
		}
	}
	if n, _ := strconv.Atoi(db.GetProperty("rocksdb.num-files-at-level0")); n < bloomBatches-1 {
		t.Fatalf("%d L0 files, want %d: the fixture needs one file per batch", n, bloomBatches-1)
	}
	return all
}

// TestPrefixBloomHidesKeysFromPrefixSeeks is the control for the tests below:
// on this fixture an iterator with default ReadOptions, positioned at a
// full-length key and then moved across vertices, does lose keys, because
// RocksDB leaves out every file whose prefix bloom lacks the seek key's
// vertex. If it ever stops losing keys, the tests below no longer prove that
// total order is needed.
func TestPrefixBloomHidesKeysFromPrefixSeeks(t *testing.T) {
	db := openProductionDB(t, t.TempDir(), rocksopts.Options{WriteBufferMB: 4})
	all := writeGraph(t, db)
	start := partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(3), bloomTagA)
	_, end := partition.DataRange(bloomSpace, bloomPart)
	want := sortedKeys(all, start, end)

	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	if got := scanFrom(t, db, ro, start, end); len(got) >= len(want) {
		t.Fatalf("a prefix-mode scan across vertices returned all %d keys: the fixture does not exercise prefix-bloom skipping", len(got))
	} else {
		t.Logf("prefix-mode scan returned %d of %d keys", len(got), len(want))
	}
	ro.SetTotalOrderSeek(true)
	if got := scanFrom(t, db, ro, start, end); !slices.Equal(got, want) {
		t.Fatalf("total-order scan returned %d keys, want %d", len(got), len(want))
	}
}

// TestCrossPrefixScansSeeEveryKey runs the scans of storaged and raftgroup
// that cross vertex prefixes on a database with the production options and
// several flushed files, and checks that each sees every key.
func TestCrossPrefixScansSeeEveryKey(t *testing.T) {
	db := openProductionDB(t, t.TempDir(), rocksopts.Options{WriteBufferMB: 4})
	all := writeGraph(t, db)
	g := raftgroup.GroupID{Space: bloomSpace, Part: bloomPart}

	t.Run("checksum of the data range", func(t *testing.T) {
		// The same keys in a database without a prefix extractor, in one
		// memtable, must hash the same.
		opts := grocksdb.NewDefaultOptions()
		opts.SetCreateIfMissing(true)
		defer opts.Destroy()
		plain, err := grocksdb.OpenDb(opts, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer plain.Close()
		putAll(t, plain, all)
		sum := func(db *grocksdb.DB) uint64 {
			s := &Server{groupDB: map[raftgroup.GroupID]*grocksdb.DB{g: db}}
			v, err := s.PartChecksum(bloomSpace, bloomPart)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		if got, want := sum(db), sum(plain); got != want {
			t.Fatalf("checksum %x with prefix blooms, %x without", got, want)
		}
	})

	t.Run("intents", func(t *testing.T) {
		prefix := partition.KindPrefix(bloomSpace, bloomPart, partition.KindIntent)
		want := sortedKeys(all, prefix, partition.PrefixEnd(prefix))
		b, err := readIntents(db, g, nil, 1<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		keys := b.keys
		got := make([]string, len(keys))
		for i, k := range keys {
			got[i] = string(k)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("readIntents returned %d keys, want %d", len(got), len(want))
		}
		if !hasKeyWithPrefix(db, prefix) {
			t.Fatal("hasKeyWithPrefix found no intent")
		}
	})

	t.Run("apply batch scan from a key", func(t *testing.T) {
		// What the applier's Scan does when it resumes (index rebuild
		// chunks): start at a full key, read the rest of the kind.
		prefix := partition.KindPrefix(bloomSpace, bloomPart, partition.KindTag)
		start := partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(7), bloomTagB)
		want := sortedKeys(all, start, partition.PrefixEnd(prefix))
		b := raftgroup.NewApplyBatch(db)
		defer b.Destroy()
		var got []string
		if err := b.Scan(prefix, start, func(k, _ []byte) (bool, error) {
			got = append(got, string(k))
			return true, nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ApplyBatch.Scan returned %d keys, want %d", len(got), len(want))
		}
	})

}

// TestReseekAcrossPrefixesLosesKeys is how a compose chaos run lost
// acknowledged vertices (2026-12-03): a register's tag row overwritten
// many times in the memtable, then vertices of the same partition in an
// L0 file. Passing more than max_sequential_skip_in_iterations (8)
// versions of one key, an iterator re-seeks to that key; in prefix mode
// the re-seek consults the prefix blooms with that vertex's prefix, the
// file's bloom lacks it, and the file's keys after it are skipped. A
// scan of the whole partition in prefix mode lost them; the adjacency
// cache's build, which scans that way, then answered FETCH with "no such
// vertex" for rows every replica held. The control checks that the
// fixture still shows the skipping; the build must see every row.
func TestReseekAcrossPrefixesLosesKeys(t *testing.T) {
	db := openProductionDB(t, t.TempDir(), rocksopts.Options{})
	const part = 8
	all := map[string][]byte{}
	inFile := map[string][]byte{}
	for v := int64(100); v < 110; v++ {
		inFile[string(partition.TagKey(bloomSpace, part, partition.EncodeInt64Vid(v), bloomTagB))] = []byte{byte(v)}
	}
	putAll(t, db, inFile)
	flushDB(t, db)
	maps.Copy(all, inFile)
	register := string(partition.TagKey(bloomSpace, part, partition.EncodeInt64Vid(50), bloomTagA))
	for i := range 20 { // one write each: 20 versions in the memtable
		putAll(t, db, map[string][]byte{register: {byte(i)}})
	}
	all[register] = []byte{19}

	prefix := partition.KindPrefix(bloomSpace, part, partition.KindTag)
	want := sortedKeys(all, prefix, partition.PrefixEnd(prefix))
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	if got := scanFrom(t, db, ro, prefix, partition.PrefixEnd(prefix)); len(got) >= len(want) {
		t.Fatalf("a prefix-mode scan returned all %d keys: the fixture no longer shows the re-seek skipping files", len(got))
	}

	c := &adjacencyCache{applied: func(raftgroup.GroupID) (uint64, bool) { return 1, true }}
	adj, err := c.read(context.Background(), buildRequest{g: raftgroup.GroupID{Space: bloomSpace, Part: part}, db: db, vidLen: 8}, 1<<30)
	if err != nil || adj == nil {
		t.Fatalf("build: %v, %v", adj, err)
	}
	for k, v := range all {
		if row, ok := adj.tagRow([]byte(k)); !ok || string(row) != string(v) {
			t.Errorf("tag key %x: the adjacency has %x, %v; RocksDB %x", k, row, ok, v)
		}
	}
}

// TestEdgeScanUsesPrefixBloom checks rocksopts.SetEdgeScan, GetNeighbors' iterator
// setup, for each vid length: every vertex's edges of one type are found
// whichever file or memtable holds them, and no other vertex's. For INT64
// vids the EdgePrefix covers the 17-byte extractor prefix (prefix mode); for
// a 2-byte FIXED_STRING it does not (total order); for 16 bytes only the
// first 8 vid bytes are in the prefix, shared by every vertex here.
func TestEdgeScanUsesPrefixBloom(t *testing.T) {
	for _, vidLen := range []int{2, 4, 8, 16} {
		t.Run(fmt.Sprintf("vid_len_%d", vidLen), func(t *testing.T) {
			db := openProductionDB(t, t.TempDir(), rocksopts.Options{WriteBufferMB: 4})
			vidOf := func(n int) []byte {
				if vidLen == 8 {
					return partition.EncodeInt64Vid(int64(n))
				}
				s := fmt.Sprintf("%0*d", vidLen, n) // 16 bytes: "00000000000000nn", one shared 8-byte prefix
				return []byte(s[len(s)-vidLen:])
			}
			const vertices, batches = 60, 4
			want := map[int][]string{}
			for b := 0; b < batches; b++ {
				batch := map[string][]byte{}
				for n := b; n < vertices; n += batches {
					for rank := int64(0); rank < 3; rank++ {
						k := partition.EdgeKey(bloomSpace, bloomPart, vidOf(n), bloomEdge, rank, vidOf(n+1))
						batch[string(k)] = nil
						want[n] = append(want[n], string(k))
						batch[string(partition.EdgeKey(bloomSpace, bloomPart, vidOf(n), bloomEdge+1, rank, vidOf(n)))] = nil
						batch[string(partition.TagKey(bloomSpace, bloomPart, vidOf(n), bloomTagA))] = nil
					}
				}
				// Keys shorter than the extractor's prefix, right after the
				// edges: the iterator steps on them at the end of the last
				// vertex's edges.
				batch[string(partition.DataVersionKey(bloomSpace, bloomPart))] = partition.EncodeDataVersion(1)
				batch[string(partition.RaftAppliedKey(bloomSpace, bloomPart))] = nil
				putAll(t, db, batch)
				if b < batches-1 {
					flushDB(t, db)
				}
			}
			ro := grocksdb.NewDefaultReadOptions()
			defer ro.Destroy()
			rocksopts.SetEdgeScan(ro, partition.EdgePrefixLen(vidLen))
			it := db.NewIterator(ro)
			defer it.Close()
			for n := 0; n < vertices+5; n++ {
				prefix := partition.EdgePrefix(bloomSpace, bloomPart, vidOf(n), bloomEdge)
				var got []string
				for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
					got = append(got, string(it.Key().Data()))
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				slices.Sort(want[n])
				if !slices.Equal(got, want[n]) {
					t.Fatalf("vertex %d: %d edges, want %d", n, len(got), len(want[n]))
				}
			}
		})
	}
}

// TestSnapshotInstallWithPrefixBloom replays what installing a raft
// snapshot does to a replica (raftgroup/snapshot.go): delete the data range,
// ingest an SST file written with default options (no prefix extractor, no
// filters; RocksDB then ignores prefix blooms for that file), and checks
// that point reads, edge scans and range scans see exactly the snapshot.
func TestSnapshotInstallWithPrefixBloom(t *testing.T) {
	dir := t.TempDir()
	db := openProductionDB(t, filepath.Join(dir, "db"), rocksopts.Options{WriteBufferMB: 4})
	old := writeGraph(t, db)
	flushDB(t, db)

	// The snapshot: the edges of every third vertex, with new values.
	snap := map[string][]byte{}
	for k := range old {
		key := []byte(k)
		if _, part, src, et, _, _, err := partition.ParseEdgeKey(key, 8); err == nil && part == bloomPart && et == bloomEdge &&
			binary.BigEndian.Uint64(src)%3 == 0 {
			snap[k] = []byte("snap")
		}
	}
	sstPath := filepath.Join(dir, "snap.sst")
	var sstKeys [][]byte
	for _, k := range sortedKeys(snap, nil, []byte{0xff}) {
		sstKeys = append(sstKeys, []byte(k))
	}
	writeSSTFile(t, sstPath, sstKeys, func(i int) []byte { return snap[string(sstKeys[i])] })

	lower, upper := partition.DataRange(bloomSpace, bloomPart)
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	wb.DeleteRange(lower, upper)
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := db.Write(wo, wb); err != nil {
		t.Fatal(err)
	}
	io := grocksdb.NewDefaultIngestExternalFileOptions()
	defer io.Destroy()
	io.SetMoveFiles(true)
	if err := db.IngestExternalFile([]string{sstPath}, io); err != nil {
		t.Fatal(err)
	}

	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true)
	if got, want := scanFrom(t, db, ro, lower, upper), sortedKeys(snap, lower, upper); !slices.Equal(got, want) {
		t.Fatalf("data range after install: %d keys, want %d", len(got), len(want))
	}
	// Partition 2 was not touched.
	lower2, upper2 := partition.DataRange(bloomSpace, bloomPart+1)
	if got, want := scanFrom(t, db, ro, lower2, upper2), sortedKeys(old, lower2, upper2); !slices.Equal(got, want) {
		t.Fatalf("neighbour partition: %d keys, want %d", len(got), len(want))
	}

	edgeRO := grocksdb.NewDefaultReadOptions()
	defer edgeRO.Destroy()
	rocksopts.SetEdgeScan(edgeRO, partition.EdgePrefixLen(8))
	it := db.NewIterator(edgeRO)
	defer it.Close()
	for n := int64(0); n < bloomBatches*bloomPerBatch; n++ {
		prefix := partition.EdgePrefix(bloomSpace, bloomPart, partition.EncodeInt64Vid(n), bloomEdge)
		var got []string
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if string(it.Value().Data()) != "snap" {
				t.Fatalf("vertex %d: edge %x has the pre-snapshot value", n, it.Key().Data())
			}
			got = append(got, string(it.Key().Data()))
		}
		if want := sortedKeys(snap, prefix, partition.PrefixEnd(prefix)); !slices.Equal(got, want) {
			t.Fatalf("vertex %d: %d edges after install, want %d", n, len(got), len(want))
		}
		tag, err := db.GetBytes(ro, partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(n), bloomTagA))
		if err != nil || tag != nil {
			t.Fatalf("vertex %d: tag row %q (%v) survived the range delete", n, tag, err)
		}
	}
}

type nopTransport struct{}

func (nopTransport) Send([]raftgroup.Envelope) {}

type nopApplier struct{}

func (nopApplier) Apply(*raftgroup.ApplyBatch, raftgroup.GroupID, uint64, []byte) ([]byte, error) {
	return nil, nil
}

// TestRaftLogReloadsAcrossFlushedFiles writes a raft log spread over several
// flushed files of a production database, restarts the engine and checks
// that loading the log (raftgroup/logstore.go) found every entry. Raft log
// keys are 17 bytes, so under the prefix extractor each is a prefix of its
// own, and a log read without total order stops at the first file.
func TestRaftLogReloadsAcrossFlushedFiles(t *testing.T) {
	db := openProductionDB(t, t.TempDir(), rocksopts.Options{WriteBufferMB: 4})
	g := raftgroup.GroupID{Space: bloomSpace, Part: bloomPart}
	start := func() *raftgroup.Engine {
		t.Helper()
		e := raftgroup.NewEngine(raftgroup.Config{StoreID: 1, TickInterval: 5 * time.Millisecond, Transport: nopTransport{},
			Applier: nopApplier{}, MaxLogEntries: -1, MaxLogBytes: -1})
		e.Start()
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("reopening the group: %v", r)
				}
			}()
			if err := e.AddGroup(g, db, []uint64{1}); err != nil {
				t.Fatal(err)
			}
		}()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if leader, _, _ := e.Leader(g); leader == 1 {
				return e
			}
			if time.Now().After(deadline) {
				t.Fatal("no leader")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	e := start()
	for b := 0; b < 5; b++ {
		for i := 0; i < 20; i++ {
			if err := e.Propose(ctx, g, []byte(fmt.Sprintf("entry %d.%d", b, i))); err != nil {
				t.Fatal(err)
			}
		}
		flushDB(t, db)
	}
	st, err := e.Status(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	e.Stop()

	// Control: the log as a prefix-mode iterator sees it.
	first := partition.RaftLogKey(bloomSpace, bloomPart, 1)
	end := partition.PrefixEnd(partition.KindPrefix(bloomSpace, bloomPart, partition.KindRaftLog))
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true)
	logKeys := scanFrom(t, db, ro, first, end)
	if len(logKeys) < 100 {
		t.Fatalf("%d log entries, want at least 100", len(logKeys))
	}
	prefixRO := grocksdb.NewDefaultReadOptions()
	defer prefixRO.Destroy()
	if got := scanFrom(t, db, prefixRO, []byte(logKeys[0]), end); len(got) >= len(logKeys) {
		t.Fatalf("a prefix-mode log read saw all %d entries: the fixture does not exercise prefix-bloom skipping", len(got))
	}

	e = start()
	defer e.Stop()
	st2, err := e.Status(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Commit < st.Commit || st2.Applied < st.Applied {
		t.Fatalf("after restart commit %d applied %d, before %d and %d", st2.Commit, st2.Applied, st.Commit, st.Applied)
	}
	if err := e.Propose(ctx, g, []byte("after restart")); err != nil {
		t.Fatal(err)
	}
}

// TestRocksDBCompressions opens a database with each compression this
// RocksDB build is linked with (every level the same), writes compressible
// values into an SST file, reopens it and reads them back. RocksDB refuses
// to open with a compression it was built without, so this is also the
// check that Debian's librocksdb has all of them.
func TestRocksDBCompressions(t *testing.T) {
	const keys, valueLen = 400, 2048
	value := func(i int) []byte {
		return []byte(strings.Repeat(fmt.Sprintf("novagraph value %06d ", i), valueLen/23+1)[:valueLen])
	}
	sstSize := func(db *grocksdb.DB) int {
		n, err := strconv.Atoi(db.GetProperty("rocksdb.total-sst-files-size"))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, name := range []string{"no", "snappy", "lz4", "lz4hc", "zstd", "zlib", "bzip2", "default"} {
		t.Run(name, func(t *testing.T) {
			o := rocksopts.Options{WriteBufferMB: 4}
			if name != "default" {
				o.CompressionPerLevel = []string{name}
			}
			dir := t.TempDir()
			o, err := o.WithDefaults()
			if err != nil {
				t.Fatal(err)
			}
			cache := rocksopts.NewBlockCache(o)
			defer cache.Destroy()
			db, err := openDB(dir, o, cache)
			if err != nil {
				t.Fatalf("opening with %v: %v", o.CompressionPerLevel, err)
			}
			kvs := map[string][]byte{}
			for i := 0; i < keys; i++ {
				kvs[string(partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(int64(i)), bloomTagA))] = value(i)
			}
			putAll(t, db, kvs)
			flushDB(t, db)
			size := sstSize(db)
			// A compaction rewrites the file into L1 with the level's
			// compression and rebuilds its filters.
			db.CompactRange(grocksdb.Range{})
			db.Close()

			if db, err = openDB(dir, o, cache); err != nil {
				t.Fatalf("reopening: %v", err)
			}
			defer db.Close()
			ro := grocksdb.NewDefaultReadOptions()
			defer ro.Destroy()
			for k, want := range kvs {
				got, err := db.GetBytes(ro, []byte(k))
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("key %x: %d bytes (%v), want %d", k, len(got), err, len(want))
				}
			}
			raw := keys * valueLen
			// L0 (flushes) uses the first entry: "no" for the default list.
			compressed := name != "no" && name != "default"
			if compressed && size > raw/4 {
				t.Fatalf("%s: SST file of %d bytes for %d bytes of values: not compressed", name, size, raw)
			}
			if !compressed && size < raw {
				t.Fatalf("%s: SST file of %d bytes for %d bytes of values: compressed", name, size, raw)
			}
			t.Logf("%s: %d bytes of values, SST %d bytes", name, raw, size)
		})
	}
}

func TestRocksDBOptionsValidation(t *testing.T) {
	levels, err := rocksopts.ParseCompressionPerLevel("no:no:LZ4,lz4 zstd")
	if err != nil || !slices.Equal(levels, []string{"no", "no", "lz4", "lz4", "zstd"}) {
		t.Fatalf("ParseCompressionPerLevel: %v, %v", levels, err)
	}
	if _, err := rocksopts.ParseCompressionPerLevel("no:lz5"); err == nil || !strings.Contains(err.Error(), `"lz5" for level 1`) {
		t.Fatalf("lz5 accepted: %v", err)
	}
	d, err := rocksopts.Options{}.WithDefaults()
	if err != nil || !slices.Equal(d.CompressionPerLevel, rocksopts.Default().CompressionPerLevel) || d.BlockCacheMB != rocksopts.Default().BlockCacheMB {
		t.Fatalf("zero options: %+v, %v", d, err)
	}
	for _, bad := range []rocksopts.Options{
		{MaxWriteBufferNumber: 1},
		{BlockCacheMB: -1},
		{RateLimitMB: -2},
		{CompressionPerLevel: []string{"gzip"}},
	} {
		if _, err := bad.WithDefaults(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if o, err := (rocksopts.Options{RateLimitMB: -1, BloomBitsPerKey: -1, NoPrefixBloom: true}).WithDefaults(); err != nil {
		t.Fatal(err)
	} else {
		// Everything off still opens and serves edge scans.
		cache := rocksopts.NewBlockCache(o)
		defer cache.Destroy()
		db, err := openDB(t.TempDir(), o, cache)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ro := grocksdb.NewDefaultReadOptions()
		defer ro.Destroy()
		rocksopts.SetEdgeScan(ro, partition.EdgePrefixLen(8))
		it := db.NewIterator(ro)
		it.SeekToFirst()
		if it.Valid() {
			t.Fatal("empty database has a key")
		}
		it.Close()
	}
}

// TestBlockCacheSharedAcrossDataPaths opens two data paths the way Start
// does and checks that they use one cache: blocks read through one show in
// the usage the other reports.
func TestBlockCacheSharedAcrossDataPaths(t *testing.T) {
	o, err := rocksopts.Options{BlockCacheMB: 8, WriteBufferMB: 4}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	cache := rocksopts.NewBlockCache(o)
	var dbs []*grocksdb.DB
	for i := 0; i < 2; i++ {
		db, err := openDB(t.TempDir(), o, cache)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs = append(dbs, db)
	}
	cache.Destroy() // as Start: the instances keep the cache alive
	if got := dbs[1].GetProperty("rocksdb.block-cache-capacity"); got != strconv.Itoa(8<<20) {
		t.Fatalf("block cache capacity %s, want %d", got, 8<<20)
	}
	usage := func(db *grocksdb.DB) int {
		n, err := strconv.Atoi(db.GetProperty("rocksdb.block-cache-usage"))
		if err != nil {
			t.Fatal(errors.Join(err, fmt.Errorf("usage %q", db.GetProperty("rocksdb.block-cache-usage"))))
		}
		return n
	}
	kvs := map[string][]byte{}
	for i := 0; i < 2000; i++ {
		kvs[string(partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(int64(i)), bloomTagA))] = bytes.Repeat([]byte{byte(i)}, 100)
	}
	putAll(t, dbs[0], kvs)
	flushDB(t, dbs[0])
	before := usage(dbs[1])
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	for k := range kvs {
		if _, err := dbs[0].GetBytes(ro, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	if after := usage(dbs[1]); after <= before {
		t.Fatalf("reads on data path 0 left the cache usage seen by data path 1 at %d (was %d): not one cache", after, before)
	}
}

// BenchmarkRocksDBPut is the floor of every write path: one key put into
// a RocksDB opened with storaged's options, in write batches of 1000
// (WAL on, no sync, as applied entries are written), compactions running.
// An online edge write costs several such puts (out-edge, degree, intent
// and its deletion, in-edge, degree, raft log), which bounds online
// import on a machine. The cases are where the keys fall:
//
//   - random: edges of random vertices, as an online import writes them;
//
//   - sorted-batch: the same, each batch sorted first (what sorting a
//     request's edges before applying it could buy);
//
//   - sequential: ascending keys, the best case (a bulk load in key order).
//
//     go test ./storaged -run '^$' -bench BenchmarkRocksDBPut -benchtime 2000000x
func BenchmarkRocksDBPut(b *testing.B) {
	const batch = 1000
	for _, mode := range []string{"random", "sorted-batch", "sequential"} {
		b.Run(mode, func(b *testing.B) {
			o, err := rocksopts.Options{}.WithDefaults()
			if err != nil {
				b.Fatal(err)
			}
			cache := rocksopts.NewBlockCache(o)
			defer cache.Destroy()
			db, err := openDB(b.TempDir(), o, cache) // compactions on, as in production
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			wo := grocksdb.NewDefaultWriteOptions()
			defer wo.Destroy()
			wb := grocksdb.NewWriteBatch()
			defer wb.Destroy()
			val := make([]byte, 20)
			keys := make([][]byte, 0, batch)
			for i := 0; b.Loop(); i++ {
				src := uint64(i * 7919 % 1000003)
				if mode == "sequential" {
					src = uint64(i / 20)
				}
				var srcVid, dstVid [8]byte
				binary.BigEndian.PutUint64(srcVid[:], src)
				binary.BigEndian.PutUint64(dstVid[:], uint64(i))
				key := partition.EdgeKey(1, 1, srcVid[:], 1, 0, dstVid[:])
				keys = append(keys, key)
				if len(keys) < batch {
					continue
				}
				if mode == "sorted-batch" {
					slices.SortFunc(keys, bytes.Compare)
				}
				for _, k := range keys {
					wb.Put(k, val)
				}
				if err := db.Write(wo, wb); err != nil {
					b.Fatal(err)
				}
				wb.Clear()
				keys = keys[:0]
			}
		})
	}
}

// writeSSTFile writes keys (ascending) with val(i) as key i's value into
// an SST file at path.
func writeSSTFile(t *testing.T, path string, keys [][]byte, val func(i int) []byte) {
	t.Helper()
	env := grocksdb.NewDefaultEnvOptions()
	defer env.Destroy()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	w := grocksdb.NewSSTFileWriter(env, opts)
	defer w.Destroy()
	if err := w.Open(path); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if err := w.Add(k, val(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestPartitionedIndexAndFilter checks what rocksopts' default table
// options buy: an SST file written with them has a partitioned filter, and
// its open file holds almost none of its index and filter outside the block
// cache (RocksDB's estimate-table-readers-mem), where the same file with
// whole blocks (WholeIndexAndFilter) holds at least its 10 bits per key of
// filter. Every key is still found by a point read and absent keys are not.
func TestPartitionedIndexAndFilter(t *testing.T) {
	const keys = 100_000
	readers := map[bool]uint64{}
	for _, whole := range []bool{false, true} {
		t.Run(fmt.Sprintf("whole=%v", whole), func(t *testing.T) {
			dir := t.TempDir()
			db := openProductionDB(t, dir, rocksopts.Options{WriteBufferMB: 64, BlockCacheMB: 16, WholeIndexAndFilter: whole})
			kvs := map[string][]byte{}
			for i := range keys {
				kvs[string(partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(int64(2*i)), bloomTagA))] = []byte{byte(i)}
			}
			putAll(t, db, kvs)
			flushDB(t, db)

			files, err := filepath.Glob(filepath.Join(dir, "rocksdb", "*.sst"))
			if err != nil || len(files) != 1 {
				t.Fatalf("SST files %v (%v), want one", files, err)
			}
			raw, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			kind := map[bool]string{false: "partitionedfilter.", true: "fullfilter."}[whole]
			if !bytes.Contains(raw, []byte(kind+"rocksdb.BuiltinBloomFilter")) {
				t.Errorf("the file has no %sBuiltinBloomFilter block", kind)
			}

			ro := grocksdb.NewDefaultReadOptions()
			defer ro.Destroy()
			for i := range keys / 100 {
				for _, n := range []int{2 * i * 100, 2*i*100 + 1} { // present, absent
					v, err := db.GetBytes(ro, partition.TagKey(bloomSpace, bloomPart, partition.EncodeInt64Vid(int64(n)), bloomTagA))
					if err != nil {
						t.Fatal(err)
					}
					if (v != nil) != (n%2 == 0) {
						t.Fatalf("vertex %d: read %x", n, v)
					}
				}
			}
			n, ok := db.GetIntProperty("rocksdb.estimate-table-readers-mem")
			if !ok {
				t.Fatal("no rocksdb.estimate-table-readers-mem")
			}
			readers[whole] = n
		})
	}
	// 100,000 keys at 10 bits each: 125 KB of filter alone.
	if readers[true] < keys*10/8 {
		t.Errorf("whole blocks: the open file holds %d bytes, less than its filter", readers[true])
	}
	if readers[false]*10 > readers[true] {
		t.Errorf("partitioned: the open file holds %d bytes outside the cache, over a tenth of the %d it holds with whole blocks", readers[false], readers[true])
	}
	t.Logf("table readers: partitioned %d bytes, whole %d bytes", readers[false], readers[true])
}
