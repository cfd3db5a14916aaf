package raftgroup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
)

// worker drives a fixed share of the groups: one goroutine, its own tick
// and its own set of woken groups. Groups never move between workers, so a
// RawNode only ever runs on its worker's goroutine.
type worker struct {
	e *Engine

	mu     sync.Mutex
	groups []*group             // every group of this worker
	active map[GroupID]struct{} // groups whose mailbox has work
	wake   chan struct{}
}

func (w *worker) activate(id GroupID) {
	w.mu.Lock()
	w.active[id] = struct{}{}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *worker) run() {
	e := w.e
	ticker := time.NewTicker(e.cfg.TickInterval)
	defer ticker.Stop()
	for {
		tick := false
		select {
		case <-e.stop:
			return
		case <-ticker.C:
			tick = true
		case <-w.wake:
		}
		if err := e.round(w, tick); err != nil {
			if errors.Is(err, errHalted) {
				return // another goroutine's write failed
			}
			// A failed write leaves raft's in-memory state ahead of the
			// disk; continuing could acknowledge what is not durable.
			e.log.Error("raft engine stopped: disk write failed", "err", err)
			e.halt(err)
			return
		}
	}
}

// round is one pass of a worker's loop (doc.go): feed mailboxes and ticks
// into the RawNodes, take their Readies, send network messages at once,
// queue log writes for the append writer, and apply committed entries.
func (e *Engine) round(w *worker, tick bool) error {
	w.mu.Lock()
	var groups []*group
	if tick {
		groups = append(groups, w.groups...)
	} else {
		groups = make([]*group, 0, len(w.active))
		for _, g := range w.groups {
			if _, ok := w.active[g.id]; ok {
				groups = append(groups, g)
			}
		}
	}
	clear(w.active)
	w.mu.Unlock()

	var out []Envelope
	var appends []appendOp
	var applies []*applyOp
	var idleTruncs []appendOp
	var ticked []*group
	readyGroups := 0
	now := time.Now()
	for _, g := range groups {
		if e.drainMailbox(g) {
			continue // removed
		}
		if tick {
			g.rn.Tick()
			// Groups added since this one filled its cache lowered its
			// share; an idle group must give the room back too.
			g.applyCache.trim()
			ticked = append(ticked, g)
		}
		// Held entries are tried again once the retry interval passed,
		// ahead of any entries this Ready adds (apply keeps raft's order),
		// unless a snapshot is on its way down (see snapPending).
		retry := func() {
			if tick && g.halt != nil && !now.Before(g.halt.next) && g.snapPending == 0 {
				for _, m := range g.held {
					applies = append(applies, &applyOp{g: g, msg: m, retry: true})
				}
				g.held = nil
			}
		}
		if !g.rn.HasReady() {
			retry()
			continue
		}
		readyGroups++
		rd := g.rn.Ready()
		e.noteSoftState(g, rd)
		for _, rs := range rd.ReadStates {
			if b, ok := g.readsFlight[string(rs.RequestCtx)]; ok {
				delete(g.readsFlight, string(rs.RequestCtx))
				b.index = rs.Index
				g.readsReady = append(g.readsReady, b)
			}
		}
		var newApplies []*applyOp
		for _, m := range rd.Messages {
			switch m.GetTo() {
			case raft.LocalAppendThread:
				if ents := m.GetEntries(); len(ents) > 0 {
					g.emittedLast = max(g.emittedLast, ents[len(ents)-1].GetIndex())
				}
				if idx := m.GetSnapshot().GetMetadata().GetIndex(); idx > 0 {
					g.emittedLast = max(g.emittedLast, idx)
					g.snapPending = idx
					// The writer replaces the group's data: no value
					// read before holds, nor any read until it is done.
					g.applyCache.clear()
				}
				appends = append(appends, appendOp{g: g, msg: m})
			case raft.LocalApplyThread:
				newApplies = append(newApplies, &applyOp{g: g, msg: m})
			default:
				if m.GetType() == rpb.MessageType_MsgSnap {
					e.sendSnapshot(g, m)
					continue
				}
				out = append(out, Envelope{Group: g.id, Msg: m})
			}
		}
		retry()
		applies = append(applies, newApplies...)
		g.releaseOutgoing()
	}
	// Idle truncation after the Readies: a snapshot taken from this round's
	// Ready has set snapPending, so no truncation below the snapshot is
	// queued behind its install.
	if tick {
		for _, g := range ticked { // not the groups drainMailbox removed
			if tr := e.idleTruncation(g, now); tr != nil {
				idleTruncs = append(idleTruncs, appendOp{g: g, trunc: tr})
			}
		}
	}
	if readyGroups > 0 {
		e.stats.rounds.Add(1)
		e.stats.groupsReady.Add(uint64(readyGroups))
	}
	// Messages in Ready.Messages are safe to send before the local append
	// is durable (raft holds back those that are not, as responses of the
	// MsgStorageAppend), so heartbeats and appends never wait for a disk.
	if len(out) > 0 {
		e.stats.messagesSent.Add(uint64(len(out)))
		e.cfg.Transport.Send(out)
	}
	if len(appends) > 0 {
		e.writer.enqueue(appends)
	}
	if len(idleTruncs) > 0 {
		// They cut only applied entries: no append of this round is in
		// their range.
		e.writer.enqueue(idleTruncs)
	}
	if len(applies) > 0 {
		if err := e.apply(applies); err != nil {
			return err
		}
	}
	for _, g := range groups {
		g.completeReads()
		if g.rn.HasReady() {
			w.activate(g.id)
		}
	}
	return nil
}

