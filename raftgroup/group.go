package raftgroup

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
)

// GroupID names a Raft group: one partition of one graph space.
type GroupID struct {
	Space int32
	Part  int32
}

func (g GroupID) String() string { return fmt.Sprintf("space %d part %d", g.Space, g.Part) }

// proposal is a command waiting to be applied. done receives exactly one
// value: nil or the applier's error once the entry applied on this replica,
// or the reason it never will.
type proposal struct {
	id   uint64
	data []byte            // proposal id (8 bytes, big-endian) | command
	cc   *rpb.ConfChangeV2 // set for a membership change; Context holds the id
	done chan error
	// result is the applier's value, set before done receives nil or the
	// applier's error (the channel send orders it before the receive).
	result []byte
}

// readRequest waits for a linearizable read point.
type readRequest struct {
	done chan error
}

// readBatch is every read request that shares one ReadIndex round trip.
type readBatch struct {
	index    uint64 // 0 until raft returned the ReadState
	requests []*readRequest
}

func (b *readBatch) finish(err error) {
	for _, r := range b.requests {
		r.done <- err
	}
}

// mailbox is the only part of a group that goroutines other than the engine
// touch; everything it holds is handed to the engine at the next round.
type mailbox struct {
	mu              sync.Mutex
	messages        []*rpb.Message
	proposals       []*proposal
	reads           []*readRequest
	unreachable     []uint64
	transfers       []uint64
	snapshots       []incomingSnapshot // received snapshot files, with their MsgSnap in messages
	snapshotReports []snapshotReport
	inspections     []func(*group) // run on the group's worker (Status)
	installed       []uint64       // snapshot indexes the append writer installed
	removed         chan struct{}  // set by RemoveGroup: the engine drops the group and closes it
	// closed is set once the group is removed or the engine stopped: after
	// that nothing drains the mailbox, so whoever would add to it fails at
	// once instead of waiting for an answer that never comes.
	closed bool
}

// group is one replica. Fields below the mailbox are owned by the engine
// goroutine; the atomics publish a summary for readers elsewhere.
type group struct {
	id GroupID
	db *grocksdb.DB
	w  *worker // the worker that drives this group

	box mailbox

	rn       *raft.RawNode
	store    *logStore
	applied  uint64 // last applied index (written, not necessarily synced)
	truncIdx uint64 // last index removed, or decided to be removed, from the log
	logBytes int64  // bytes of entries applied since the last truncation
	// appliedAt is when applied last advanced, and idleTried whether the
	// idle truncation (Config.LogIdleTruncateAfter) of the quiet spell
	// since then was done or found nothing to cut.
	appliedAt time.Time
	idleTried bool
	isLeader  bool

	outgoing map[uint64][]*grocksdb.Snapshot // RocksDB snapshots taken for raft this round, by index (one per MsgSnap)

	// emittedLast is the highest log index raft has handed to the append
	// writer (or a snapshot's index): every index another replica may
	// acknowledge is at or below it, written or not (screen.go). Owned by
	// the worker.
	emittedLast uint64

	// Owned by the append writer.
	writtenLast uint64 // last log index written to RocksDB

	snapMu   sync.Mutex
	incoming map[uint64]incomingSnapshot // received snapshot files waiting for raft, by index

	// applyCache holds stored values for the Applier's reads (nil: none
	// configured). Owned by the worker; see applyCache for when it is
	// cleared.
	applyCache *applyCache

	pending     map[uint64]*proposal  // proposals this leader accepted, by id
	readsFlight map[string]*readBatch // ReadIndex requests sent to raft, by request context
	readsReady  []*readBatch          // read points known, waiting for applied ≥ index
	nextReadCtx uint64

	// held are the MsgStorageApply messages this replica has not (fully)
	// applied because an Applier could not apply one of their entries here
	// (ErrApplyHalted), in raft's order; halt says at which entry and why.
	// Both are set together, and cleared together once the entries apply
	// (round.go). Their responses are stepped only when the entries are
	// applied: raft must not learn of an applied index this replica has
	// not reached.
	held []*rpb.Message
	halt *applyHalt
	// snapPending is the index of a snapshot raft restored and the append
	// writer has not installed yet (0: none). Held entries are not retried
	// meanwhile: they are all at or below the snapshot (raft restores only
	// beyond its commit index), and applying them while the writer lays
	// the snapshot down would write old entries over it.
	snapPending uint64

	leader atomic.Uint64 // store id of the known leader, 0 if none
	term   atomic.Uint64
	conf   atomic.Pointer[rpb.ConfState] // applied configuration
	// appliedPub is applied, published after the data of every entry up
	// to it is in RocksDB (Engine.Applied).
	appliedPub atomic.Uint64
	// commitPub is the commit index this replica last persisted (its hard
	// state): with appliedPub, how far apply lags (Engine.ApplyLag).
	commitPub atomic.Uint64
}

// applyHalt is why and since when a group stopped applying.
type applyHalt struct {
	index   uint64 // the entry that could not be applied
	reason  string // the Applier's error at the last attempt
	since   time.Time
	retries int       // attempts after the first
	next    time.Time // when to try again
}

// HaltStatus describes a replica that stopped applying its log at an entry
// it cannot apply on this store (ErrApplyHalted).
type HaltStatus struct {
	Index   uint64    // the entry it is stopped at; applied is Index-1
	Reason  string    // the Applier's error at the last attempt
	Since   time.Time // when it stopped
	Retries int       // attempts since, each failed
}

// failWaiters ends every pending proposal and read with err. Called when
// this replica stops being the leader or the group is removed.
func (g *group) failWaiters(propErr, readErr error) {
	for id, p := range g.pending {
		p.done <- propErr
		delete(g.pending, id)
	}
	for ctx, b := range g.readsFlight {
		b.finish(readErr)
		delete(g.readsFlight, ctx)
	}
	for _, b := range g.readsReady {
		b.finish(readErr)
	}
	g.readsReady = nil
}

// completeReads releases the read batches whose read point is applied.
func (g *group) completeReads() {
	kept := g.readsReady[:0]
	for _, b := range g.readsReady {
		if b.index <= g.applied {
			b.finish(nil)
			continue
		}
		kept = append(kept, b)
	}
	g.readsReady = kept
}
