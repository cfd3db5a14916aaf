package importer

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"

	"github.com/novagraph/novagraph/partition"
)

// sorter is an external sort of key-value pairs with last-write-wins: it
// holds pairs in memory until told to spill, then writes them sorted
// to a run file; merge streams every pair in key order, and of pairs with
// equal keys only the one added last. Memory is the pairs plus one buffered
// reader per run while merging.
type sorter struct {
	dir  string
	name string
	// stats counts the runs spilled and their bytes (nil: not counted).
	stats *sstStats

	// The arena is a list of blocks: appending never copies what is
	// there (a single growing slice copied each pair several times, a
	// sixth of an SST import's CPU). An entry's place in it is
	// block<<32 | offset. It holds what the entries cannot (sortEntry).
	blocks [][]byte
	free   [][]byte // emptied blocks, reused after a spill
	bytes  int64    // bytes in the blocks

	// head is the first pfxStart bytes of the first key added (space |
	// part); keys that start with it and fit in an entry are kept there
	// alone, without these bytes.
	head    [pfxStart]byte
	hasHead bool
	// kbuf and vbuf are addEdge's scratch, where a pair is put together
	// before it is added.
	kbuf, vbuf []byte

	// Entries live in chunks of chunkLen: adding never moves the ones
	// already there. (One slice of 64-byte entries grown by doubling was
	// copied and cleared over and over: a seventh of an SST import's CPU.)
	chunks     [][]sortEntry
	freeChunks [][]sortEntry // emptied chunks, reused after a spill
	n          int           // entries held
	// counts are the digit counts of the entries held (radix order's
	// first 16 prefix bytes), kept as they are added: counted in sortMem
	// instead, the entries were read from memory once more, a quarter
	// of a sort's time.
	counts *digitCounts
	// Set by sortMem until spill or merge is done with them: the
	// entries' indexes in key order, and the entries themselves in that
	// order, in buffers lent by scratch.
	order  []int32
	sorted []sortEntry
	lent   *sortBuffers

	// Writes are numbered in the order they were added (the newest wins
	// among equal keys): entry i of the current set is write seqBase+i.
	seqBase uint64
	runs    []string

	// scratch, if set, lends sortMem's buffers, shared by the sorters of
	// one import: one set per partition sorted at a time.
	scratch *sortScratch
}

// sortEntry is one pair of the sort. pfx holds the key's bytes 8..40,
// zero-padded (kind, vid, edge type, rank and dst of an INT64 edge key:
// the first 8 bytes are the same in one partition's sort), so most
// comparisons are four integer compares that never leave the entry.
//
// A key of at most pfxEnd bytes that starts with the sorter's head is
// kept nowhere else (keyInline): head and pfx are the key. Every tag and
// edge key of an INT64 space is such a key. A value of at most tailBytes
// next to such a key is kept in tail (valInline), and the entry is the
// whole pair. That is the point: the merge visits the entries in key
// order, at random places in memory, and a pair spread over an entry and
// the arena cost it up to three cache misses (entry, key, value) where
// an entry of its own costs one; and the arena, ten million keys and
// values of an SF10 import, is not there to fault in. Otherwise tail[0]
// is the pair's place in the arena, where the key (unless inline) and
// the value lie back to back.
//
// 64 bytes, a cache line: an SST import of LDBC SF10 holds ten million.
type sortEntry struct {
	pfx  [pfxWords]uint64
	tail [tailWords]uint64
	// The lengths, with inlineFlag set in klen for keyInline and in vlen
	// for valInline.
	klen, vlen uint32
}

const (
	tailWords  = 3
	tailBytes  = 8 * tailWords
	inlineFlag = 1 << 31
)

func (e *sortEntry) keyLen() int     { return int(e.klen &^ inlineFlag) }
func (e *sortEntry) valLen() int     { return int(e.vlen &^ inlineFlag) }
func (e *sortEntry) keyInline() bool { return e.klen&inlineFlag != 0 }
func (e *sortEntry) valInline() bool { return e.vlen&inlineFlag != 0 }
func (e *sortEntry) tailSlice() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&e.tail)), tailBytes)
}

// A chunk holds 32Ki entries (2 MiB).
const (
	chunkShift = 15
	chunkLen   = 1 << chunkShift
)