// noteSoftState publishes leadership changes and fails what a replica that
// stopped leading can no longer complete.
func (e *Engine) noteSoftState(g *group, rd raft.Ready) {
	if !raft.IsEmptyHardState(rd.HardState) {
		g.term.Store(rd.HardState.GetTerm())
		g.commitPub.Store(rd.HardState.GetCommit())
	}
	if rd.SoftState == nil {
		return
	}
	wasLeader := g.isLeader
	g.leader.Store(rd.SoftState.Lead)
	g.isLeader = rd.SoftState.RaftState == raft.StateLeader
	if wasLeader && !g.isLeader {
		notLeader := &NotLeaderError{Group: g.id, Leader: rd.SoftState.Lead}
		g.failWaiters(fmt.Errorf("%s: %w", g.id, ErrAmbiguous), notLeader)
	}
}

// applyOp is one MsgStorageApply: committed entries that are durable here.
type applyOp struct {
	g       *group
	msg     *rpb.Message
	applied uint64
	results map[uint64]applyResult // proposal id → apply result
	trunc   *truncation
	retry   bool // taken from g.held: the group was halted
	// halted is set when the Applier could not apply an entry here
	// (ErrApplyHalted): the entries before it are applied, it and the rest
	// are not, and the message goes back to g.held.
	halted *haltedEntry
	// held: the group was already halted at an earlier entry, so none of
	// this message was applied; it waits in g.held behind that entry.
	held bool
}

// haltedEntry is the entry an Applier could not apply, and why.
type haltedEntry struct {
	index uint64
	err   error
}

