package raftgroup

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	rpb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// Membership.
//
// A replica joins a group empty: storaged opens it with no voters (see
// AddGroup), so it neither campaigns nor votes, and the leader fills it by
// log or snapshot once a conf change names it. The safe way to add a
// replica is AddReplica: add it as a learner (it receives the log but does
// not count for quorum), wait until it has caught up, then promote it. A
// multi-step change goes through joint consensus (ConfChangeV2), which raft
// leaves automatically.

// ChangeMembership proposes cc on this replica, which must lead the group,
// and returns once it is applied here.
func (e *Engine) ChangeMembership(ctx context.Context, id GroupID, cc *rpb.ConfChangeV2) error {
	pid := e.propIDs.Add(1)
	cc = proto.Clone(cc).(*rpb.ConfChangeV2)
	cc.Context = binary.BigEndian.AppendUint64(nil, pid)
	p := &proposal{id: pid, cc: cc, done: make(chan error, 1)}
	if err := e.post(id, func(b *mailbox) { b.proposals = append(b.proposals, p) }); err != nil {
		return err
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		// raft may have dropped it (another change was pending); the
		// caller checks Members and retries.
		return fmt.Errorf("%s: membership change outcome unknown: %w", id, ctx.Err())
	case <-e.done:
		return e.stopError()
	}
}

// Members is a group's configuration as applied on this replica.
type Members struct {
	Voters, Learners []uint64
	Joint            bool // in a joint configuration (VotersOutgoing non-empty)
}

func membersOf(cs *rpb.ConfState) Members {
	m := Members{Voters: slices.Clone(cs.GetVoters()), Learners: slices.Clone(cs.GetLearners()), Joint: len(cs.GetVotersOutgoing()) > 0}
	m.Learners = append(m.Learners, cs.GetLearnersNext()...)
	slices.Sort(m.Voters)
	slices.Sort(m.Learners)
	return m
}

// Has reports whether store is a voter or learner.
func (m Members) Has(store uint64) bool {
	return slices.Contains(m.Voters, store) || slices.Contains(m.Learners, store)
}

// Members returns the group's applied configuration on this replica.
func (e *Engine) Members(id GroupID) (Members, bool) {
	g := e.group(id)
	if g == nil {
		return Members{}, false
	}
	cs := g.conf.Load()
	if cs == nil {
		return Members{}, false
	}
	return membersOf(cs), true
}

// Status is a replica's raft status, read on the group's worker.
type Status struct {
	Leader  uint64
	Term    uint64
	Commit  uint64
	Applied uint64
	// Match is, on the leader, the highest log index known to be replicated
	// on each member (learners included).
	Match map[uint64]uint64
	// Halt is set while the replica cannot apply its next committed entry
	// (ErrApplyHalted): Applied stays before Halt.Index.
	Halt *HaltStatus
}

// Status returns the group's raft status.
func (e *Engine) Status(ctx context.Context, id GroupID) (Status, error) {
	return inspect(ctx, e, id, func(g *group) Status {
		s := g.rn.Status()
		st := Status{Leader: s.Lead, Term: s.GetTerm(), Commit: s.GetCommit(), Applied: g.applied, Match: map[uint64]uint64{}}
		for id, pr := range s.Progress {
			st.Match[id] = pr.Match
		}
		if h := g.halt; h != nil {
			st.Halt = &HaltStatus{Index: h.index, Reason: h.reason, Since: h.since, Retries: h.retries}
		}
		return st
	})
}

// inspect runs fn on the group's worker with the group's state and returns
// what fn returned. The caller may give up first (ctx, engine stop) while fn
// is still queued; fn then runs later, so it hands its result over a
// buffered channel rather than writing to anything the caller reads.
func inspect[T any](ctx context.Context, e *Engine, id GroupID, fn func(*group) T) (T, error) {
	result := make(chan T, 1)
	var zero T
	if err := e.post(id, func(b *mailbox) {
		b.inspections = append(b.inspections, func(g *group) { result <- fn(g) })
	}); err != nil {
		return zero, err
	}
	select {
	case v := <-result:
		return v, nil
	case <-ctx.Done():
		return zero, fmt.Errorf("%s: status: %w", id, ctx.Err())
	case <-e.done:
		return zero, e.stopError()
	}
}

// AddReplica adds store to the group led by this replica: as a learner
// first, then, once its log matches the leader's commit index as of the
// start, as a voter. The new replica must already exist (empty) on store.
func (e *Engine) AddReplica(ctx context.Context, id GroupID, store uint64) error {
	if m, ok := e.Members(id); ok && slices.Contains(m.Voters, store) {
		return nil
	}
	if m, ok := e.Members(id); !ok || !slices.Contains(m.Learners, store) {
		cc := &rpb.ConfChangeV2{Changes: []*rpb.ConfChangeSingle{{Type: rpb.ConfChangeType_ConfChangeAddLearnerNode.Enum(), NodeId: new(store)}}}
		if err := e.ChangeMembership(ctx, id, cc); err != nil {
			return fmt.Errorf("adding store %d as learner: %w", store, err)
		}
	}
	if err := e.waitCaughtUp(ctx, id, store); err != nil {
		return err
	}
	cc := &rpb.ConfChangeV2{Changes: []*rpb.ConfChangeSingle{{Type: rpb.ConfChangeType_ConfChangeAddNode.Enum(), NodeId: new(store)}}}
	if err := e.ChangeMembership(ctx, id, cc); err != nil {
		return fmt.Errorf("promoting store %d: %w", store, err)
	}
	return nil
}