// Blocks start small and double up to arenaBlock, so that the many small
// sorts (a partition's index entries, a small import) stay small.
const (
	firstBlock = 64 << 10
	arenaBlock = 16 << 20
)

// block returns the block to append a pair of at most n bytes to.
func (s *sorter) block(n int) int {
	if len(s.blocks) > 0 {
		if b := s.blocks[len(s.blocks)-1]; cap(b)-len(b) >= n {
			return len(s.blocks) - 1
		}
	}
	var b []byte
	if k := len(s.free); k > 0 && n <= cap(s.free[k-1]) {
		b, s.free = s.free[k-1][:0], s.free[:k-1]
	} else {
		size := firstBlock
		if k := len(s.blocks); k > 0 {
			size = min(2*cap(s.blocks[k-1]), arenaBlock)
		}
		b = make([]byte, 0, max(size, n))
	}
	s.blocks = append(s.blocks, b)
	return len(s.blocks) - 1
}

// add adds a pair; key and val are copied.
func (s *sorter) add(key, val []byte) {
	if len(key) > inlineFlag-1 || len(val) > inlineFlag-1 {
		panic(fmt.Sprintf("sorter: a pair of %d+%d bytes", len(key), len(val))) // rows are far smaller
	}
	e := sortEntry{klen: uint32(len(key)), vlen: uint32(len(val))}
	if len(key) > pfxStart {
		var buf [8 * pfxWords]byte
		copy(buf[:], key[pfxStart:]) // zero-padded: sorts as the bytes do
		for i := range e.pfx {
			e.pfx[i] = binary.BigEndian.Uint64(buf[8*i:])
		}
	}
	if !s.hasHead && len(key) >= pfxStart {
		s.head, s.hasHead = [pfxStart]byte(key), true
	}
	keyInline := len(key) >= pfxStart && len(key) <= pfxEnd && s.hasHead && [pfxStart]byte(key) == s.head
	switch {
	case keyInline && len(val) <= tailBytes:
		e.klen, e.vlen = e.klen|inlineFlag, e.vlen|inlineFlag
		copy(e.tailSlice(), val)
	case keyInline:
		e.klen |= inlineFlag
		e.tail[0] = s.appendArena(nil, val)
	default:
		e.tail[0] = s.appendArena(key, val)
	}
	s.push(&e)
}

// appendArena appends a and b to the arena and returns where they start.
func (s *sorter) appendArena(a, b []byte) uint64 {
	i := s.block(len(a) + len(b))
	blk := s.blocks[i]
	off := len(blk)
	s.blocks[i] = append(append(blk, a...), b...)
	s.bytes += int64(len(a) + len(b))
	return uint64(i)<<32 | uint64(off)
}

// addEdge adds an edge key and its value (an in-edge's: version and row).
func (s *sorter) addEdge(space, part int32, src []byte, edgeType int32, rank int64, dst []byte, inEdge bool, row []byte) {
	s.kbuf = partition.AppendEdgeKey(s.kbuf[:0], space, part, src, edgeType, rank, dst)
	val := row
	if inEdge {
		s.vbuf = partition.AppendInEdge(s.vbuf[:0], partition.InEdgeVersion{}, row)
		val = s.vbuf
	}
	s.add(s.kbuf, val)
}

// push appends an entry.
func (s *sorter) push(e *sortEntry) {
	if s.counts == nil {
		s.counts = new(digitCounts)
	}
	s.counts.add(e.pfx[0], e.pfx[1])
	c := s.n >> chunkShift
	if c == len(s.chunks) {
		var chunk []sortEntry
		if k := len(s.freeChunks); k > 0 {
			chunk, s.freeChunks = s.freeChunks[k-1], s.freeChunks[:k-1]
		} else {
			chunk = make([]sortEntry, chunkLen)
		}
		s.chunks = append(s.chunks, chunk)
	}
	s.chunks[c][s.n&(chunkLen-1)] = *e
	s.n++
}

// held is roughly the memory the sorter's pairs take. A spill keeps the
// buffers' capacity for the next run, so the process holds up to about
// twice the budget.
func (s *sorter) held() int64 { return s.bytes + int64(s.n)*int64(unsafe.Sizeof(sortEntry{})) }

// ent is the i-th entry added since the last spill.
func (s *sorter) ent(i int32) *sortEntry { return &s.chunks[i>>chunkShift][i&(chunkLen-1)] }