// apply applies committed entries on the group's worker, in one batch
// per RocksDB instance holding the data and the applied index together.
// The write is not synced: if it is lost in a crash, so is the applied
// index that covers it, and the entries (durable in the log) are applied
// again on restart.
func (e *Engine) apply(ops []*applyOp) error {
	var batches []*ApplyBatch
	byDB := map[*grocksdb.DB]*ApplyBatch{}
	defer func() {
		for _, b := range batches {
			b.destroy()
		}
	}()
	for _, op := range ops {
		if len(op.g.held) > 0 {
			// Halted at an earlier entry (in an earlier round, or in an
			// earlier message of this one): nothing after it may apply
			// before it does. Other groups' messages go on.
			op.held = true
			op.g.held = append(op.g.held, op.msg)
			continue
		}
		b := byDB[op.g.db]
		if b == nil || e.cfg.SeparateWrites {
			b = newApplyBatch(op.g.db)
			b.cacheKey = e.cfg.ApplyCacheKey
			batches = append(batches, b)
			byDB[op.g.db] = b
		}
		if err := e.applyEntries(b, op); err != nil {
			return err
		}
		if op.halted != nil {
			op.g.held = append(op.g.held, op.msg)
		}
	}
	if err := failpoint(fpBeforeApply); err != nil {
		return err
	}
	if e.halted() {
		return errHalted
	}
	for _, b := range batches {
		if err := b.Write(e.writeOpts); err != nil {
			return fmt.Errorf("writing applied entries: %w", err)
		}
		e.stats.batchWrites.Add(1)
	}
	if err := failpoint(fpAfterApply); err != nil {
		return err
	}
	var truncs []appendOp
	appliedAt := time.Now()
	for _, op := range ops {
		g := op.g
		if op.held {
			continue
		}
		if op.applied > g.applied {
			e.stats.entriesApplied.Add(op.applied - g.applied)
			g.applied = op.applied
			g.appliedPub.Store(g.applied)
			g.appliedAt, g.idleTried = appliedAt, false
		}
		for pid, res := range op.results {
			if p, ok := g.pending[pid]; ok {
				p.result = res.value
				p.done <- res.err
				delete(g.pending, pid)
			}
		}
		if op.halted != nil {
			// The response (MsgStorageApplyResp) tells raft every entry
			// of the message is applied: it waits in g.held until they
			// are.
			e.haltGroup(g, op.halted, op.retry)
		} else if err := e.stepApplyResponses(g, op.msg); err != nil {
			return err
		}
		if op.trunc != nil {
			truncs = append(truncs, appendOp{g: g, trunc: op.trunc})
		}
		g.dropStaleIncoming()
	}
	for _, op := range ops {
		if g := op.g; g.halt != nil && len(g.held) == 0 {
			e.resumeGroup(g, "applied")
		}
	}
	if len(truncs) > 0 {
		e.writer.enqueue(truncs)
	}
	return nil
}

// applyResult is what the applier returned for one proposal.
type applyResult struct {
	value []byte
	err   error
}

// applyEntries adds one MsgStorageApply's entries to b.
func (e *Engine) applyEntries(b *ApplyBatch, op *applyOp) error {
	wb := b.wb
	g := op.g
	op.applied = g.applied
entries:
	for _, ent := range op.msg.GetEntries() {
		idx := ent.GetIndex()
		if idx <= op.applied {
			continue
		}
		switch ent.GetType() {
		case rpb.EntryType_EntryNormal:
			if len(ent.Data) >= 8 {
				pid := binary.BigEndian.Uint64(ent.Data)
				b.cur.g, b.cur.index, b.cur.conf = g.id, idx, g.conf.Load()
				b.cur.cache = g.applyCache
				if g.snapPending != 0 {
					b.cur.cache = nil // see applyCache
				}
				value, err := e.cfg.Applier.Apply(b, g.id, idx, ent.Data[8:])
				if b.writeErr != nil {
					return fmt.Errorf("%s: entry %d: %w", g.id, idx, b.writeErr)
				}
				if errors.Is(err, ErrApplyHalted) {
					// Not the entry's result: this replica cannot apply
					// it now, and skipping it would make its data differ
					// from the other replicas' for good. Stop before it.
					op.halted = &haltedEntry{index: idx, err: err}
					break entries
				}
				if _, mine := g.pending[pid]; mine {
					if op.results == nil {
						op.results = map[uint64]applyResult{}
					}
					op.results[pid] = applyResult{value: value, err: err}
				}
			}
		case rpb.EntryType_EntryConfChange, rpb.EntryType_EntryConfChangeV2:
			cc, err := decodeConfChange(ent)
			if err != nil {
				return fmt.Errorf("%s: entry %d: %w", g.id, idx, err)
			}
			if cs := g.conf.Load(); cs == nil || len(cs.GetVoters()) == 0 {
				// Only a replica that never got a configuration (not from
				// bootstrap, not from a snapshot) could get here; applying
				// a change to nothing would invent a group of its own.
				return fmt.Errorf("%s: entry %d: conf change on a replica with no configuration", g.id, idx)
			}
			cs := g.rn.ApplyConfChange(cc)
			if err := putConfState(wb, g.id, cs); err != nil {
				return err
			}
			g.conf.Store(cs)
			if pid, ok := confChangeContext(cc); ok {
				if _, mine := g.pending[pid]; mine {
					if op.results == nil {
						op.results = map[uint64]applyResult{}
					}
					op.results[pid] = applyResult{}
				}
			}
		}
		g.logBytes += int64(len(ent.Data))
		op.applied = idx
	}
	if op.applied != g.applied {
		putApplied(wb, g.id, op.applied)
	}
	op.trunc = e.truncation(g, op.applied, false)
	return nil
}

