package raftgroup

import (
	"encoding/binary"
	"fmt"

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

// logStore is the raft.Storage of one group: a MemoryStorage mirror of the
// log persisted in RocksDB. It overrides InitialState so the ConfState comes
// from what was applied, not from the (synthetic) snapshot.
type logStore struct {
	*raft.MemoryStorage
	confState *rpb.ConfState
	snapshot  func() (*rpb.Snapshot, error) // the group's makeSnapshot
}

// Snapshot returns a snapshot at the applied index (see snapshot.go), not
// MemoryStorage's, which only ever holds the truncated state it was built
// from.
func (s *logStore) Snapshot() (*rpb.Snapshot, error) { return s.snapshot() }

func (s *logStore) InitialState() (*rpb.HardState, *rpb.ConfState, error) {
	hs, _, err := s.MemoryStorage.InitialState()
	return hs, s.confState, err
}

// persistedState is what a group finds on disk when it is opened.
type persistedState struct {
	hardState *rpb.HardState
	confState *rpb.ConfState
	applied   uint64
	truncIdx  uint64
	truncTerm uint64
	entries   []*rpb.Entry
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
		st.entries = append(st.entries, e)
		next++
	}
	if err := it.Err(); err != nil {
		return st, false, fmt.Errorf("%s: scanning raft log: %w", id, err)
	}
	return st, true, nil
}

// newLogStore builds the in-memory mirror from persisted state.
func newLogStore(st persistedState) (*logStore, error) {
	ms := raft.NewMemoryStorage()
	if st.truncIdx > 0 {
		snap := &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{
			Index:     new(st.truncIdx),
			Term:      new(st.truncTerm),
			ConfState: st.confState,
		}}
		if err := ms.ApplySnapshot(snap); err != nil {
			return nil, fmt.Errorf("restoring truncated state: %w", err)
		}
	}
	if err := ms.SetHardState(st.hardState); err != nil {
		return nil, fmt.Errorf("restoring hard state: %w", err)
	}
	if len(st.entries) > 0 {
		if err := ms.Append(st.entries); err != nil {
			return nil, fmt.Errorf("restoring log: %w", err)
		}
	}
	return &logStore{MemoryStorage: ms, confState: st.confState}, nil
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
		return persistedState{hardState: &rpb.HardState{}, confState: &rpb.ConfState{}}
	}
	return persistedState{
		hardState: &rpb.HardState{Term: new(uint64(initialTerm)), Commit: new(uint64(initialIndex))},
		confState: &rpb.ConfState{Voters: append([]uint64(nil), voters...)},
		applied:   initialIndex,
		truncIdx:  initialIndex,
		truncTerm: initialTerm,
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
	wb.Put(partition.DataVersionKey(id.Space, id.Part), binary.BigEndian.AppendUint32(nil, partition.DataFormatVersion))
	return nil
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
