package raftgroup

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
)

// Where a new replica's log begins: a synthetic truncated state that every
// replica of a group shares (see doc.go).
const (
	initialIndex = 5
	initialTerm  = 5
)

// logStore is the raft.Storage of one group. The log itself lives in
// RocksDB, written by the append writer (appendEntries); logStore keeps in
// memory only what raft consults all the time: the hard state, the log's
// bounds, every entry's term (as runs, since terms change rarely) and every
// entry's payload size (for truncation by bytes), about 4 bytes per entry.
// Entries come from the engine's entryCache when it holds them and from
// RocksDB otherwise, so a storaged's heap no longer grows with the
// untruncated log (a bulk load once left ~1 GB of entries in it).
//
// The append writer updates it (Append, Compact, SetHardState,
// ApplySnapshot) only after the matching RocksDB write, so whatever it
// reports is on disk; raft, on the group's worker, reads it. raft reads
// only entries it knows are stable, and an overwrite of a conflicting
// suffix happens only beyond what raft will read from here. A truncation
// is decided on the worker (markTruncating) before the append writer
// deletes the entries, and from then on reads at or below it answer
// ErrCompacted (raft sends a snapshot instead) whether or not RocksDB has
// dropped them yet: raft panics on any other error from Entries.
type logStore struct {
	id       GroupID
	db       *grocksdb.DB
	cache    *entryCache
	snapshot func() (*rpb.Snapshot, error) // the group's makeSnapshot

	mu        sync.Mutex
	hardState *rpb.HardState
	confState *rpb.ConfState // as loaded; the engine clears it once raft read it
	truncIdx  uint64         // the last index removed from the log; its term is kept
	// truncating is the highest truncation point decided (markTruncating)
	// and possibly already applied to RocksDB but not yet to truncIdx.
	truncating uint64
	lastIdx    uint64
	terms      []termRun // ascending by first; terms[0].first == truncIdx
	sizes      []uint32  // payload bytes of entries truncIdx+1 … lastIdx
}

// termRun says that entries from index first on have term term, up to the
// next run's first index.
type termRun struct{ first, term uint64 }

// Snapshot returns a snapshot at the applied index (see snapshot.go).
func (s *logStore) Snapshot() (*rpb.Snapshot, error) { return s.snapshot() }

func (s *logStore) InitialState() (*rpb.HardState, *rpb.ConfState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hardState, s.confState, nil
}

func (s *logStore) FirstIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.truncIdx + 1, nil
}

// size is the number of entries in the log and their payload bytes.
func (s *logStore) size() (entries, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.sizes {
		bytes += int64(n)
	}
	return int64(len(s.sizes)), bytes
}

func (s *logStore) LastIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastIdx, nil
}

// Term returns the term of entry i, for i from the truncation point to the
// last index.
func (s *logStore) Term(i uint64) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.termLocked(i)
}

func (s *logStore) termLocked(i uint64) (uint64, error) {
	if i < s.truncIdx {
		return 0, raft.ErrCompacted
	}
	if i > s.lastIdx {
		return 0, raft.ErrUnavailable
	}
	k := sort.Search(len(s.terms), func(k int) bool { return s.terms[k].first > i }) - 1
	return s.terms[k].term, nil
}

// Entries returns the entries [lo, hi), at most maxSize encoded bytes of
// them but at least one: from the entry cache if it holds them all, from
// RocksDB otherwise.
func (s *logStore) Entries(lo, hi, maxSize uint64) ([]*rpb.Entry, error) {
	s.mu.Lock()
	first, last := max(s.truncIdx, s.truncating)+1, s.lastIdx
	s.mu.Unlock()
	if lo < first {
		return nil, raft.ErrCompacted
	}
	if hi > last+1 {
		return nil, fmt.Errorf("%s: entries [%d, %d) asked, the log ends at %d", s.id, lo, hi, last)
	}
	if lo >= hi {
		return nil, nil
	}
	if ents, ok := s.cache.get(s.id, lo, hi, maxSize); ok {
		return ents, nil
	}
	return s.readEntries(lo, hi, maxSize)
}