// arena is the part of the arena from e's place on.
func (s *sorter) arena(e *sortEntry) []byte {
	return s.blocks[e.tail[0]>>32][e.tail[0]&(1<<32-1):]
}

// key returns e's key: in the arena, or put together in buf (which it
// may grow) if the entry holds it.
func (s *sorter) key(buf []byte, e *sortEntry) []byte {
	if !e.keyInline() {
		return s.arena(e)[:e.keyLen():e.keyLen()]
	}
	buf = append(buf[:0], s.head[:]...)
	for _, w := range e.pfx {
		buf = binary.BigEndian.AppendUint64(buf, w)
	}
	return buf[:e.keyLen()]
}

// val returns e's value.
func (s *sorter) val(e *sortEntry) []byte {
	n := e.valLen()
	switch {
	case e.valInline():
		return e.tailSlice()[:n:n]
	case e.keyInline():
		return s.arena(e)[:n:n]
	}
	k := e.keyLen()
	return s.arena(e)[k : k+n : k+n]
}

// reset empties the sorter, keeping its blocks for reuse.
func (s *sorter) reset() {
	s.free = append(s.free, s.blocks...)
	s.freeChunks = append(s.freeChunks, s.chunks...)
	s.seqBase += uint64(s.n)
	s.blocks, s.chunks, s.n, s.bytes = nil, nil, 0, 0
	if s.counts != nil {
		*s.counts = digitCounts{}
	}
}

// release drops everything the sorter holds.
func (s *sorter) release() {
	s.blocks, s.free, s.chunks, s.freeChunks, s.n, s.bytes, s.counts = nil, nil, nil, nil, 0, 0, nil
}

// sortMem orders the entries by key, the newest first among equals, into
// s.order and s.sorted; doneSorting gives their buffers back. A radix
// sort on the first 16 prefix bytes does most of the work (a comparison
// sort of the entries was a fifth of an SST import's CPU); what it leaves
// tied (one vertex's edges of one type, say) is sorted by the full
// comparison, tie group by tie group.
//
// The entries are then copied into key order (s.sorted), so that the
// merge and the spill, which visit them in that order, read memory
// front to back instead of at random: the copy is a tight loop whose
// cache misses overlap, where the merge took one miss per entry between
// two calls into RocksDB.
func (s *sorter) sortMem() {
	bufs := s.scratch.get()
	s.lent = bufs
	counts := s.counts
	if counts == nil {
		counts = new(digitCounts)
	}
	order := bufs.orderOf(s.n)
	if p, ok := newPacker(counts, s.n); ok {
		keys, tmp := radixBuffers[packedKey](bufs, s.n)
		for i := range keys {
			e := s.ent(int32(i))
			keys[i] = packedKey{k: p.pack(e.pfx[0], e.pfx[1]), i: int32(i)}
		}
		keys = radixSort64(keys, tmp, p.width)
		for j := range keys {
			order[j] = keys[j].i
		}
	} else {
		keys, tmp := radixBuffers[radixKey](bufs, s.n)
		for i := range keys {
			e := s.ent(int32(i))
			keys[i] = radixKey{hi: e.pfx[0], lo: e.pfx[1], i: int32(i)}
		}
		keys = radixSort(keys, tmp, counts)
		for j := range keys {
			order[j] = keys[j].i
		}
	}
	// The radix keys are done with: their memory takes the entries.
	sorted := bufs.entries(len(order))
	for j, i := range order {
		sorted[j] = *s.ent(i)
	}
	// What the radix sort left tied (one vertex's edges of one type) is
	// sorted here, among the copies: a group is a run of neighbours, so
	// the comparisons no longer miss the cache at every entry, as they
	// did on the entries in place (a third of a sort's time).
	for a := 0; a < len(sorted); {
		b := a + 1
		for b < len(sorted) && sorted[b].pfx[0] == sorted[a].pfx[0] && sorted[b].pfx[1] == sorted[a].pfx[1] {
			b++
		}
		if b-a > 1 {
			s.sortGroup(sorted[a:b], order[a:b], bufs)
		}
		a = b
	}
	s.order, s.sorted = order, sorted
}