// idleTruncation cuts the log of a group that has applied nothing for
// Config.LogIdleTruncateAfter back to the catch-up window, once per quiet
// spell. Not while the group is halted or a snapshot is on its way down:
// the regular path does not truncate then either (nothing applies).
func (e *Engine) idleTruncation(g *group, now time.Time) *truncation {
	if e.cfg.LogIdleTruncateAfter < 0 || g.idleTried || g.applied <= g.truncIdx || g.halt != nil || g.snapPending != 0 ||
		now.Sub(g.appliedAt) < e.cfg.LogIdleTruncateAfter {
		return nil
	}
	g.idleTried = true
	return e.truncation(g, g.applied, true)
}

// truncation decides whether the log should be cut back now that applied
// reached this index: when MaxLogEntries or MaxLogBytes say so, or always
// when force (idle truncation). Applied entries are durable and in the
// logStore, so the truncation point's term is known.
func (e *Engine) truncation(g *group, applied uint64, force bool) *truncation {
	byCount := e.cfg.MaxLogEntries >= 0 && applied >= g.truncIdx+uint64(e.cfg.MaxLogEntries)
	bySize := e.cfg.MaxLogBytes >= 0 && g.logBytes >= e.cfg.MaxLogBytes
	if !byCount && !bySize && !force {
		return nil
	}
	compactTo := g.truncIdx
	if applied > g.truncIdx+uint64(e.cfg.LogCatchUpEntries) {
		compactTo = applied - uint64(e.cfg.LogCatchUpEntries)
	}
	if e.cfg.LogCatchUpBytes >= 0 {
		// Keep no more than LogCatchUpBytes of entries behind applied.
		compactTo = g.store.catchUpStart(compactTo, applied, e.cfg.LogCatchUpBytes)
	}
	if compactTo <= g.truncIdx {
		return nil
	}
	term, err := g.store.Term(compactTo)
	if err != nil {
		return nil // already compacted (a snapshot moved past it)
	}
	from := g.truncIdx
	g.truncIdx = compactTo
	g.logBytes = 0
	// From here raft must not read the entries the writer is about to
	// delete (logStore.Entries answers ErrCompacted for them).
	g.store.markTruncating(compactTo)
	return &truncation{from: from, to: compactTo, term: term}
}

// truncation removes log entries (from, to] and records (to, term) as the
// truncated state.
type truncation struct {
	from, to, term uint64
}

// sendSnapshot hands a MsgSnap and the RocksDB snapshot taken for it to the
// snapshot transport.
func (e *Engine) sendSnapshot(g *group, m *rpb.Message) {
	idx := m.GetSnapshot().GetMetadata().GetIndex()
	snaps := g.outgoing[idx]
	if len(snaps) == 0 || e.cfg.SnapshotTransport == nil {
		e.log.Warn("cannot send snapshot", "group", g.id, "to", m.GetTo(), "index", idx, "have_transport", e.cfg.SnapshotTransport != nil)
		g.rn.ReportSnapshot(m.GetTo(), raft.SnapshotFailure)
		return
	}
	snap := snaps[len(snaps)-1]
	if len(snaps) == 1 {
		delete(g.outgoing, idx)
	} else {
		g.outgoing[idx] = snaps[:len(snaps)-1]
	}
	lower, upper := partition.DataRange(g.id.Space, g.id.Part)
	e.stats.snapshotsSent.Add(1)
	e.cfg.SnapshotTransport.SendSnapshot(&SnapshotData{Group: g.id, DB: g.db, Snap: snap, Lower: lower, Upper: upper, Msg: m, engine: e})
}