// readEntries reads entries [lo, hi) from RocksDB, stopping before the
// entry that would take them past maxSize encoded bytes (an entry's value
// is its encoding).
func (s *logStore) readEntries(lo, hi, maxSize uint64) ([]*rpb.Entry, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetTotalOrderSeek(true) // each log key is a prefix of its own (loadState)
	ro.SetFillCache(false)     // old entries are read once, for a lagging follower
	upper := logKey(s.id, hi)
	ro.SetIterateUpperBound(upper)
	it := s.db.NewIterator(ro)
	defer it.Close()
	ents := make([]*rpb.Entry, 0, min(hi-lo, 1024))
	var size uint64
	next := lo
	for it.Seek(logKey(s.id, lo)); it.Valid() && next < hi; it.Next() {
		v := it.Value()
		size += uint64(v.Size())
		if len(ents) > 0 && size > maxSize {
			v.Free()
			return ents, nil
		}
		e := &rpb.Entry{}
		err := proto.Unmarshal(v.Data(), e)
		v.Free()
		if err != nil {
			return nil, fmt.Errorf("%s: decoding log entry %d: %w", s.id, next, err)
		}
		if e.GetIndex() != next {
			return nil, s.gapError(lo, next, e.GetIndex())
		}
		ents = append(ents, e)
		next++
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("%s: reading log entries [%d, %d): %w", s.id, lo, hi, err)
	}
	if next < hi {
		return nil, s.gapError(lo, next, 0)
	}
	return ents, nil
}

// gapError explains a log read that did not find entry want: a truncation
// or snapshot that overtook the read (ErrCompacted, raft sends a snapshot
// instead), or a log that really lacks it.
func (s *logStore) gapError(lo, want, found uint64) error {
	s.mu.Lock()
	truncated := lo <= max(s.truncIdx, s.truncating)
	s.mu.Unlock()
	if truncated {
		return raft.ErrCompacted
	}
	if found == 0 {
		return fmt.Errorf("%s: raft log entry %d missing on disk", s.id, want)
	}
	return fmt.Errorf("%s: raft log has a gap: want entry %d, found %d", s.id, want, found)
}

// Append records entries just written to RocksDB: they replace the log
// from their first index on (raft overwrites a conflicting suffix).
func (s *logStore) Append(ents []*rpb.Entry) error {
	if len(ents) == 0 {
		return nil
	}
	s.mu.Lock()
	first := s.truncIdx + 1
	if ents[len(ents)-1].GetIndex() < first {
		s.mu.Unlock()
		return nil // all of them are behind the truncation point
	}
	if ents[0].GetIndex() < first {
		ents = ents[first-ents[0].GetIndex():]
	}
	from := ents[0].GetIndex()
	if from > s.lastIdx+1 {
		s.mu.Unlock()
		return fmt.Errorf("%s: appending entry %d after %d leaves a gap", s.id, from, s.lastIdx)
	}
	s.sizes = s.sizes[:from-first]
	s.terms = s.terms[:sort.Search(len(s.terms), func(k int) bool { return s.terms[k].first >= from })]
	for _, e := range ents {
		s.sizes = append(s.sizes, uint32(len(e.GetData())))
		if e.GetTerm() != s.terms[len(s.terms)-1].term {
			s.terms = append(s.terms, termRun{first: e.GetIndex(), term: e.GetTerm()})
		}
	}
	s.lastIdx = ents[len(ents)-1].GetIndex()
	s.mu.Unlock()
	s.cache.add(s.id, ents)
	return nil
}

// markTruncating records, on the worker, that a truncation up to index to
// has been decided: the append writer may delete those entries from
// RocksDB before Compact records it.
func (s *logStore) markTruncating(to uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.truncating = max(s.truncating, to)
}

// Compact records that the log was truncated up to index to (inclusive).
func (s *logStore) Compact(to uint64) error {
	s.mu.Lock()
	if to <= s.truncIdx {
		s.mu.Unlock()
		return raft.ErrCompacted
	}
	if to > s.lastIdx {
		s.mu.Unlock()
		return fmt.Errorf("%s: truncating to %d beyond the last entry %d", s.id, to, s.lastIdx)
	}
	term, _ := s.termLocked(to)
	s.sizes = slices.Clone(s.sizes[to-s.truncIdx:])
	k := sort.Search(len(s.terms), func(k int) bool { return s.terms[k].first > to })
	s.terms = append([]termRun{{first: to, term: term}}, s.terms[k:]...)
	s.truncIdx = to
	s.mu.Unlock()
	s.cache.truncate(s.id, to)
	return nil
}

// ApplySnapshot records that the log was replaced by a snapshot: it is
// empty, truncated at the snapshot's index. installSnapshot has already
// written exactly that to RocksDB, so the store follows even a snapshot
// older than its truncation point (raft does not hand those over); it
// reports one with ErrSnapOutOfDate all the same.
func (s *logStore) ApplySnapshot(snap *rpb.Snapshot) error {
	meta := snap.GetMetadata()
	s.mu.Lock()
	var err error
	if meta.GetIndex() <= s.truncIdx {
		err = raft.ErrSnapOutOfDate
	}
	s.truncIdx, s.lastIdx, s.truncating = meta.GetIndex(), meta.GetIndex(), 0
	s.terms = []termRun{{first: meta.GetIndex(), term: meta.GetTerm()}}
	s.sizes = nil
	s.mu.Unlock()
	s.cache.drop(s.id)
	return err
}

