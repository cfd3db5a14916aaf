package partition

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"errors"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestKeyLayouts pins the exact bytes of each key kind: they are the on-disk
// format, and this is the documentation in the form of an example.
func TestKeyLayouts(t *testing.T) {
	vid := EncodeInt64Vid(3)
	dst := EncodeInt64Vid(-2)
	for _, tc := range []struct {
		name string
		key  []byte
		want string // spaces for readability only
	}{
		{"PartPrefix", PartPrefix(1, 2), "00000001 00000002"},
		{"KindPrefix", KindPrefix(1, 2, KindEdge), "00000001 00000002 02"},
		{"TagKey", TagKey(1, 2, vid, 4), "00000001 00000002 01 8000000000000003 80000004"},
		{"TagPrefix", TagPrefix(1, 2, vid), "00000001 00000002 01 8000000000000003"},
		{"EdgeKey out", EdgeKey(1, 2, vid, 5, 0, dst),
			"00000001 00000002 02 8000000000000003 80000005 8000000000000000 7ffffffffffffffe"},
		{"EdgeKey in", EdgeKey(1, 2, dst, -5, -1, vid),
			"00000001 00000002 02 7ffffffffffffffe 7ffffffb 7fffffffffffffff 8000000000000003"},
		{"EdgePrefix", EdgePrefix(1, 2, vid, 5), "00000001 00000002 02 8000000000000003 80000005"},
		{"VertexEdgePrefix", VertexEdgePrefix(1, 2, vid), "00000001 00000002 02 8000000000000003"},
		{"IndexPrefix", IndexPrefix(1, 2, 7), "00000001 00000002 03 00000007"},
		{"DataVersionKey", DataVersionKey(1, 2), "00000001 00000002 04 01"},
		{"RaftLogKey", RaftLogKey(1, 2, 258), "00000001 00000002 10 0000000000000102"},
		{"RaftHardStateKey", RaftHardStateKey(1, 2), "00000001 00000002 11 01"},
		{"RaftAppliedKey", RaftAppliedKey(1, 2), "00000001 00000002 11 02"},
		{"RaftConfStateKey", RaftConfStateKey(1, 2), "00000001 00000002 11 03"},
		{"RaftTruncatedKey", RaftTruncatedKey(1, 2), "00000001 00000002 11 04"},
		{"RaftSnapshotApplyKey", RaftSnapshotApplyKey(1, 2), "00000001 00000002 11 05"},
	} {
		if got, want := hex.EncodeToString(tc.key), strings.ReplaceAll(tc.want, " ", ""); got != want {
			t.Errorf("%s = %s, want %s", tc.name, got, want)
		}
	}
	if got, err := DecodeDataVersion(EncodeDataVersion(DataFormatVersion)); err != nil || got != DataFormatVersion {
		t.Errorf("data version round trip = %d, %v", got, err)
	}
	if _, err := DecodeDataVersion([]byte{1}); !errors.Is(err, ErrMalformedRow) {
		t.Errorf("DecodeDataVersion(1 byte) error = %v", err)
	}
}

// randVid returns a random encoded vid of length vidLen: an INT64 vid when
// vidLen is 8 (biased to boundary values), otherwise a padded string.
func randVid(rng *rand.Rand, vidLen int) []byte {
	if vidLen == Int64VidLen {
		return EncodeInt64Vid(randInt64(rng))
	}
	b := make([]byte, rng.Intn(vidLen+1))
	rng.Read(b)
	v, err := EncodeStringVid(strings.TrimRight(string(b), "\x00"), vidLen)
	if err != nil {
		panic(err)
	}
	return v
}

func randInt64(rng *rand.Rand) int64 {
	switch rng.Intn(6) {
	case 0:
		return []int64{math.MinInt64, math.MaxInt64, -1, 0, 1}[rng.Intn(5)]
	case 1:
		return int64(rng.Intn(5)) - 2 // collisions make ties in tuple order
	}
	return int64(rng.Uint64())
}

func randInt32(rng *rand.Rand) int32 {
	switch rng.Intn(4) {
	case 0:
		return []int32{math.MinInt32, math.MaxInt32, -1, 0, 1}[rng.Intn(5)]
	case 1:
		return int32(rng.Intn(5)) - 2
	}
	return int32(rng.Uint32())
}

func TestKeyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 5000; i++ {
		vidLen := []int{8, 1, 16, 32}[rng.Intn(4)]
		space, part := rng.Int31(), rng.Int31()
		src, dst := randVid(rng, vidLen), randVid(rng, vidLen)
		tag, et, rank := randInt32(rng), randInt32(rng), randInt64(rng)

		s, p, v, tg, err := ParseTagKey(TagKey(space, part, src, tag), vidLen)
		if err != nil || s != space || p != part || !bytes.Equal(v, src) || tg != tag {
			t.Fatalf("tag key (%d %d %x %d) parsed as (%d %d %x %d), %v", space, part, src, tag, s, p, v, tg, err)
		}
		ek := EdgeKey(space, part, src, et, rank, dst)
		s, p, gs, ge, gr, gd, err := ParseEdgeKey(ek, vidLen)
		if err != nil || s != space || p != part || !bytes.Equal(gs, src) || ge != et || gr != rank || !bytes.Equal(gd, dst) {
			t.Fatalf("edge key (%d %d %x %d %d %x) parsed as (%d %d %x %d %d %x), %v",
				space, part, src, et, rank, dst, s, p, gs, ge, gr, gd, err)
		}
		if ge, gr, gd := EdgeKeyType(ek, vidLen), EdgeKeyRank(ek, vidLen), EdgeKeyDst(ek, vidLen); ge != et || gr != rank || !bytes.Equal(gd, dst) {
			t.Fatalf("edge key (%x %d %d %x): accessors read (%d %d %x)", src, et, rank, dst, ge, gr, gd)
		}
		idx := rng.Uint64()
		s, p, gi, err := ParseRaftLogKey(RaftLogKey(space, part, idx))
		if err != nil || s != space || p != part || gi != idx {
			t.Fatalf("raft log key (%d %d %d) parsed as (%d %d %d), %v", space, part, idx, s, p, gi, err)
		}
	}
}

type edge struct {
	space, part int32
	src         int64
	et          int32
	rank        int64
	dst         int64
}

func (e edge) key() []byte {
	return EdgeKey(e.space, e.part, EncodeInt64Vid(e.src), e.et, e.rank, EncodeInt64Vid(e.dst))
}

func cmpEdge(a, b edge) int {
	return cmp.Or(cmp.Compare(a.space, b.space), cmp.Compare(a.part, b.part), cmp.Compare(a.src, b.src),
		cmp.Compare(a.et, b.et), cmp.Compare(a.rank, b.rank), cmp.Compare(a.dst, b.dst))
}

func randEdge(rng *rand.Rand) edge {
	return edge{rng.Int31n(3) + 1, rng.Int31n(3) + 1, randInt64(rng), randInt32(rng), randInt64(rng), randInt64(rng)}
}

// TestKeyOrder: byte order of keys equals the tuple order of what they encode.
func TestKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 20000; i++ {
		a, b := randEdge(rng), randEdge(rng)
		if i%3 == 0 { // share a prefix so later fields decide
			b.space, b.part, b.src = a.space, a.part, a.src
			if i%2 == 0 {
				b.et = a.et
			}
		}
		if got, want := bytes.Compare(a.key(), b.key()), cmpEdge(a, b); got != want {
			t.Fatalf("edge keys %+v vs %+v: bytes.Compare = %d, tuple order %d", a, b, got, want)
		}
		ta, tb := TagKey(a.space, a.part, EncodeInt64Vid(a.src), a.et), TagKey(b.space, b.part, EncodeInt64Vid(b.src), b.et)
		want := cmp.Or(cmp.Compare(a.space, b.space), cmp.Compare(a.part, b.part), cmp.Compare(a.src, b.src), cmp.Compare(a.et, b.et))
		if got := bytes.Compare(ta, tb); got != want {
			t.Fatalf("tag keys %+v vs %+v: bytes.Compare = %d, tuple order %d", a, b, got, want)
		}
	}
}

