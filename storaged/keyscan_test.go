package storaged

import (
	"bytes"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/partition"
)

// TestKeyScannerMatchesIterator checks the batched C key reader against
// grocksdb's own iteration: the same keys in the same order under each
// prefix, across batch boundaries and memtable/SST files, none of the
// neighbouring prefixes, and a stop at a key of the wrong length. It also
// guards the unsafe read of grocksdb's iterator pointer: a changed layout
// fails here, not in production.
func TestKeyScannerMatchesIterator(t *testing.T) {
	db := openProductionDB(t, t.TempDir(), rocksopts.Options{WriteBufferMB: 4})
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	const space, part, edgeType = 1, 3, 7
	vid := func(v int64) []byte { return partition.EncodeInt64Vid(v) }
	degrees := map[int64]int{1: 0, 2: 1, 3: scanBatchKeys - 1, 4: scanBatchKeys, 5: 2*scanBatchKeys + 17, 6: 5}
	for src, n := range degrees {
		for i := 0; i < n; i++ {
			key := partition.EdgeKey(space, part, vid(src), edgeType, int64(i%3-1), vid(int64(i*7919)))
			if err := db.Put(wo, key, []byte("row")); err != nil {
				t.Fatal(err)
			}
		}
		// The neighbours of the prefix: another type, and an in-edge.
		for _, other := range []int32{edgeType + 1, -edgeType} {
			if err := db.Put(wo, partition.EdgeKey(space, part, vid(src), other, 0, vid(1)), []byte("row")); err != nil {
				t.Fatal(err)
			}
		}
		if src == 3 {
			flushDB(t, db) // half the keys in an SST file, half in the memtable
		}
	}

	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	keyLen := partition.EdgeKeyLen(8)
	rocksopts.SetEdgeScan(ro, partition.EdgePrefixLen(8))
	for src, n := range degrees {
		prefix := partition.EdgePrefix(space, part, vid(src), edgeType)
		var want [][]byte
		ref := db.NewIterator(ro)
		for ref.Seek(prefix); ref.ValidForPrefix(prefix); ref.Next() {
			want = append(want, bytes.Clone(ref.Key().Data()))
		}
		ref.Close()
		if len(want) != n {
			t.Fatalf("vertex %d: grocksdb iterates %d keys, want %d", src, len(want), n)
		}
		for _, batch := range []int{1, 7, scanBatchKeys, 10 * scanBatchKeys} {
			it := db.NewIterator(ro)
			sc := newKeyScanner(it)
			var got [][]byte
			for seek := true; ; seek = false {
				keys, k, bad := sc.next(prefix, seek, keyLen, batch)
				if bad {
					t.Fatalf("vertex %d: a well-formed key reported malformed", src)
				}
				if len(keys) != k*keyLen {
					t.Fatalf("vertex %d: %d bytes for %d keys", src, len(keys), k)
				}
				for i := 0; i < k; i++ {
					got = append(got, bytes.Clone(keys[i*keyLen:(i+1)*keyLen]))
				}
				if k < min(batch, scanBatchKeys) {
					break
				}
			}
			it.Close()
			if len(got) != len(want) {
				t.Fatalf("vertex %d, batches of %d: %d keys, want %d", src, batch, len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("vertex %d, batches of %d: key %d is %x, want %x", src, batch, i, got[i], want[i])
				}
			}
		}
	}

	// A key of the prefix with another length stops the scan on it.
	prefix := partition.EdgePrefix(space, part, vid(9), edgeType)
	good := partition.EdgeKey(space, part, vid(9), edgeType, 0, vid(1))
	short := append(bytes.Clone(prefix), 0xff)
	for _, k := range [][]byte{good, short} {
		if err := db.Put(wo, k, []byte("row")); err != nil {
			t.Fatal(err)
		}
	}
	it := db.NewIterator(ro)
	defer it.Close()
	sc := newKeyScanner(it)
	keys, k, bad := sc.next(prefix, true, keyLen, scanBatchKeys)
	if k != 1 || !bad || !bytes.Equal(keys, good) {
		t.Fatalf("got %d keys (%x), bad %v; want the good key, then a stop", k, keys, bad)
	}
	if !bytes.Equal(it.Key().Data(), short) {
		t.Fatalf("the iterator stopped on %x, want the malformed key %x", it.Key().Data(), short)
	}
}
