package raftgroup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"

	"github.com/novagraph/novagraph/partition"
)

// Snapshots.
//
// A snapshot of a partition is its data range as of the applied index. The
// leader does not keep snapshots around: when raft asks for one (a follower
// fell behind the truncated log), the engine takes a RocksDB snapshot at
// that moment, on the group's worker, before the round writes anything,
// so the data is exactly the state at g.applied. The SnapshotTransport
// streams the range from it on a separate stream and reports the outcome.
//
// The follower's receiver writes the stream into an SST file, then hands
// the MsgSnap and the file to the engine. When raft emits the snapshot (in
// a MsgStorageAppend), the append writer (1) writes, synced, the new raft state, a range deletion
// of the old data and the raft log, and a marker naming the file; (2)
// ingests the file; (3) clears the marker. A crash between (1) and (3) is
// repaired on restart by redoing (2) from the marker, before the group
// serves anything; redoing it is idempotent.

// SnapshotData is a partition's data range at one applied index, read from a
// RocksDB snapshot. The transport must call Release exactly once when it is
// done with it.
type SnapshotData struct {
	Group  GroupID
	DB     *grocksdb.DB
	Snap   *grocksdb.Snapshot
	Lower  []byte // inclusive
	Upper  []byte // exclusive
	Msg    *rpb.Message
	engine *Engine
}

// Release frees the RocksDB snapshot and reports to raft whether the
// follower received it.
func (d *SnapshotData) Release(ok bool) {
	d.DB.ReleaseSnapshot(d.Snap)
	status := raft.SnapshotFailure
	if ok {
		status = raft.SnapshotFinish
	}
	d.engine.reportSnapshot(d.Group, snapshotReport{
		to: d.Msg.GetTo(), status: status,
		index: d.Msg.GetSnapshot().GetMetadata().GetIndex(), term: d.Msg.GetTerm(),
	})
}

// SnapshotTransport streams snapshots to other stores. SendSnapshot must not
// block; it owns data from then on.
type SnapshotTransport interface {
	SendSnapshot(data *SnapshotData)
}

// makeSnapshot is the logStore's Snapshot: metadata at the applied index
// and a RocksDB snapshot of the data as of it. Called by raft on the engine
// goroutine.
func (g *group) makeSnapshot() (*rpb.Snapshot, error) {
	term, err := g.store.Term(g.applied)
	if err != nil {
		return nil, raft.ErrSnapshotTemporarilyUnavailable
	}
	if g.outgoing == nil {
		g.outgoing = map[uint64][]*grocksdb.Snapshot{}
	}
	// One RocksDB snapshot per call: raft calls this once for each MsgSnap
	// it emits, and each transfer releases its own. Two followers that
	// need a snapshot in the same round both get one at this index.
	g.outgoing[g.applied] = append(g.outgoing[g.applied], g.db.NewSnapshot())
	return &rpb.Snapshot{Metadata: &rpb.SnapshotMetadata{
		Index: new(g.applied), Term: new(term), ConfState: g.conf.Load(),
	}}, nil
}

// releaseOutgoing frees RocksDB snapshots that no message took.
func (g *group) releaseOutgoing() {
	for idx, snaps := range g.outgoing {
		for _, s := range snaps {
			g.db.ReleaseSnapshot(s)
		}
		delete(g.outgoing, idx)
	}
}

// incomingSnapshot is a received snapshot's data file, waiting for raft.
type incomingSnapshot struct {
	index uint64
	path  string // "" when the partition had no data
}