func decodeConfChange(ent *rpb.Entry) (rpb.ConfChangeI, error) {
	if ent.GetType() == rpb.EntryType_EntryConfChange {
		var cc rpb.ConfChange
		if err := proto.Unmarshal(ent.Data, &cc); err != nil {
			return nil, fmt.Errorf("decoding conf change: %w", err)
		}
		return &cc, nil
	}
	var cc rpb.ConfChangeV2
	if err := proto.Unmarshal(ent.Data, &cc); err != nil {
		return nil, fmt.Errorf("decoding conf change v2: %w", err)
	}
	return &cc, nil
}

// drainMailbox feeds a group's mailbox into its RawNode. It returns true if
// the group was removed.
func (e *Engine) drainMailbox(g *group) bool {
	g.box.mu.Lock()
	if g.box.removed != nil {
		g.box.closed = true
	}
	msgs, props, reads := g.box.messages, g.box.proposals, g.box.reads
	unreachable, transfers, removed := g.box.unreachable, g.box.transfers, g.box.removed
	snaps, reports, inspections := g.box.snapshots, g.box.snapshotReports, g.box.inspections
	installed := g.box.installed
	g.box.inspections, g.box.installed = nil, nil
	g.box.messages, g.box.proposals, g.box.reads = nil, nil, nil
	g.box.unreachable, g.box.transfers = nil, nil
	g.box.snapshots, g.box.snapshotReports = nil, nil
	g.box.mu.Unlock()
	g.addIncoming(snaps)
	for _, idx := range installed {
		// The append writer installed a snapshot: the data is at idx.
		if idx >= g.snapPending {
			g.snapPending = 0
		}
		g.applyCache.clear() // anything read while the data was replaced
		if idx > g.applied {
			g.applied = idx
			g.appliedPub.Store(idx)
		}
		if idx > g.truncIdx {
			g.truncIdx = idx
		}
		e.dropHeldCoveredBy(g, idx)
	}
	for _, rep := range reports {
		if g.awaits(rep) { // see awaits: stale outcomes are dropped
			g.rn.ReportSnapshot(rep.to, rep.status)
		}
	}
	for _, fn := range inspections {
		fn(g)
	}

	if removed != nil {
		if g.halt != nil {
			e.stats.haltedGroups.Add(-1)
		}
		err := fmt.Errorf("%s: %w", g.id, ErrGroupNotFound)
		g.failWaiters(err, err)
		for _, p := range props {
			p.done <- err
		}
		for _, r := range reads {
			r.done <- err
		}
		g.applyCache.release() // its entries and share count against the store's bound
		e.mu.Lock()
		delete(e.groups, g.id)
		e.mu.Unlock()
		g.w.mu.Lock()
		g.w.groups = slices.DeleteFunc(g.w.groups, func(x *group) bool { return x == g })
		g.w.mu.Unlock()
		g.releaseOutgoing()
		// RemoveGroup returns once the writer has finished every write
		// queued for the group, so the caller's range delete is final.
		e.writer.enqueue([]appendOp{{g: g, barrier: removed}})
		return true
	}
	var view *peerView // what the screen knows of this replica, read once per drain
	for _, m := range msgs {
		if from := m.GetFrom(); from != e.cfg.StoreID && !raft.IsLocalMsgTarget(from) {
			if view == nil {
				written, _ := g.store.LastIndex()
				view = &peerView{written: written, emitted: max(written, g.emittedLast), snapshotReceived: g.hasIncoming}
			}
			screened, err := screenPeerMessage(m, *view)
			if err != nil {
				e.stats.messagesRefused.Add(1)
				e.log.Warn("refusing a raft message raft would fail on", "group", g.id, "from", from, "err", err)
				continue
			}
			m = screened
		}
		if err := g.rn.Step(m); err != nil {
			e.log.Debug("dropping raft message", "group", g.id, "type", m.GetType().String(), "from", m.GetFrom(), "err", err)
		}
	}
	for _, to := range unreachable {
		g.rn.ReportUnreachable(to)
	}
	for _, to := range transfers {
		g.rn.TransferLeader(to)
	}
	status := g.rn.BasicStatus()
	notLeader := status.RaftState != raft.StateLeader
	for _, p := range props {
		if notLeader {
			p.done <- &NotLeaderError{Group: g.id, Leader: status.Lead}
			continue
		}
		var err error
		if p.cc != nil {
			err = g.rn.ProposeConfChange(p.cc)
		} else {
			err = g.rn.Propose(p.data)
		}
		if err != nil {
			p.done <- &NotLeaderError{Group: g.id, Leader: status.Lead}
			continue
		}
		g.pending[p.id] = p
	}
	if len(reads) > 0 {
		if notLeader {
			for _, r := range reads {
				r.done <- &NotLeaderError{Group: g.id, Leader: status.Lead}
			}
		} else {
			g.nextReadCtx++
			ctx := binary.BigEndian.AppendUint64(nil, g.nextReadCtx)
			g.readsFlight[string(ctx)] = &readBatch{requests: reads}
			g.rn.ReadIndex(ctx)
		}
	}
	return false
}