// sortGroup sorts es, and order alongside (es[j] is entry order[j]), by
// compare.
func (s *sorter) sortGroup(es []sortEntry, order []int32, bufs *sortBuffers) {
	if len(es) <= 16 {
		// Insertion sort: most groups are a vertex's few edges.
		for j := 1; j < len(es); j++ {
			for k := j; k > 0 && s.compare(&es[k], &es[k-1], order[k], order[k-1]) < 0; k-- {
				es[k], es[k-1] = es[k-1], es[k]
				order[k], order[k-1] = order[k-1], order[k]
			}
		}
		return
	}
	// Sort positions, then move the entries once.
	idx := bufs.group[:0]
	for j := range es {
		idx = append(idx, int32(j))
	}
	slices.SortFunc(idx, func(x, y int32) int { return s.compare(&es[x], &es[y], order[x], order[y]) })
	moved := append(bufs.groupEntries[:0], es...)
	movedOrder := append(bufs.groupOrder[:0], order...)
	for j, x := range idx {
		es[j], order[j] = moved[x], movedOrder[x]
	}
	bufs.group, bufs.groupEntries, bufs.groupOrder = idx, moved, movedOrder
}

// doneSorting gives sortMem's buffers back.
func (s *sorter) doneSorting() {
	s.scratch.put(s.lent)
	s.order, s.sorted, s.lent = nil, nil, nil
}

// sameKey reports whether two entries hold the same key, looking at the
// arena only when their prefixes and lengths agree.
func (s *sorter) sameKey(a, b *sortEntry) bool {
	n := a.keyLen()
	return a.pfx == b.pfx && n == b.keyLen() && (n <= pfxEnd || bytes.Equal(s.arena(a)[pfxEnd:n], s.arena(b)[pfxEnd:n]))
}

// compare orders entries a and b, added as the x-th and y-th, by key,
// the newest (the one added later) first among equals.
func (s *sorter) compare(a, b *sortEntry, x, y int32) int {
	for i := range a.pfx {
		if a.pfx[i] != b.pfx[i] {
			return cmpUint(a.pfx[i], b.pfx[i])
		}
	}
	// Equal in bytes pfxStart..pfxEnd: the rest decides, and if one key
	// ends there, it is a prefix of the other (or equal).
	// Keys longer than pfxEnd are in the arena.
	var c int
	if na, nb := a.keyLen(), b.keyLen(); na <= pfxEnd || nb <= pfxEnd {
		c = cmpUint(uint64(na), uint64(nb))
	} else {
		c = bytes.Compare(s.arena(a)[pfxEnd:na], s.arena(b)[pfxEnd:nb])
	}
	if c != 0 {
		return c
	}
	return -cmpUint(uint64(x), uint64(y))
}

// radixKey is an entry's first two prefix words and its index.
type radixKey struct {
	hi, lo uint64
	i      int32
}

// sortBuffers are the buffers of one sortMem: a slab that holds first
// the radix sort's two key buffers (2×24 bytes an entry) and then the
// entries in key order (64 bytes an entry), and the order.
type sortBuffers struct {
	slab  []sortEntry
	order []int32
	// sortGroup's scratch, as large as the largest tie group.
	group        []int32
	groupEntries []sortEntry
	groupOrder   []int32
}

func (b *sortBuffers) grow(n int) {
	if cap(b.slab) < n {
		b.slab = make([]sortEntry, n)
	}
}

// radixBuffers returns the two buffers of a radix sort of n keys of type
// K (radixKey or packedKey, both at most half an entry), in b's slab.
func radixBuffers[K radixKey | packedKey](b *sortBuffers, n int) (keys, tmp []K) {
	b.grow(n)
	if n == 0 {
		return nil, nil
	}
	// Neither type holds pointers, so the collector does not mind the
	// slab being seen as either.
	all := unsafe.Slice((*K)(unsafe.Pointer(&b.slab[0])), 2*n)
	return all[:n:n], all[n:]
}

// entries returns the slab as n entries (the radix buffers are gone).
func (b *sortBuffers) entries(n int) []sortEntry {
	b.grow(n)
	return b.slab[:n]
}

func (b *sortBuffers) orderOf(n int) []int32 {
	if cap(b.order) < n {
		b.order = make([]int32, n)
	}
	return b.order[:n]
}