// installSnapshot installs a snapshot carried by a MsgStorageAppend, on
// the append writer: the durable state change with the marker, the ingest,
// the marker's removal, the logStore, and a note to the engine that
// the data is now at the snapshot's index.
func (e *Engine) installSnapshot(g *group, m *rpb.Message) error {
	snap := m.GetSnapshot()
	meta := snap.GetMetadata()
	idx := meta.GetIndex()
	in, ok := g.takeIncoming(idx)
	if !ok {
		return fmt.Errorf("%s: raft installed snapshot %d but no data was received for it", g.id, idx)
	}
	if e.halted() {
		return errHalted
	}
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	lower, upper := partition.DataRange(g.id.Space, g.id.Part)
	wb.DeleteRange(lower, upper)
	logPrefix := partition.KindPrefix(g.id.Space, g.id.Part, partition.KindRaftLog)
	wb.DeleteRange(logPrefix, partition.PrefixEnd(logPrefix))
	hs := hardStateOf(m)
	if hs == nil {
		prev, _, _ := g.store.InitialState()
		hs = prev
	}
	if err := putHardState(wb, g.id, hs); err != nil {
		return err
	}
	if err := putConfState(wb, g.id, meta.GetConfState()); err != nil {
		return err
	}
	putApplied(wb, g.id, idx)
	putTruncated(wb, g.id, idx, meta.GetTerm())
	wb.Put(partition.RaftSnapshotApplyKey(g.id.Space, g.id.Part), []byte(in.path))
	if err := appendEntries(wb, g.id, m.GetEntries(), 0); err != nil {
		return err
	}
	if err := g.db.Write(e.syncOpts, wb); err != nil {
		return fmt.Errorf("%s: writing snapshot %d state: %w", g.id, idx, err)
	}
	if err := failpoint(fpBeforeSnapshotIngest); err != nil {
		return err
	}
	if err := finishSnapshotIngest(g.db, g.id, in.path, e.syncOpts); err != nil {
		return err
	}
	if err := g.store.ApplySnapshot(snap); err != nil && !errors.Is(err, raft.ErrSnapOutOfDate) {
		return fmt.Errorf("%s: recording snapshot %d in the log store: %w", g.id, idx, err)
	}
	if len(m.GetEntries()) > 0 {
		if err := g.store.Append(m.GetEntries()); err != nil {
			return fmt.Errorf("%s: recording the log after snapshot: %w", g.id, err)
		}
	}
	if err := g.store.SetHardState(hs); err != nil {
		return fmt.Errorf("%s: recording the hard state: %w", g.id, err)
	}
	g.writtenLast = idx
	if n := len(m.GetEntries()); n > 0 {
		g.writtenLast = m.GetEntries()[n-1].GetIndex()
	}
	g.conf.Store(meta.GetConfState())
	g.box.mu.Lock()
	g.box.installed = append(g.box.installed, idx)
	g.box.mu.Unlock()
	e.activate(g.id)
	return nil
}

// finishSnapshotIngest ingests a received snapshot file into the cleared
// range and removes the marker. It is also the restart repair: the range is
// cleared again first, so repeating it after a crash changes nothing.
func finishSnapshotIngest(db *grocksdb.DB, id GroupID, path string, sync *grocksdb.WriteOptions) error {
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			lower, upper := partition.DataRange(id.Space, id.Part)
			wb := grocksdb.NewWriteBatch()
			wb.DeleteRange(lower, upper)
			err := db.Write(sync, wb)
			wb.Destroy()
			if err != nil {
				return fmt.Errorf("%s: clearing range before ingest: %w", id, err)
			}
			opts := grocksdb.NewDefaultIngestExternalFileOptions()
			opts.SetMoveFiles(true)
			err = db.IngestExternalFile([]string{path}, opts)
			opts.Destroy()
			if err != nil {
				return fmt.Errorf("%s: ingesting snapshot file %s: %w", id, path, err)
			}
			_ = os.Remove(path)
		}
		// A missing file was ingested (moved) before a crash.
	}
	if err := failpoint(fpAfterSnapshotIngest); err != nil {
		return err
	}
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	wb.Delete(partition.RaftSnapshotApplyKey(id.Space, id.Part))
	if err := db.Write(sync, wb); err != nil {
		return fmt.Errorf("%s: clearing snapshot marker: %w", id, err)
	}
	return nil
}

// repairSnapshot finishes an interrupted snapshot install found at open.
func repairSnapshot(db *grocksdb.DB, id GroupID, sync *grocksdb.WriteOptions) error {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	v, err := db.GetBytes(ro, partition.RaftSnapshotApplyKey(id.Space, id.Part))
	if err != nil {
		return fmt.Errorf("%s: reading snapshot marker: %w", id, err)
	}
	if v == nil {
		return nil
	}
	return finishSnapshotIngest(db, id, string(v), sync)
}