func (s *logStore) SetHardState(hs *rpb.HardState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hardState = hs
	return nil
}

// catchUpStart returns where to truncate so that the entries kept after
// it, up to applied, hold at most budget payload bytes: compactTo, or a
// later index if those entries are bigger.
func (s *logStore) catchUpStart(compactTo, applied uint64, budget int64) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.truncIdx + 1
	kept := int64(0)
	for i := min(applied, s.lastIdx); i > compactTo && i >= first; i-- {
		kept += int64(s.sizes[i-first])
		if kept > budget {
			return i
		}
	}
	return compactTo
}

// persistedState is what a group finds on disk when it is opened.
type persistedState struct {
	hardState *rpb.HardState
	confState *rpb.ConfState
	applied   uint64
	truncIdx  uint64
	truncTerm uint64
	lastIdx   uint64
	terms     []termRun // of entries truncIdx … lastIdx (logStore)
	sizes     []uint32  // payload bytes of entries truncIdx+1 … lastIdx
}

// loadState reads a group's raft state. found is false for a group that has
// never been written on this store.
func loadState(db *grocksdb.DB, id GroupID) (st persistedState, found bool, err error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	// Every log key is a prefix of its own under storaged's prefix
	// extractor: reading the log in order needs total order.
	ro.SetTotalOrderSeek(true)
	get := func(key []byte) ([]byte, error) {
		v, err := db.GetBytes(ro, key)
		if err != nil {
			return nil, fmt.Errorf("%s: reading raft state: %w", id, err)
		}
		return v, nil
	}
	hsBytes, err := get(partition.RaftHardStateKey(id.Space, id.Part))
	if err != nil || hsBytes == nil {
		return st, false, err
	}
	st.hardState = &rpb.HardState{}
	if err := proto.Unmarshal(hsBytes, st.hardState); err != nil {
		return st, false, fmt.Errorf("%s: decoding hard state: %w", id, err)
	}
	csBytes, err := get(partition.RaftConfStateKey(id.Space, id.Part))
	if err != nil {
		return st, false, err
	}
	st.confState = &rpb.ConfState{}
	if err := proto.Unmarshal(csBytes, st.confState); err != nil {
		return st, false, fmt.Errorf("%s: decoding conf state: %w", id, err)
	}
	appliedBytes, err := get(partition.RaftAppliedKey(id.Space, id.Part))
	if err != nil {
		return st, false, err
	}
	if len(appliedBytes) != 8 {
		return st, false, fmt.Errorf("%s: applied index record has %d bytes, want 8", id, len(appliedBytes))
	}
	st.applied = binary.BigEndian.Uint64(appliedBytes)
	// Entries are applied once committed and durable, in an unsynced batch
	// separate from the writer's hard-state writes, so after a crash the
	// applied index can be ahead of the commit index in the hard state.
	// Everything applied was committed, so the commit index may be raised
	// to it (CockroachDB does the same); raft would otherwise refuse to
	// start with applied > commit.
	if st.applied > st.hardState.GetCommit() {
		st.hardState.Commit = new(st.applied)
	}
	truncBytes, err := get(partition.RaftTruncatedKey(id.Space, id.Part))
	if err != nil {
		return st, false, err
	}
	if len(truncBytes) != 16 {
		return st, false, fmt.Errorf("%s: truncated state record has %d bytes, want 16", id, len(truncBytes))
	}
	st.truncIdx = binary.BigEndian.Uint64(truncBytes[:8])
	st.truncTerm = binary.BigEndian.Uint64(truncBytes[8:])

	// The log's entries stay on disk; their terms and sizes are what the
	// logStore keeps.
	st.lastIdx = st.truncIdx
	st.terms = []termRun{{first: st.truncIdx, term: st.truncTerm}}
	it := db.NewIterator(ro)
	defer it.Close()
	lower := partition.RaftLogKey(id.Space, id.Part, st.truncIdx+1)
	upper := partition.PrefixEnd(partition.KindPrefix(id.Space, id.Part, partition.KindRaftLog))
	next := st.truncIdx + 1
	for it.Seek(lower); it.Valid(); it.Next() {
		k := it.Key()
		if string(k.Data()) >= string(upper) {
			k.Free()
			break
		}
		k.Free()
		v := it.Value()
		e := &rpb.Entry{}
		err := proto.Unmarshal(v.Data(), e)
		v.Free()
		if err != nil {
			return st, false, fmt.Errorf("%s: decoding log entry %d: %w", id, next, err)
		}
		if e.GetIndex() != next {
			return st, false, fmt.Errorf("%s: log has a gap: want entry %d, found %d", id, next, e.GetIndex())
		}
		st.sizes = append(st.sizes, uint32(len(e.GetData())))
		if e.GetTerm() != st.terms[len(st.terms)-1].term {
			st.terms = append(st.terms, termRun{first: e.GetIndex(), term: e.GetTerm()})
		}
		st.lastIdx = e.GetIndex()
		next++
	}
	if err := it.Err(); err != nil {
		return st, false, fmt.Errorf("%s: scanning raft log: %w", id, err)
	}
	return st, true, nil
}