// allKeys returns one key of every kind in a partition.
func allKeys(rng *rand.Rand, space, part int32) (data, raft [][]byte) {
	vid, dst := randVid(rng, 8), randVid(rng, 8)
	data = [][]byte{
		TagKey(space, part, vid, randInt32(rng)),
		TagPrefix(space, part, vid),
		EdgeKey(space, part, vid, randInt32(rng), randInt64(rng), dst),
		IndexPrefix(space, part, rng.Int31()),
		DataVersionKey(space, part),
	}
	raft = [][]byte{
		RaftLogKey(space, part, rng.Uint64()),
		RaftHardStateKey(space, part),
		RaftAppliedKey(space, part),
		RaftConfStateKey(space, part),
		RaftTruncatedKey(space, part),
		RaftSnapshotApplyKey(space, part),
	}
	return data, raft
}

func inRange(k, start, end []byte) bool {
	return bytes.Compare(k, start) >= 0 && (end == nil || bytes.Compare(k, end) < 0)
}

func TestPartitionRanges(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 2000; i++ {
		space, part := rng.Int31n(1000)+1, rng.Int31n(1000)+1
		if i == 0 {
			space, part = math.MaxInt32, math.MaxInt32
		}
		pp := PartPrefix(space, part)
		pEnd := PrefixEnd(pp)
		dStart, dEnd := DataRange(space, part)
		data, raft := allKeys(rng, space, part)
		for _, k := range append(slices.Clone(data), raft...) {
			if !bytes.HasPrefix(k, pp) || !inRange(k, pp, pEnd) {
				t.Fatalf("key %x of partition %d/%d is outside [%x, %x)", k, space, part, pp, pEnd)
			}
		}
		for _, k := range data {
			if !inRange(k, dStart, dEnd) {
				t.Fatalf("data key %x outside DataRange [%x, %x)", k, dStart, dEnd)
			}
		}
		for _, k := range raft {
			if inRange(k, dStart, dEnd) {
				t.Fatalf("raft key %x inside DataRange [%x, %x)", k, dStart, dEnd)
			}
		}
		// Neighbouring partitions and spaces stay out.
		for _, n := range [][2]int32{{space, part - 1}, {space, part + 1}, {space - 1, part}, {space + 1, part}} {
			nd, nr := allKeys(rng, n[0], n[1])
			for _, k := range append(nd, nr...) {
				if inRange(k, pp, pEnd) {
					t.Fatalf("key %x of partition %d/%d is inside partition %d/%d", k, n[0], n[1], space, part)
				}
			}
		}
	}
}