// ReplaceReplica moves a replica from store `from` to store `to` in one
// membership change: `to` joins as a learner and catches up (as in
// AddReplica), then a single ConfChangeV2 promotes it and removes `from`.
// raft applies a change of two voters through joint consensus: both the
// old and the new voter sets must agree until the group leaves the joint
// configuration, which raft proposes by itself; ReplaceReplica returns once
// it has. `from` must not be this replica (the leader).
func (e *Engine) ReplaceReplica(ctx context.Context, id GroupID, from, to uint64) error {
	if from == e.cfg.StoreID {
		return fmt.Errorf("%s: store %d leads the group: transfer leadership before replacing it", id, from)
	}
	m, ok := e.Members(id)
	if !ok {
		return fmt.Errorf("%s: %w", id, ErrGroupNotFound)
	}
	if !m.Joint && slices.Contains(m.Voters, to) && !m.Has(from) {
		return nil // already done
	}
	if !m.Joint {
		if !slices.Contains(m.Learners, to) && !slices.Contains(m.Voters, to) {
			cc := &rpb.ConfChangeV2{Changes: []*rpb.ConfChangeSingle{{Type: rpb.ConfChangeType_ConfChangeAddLearnerNode.Enum(), NodeId: new(to)}}}
			if err := e.ChangeMembership(ctx, id, cc); err != nil {
				return fmt.Errorf("adding store %d as learner: %w", to, err)
			}
		}
		if err := e.waitCaughtUp(ctx, id, to); err != nil {
			return err
		}
		cc := &rpb.ConfChangeV2{Changes: []*rpb.ConfChangeSingle{
			{Type: rpb.ConfChangeType_ConfChangeAddNode.Enum(), NodeId: new(to)},
			{Type: rpb.ConfChangeType_ConfChangeRemoveNode.Enum(), NodeId: new(from)},
		}}
		if err := e.ChangeMembership(ctx, id, cc); err != nil {
			return fmt.Errorf("replacing store %d with %d: %w", from, to, err)
		}
	}
	// raft leaves the joint configuration with an entry of its own.
	for {
		if m, ok := e.Members(id); ok && !m.Joint {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: still in a joint configuration: %w", id, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// waitCaughtUp waits until store's log matches the leader's commit index
// as of the call.
func (e *Engine) waitCaughtUp(ctx context.Context, id GroupID, store uint64) error {
	st, err := e.Status(ctx, id)
	if err != nil {
		return err
	}
	target := st.Commit
	for {
		st, err := e.Status(ctx, id)
		if err != nil {
			return err
		}
		if st.Leader != e.cfg.StoreID {
			return &NotLeaderError{Group: id, Leader: st.Leader}
		}
		if st.Match[store] >= target {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: store %d stuck at %d, waiting for %d: %w", id, store, st.Match[store], target, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// RemoveReplica removes store from the group led by this replica. To remove
// the leader itself, transfer leadership first.
func (e *Engine) RemoveReplica(ctx context.Context, id GroupID, store uint64) error {
	if store == e.cfg.StoreID {
		return fmt.Errorf("%s: store %d leads the group: transfer leadership before removing it", id, store)
	}
	if m, ok := e.Members(id); ok && !m.Has(store) {
		return nil
	}
	cc := &rpb.ConfChangeV2{Changes: []*rpb.ConfChangeSingle{{Type: rpb.ConfChangeType_ConfChangeRemoveNode.Enum(), NodeId: new(store)}}}
	return e.ChangeMembership(ctx, id, cc)
}

// TransferLeadership moves leadership of a group this replica leads to
// store and waits until this replica sees the new leader.
func (e *Engine) TransferLeadership(ctx context.Context, id GroupID, store uint64) error {
	if err := e.TransferLeader(id, store); err != nil {
		return err
	}
	for {
		leader, _, ok := e.Leader(id)
		if !ok {
			return fmt.Errorf("%s: %w", id, ErrGroupNotFound)
		}
		if leader == store {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: leadership did not move to store %d (leader is %d): %w", id, store, leader, ctx.Err())
		case <-time.After(20 * time.Millisecond):
			// raft aborts a transfer that takes longer than an election
			// timeout; ask again.
			_ = e.TransferLeader(id, store)
		}
	}
}

// confChangeContext returns the proposal id a conf change carries, if any.
func confChangeContext(cc rpb.ConfChangeI) (uint64, bool) {
	var ctx []byte
	switch c := cc.(type) {
	case *rpb.ConfChangeV2:
		ctx = c.GetContext()
	case *rpb.ConfChange:
		ctx = c.GetContext()
	}
	if len(ctx) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(ctx), true
}