// sortScratch lends sortBuffers to the sorters of one import, keeping
// those given back for the next sort. Not a sync.Pool: a pool is emptied
// by every second collection, an SST import (under its memory limit)
// collects often, and the tens of MB of buffers were then allocated and
// faulted in anew for most partitions: 7 % of an SF10 import's CPU was
// the kernel clearing their pages. It holds at most as many sets as were
// in use at once. A nil scratch lends fresh buffers.
type sortScratch struct {
	mu   sync.Mutex
	free []*sortBuffers
}

func (p *sortScratch) get() *sortBuffers {
	if p == nil {
		return &sortBuffers{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		b := p.free[k-1]
		p.free = p.free[:k-1]
		return b
	}
	return &sortBuffers{}
}

func (p *sortScratch) put(b *sortBuffers) {
	if p == nil || b == nil {
		return
	}
	p.mu.Lock()
	p.free = append(p.free, b)
	p.mu.Unlock()
}

// digitCounts is, for each of the 16 bytes of (hi, lo) (digit's
// numbering), how many keys hold each value there.
type digitCounts [16][256]int

func (c *digitCounts) add(hi, lo uint64) {
	for b := range 8 {
		c[b][byte(lo>>(8*b))]++
		c[8+b][byte(hi>>(8*b))]++
	}
}

// radixSort sorts keys by (hi, lo), stably, a byte at a time from the
// least significant, using tmp (as long as keys) as the other buffer; it
// returns whichever of the two holds the result. counts are the keys'
// digit counts. A byte that is the same in every key (the high bytes of
// small integer ids, a rank that is always 0) costs one look at its
// histogram and no pass.
func radixSort(keys, tmp []radixKey, counts *digitCounts) []radixKey {
	n := len(keys)
	for d := range 16 {
		c := &counts[d]
		if n == 0 || c[digit(&keys[0], d)] == n {
			continue
		}
		pos := starts(c)
		for i := range keys {
			v := digit(&keys[i], d)
			tmp[pos[v]] = keys[i]
			pos[v]++
		}
		keys, tmp = tmp, keys
	}
	return keys
}

// starts returns where each value's keys start in a pass's output,
// given how many keys hold each value.
func starts(c *[256]int) [256]int {
	var pos [256]int
	sum := 0
	for v := range 256 {
		pos[v] = sum
		sum += c[v]
	}
	return pos
}

// digit is byte d of a key, counting from lo's least significant.
func digit(k *radixKey, d int) byte { return digitOf(k.hi, k.lo, d) }

func digitOf(hi, lo uint64, d int) byte {
	if d < 8 {
		return byte(lo >> (8 * d))
	}
	return byte(hi >> (8 * (d - 8)))
}

// packedKey is a radix key of the varying bits of an entry's first 16
// prefix bytes, packed into 64 (packer), and the entry's index.
type packedKey struct {
	k uint64
	i int32
}

// packer maps the 16 bytes of (hi, lo) to one uint64 in the same order.
// Most of the 128 bits are the same in every key of one sort, or take few
// values: an LDBC partition's keys are two kinds (tag, edge), 45-bit
// person ids in 64, two edge types (±1: each of their bytes one of two
// values) and rank 0 — about 50 bits that vary. Each byte's values that
// occur are numbered densely in order, each number taking the bits its
// count needs, and the numbers laid out from the most significant byte
// down. Sorting those 16-byte records in 7 byte passes instead of
// 24-byte ones in 11 moved less than half the memory: the radix sort was
// the biggest single cost of an SST import.
type packer struct {
	digits []int           // the bytes that vary
	code   [16][256]uint64 // value → its number, shifted into place
	width  int             // bits used
}

// newPacker returns the packer of keys with the given counts, or false
// if their varying bits do not fit in 64.
func newPacker(counts *digitCounts, n int) (*packer, bool) {
	p := &packer{}
	shift := 0
	for d := range 16 { // lo's least significant byte first: the lowest bits
		c := &counts[d]
		distinct := 0
		for v := range 256 {
			if c[v] > 0 {
				distinct++
			}
		}
		if distinct <= 1 {
			continue // the same in every key: no bits
		}
		width := bits.Len(uint(distinct - 1))
		if shift+width > 64 {
			return nil, false
		}
		num := uint64(0)
		for v := range 256 {
			if c[v] > 0 {
				p.code[d][v] = num << shift
				num++
			}
		}
		p.digits = append(p.digits, d)
		shift += width
	}
	p.width = shift
	return p, n > 0
}

func (p *packer) pack(hi, lo uint64) uint64 {
	var k uint64
	for _, d := range p.digits {
		k |= p.code[d][digitOf(hi, lo, d)]
	}
	return k
}

// radixSort64 sorts packed keys of width bits by k, stably, using tmp
// (as long as keys) as the other buffer; it returns whichever of the two
// holds the result. Large sorts take one pass on the top 8 bits first,
// into 256 buckets small enough for the CPU's caches, and then sort each
// bucket a byte at a time from the least significant, in cache: byte
// passes over the whole of a large sort each scatter it through memory,
// missing the cache at every key.
func radixSort64(keys, tmp []packedKey, width int) []packedKey {
	const inCache = 1 << 14 // keys: 256 KiB
	if len(keys) <= inCache || width <= 8 {
		return lsdSort64(keys, tmp, width)
	}
	shift := width - 8
	var c [256]int
	for i := range keys {
		c[byte(keys[i].k>>shift)]++
	}
	var start [257]int
	for v := range 256 {
		start[v+1] = start[v] + c[v]
	}
	pos := start
	for i := range keys {
		v := byte(keys[i].k >> shift)
		tmp[pos[v]] = keys[i]
		pos[v]++
	}
	for v := range 256 {
		lo, hi := start[v], start[v+1]
		if hi-lo < 2 {
			continue
		}
		// Within a bucket the top 8 bits are equal: the passes on them
		// are skipped as constant.
		if out := lsdSort64(tmp[lo:hi], keys[lo:hi], shift); &out[0] != &tmp[lo] {
			copy(tmp[lo:hi], out)
		}
	}
	return tmp
}

// lsdSort64 sorts keys of width bits by k, stably, a byte at a time from
// the least significant, as radixSort does.
func lsdSort64(keys, tmp []packedKey, width int) []packedKey {
	nbytes := (width + 7) / 8
	var counts [8][256]int
	for i := range keys {
		k := keys[i].k
		for b := range nbytes {
			counts[b][byte(k>>(8*b))]++
		}
	}
	n := len(keys)
	for d := range nbytes {
		c := &counts[d]
		if n == 0 || c[byte(keys[0].k>>(8*d))] == n {
			continue
		}
		pos := starts(c)
		for i := range keys {
			v := byte(keys[i].k >> (8 * d))
			tmp[pos[v]] = keys[i]
			pos[v]++
		}
		keys, tmp = tmp, keys
	}
	return keys
}

// The sort entries' key prefix: bytes pfxStart..pfxEnd of the key.
const (
	pfxWords = 4
	pfxStart = 8 // space | part: the same for every key of one partition
	pfxEnd   = pfxStart + 8*pfxWords
)

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runBlockSize is the S2 block of the sort runs: a merge holds one
// decoded block per run.
const runBlockSize = 256 << 10

// spill writes the arena sorted to a run file, S2-compressed, and empties
// it. Sorted keys share long prefixes: uncompressed, the runs of an LDBC
// SF1000 import took about 5.7 times the CSV's bytes, some 58 GB of the
// 72 GB the disk had free (docs/benchmarks.md, "Issue 23, twentieth
// session").
func (s *sorter) spill() error {
	if s.n == 0 {
		return nil
	}
	s.sortMem()
	defer s.doneSorting()
	path := filepath.Join(s.dir, fmt.Sprintf("%s.run%d", s.name, len(s.runs)))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sort run: %w", err)
	}
	z := s2.NewWriter(f, s2.WriterConcurrency(1), s2.WriterBlockSize(runBlockSize))
	w := bufio.NewWriterSize(z, 64<<10)
	var hdr [3 * binary.MaxVarintLen64]byte
	kbuf := make([]byte, 0, pfxEnd)
	for j, i := range s.order {
		e := &s.sorted[j]
		n := binary.PutUvarint(hdr[:], uint64(e.keyLen()))
		n += binary.PutUvarint(hdr[n:], uint64(e.valLen()))
		n += binary.PutUvarint(hdr[n:], s.seqBase+uint64(i))
		w.Write(hdr[:n])
		kbuf = s.key(kbuf, e)
		w.Write(kbuf)
		w.Write(s.val(e))
	}
	if err := firstErr(w.Flush(), z.Close()); err != nil {
		f.Close()
		return fmt.Errorf("sort run %s: %w", path, err) // a full disk stops the import here, named
	}
	if s.stats != nil {
		if fi, err := f.Stat(); err == nil {
			s.stats.runs.Add(1)
			s.stats.runBytes.Add(fi.Size())
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sort run %s: %w", path, err)
	}
	s.runs = append(s.runs, path)
	s.reset()
	return nil
}

// merge calls fn with every distinct key in order and its newest value,
// then removes the run files. key and val are valid during the call.
func (s *sorter) merge(fn func(key, val []byte) error) error {
	s.sortMem()
	defer s.doneSorting()
	if len(s.runs) == 0 {
		// Nothing spilled: walk the sorted entries, no heap.
		var last *sortEntry
		kbuf := make([]byte, 0, pfxEnd)
		for j := range s.sorted {
			e := &s.sorted[j]
			if last != nil && s.sameKey(e, last) {
				continue // an older write of the same key
			}
			kbuf = s.key(kbuf, e)
			if err := fn(kbuf, s.val(e)); err != nil {
				return err
			}
			last = e
		}
		s.release()
		return nil
	}
	h := &mergeHeap{}
	mem := &memSource{s: s}
	if mem.next() {
		h.items = append(h.items, mem)
	}
	for _, path := range s.runs {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("sort run: %w", err)
		}
		defer f.Close()
		r := &runSource{r: bufio.NewReaderSize(s2.NewReader(f, s2.ReaderMaxBlockSize(runBlockSize)), 64<<10), path: path}
		if r.next() {
			h.items = append(h.items, r)
		} else if r.err != nil {
			return r.err
		}
	}
	heap.Init(h)
	var last []byte
	have := false
	for h.Len() > 0 {
		top := h.items[0]
		k, v := top.cur()
		if !have || !bytes.Equal(k, last) {
			if err := fn(k, v); err != nil {
				return err
			}
			last = append(last[:0], k...)
			have = true
		}
		if top.next() {
			heap.Fix(h, 0)
		} else {
			if err := top.failed(); err != nil {
				return err
			}
			heap.Pop(h)
		}
	}
	for _, path := range s.runs {
		os.Remove(path)
	}
	s.runs = nil
	s.release()
	return nil
}