// TestEdgeScan sorts a random edge set as RocksDB would and checks that each
// (src, type) and each src is one contiguous run, sorted by rank then dst.
func TestEdgeScan(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	var keys [][]byte
	var edges []edge
	for i := 0; i < 3000; i++ {
		e := edge{1, 1, int64(rng.Intn(10)) - 5, int32(rng.Intn(7)) - 3, int64(rng.Intn(9)) - 4, int64(rng.Intn(50)) - 25}
		keys = append(keys, e.key())
		edges = append(edges, e)
	}
	// Edges of another partition must not appear in any scan.
	keys = append(keys, edge{1, 2, 0, 1, 0, 0}.key(), edge{2, 1, 0, 1, 0, 0}.key())
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)

	check := func(prefix []byte, match func(edge) bool) {
		t.Helper()
		first, last := -1, -1
		var prev []byte
		for i, k := range keys {
			if !bytes.HasPrefix(k, prefix) {
				continue
			}
			if first < 0 {
				first = i
			} else if last != i-1 {
				t.Fatalf("keys under %x are not contiguous: gap before index %d", prefix, i)
			}
			last = i
			if prev != nil && bytes.Compare(prev, k) >= 0 {
				t.Fatalf("keys under %x out of order", prefix)
			}
			prev = k
		}
		want := map[string]bool{}
		for _, e := range edges {
			if match(e) {
				want[string(e.key())] = true
			}
		}
		if got := max(0, last-first+1); first >= 0 && got != len(want) || first < 0 && len(want) != 0 {
			t.Fatalf("%d keys under %x, want %d", got, prefix, len(want))
		}
		// Sorted by (rank, dst) within one (src, type): the parsed tuples agree.
		for i := first + 1; first >= 0 && i <= last; i++ {
			_, _, s1, t1, r1, d1, _ := ParseEdgeKey(keys[i-1], 8)
			_, _, s2, t2, r2, d2, _ := ParseEdgeKey(keys[i], 8)
			if bytes.Equal(s1, s2) && t1 == t2 {
				a, _ := DecodeInt64Vid(d1)
				b, _ := DecodeInt64Vid(d2)
				if cmp.Or(cmp.Compare(r1, r2), cmp.Compare(a, b)) >= 0 {
					t.Fatalf("edges (rank %d, dst %d) and (rank %d, dst %d) out of order", r1, a, r2, b)
				}
			}
		}
	}
	for src := int64(-5); src < 5; src++ {
		v := EncodeInt64Vid(src)
		check(VertexEdgePrefix(1, 1, v), func(e edge) bool { return e.src == src })
		for et := int32(-3); et < 4; et++ {
			check(EdgePrefix(1, 1, v, et), func(e edge) bool { return e.src == src && e.et == et })
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"ff", ""},
		{"ffff", ""},
		{"00", "01"},
		{"01ff", "02"},
		{"01feff", "01ff"},
		{"0000000100000002", "0000000100000003"},
		{"7fffffffffffffff", "80"},
	} {
		in, _ := hex.DecodeString(tc.in)
		orig := slices.Clone(in)
		got := PrefixEnd(in)
		if hex.EncodeToString(got) != tc.want || (tc.want == "") != (got == nil) {
			t.Errorf("PrefixEnd(%s) = %x (nil: %v), want %q", tc.in, got, got == nil, tc.want)
		}
		if !bytes.Equal(in, orig) {
			t.Errorf("PrefixEnd modified its input %s to %x", tc.in, in)
		}
	}
	// Property: every extension of p sorts below PrefixEnd(p), which does not
	// itself start with p.
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 5000; i++ {
		p := make([]byte, rng.Intn(4))
		for j := range p {
			p[j] = []byte{0x00, 0x01, 0xfe, 0xff, byte(rng.Intn(256))}[rng.Intn(5)]
		}
		end := PrefixEnd(p)
		ext := append(slices.Clone(p), bytes.Repeat([]byte{0xff}, rng.Intn(4))...)
		if end != nil && (bytes.Compare(ext, end) >= 0 || bytes.HasPrefix(end, p) || bytes.Compare(p, end) >= 0) {
			t.Fatalf("PrefixEnd(%x) = %x: extension %x not below it", p, end, ext)
		}
	}
}

func TestParseKeyErrors(t *testing.T) {
	vid := EncodeInt64Vid(7)
	tag := TagKey(1, 2, vid, 3)
	edge := EdgeKey(1, 2, vid, 3, 4, vid)
	raftLog := RaftLogKey(1, 2, 5)
	for _, tc := range []struct {
		name   string
		key    []byte
		vidLen int
		parse  string // "tag", "edge" or "raft"
		want   string
	}{
		{"nil tag", nil, 8, "tag", "out of range"},
		{"edge as tag", edge, 8, "tag", "is 37 bytes, want 21"},
		{"tag with edge kind", append(KindPrefix(1, 2, KindEdge), tag[9:]...), 8, "tag", "has kind 0x02, want 0x01"},
		{"tag wrong vidLen", tag, 7, "tag", "want 20 for vid length 7"},
		{"tag zero vidLen", tag, 0, "tag", "out of range"},
		{"tag negative vidLen", tag, -8, "tag", "out of range"},
		{"edge huge vidLen", edge, math.MaxInt - 9, "edge", "out of range"},
		{"tag as edge", tag, 8, "edge", "is 21 bytes, want 37"},
		{"edge with index kind", append(KindPrefix(1, 2, KindIndex), edge[9:]...), 8, "edge", "has kind 0x03, want 0x02"},
		{"raft log wrong kind", RaftHardStateKey(1, 2), 0, "raft", "raft log key"},
		{"raft log long", append(slices.Clone(raftLog), 0), 0, "raft", "want 17 bytes"},
	} {
		var err error
		switch tc.parse {
		case "tag":
			_, _, _, _, err = ParseTagKey(tc.key, tc.vidLen)
		case "edge":
			_, _, _, _, _, _, err = ParseEdgeKey(tc.key, tc.vidLen)
		case "raft":
			_, _, _, err = ParseRaftLogKey(tc.key)
		}
		if !errors.Is(err, ErrMalformedKey) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v, want ErrMalformedKey containing %q", tc.name, err, tc.want)
		}
	}
	// Every truncation of a valid key is an error, never a panic.
	for n := 0; n < len(edge); n++ {
		if _, _, _, _, _, _, err := ParseEdgeKey(edge[:n], 8); err == nil {
			t.Errorf("ParseEdgeKey(%d-byte truncation) succeeded", n)
		}
		if _, _, _, _, err := ParseTagKey(edge[:n], 8); err == nil && n != len(tag) {
			t.Errorf("ParseTagKey(%d-byte truncation) succeeded", n)
		}
		if _, _, _, err := ParseRaftLogKey(edge[:n]); err == nil {
			t.Errorf("ParseRaftLogKey(%d-byte truncation of an edge key) succeeded", n)
		}
	}
}