// newLogStore builds a group's logStore from its persisted state.
func newLogStore(id GroupID, db *grocksdb.DB, cache *entryCache, st persistedState) *logStore {
	return &logStore{
		id: id, db: db, cache: cache,
		hardState: st.hardState, confState: st.confState,
		truncIdx: st.truncIdx, lastIdx: st.lastIdx, terms: st.terms, sizes: st.sizes,
	}
}

// bootstrapState is the state of a brand-new replica whose group starts
// with the given voters. With no voters the replica joins an existing
// group: it starts uninitialized (index 0, empty log and configuration), so
// no leader's log can match it and the leader must send a snapshot, which
// carries the real configuration. (Starting a joiner at the synthetic index
// 5 would let it take the leader's log from index 6 and apply conf changes
// on top of an empty configuration.)
func bootstrapState(voters []uint64) persistedState {
	if len(voters) == 0 {
		return persistedState{hardState: &rpb.HardState{}, confState: &rpb.ConfState{}, terms: []termRun{{}}}
	}
	return persistedState{
		hardState: &rpb.HardState{Term: new(uint64(initialTerm)), Commit: new(uint64(initialIndex))},
		confState: &rpb.ConfState{Voters: append([]uint64(nil), voters...)},
		applied:   initialIndex,
		truncIdx:  initialIndex,
		truncTerm: initialTerm,
		lastIdx:   initialIndex,
		terms:     []termRun{{first: initialIndex, term: initialTerm}},
	}
}

// writeBootstrap records a new replica's initial state in wb.
func writeBootstrap(wb *grocksdb.WriteBatch, id GroupID, st persistedState) error {
	if err := putHardState(wb, id, st.hardState); err != nil {
		return err
	}
	if err := putConfState(wb, id, st.confState); err != nil {
		return err
	}
	putApplied(wb, id, st.applied)
	putTruncated(wb, id, st.truncIdx, st.truncTerm)
	putDataVersion(wb, id)
	return nil
}

// putDataVersion records the data format version of a replica's rows.
func putDataVersion(wb *grocksdb.WriteBatch, id GroupID) {
	wb.Put(partition.DataVersionKey(id.Space, id.Part), binary.BigEndian.AppendUint32(nil, partition.DataFormatVersion))
}

func putHardState(wb *grocksdb.WriteBatch, id GroupID, hs *rpb.HardState) error {
	b, err := proto.Marshal(hs)
	if err != nil {
		return fmt.Errorf("%s: encoding hard state: %w", id, err)
	}
	wb.Put(partition.RaftHardStateKey(id.Space, id.Part), b)
	return nil
}

func putConfState(wb *grocksdb.WriteBatch, id GroupID, cs *rpb.ConfState) error {
	b, err := proto.Marshal(cs)
	if err != nil {
		return fmt.Errorf("%s: encoding conf state: %w", id, err)
	}
	wb.Put(partition.RaftConfStateKey(id.Space, id.Part), b)
	return nil
}

func putApplied(wb *grocksdb.WriteBatch, id GroupID, index uint64) {
	wb.Put(partition.RaftAppliedKey(id.Space, id.Part), binary.BigEndian.AppendUint64(nil, index))
}

// appendEntries writes entries to the log in wb. Entries at or below
// prevLast that are being replaced, and any tail beyond the new last entry,
// are deleted: raft overwrites a conflicting suffix, and a stale tail must
// not survive a restart.
func appendEntries(wb *grocksdb.WriteBatch, id GroupID, entries []*rpb.Entry, prevLast uint64) error {
	if len(entries) == 0 {
		return nil
	}
	for _, e := range entries {
		b, err := proto.Marshal(e)
		if err != nil {
			return fmt.Errorf("%s: encoding log entry %d: %w", id, e.GetIndex(), err)
		}
		wb.Put(partition.RaftLogKey(id.Space, id.Part, e.GetIndex()), b)
	}
	last := entries[len(entries)-1].GetIndex()
	if prevLast > last {
		wb.DeleteRange(partition.RaftLogKey(id.Space, id.Part, last+1), partition.RaftLogKey(id.Space, id.Part, prevLast+1))
	}
	return nil
}

func logKey(id GroupID, index uint64) []byte { return partition.RaftLogKey(id.Space, id.Part, index) }