// mergeSource is one sorted input of a merge.
type mergeSource interface {
	next() bool
	cur() (key, val []byte)
	seq() uint64
	failed() error
}

type mergeHeap struct{ items []mergeSource }

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	ki, _ := h.items[i].cur()
	kj, _ := h.items[j].cur()
	if c := bytes.Compare(ki, kj); c != 0 {
		return c < 0
	}
	return h.items[i].seq() > h.items[j].seq() // the newest first
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(mergeSource)) }
func (h *mergeHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

type memSource struct {
	s    *sorter
	i    int
	kbuf []byte // the current key, if its entry holds it
}

func (m *memSource) next() bool {
	if m.i >= len(m.s.order) {
		return false
	}
	m.i++
	return true
}
func (m *memSource) entry() *sortEntry { return &m.s.sorted[m.i-1] }
func (m *memSource) cur() ([]byte, []byte) {
	e := m.entry()
	m.kbuf = m.s.key(m.kbuf, e)
	return m.kbuf, m.s.val(e)
}
func (m *memSource) seq() uint64   { return m.s.seqBase + uint64(m.s.order[m.i-1]) }
func (m *memSource) failed() error { return nil }

type runSource struct {
	r        *bufio.Reader
	path     string
	buf      []byte
	klen     int
	sq       uint64
	err      error
	finished bool
}

func (r *runSource) next() bool {
	klen, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		r.finished = true
		return false
	}
	vlen, err2 := binary.ReadUvarint(r.r)
	sq, err3 := binary.ReadUvarint(r.r)
	if err = firstErr(err, err2, err3); err != nil {
		r.err = fmt.Errorf("sort run %s: %w", r.path, err)
		return false
	}
	n := int(klen + vlen)
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		r.err = fmt.Errorf("sort run %s: %w", r.path, err)
		return false
	}
	r.klen, r.sq = int(klen), sq
	return true
}
func (r *runSource) cur() ([]byte, []byte) { return r.buf[:r.klen], r.buf[r.klen:] }
func (r *runSource) seq() uint64           { return r.sq }
func (r *runSource) failed() error         { return r.err }

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