// TestEdgeKeySource agrees with ParseEdgeKey, for out- and in-edge types.
func TestEdgeKeySource(t *testing.T) {
	for _, et := range []int32{1, -1, 7, -300, 1 << 30, -(1 << 30)} {
		k := EdgeKey(2, 5, []byte("srcvid00"), et, -3, []byte("dstvid00"))
		src, got, err := EdgeKeySource(k, 8)
		if err != nil || string(src) != "srcvid00" || got != et {
			t.Fatalf("type %d: got %q, %d, %v", et, src, got, err)
		}
	}
	if _, _, err := EdgeKeySource(TagKey(2, 5, []byte("srcvid00"), 1), 8); err == nil {
		t.Fatal("a tag key passed as an edge key")
	}
}

// TestEdgeKeyAccessors reads every field of edge keys built by EdgeKey with
// the unchecked accessors, for INT64 and FIXED_STRING vid lengths, out- and
// in-edge types and extreme ranks. Neighbouring fields always differ, so an
// accessor reading at a wrong offset, or returning a dst of the wrong
// length, fails.
func TestEdgeKeyAccessors(t *testing.T) {
	type vids struct{ src, dst []byte }
	byLen := map[int][]vids{
		Int64VidLen: {
			{EncodeInt64Vid(3), EncodeInt64Vid(-2)},
			{EncodeInt64Vid(math.MinInt64), EncodeInt64Vid(math.MaxInt64)},
			{EncodeInt64Vid(0), EncodeInt64Vid(1)},
		},
		1:  {{[]byte("a"), []byte("b")}, {[]byte{0xff}, []byte{0x00}}},
		3:  {{[]byte("ab\x00"), []byte("xyz")}}, // shorter than the prefix extractor's 8
		16: {{[]byte("src-vid\x00\x00\x00\x00\x00\x00\x00\x00\x00"), []byte("the-destination!")}},
		32: {{bytes.Repeat([]byte{0xff}, 32), bytes.Repeat([]byte{0x01}, 32)}},
	}
	types := []int32{1, -1, 5, -5, 1 << 20, -(1 << 20), math.MaxInt32, -math.MaxInt32, math.MinInt32}
	ranks := []int64{0, 1, -1, 42, -42, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64}
	n := 0
	for vidLen, vs := range byLen {
		for _, v := range vs {
			for _, et := range types {
				for _, rank := range ranks {
					key := EdgeKey(7, 9, v.src, et, rank, v.dst)
					if len(key) != EdgeKeyLen(vidLen) {
						t.Fatalf("vid length %d: key of %d bytes, EdgeKeyLen %d", vidLen, len(key), EdgeKeyLen(vidLen))
					}
					prefix := EdgePrefix(7, 9, v.src, et)
					if len(prefix) != EdgePrefixLen(vidLen) || !bytes.HasPrefix(key, prefix) {
						t.Fatalf("vid length %d: EdgePrefix of %d bytes, EdgePrefixLen %d", vidLen, len(prefix), EdgePrefixLen(vidLen))
					}
					if got := EdgeKeyType(key, vidLen); got != et {
						t.Errorf("vid length %d, key %x: EdgeKeyType = %d, want %d", vidLen, key, got, et)
					}
					if got := EdgeKeyRank(key, vidLen); got != rank {
						t.Errorf("vid length %d, key %x: EdgeKeyRank = %d, want %d", vidLen, key, got, rank)
					}
					dst := EdgeKeyDst(key, vidLen)
					if !bytes.Equal(dst, v.dst) || cap(dst) != vidLen {
						t.Errorf("vid length %d, key %x: EdgeKeyDst = %x (cap %d), want %x (cap %d)", vidLen, key, dst, cap(dst), v.dst, vidLen)
					}
					// dst aliases the key's last vidLen bytes: no copy.
					if &dst[0] != &key[len(key)-vidLen] {
						t.Errorf("vid length %d: EdgeKeyDst is a copy, not a sub-slice of the key", vidLen)
					}
					// The checked accessors agree.
					src, et2, err := EdgeKeySource(key, vidLen)
					if err != nil || !bytes.Equal(src, v.src) || et2 != et {
						t.Errorf("vid length %d, key %x: EdgeKeySource = %x, %d, %v", vidLen, key, src, et2, err)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no cases")
	}

	// Pinned bytes, independent of the encoder: the in-edge of
	// TestKeyLayouts.
	key, _ := hex.DecodeString("00000001" + "00000002" + "02" + "7ffffffffffffffe" + "7ffffffb" + "7fffffffffffffff" + "8000000000000003")
	if et, rank, dst := EdgeKeyType(key, 8), EdgeKeyRank(key, 8), EdgeKeyDst(key, 8); et != -5 || rank != -1 || !bytes.Equal(dst, EncodeInt64Vid(3)) {
		t.Errorf("pinned in-edge key: type %d, rank %d, dst %x; want -5, -1, %x", et, rank, dst, EncodeInt64Vid(3))
	}

	// Appending to dst copies: the buffer the key lives in is untouched
	// past the key's end.
	key = AppendEdgeKey(make([]byte, 0, 64), 1, 2, EncodeInt64Vid(1), 3, 4, EncodeInt64Vid(5))
	_ = append(EdgeKeyDst(key, 8), 0xee)
	if b := key[:cap(key)][len(key)]; b != 0 {
		t.Errorf("append to EdgeKeyDst wrote %#x into the key's buffer", b)
	}
}

// TestEdgeKeyAccessorsShort pins the documented behaviour on a key shorter
// than EdgeKeyLen: an accessor panics exactly when the key ends before the
// field it reads.
func TestEdgeKeyAccessorsShort(t *testing.T) {
	const vidLen = 4
	key := EdgeKey(1, 2, []byte("srcv"), -3, 4, []byte("dstv"))
	panics := func(f func()) (p bool) {
		defer func() { p = recover() != nil }()
		f()
		return false
	}
	for n := 0; n < len(key); n++ {
		k := key[:n:n]
		if got, want := panics(func() { EdgeKeyType(k, vidLen) }), n < KeyPrefixLen+vidLen+4; got != want {
			t.Errorf("EdgeKeyType on %d of %d bytes: panic %v, want %v", n, len(key), got, want)
		}
		if got, want := panics(func() { EdgeKeyRank(k, vidLen) }), n < KeyPrefixLen+vidLen+12; got != want {
			t.Errorf("EdgeKeyRank on %d of %d bytes: panic %v, want %v", n, len(key), got, want)
		}
		if !panics(func() { EdgeKeyDst(k, vidLen) }) {
			t.Errorf("EdgeKeyDst on %d of %d bytes did not panic", n, len(key))
		}
	}
}

// BenchmarkEdgeKeyFields compares reading the rank and dst of an edge key
// in place with ParseEdgeKey, which checks and copies.
//
//	go test ./partition -run='^$' -bench=EdgeKeyFields -benchmem
func BenchmarkEdgeKeyFields(b *testing.B) {
	key := EdgeKey(1, 2, EncodeInt64Vid(3), 4, 5, EncodeInt64Vid(6))
	var sink int64
	b.Run("accessors", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sink += EdgeKeyRank(key, 8) + int64(EdgeKeyDst(key, 8)[7])
		}
	})
	b.Run("ParseEdgeKey", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_, _, _, _, rank, dst, _ := ParseEdgeKey(key, 8)
			sink += rank + int64(dst[7])
		}
	})
	_ = sink
}