// stepApplyResponses tells raft that a MsgStorageApply's entries are
// applied.
func (e *Engine) stepApplyResponses(g *group, m *rpb.Message) error {
	for _, resp := range m.GetResponses() {
		if err := g.rn.Step(resp); err != nil {
			return fmt.Errorf("%s: stepping apply response: %w", g.id, err)
		}
	}
	return nil
}

// haltGroup records that g stopped applying at entry h.index, whose
// message is in g.held. It logs once per distinct reason, and moves
// leadership away: a leader that cannot apply completes no proposal and
// no read, while another voter can.
func (e *Engine) haltGroup(g *group, h *haltedEntry, retry bool) {
	now := time.Now()
	reason := h.err.Error()
	prev := g.halt
	if prev == nil {
		e.stats.haltedGroups.Add(1)
		g.halt = &applyHalt{index: h.index, since: now}
	} else if retry {
		g.halt.retries++
	}
	g.halt.next = now.Add(e.cfg.ApplyRetryInterval)
	if prev == nil || prev.index != h.index || prev.reason != reason {
		g.halt.index, g.halt.reason = h.index, reason
		e.log.Error("raft group halted: cannot apply a committed entry on this replica; retrying",
			"group", g.id, "index", h.index, "applied", g.applied, "retry_every", e.cfg.ApplyRetryInterval, "err", h.err)
	}
	e.transferAway(g)
}

// resumeGroup ends g's halt once nothing is held any more.
func (e *Engine) resumeGroup(g *group, how string) {
	e.log.Warn("raft group resumed applying", "group", g.id, "index", g.halt.index, "how", how,
		"halted_for", time.Since(g.halt.since).Round(time.Millisecond), "retries", g.halt.retries)
	g.halt = nil
	e.stats.haltedGroups.Add(-1)
}

// dropHeldCoveredBy forgets the held messages whose entries a snapshot
// installed at idx already holds. raft only restores a snapshot beyond
// its commit index, so that is every held message; their responses are
// stepped so that raft stops counting their entries as being applied
// (it ignores an applied index below its own).
func (e *Engine) dropHeldCoveredBy(g *group, idx uint64) {
	kept := g.held[:0]
	for _, m := range g.held {
		ents := m.GetEntries()
		if len(ents) > 0 && ents[len(ents)-1].GetIndex() > idx {
			kept = append(kept, m)
			continue
		}
		if err := e.stepApplyResponses(g, m); err != nil {
			e.log.Warn("dropping a held apply covered by a snapshot", "group", g.id, "err", err)
		}
	}
	g.held = kept
	if g.halt != nil && len(g.held) == 0 {
		e.resumeGroup(g, fmt.Sprintf("snapshot at %d", idx))
	}
}

// transferAway asks raft to hand g's leadership to the most caught-up
// other voter, if this replica leads g.
func (e *Engine) transferAway(g *group) {
	if !g.isLeader {
		return
	}
	st := g.rn.Status()
	var to, match uint64
	for id, pr := range st.Progress {
		if id == e.cfg.StoreID || pr.IsLearner {
			continue
		}
		if to == 0 || pr.Match > match {
			to, match = id, pr.Match
		}
	}
	if to == 0 {
		return // the only voter: nobody to hand it to
	}
	e.log.Warn("moving leadership off a halted replica", "group", g.id, "to", to)
	g.rn.TransferLeader(to)
}
