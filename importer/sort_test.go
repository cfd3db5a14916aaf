package importer

import (
	"encoding/binary"
	"log/slog"
	"slices"

	"bytes"
	"fmt"
	"github.com/novagraph/novagraph/partition"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestSorterMatchesMap sorts random pairs with repeated keys through
// spills and the merge, and checks the result against a map that keeps
// each key's last value: every key once, in byte order, last write wins.
func TestSorterMatchesMap(t *testing.T) {
	for _, spillEvery := range []int{0, 1, 7, 100} {
		t.Run(fmt.Sprintf("spill every %d", spillEvery), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(spillEvery)))
			s := &sorter{dir: t.TempDir(), name: "t"}
			want := map[string]string{}
			for i := range 2000 {
				// Keys share an 8-byte prefix, as in one partition, and
				// vary in length so that some are prefixes of others,
				// some fit in a sort entry and some do not (over 40
				// bytes); values, too, fit in the entry (24 bytes) or not.
				k := append([]byte("SSSSPPPP"), byte(rng.IntN(3)))
				n := rng.IntN(20)
				if rng.IntN(3) == 0 {
					n = 28 + rng.IntN(10)
				}
				for range n {
					k = append(k, byte(rng.IntN(4)))
				}
				v := fmt.Sprintf("v%d%s", i, strings.Repeat("x", rng.IntN(30)))
				s.add(k, []byte(v))
				want[string(k)] = v
				if spillEvery > 0 && i%spillEvery == 0 {
					if err := s.spill(); err != nil {
						t.Fatal(err)
					}
				}
			}
			checkMerge(t, s, want)
		})
	}
}

// TestSorterEdgeKeys sorts more entries than a chunk holds, shaped like a
// partition's real keys (tag rows, out- and in-edges of INT64 vertices,
// ranks, rewrites of the same edge), so that the radix passes, the
// skipped constant bytes and the tie groups all take part.
func TestSorterEdgeKeys(t *testing.T) {
	for _, spill := range []bool{false, true} {
		t.Run(fmt.Sprintf("spill %v", spill), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			s := &sorter{dir: t.TempDir(), name: "t"}
			want := map[string]string{}
			vid := func() []byte {
				v := make([]byte, 8)
				binary.BigEndian.PutUint64(v, uint64(rng.IntN(3000)))
				return v
			}
			n := 3*chunkLen + 123
			for i := range n {
				v := fmt.Sprintf("v%d", i)
				var k []byte
				switch rng.IntN(10) {
				case 0:
					k = partition.TagKey(1, 3, vid(), int32(1+rng.IntN(2)))
					s.add(k, []byte(v))
				default:
					et := int32(1 + rng.IntN(2))
					src, dst, rank := vid(), vid(), int64(rng.IntN(2))
					if rng.IntN(2) == 0 {
						et = -et
					}
					k = partition.EdgeKey(1, 3, src, et, rank, dst)
					in := rng.IntN(2) == 0
					s.addEdge(1, 3, src, et, rank, dst, in, []byte(v))
					if in {
						v = string(partition.EncodeInEdge(partition.InEdgeVersion{}, []byte(v)))
					}
				}
				want[string(k)] = v
				if spill && i%(chunkLen+1000) == 0 {
					if err := s.spill(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if s.bytes != 0 {
				// Every pair here fits in its sort entry.
				t.Errorf("the arena holds %d bytes of INT64 tag and edge pairs with short values", s.bytes)
			}
			checkMerge(t, s, want)
		})
	}
}

// checkMerge checks that s merges to want's pairs: every key once, in byte
// order, with the value written last.
func checkMerge(t *testing.T, s *sorter, want map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	i := 0
	err := s.merge(func(k, v []byte) error {
		if i >= len(keys) {
			return fmt.Errorf("extra key %x", k)
		}
		if !bytes.Equal(k, []byte(keys[i])) || string(v) != want[keys[i]] {
			return fmt.Errorf("pair %d: got %x=%s, want %x=%s", i, k, v, keys[i], want[keys[i]])
		}
		i++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if i != len(keys) {
		t.Fatalf("merge gave %d keys, want %d", i, len(keys))
	}
}

// TestRadixSort checks the radix sort against a comparison sort, stable
// among equal keys, with some bytes constant and some not.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	keys := make([]radixKey, 5000)
	for i := range keys {
		keys[i] = radixKey{hi: uint64(rng.IntN(50)) << 40, lo: uint64(rng.IntN(4)) << 8, i: int32(i)}
	}
	want := slices.Clone(keys)
	slices.SortStableFunc(want, func(a, b radixKey) int {
		if a.hi != b.hi {
			return cmpUint(a.hi, b.hi)
		}
		return cmpUint(a.lo, b.lo)
	})
	got := radixSort(keys, make([]radixKey, len(keys)))
	if !slices.Equal(got, want) {
		t.Fatal("radix sort differs from a stable comparison sort")
	}
}

// TestSSTCompression checks that manager.sstCompression reaches the SST
// writer: the same compressible keys make a smaller file with lz4 and
// zstd than with none.
func TestSSTCompression(t *testing.T) {
	snap, space := testSnapshot()
	size := map[string]int64{}
	for _, c := range []string{"no", "lz4", "zstd"} {
		b, err := newSSTBuilder(snap, space, t.TempDir(), "test "+c, true, 1<<20, c, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.newWriter(1, "data")
		if err != nil {
			t.Fatal(err)
		}
		val := bytes.Repeat([]byte("compressible "), 8)
		for i := range 20000 {
			vid := make([]byte, 8)
			binary.BigEndian.PutUint64(vid, uint64(i))
			if err := w.put(partition.TagKey(1, 1, vid, 2), val); err != nil {
				t.Fatal(err)
			}
		}
		pf := &partFiles{}
		if err := w.finish(pf); err != nil {
			t.Fatal(err)
		}
		size[c] = b.stats.bytes.Load()
		b.close(false)
	}
	if size["lz4"] >= size["no"] || size["zstd"] >= size["no"] {
		t.Fatalf("file sizes %v: compression had no effect", size)
	}
}
