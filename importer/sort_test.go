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
			stats := &sstStats{}
			s := &sorter{dir: t.TempDir(), name: "t", stats: stats}
			want := map[string]string{}
			spills, raw, spilled := 0, 0, 0 // runs written; bytes of the pairs added, and of those in runs
			// 3000 vertices with LDBC-like 45-bit ids: about 50 bits of
			// the sort's first 16 prefix bytes vary, all but one byte
			// of a packed key.
			ids := make([]uint64, 3000)
			for i := range ids {
				ids[i] = uint64(rng.Int64N(1 << 45))
			}
			vid := func() []byte {
				v := make([]byte, 8)
				binary.BigEndian.PutUint64(v, ids[rng.IntN(len(ids))])
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
				raw += len(k) + len(v)
				if spill && i%(chunkLen+1000) == 0 {
					if err := s.spill(); err != nil {
						t.Fatal(err)
					}
					spills++
					spilled = raw
				}
			}
			// The runs are compressed: sorted keys share their
			// prefixes (space, partition, source vertex).
			if got := stats.runs.Load(); got != int64(spills) {
				t.Errorf("%d runs counted, %d spilled", got, spills)
			}
			if spill && (stats.runBytes.Load() == 0 || stats.runBytes.Load() > int64(spilled)*3/4) {
				t.Errorf("runs of %d bytes for %d bytes of pairs: not compressed", stats.runBytes.Load(), spilled)
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
	var counts digitCounts
	for _, k := range keys {
		counts.add(k.hi, k.lo)
	}
	got := radixSort(keys, make([]radixKey, len(keys)), &counts)
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

// TestPackerKeepsOrder: packed keys compare as their (hi, lo) do, for
// keys with constant, few-valued and full bytes, and keys whose varying
// bits exceed 64 are refused (the sorter then sorts the 16 bytes).
func TestPackerKeepsOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct {
		name  string
		gen   func() (hi, lo uint64)
		packs bool
	}{
		{"INT64 edge-like", func() (uint64, uint64) {
			kind := uint64(1 + rng.IntN(2))
			vid := uint64(rng.Int64N(1 << 45))
			et := uint64(0x00000001)
			if rng.IntN(2) == 0 {
				et = 0xFFFFFFFF
			}
			return kind<<56 | vid>>8, (vid&0xff)<<56 | et<<24
		}, true},
		{"few values per byte", func() (uint64, uint64) {
			var hi, lo uint64
			for b := range 8 {
				hi |= uint64(rng.IntN(5)) << (8 * b)
				lo |= uint64(rng.IntN(3)) << (8 * b)
			}
			return hi, lo
		}, true},
		{"random bytes", func() (uint64, uint64) { return rng.Uint64(), rng.Uint64() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			his, los := make([]uint64, 3000), make([]uint64, 3000)
			var counts digitCounts
			for i := range his {
				his[i], los[i] = tc.gen()
				counts.add(his[i], los[i])
			}
			p, ok := newPacker(&counts, len(his))
			if ok != tc.packs {
				t.Fatalf("newPacker ok = %v, want %v", ok, tc.packs)
			}
			if !ok {
				return
			}
			for range 20000 {
				a, b := rng.IntN(len(his)), rng.IntN(len(his))
				want := cmpUint(his[a], his[b])
				if want == 0 {
					want = cmpUint(los[a], los[b])
				}
				if got := cmpUint(p.pack(his[a], los[a]), p.pack(his[b], los[b])); got != want {
					t.Fatalf("keys %x %x and %x %x: packed compare %d, want %d", his[a], los[a], his[b], los[b], got, want)
				}
			}
		})
	}
}

// TestSorterWideKeys sorts keys whose first 16 prefix bytes are random,
// too many varying bits to pack: the sorter's other radix path.
func TestSorterWideKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	s := &sorter{dir: t.TempDir(), name: "t"}
	want := map[string]string{}
	for i := range 5000 {
		k := []byte("SSSSPPPP")
		for range 16 + rng.IntN(30) {
			k = append(k, byte(rng.IntN(256)))
		}
		if i%7 == 0 && i > 0 { // some rewrites and keys sharing 16 bytes
			k = append(k[:24:24], byte(i%3))
		}
		v := fmt.Sprintf("v%d", i)
		s.add(k, []byte(v))
		want[string(k)] = v
	}
	checkMerge(t, s, want)
}

// BenchmarkSortMem sorts a million entries shaped like an LDBC
// partition's edges (45-bit person ids, 70K vertices, out- and in-edges,
// short rows): the sort an SST import does per partition.
//
//	go test ./importer -run '^$' -bench BenchmarkSortMem -count 3
func BenchmarkSortMem(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := &sorter{dir: b.TempDir(), name: "t", scratch: &sortScratch{}}
	ids := make([]uint64, 70000)
	for i := range ids {
		ids[i] = uint64(rng.Int64N(1 << 45))
	}
	row := make([]byte, 11)
	for range 1000000 {
		src, dst := make([]byte, 8), make([]byte, 8)
		binary.BigEndian.PutUint64(src, ids[rng.IntN(len(ids))])
		binary.BigEndian.PutUint64(dst, ids[rng.IntN(len(ids))])
		s.addEdge(1, 3, src, 1, 0, dst, rng.IntN(2) == 0, row)
	}
	b.ResetTimer()
	for range b.N {
		s.sortMem()
		s.doneSorting()
	}
}
