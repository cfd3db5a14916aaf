package importer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// newTestSSTWriter returns the writer of partition 1's data file of a
// new SST build named key, closed with the test.
func newTestSSTWriter(t *testing.T, key string) *sstWriter {
	t.Helper()
	snap, space := testSnapshot()
	b, err := newSSTBuilder(snap, space, t.TempDir(), key, true, 1<<20, "lz4", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.close(false) })
	w, err := b.newWriter(1, "data")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSSTBatchMatchesPut writes pairs through the importer's batched SST
// writer — some flushes full, a value larger than a batch, a last
// partial batch — and checks that a database that ingests the file holds
// exactly those pairs. It also fails if grocksdb's SSTFileWriter no
// longer keeps its C writer where newSSTBatch reads it.
func TestSSTBatchMatchesPut(t *testing.T) {
	w := newTestSSTWriter(t, "batch")
	var keys, vals [][]byte
	for i := range 30000 {
		vid := make([]byte, 8)
		binary.BigEndian.PutUint64(vid, uint64(i))
		v := []byte(fmt.Sprintf("row %d", i))
		switch i {
		case 7:
			v = bytes.Repeat([]byte("large "), 3*sstBatchBytes/6)
		case 8:
			v = nil
		}
		k := partition.TagKey(1, 1, vid, 2)
		keys, vals = append(keys, k), append(vals, v)
		if err := w.put(k, v); err != nil {
			t.Fatal(err)
		}
	}
	pf := &partFiles{}
	if err := w.finish(pf); err != nil {
		t.Fatal(err)
	}
	// The file's filter is partitioned (and so its index two-level:
	// RocksDB partitions filters only then), as storaged writes its own
	// (rocksopts.New): the metaindex block names the filter's kind.
	for _, p := range pf.paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte("partitionedfilter.rocksdb.BuiltinBloomFilter")) {
			t.Errorf("%s: no partitioned bloom filter in the file", p)
		}
	}

	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	opts.SetCreateIfMissing(true)
	db, err := grocksdb.OpenDb(opts, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	io := grocksdb.NewDefaultIngestExternalFileOptions()
	defer io.Destroy()
	if err := db.IngestExternalFile(pf.paths, io); err != nil {
		t.Fatal(err)
	}
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	it := db.NewIterator(ro)
	defer it.Close()
	i := 0
	for it.SeekToFirst(); it.Valid(); it.Next() {
		if i >= len(keys) {
			t.Fatalf("extra key %x", it.Key().Data())
		}
		if !bytes.Equal(it.Key().Data(), keys[i]) || !bytes.Equal(it.Value().Data(), vals[i]) {
			t.Fatalf("pair %d: %x (%d bytes of value), want %x (%d bytes)", i, it.Key().Data(), len(it.Value().Data()), keys[i], len(vals[i]))
		}
		it.Key().Free()
		it.Value().Free()
		i++
	}
	if i != len(keys) {
		t.Fatalf("the file holds %d pairs, want %d", i, len(keys))
	}
}

// TestSSTBatchError: a key out of order, found by RocksDB when the batch
// is put, fails the file with RocksDB's reason and the file's path.
func TestSSTBatchError(t *testing.T) {
	w := newTestSSTWriter(t, "batcherr")
	for _, v := range []uint64{1, 3, 2} {
		vid := binary.BigEndian.AppendUint64(nil, v)
		if err := w.put(partition.TagKey(1, 1, vid, 2), []byte("x")); err != nil {
			t.Fatal(err) // held in the batch: not put yet
		}
	}
	err := w.finish(&partFiles{})
	if err == nil || !strings.Contains(err.Error(), w.path) || !strings.Contains(strings.ToLower(err.Error()), "order") {
		t.Fatalf("finish after keys out of order: %v, want RocksDB's reason with %s", err, w.path)
	}
}

// TestCheckSortRow: a row too large for the sort's 31-bit lengths is an
// error naming its size and what to do, not a panic in the sorter.
func TestCheckSortRow(t *testing.T) {
	if err := checkSortRow(maxSortRow); err != nil {
		t.Errorf("a row of the largest size: %v", err)
	}
	err := checkSortRow(maxSortRow + 1)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(maxSortRow+1)) || !strings.Contains(err.Error(), "online mode") {
		t.Errorf("a row over the limit: %v", err)
	}
	if maxSortRow+12+1024 > inlineFlag-1 {
		t.Errorf("maxSortRow %d leaves no room for an in-edge's version and a key under the sort's %d", maxSortRow, inlineFlag-1)
	}
}
