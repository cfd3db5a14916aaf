package importer

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/novagraph/novagraph/partition"
)

// sorter is an external sort of key-value pairs with last-write-wins: it
// holds pairs in one arena until told to spill, then writes them sorted
// to a run file; merge streams every pair in key order, and of pairs with
// equal keys only the one added last. Memory is the arena plus one buffered
// reader per run while merging.
type sorter struct {
	dir  string
	name string

	arena []byte
	ents  []sortEntry
	seq   uint64
	runs  []string
}

// sortEntry is a pair in the arena: key at [off, off+klen), value after it.
// pfx holds the key's bytes 8..24 (kind, vid and what follows it: the
// key's first 8 bytes are the same in one partition's sort), compared
// before the bytes, which settles most comparisons without touching the
// arena.
type sortEntry struct {
	pfx        [2]uint64
	off        int
	klen, vlen uint32
	seq        uint64
}

func (s *sorter) add(key, val []byte) {
	off := len(s.arena)
	s.arena = append(s.arena, key...)
	s.arena = append(s.arena, val...)
	s.commit(off, len(key))
}

// addEdge adds an edge key with the value valPrefix+val, encoded in place.
func (s *sorter) addEdge(space, part int32, src []byte, edgeType int32, rank int64, dst []byte, inEdge bool, row []byte) {
	off := len(s.arena)
	s.arena = partition.AppendEdgeKey(s.arena, space, part, src, edgeType, rank, dst)
	klen := len(s.arena) - off
	if inEdge {
		s.arena = partition.AppendInEdge(s.arena, partition.InEdgeVersion{}, row)
	} else {
		s.arena = append(s.arena, row...)
	}
	s.commit(off, klen)
}

// commit records the pair the arena holds from off, its key klen bytes.
func (s *sorter) commit(off, klen int) {
	var pfx [2]uint64
	var buf [16]byte
	if klen > 8 {
		copy(buf[:], s.arena[off+8:off+klen]) // zero-padded: sorts as the bytes do
		pfx = [2]uint64{binary.BigEndian.Uint64(buf[:8]), binary.BigEndian.Uint64(buf[8:])}
	}
	s.ents = append(s.ents, sortEntry{pfx: pfx, off: off, klen: uint32(klen), vlen: uint32(len(s.arena) - off - klen), seq: s.seq})
	s.seq++
}

// held is roughly the memory the sorter's pairs take. A spill keeps the
// buffers' capacity for the next run, so the process holds up to about
// twice the budget.
func (s *sorter) held() int64 { return int64(len(s.arena)) + int64(len(s.ents))*32 }

func (s *sorter) key(e sortEntry) []byte { return s.arena[e.off : e.off+int(e.klen)] }
func (s *sorter) val(e sortEntry) []byte {
	return s.arena[e.off+int(e.klen) : e.off+int(e.klen)+int(e.vlen)]
}

// sortMem orders the arena's pairs by key, the newest first among equals.
func (s *sorter) sortMem() {
	slices.SortFunc(s.ents, func(a, b sortEntry) int {
		if a.pfx[0] != b.pfx[0] {
			return cmpUint(a.pfx[0], b.pfx[0])
		}
		if a.pfx[1] != b.pfx[1] {
			return cmpUint(a.pfx[1], b.pfx[1])
		}
		if c := bytes.Compare(s.key(a), s.key(b)); c != 0 {
			return c
		}
		return -cmpUint(a.seq, b.seq)
	})
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// spill writes the arena sorted to a run file and empties it.
func (s *sorter) spill() error {
	if len(s.ents) == 0 {
		return nil
	}
	s.sortMem()
	path := filepath.Join(s.dir, fmt.Sprintf("%s.run%d", s.name, len(s.runs)))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sort run: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [3 * binary.MaxVarintLen64]byte
	for _, e := range s.ents {
		n := binary.PutUvarint(hdr[:], uint64(e.klen))
		n += binary.PutUvarint(hdr[n:], uint64(e.vlen))
		n += binary.PutUvarint(hdr[n:], e.seq)
		w.Write(hdr[:n])
		w.Write(s.arena[e.off : e.off+int(e.klen)+int(e.vlen)])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("sort run %s: %w", path, err) // a full disk stops the import here, named
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sort run %s: %w", path, err)
	}
	s.runs = append(s.runs, path)
	s.arena, s.ents = s.arena[:0], s.ents[:0]
	return nil
}

// merge calls fn with every distinct key in order and its newest value,
// then removes the run files. key and val are valid during the call.
func (s *sorter) merge(fn func(key, val []byte) error) error {
	s.sortMem()
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
		r := &runSource{r: bufio.NewReaderSize(f, 1<<20), path: path}
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
	s.arena, s.ents = nil, nil
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
	s *sorter
	i int
}

func (m *memSource) next() bool {
	if m.i >= len(m.s.ents) {
		return false
	}
	m.i++
	return m.i <= len(m.s.ents)
}
func (m *memSource) entry() sortEntry { return m.s.ents[m.i-1] }
func (m *memSource) cur() ([]byte, []byte) {
	e := m.entry()
	return m.s.key(e), m.s.val(e)
}
func (m *memSource) seq() uint64   { return m.entry().seq }
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