func putTruncated(wb *grocksdb.WriteBatch, id GroupID, index, term uint64) {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], index)
	binary.BigEndian.PutUint64(b[8:], term)
	wb.Put(partition.RaftTruncatedKey(id.Space, id.Part), b[:])
}

// StepSnapshot hands a received MsgSnap to its group together with the SST
// file holding its data ("" if the partition was empty). The engine owns
// the file from then on.
func (e *Engine) StepSnapshot(id GroupID, m *rpb.Message, path string) error {
	err := e.post(id, func(b *mailbox) {
		b.snapshots = append(b.snapshots, incomingSnapshot{index: m.GetSnapshot().GetMetadata().GetIndex(), path: path})
		b.messages = append(b.messages, m)
	})
	if err != nil && path != "" {
		_ = os.Remove(path)
	}
	return err
}

func (e *Engine) reportSnapshot(id GroupID, rep snapshotReport) {
	_ = e.post(id, func(b *mailbox) {
		b.snapshotReports = append(b.snapshotReports, rep)
	})
}

// snapshotReport is the outcome of one snapshot send: to whom, and which
// snapshot (its index, and the leader's term when it was sent).
type snapshotReport struct {
	to     uint64
	status raft.SnapshotStatus
	index  uint64
	term   uint64
}

// awaits reports whether raft still waits for the outcome of the snapshot
// rep is about. raft's ReportSnapshot names only the follower, and raft
// applies it to whatever snapshot that follower's progress waits for. A
// late report of an older send (one from an earlier term of this leader,
// or one superseded since) would end the wait for the snapshot in flight
// now: a failure makes the leader send yet another snapshot while the
// current one still streams (each holds a RocksDB snapshot and one of the
// store's few send slots, so a follower that needs several catches up ever
// later), a success makes it probe the log as if the current one had
// arrived. Every send reports exactly once, so the report of the awaited
// one still comes and nothing waits forever.
func (g *group) awaits(rep snapshotReport) bool {
	st := g.rn.BasicStatus()
	if st.RaftState != raft.StateLeader || st.GetTerm() != rep.term {
		return false
	}
	awaited := false
	g.rn.WithProgress(func(id uint64, _ raft.ProgressType, pr tracker.Progress) {
		if id == rep.to && pr.State == tracker.StateSnapshot && pr.PendingSnapshot == rep.index {
			awaited = true
		}
	})
	return awaited
}

// addIncoming records received snapshot files (the group's worker).
func (g *group) addIncoming(snaps []incomingSnapshot) {
	if len(snaps) == 0 {
		return
	}
	g.snapMu.Lock()
	defer g.snapMu.Unlock()
	for _, in := range snaps {
		if old, ok := g.incoming[in.index]; ok && old.path != "" && old.path != in.path {
			_ = os.Remove(old.path)
		}
		g.incoming[in.index] = in
	}
}

// hasIncoming says whether a snapshot's data was received for index idx
// and not yet installed.
func (g *group) hasIncoming(idx uint64) bool {
	g.snapMu.Lock()
	defer g.snapMu.Unlock()
	_, ok := g.incoming[idx]
	return ok
}

// takeIncoming hands a received snapshot's file to the writer installing it.
func (g *group) takeIncoming(idx uint64) (incomingSnapshot, bool) {
	g.snapMu.Lock()
	defer g.snapMu.Unlock()
	in, ok := g.incoming[idx]
	delete(g.incoming, idx)
	return in, ok
}

// dropStaleIncoming removes received snapshot files raft will not install
// because the replica already applied past them.
func (g *group) dropStaleIncoming() {
	g.snapMu.Lock()
	defer g.snapMu.Unlock()
	for idx, in := range g.incoming {
		if idx <= g.applied {
			if in.path != "" {
				_ = os.Remove(in.path)
			}
			delete(g.incoming, idx)
		}
	}
}
