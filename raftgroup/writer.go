package raftgroup

import (
	"errors"
	"fmt"
	"sync"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
)

// appendWriter is the store's log writer: it owns every write of raft log
// entries, hard states, truncations and snapshot installs. The engine hands
// it MsgStorageAppend messages (raft's AsyncStorageWrites); it writes all
// that queued up since its last write in one batch per RocksDB with one
// sync, then delivers each message's responses: to the group itself (which
// then learns the entries are stable) or over the transport (a follower's
// MsgAppResp or vote, which must not leave before the write is durable).
//
// Because it runs beside the workers, a slow fsync delays only
// what depends on durability; ticks, heartbeats and the leader's appends
// keep flowing.
//
// Invariant: operations of one group are written in the order they were
// queued (raft requires the append thread to be FIFO).
type appendWriter struct {
	e *Engine

	mu    sync.Mutex
	queue []appendOp
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	err   chan error // the first failure; the engine stops on it
}

// appendOp is one MsgStorageAppend, or a log truncation decided by apply.
type appendOp struct {
	g       *group
	msg     *rpb.Message
	trunc   *truncation
	barrier chan struct{} // closed once everything queued before it is written
}

func newAppendWriter(e *Engine) *appendWriter {
	return &appendWriter{e: e, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), err: make(chan error, 1)}
}

func (w *appendWriter) enqueue(ops []appendOp) {
	w.mu.Lock()
	w.queue = append(w.queue, ops...)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *appendWriter) run() {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		for {
			w.mu.Lock()
			ops := w.queue
			w.queue = nil
			w.mu.Unlock()
			if len(ops) == 0 {
				break
			}
			if err := w.write(ops); err != nil {
				if errors.Is(err, errHalted) {
					return
				}
				// Halt now, not when the engine's goroutine reads err:
				// the workers must not write again (Engine.halt).
				w.err <- err
				w.e.halt(err)
				return
			}
		}
	}
}

// write persists ops in order. Runs of ordinary appends share batches;
// a snapshot install, which needs its own writes and an ingest, splits the
// run so that what was queued before it is durable first.
func (w *appendWriter) write(ops []appendOp) error {
	start := 0
	for i, op := range ops {
		if op.msg != nil && !raft.IsEmptySnap(op.msg.GetSnapshot()) {
			if err := w.writeRun(ops[start:i]); err != nil {
				return err
			}
			if err := w.e.installSnapshot(op.g, op.msg); err != nil {
				return err
			}
			w.deliver([]appendOp{op})
			start = i + 1
		}
	}
	return w.writeRun(ops[start:])
}

func (w *appendWriter) writeRun(ops []appendOp) error {
	if len(ops) == 0 {
		return nil
	}
	type dbBatch struct {
		db   *grocksdb.DB
		wb   *grocksdb.WriteBatch
		sync bool
	}
	var batches []*dbBatch
	byDB := map[*grocksdb.DB]*dbBatch{}
	defer func() {
		for _, b := range batches {
			b.wb.Destroy()
		}
	}()
	for _, op := range ops {
		g := op.g
		b := byDB[g.db]
		if b == nil || w.e.cfg.SeparateWrites {
			b = &dbBatch{db: g.db, wb: grocksdb.NewWriteBatch()}
			batches = append(batches, b)
			byDB[g.db] = b
		}
		if op.barrier != nil {
			continue
		}
		if op.trunc != nil {
			t := op.trunc
			b.wb.DeleteRange(logKey(g.id, t.from+1), logKey(g.id, t.to+1))
			putTruncated(b.wb, g.id, t.to, t.term)
			continue
		}
		m := op.msg
		if err := appendEntries(b.wb, g.id, m.GetEntries(), g.writtenLast); err != nil {
			return err
		}
		if n := len(m.GetEntries()); n > 0 {
			g.writtenLast = m.GetEntries()[n-1].GetIndex()
			w.e.stats.entriesAppended.Add(uint64(n))
		}
		if hs := hardStateOf(m); hs != nil {
			if err := putHardState(b.wb, g.id, hs); err != nil {
				return err
			}
		}
		// Durability is owed only to what responds: raft attaches no
		// response to a write that nothing waits for.
		b.sync = b.sync || len(m.GetResponses()) > 0
	}
	if err := failpoint(fpBeforeLogWrite); err != nil {
		return err
	}
	if w.e.halted() {
		return errHalted
	}
	for _, b := range batches {
		opts := w.e.writeOpts
		if b.sync {
			opts = w.e.syncOpts
		}
		if err := b.db.Write(opts, b.wb); err != nil {
			return fmt.Errorf("writing raft log batch: %w", err)
		}
		w.e.stats.batchWrites.Add(1)
		if b.sync {
			w.e.stats.syncs.Add(1)
		}
	}
	if err := failpoint(fpAfterLogWrite); err != nil {
		return err
	}
	for _, op := range ops {
		g := op.g
		if op.barrier != nil {
			// The group was removed (round.go) and nothing more of it is
			// queued: its cached entries go.
			w.e.entries.drop(g.id)
			continue
		}
		if op.trunc != nil {
			// The logStore forgets the entries only once RocksDB did.
			if err := g.store.Compact(op.trunc.to); err != nil && err != raft.ErrCompacted {
				return fmt.Errorf("%s: recording the log's truncation: %w", g.id, err)
			}
			continue
		}
		if len(op.msg.GetEntries()) > 0 {
			if err := g.store.Append(op.msg.GetEntries()); err != nil {
				return fmt.Errorf("%s: recording appended entries: %w", g.id, err)
			}
		}
		if hs := hardStateOf(op.msg); hs != nil {
			if err := g.store.SetHardState(hs); err != nil {
				return fmt.Errorf("%s: recording the hard state: %w", g.id, err)
			}
		}
	}
	w.deliver(ops)
	for _, op := range ops {
		if op.barrier != nil {
			close(op.barrier)
		}
	}
	return nil
}

// deliver sends each op's responses after its write: to the group itself
// through its mailbox, to other stores through the transport.
func (w *appendWriter) deliver(ops []appendOp) {
	var out []Envelope
	for _, op := range ops {
		if op.msg == nil {
			continue
		}
		for _, resp := range op.msg.GetResponses() {
			if resp.GetTo() == w.e.cfg.StoreID {
				_ = w.e.Step(op.g.id, resp)
				continue
			}
			out = append(out, Envelope{Group: op.g.id, Msg: resp})
		}
	}
	if len(out) > 0 {
		w.e.stats.messagesSent.Add(uint64(len(out)))
		w.e.cfg.Transport.Send(out)
	}
}

// hardStateOf reconstructs the hard state a MsgStorageAppend carries, nil
// if it carries none (raft sets all three fields or none).
func hardStateOf(m *rpb.Message) *rpb.HardState {
	if m.Term == nil && m.Vote == nil && m.Commit == nil {
		return nil
	}
	return &rpb.HardState{Term: new(m.GetTerm()), Vote: new(m.GetVote()), Commit: new(m.GetCommit())}
}
