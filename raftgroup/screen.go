package raftgroup

import (
	"errors"
	"fmt"

	"go.etcd.io/raft/v3/confchange"
	rpb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/protobuf/proto"
)

// Screening messages from other stores.
//
// etcd raft trusts the members of a group: it panics on messages that no
// correct member sends (an append whose entries do not follow each other,
// a heartbeat that commits past the receiver's log, a snapshot with an
// impossible configuration, an empty proposal), taking the whole store
// down with it. The transport authenticates the sending store (its
// certificate must name the store the messages come from), so such a
// message needs a stolen storaged certificate or a bug; screenPeerMessage
// turns each known one into a dropped message, logged, instead of a crash.
// It runs on the group's worker, just before raft steps the message.
//
// What it does not do is judge whether a well-formed message is true: a
// store that holds a valid certificate and lies within the protocol (votes,
// terms, acknowledgements of entries it has) can still disrupt the groups
// it belongs to, as in any crash-fault-tolerant protocol.

// errScreened wraps every reason screenPeerMessage gives.
var errScreened = errors.New("raft message refused")

// peerMessageTypes are the messages another store's replica sends.
// Proposals and read-index requests are not among them: this engine
// neither forwards proposals (DisableProposalForwarding) nor serves reads
// on followers, and raft panics on an empty MsgProp.
var peerMessageTypes = map[rpb.MessageType]bool{
	rpb.MessageType_MsgApp: true, rpb.MessageType_MsgAppResp: true,
	rpb.MessageType_MsgVote: true, rpb.MessageType_MsgVoteResp: true,
	rpb.MessageType_MsgPreVote: true, rpb.MessageType_MsgPreVoteResp: true,
	rpb.MessageType_MsgHeartbeat: true, rpb.MessageType_MsgHeartbeatResp: true,
	rpb.MessageType_MsgSnap: true, rpb.MessageType_MsgTransferLeader: true,
	rpb.MessageType_MsgTimeoutNow: true, rpb.MessageType_MsgReadIndexResp: true,
}

// peerView is what screenPeerMessage knows of the receiving replica.
type peerView struct {
	// written is the last log index on disk: at most raft's own last
	// index, but for the moment the append writer takes to replace a tail
	// raft cut.
	written uint64
	// emitted is the highest index raft ever handed to the append writer:
	// at least any index this replica sent.
	emitted uint64
	// snapshotReceived says whether a snapshot's data came in through the
	// snapshot stream (StepSnapshot) for this index.
	snapshotReceived func(index uint64) bool
}

// screenPeerMessage checks a message from another store before raft
// steps it. It returns the message to step (m, or a corrected copy) or an
// error wrapping errScreened saying why it is dropped.
func screenPeerMessage(m *rpb.Message, v peerView) (*rpb.Message, error) {
	if !peerMessageTypes[m.GetType()] {
		return nil, fmt.Errorf("%w: %s is not a message one store's replica sends another's", errScreened, m.GetType())
	}
	// Term 0 marks a local message to raft (or a forwarded proposal,
	// refused above); raft answering a term-0 vote request with a term-0
	// grant panics (found by FuzzRaftStep).
	if m.GetTerm() == 0 {
		return nil, fmt.Errorf("%w: %s without a term", errScreened, m.GetType())
	}
	switch m.GetType() {
	case rpb.MessageType_MsgApp:
		if err := checkAppendSlice(m); err != nil {
			return nil, err
		}
	case rpb.MessageType_MsgHeartbeat:
		// A leader sends min(the follower's acknowledged index, its
		// commit), never beyond what the follower wrote; raft panics on a
		// commit past its last index. A lower commit is always safe: the
		// next append or heartbeat carries it again.
		if m.GetCommit() > v.written {
			c := proto.CloneOf(m)
			c.Commit = proto.Uint64(v.written)
			return c, nil
		}
	case rpb.MessageType_MsgAppResp:
		// A follower acknowledges entries it received from this leader,
		// which raft emitted here (a leader sends appends before its own
		// write is done, so not necessarily written yet); raft would send
		// the next append from past its own log and panic.
		if !m.GetReject() && m.GetIndex() > v.emitted {
			return nil, fmt.Errorf("%w: MsgAppResp acknowledges index %d beyond the last index %d", errScreened, m.GetIndex(), v.emitted)
		}
	case rpb.MessageType_MsgSnap:
		// A snapshot's data comes through the snapshot stream, which hands
		// its MsgSnap over with the file; one on the message stream has
		// none, and installing it would fail the append writer, which
		// stops the whole engine as on a disk failure.
		if idx := m.GetSnapshot().GetMetadata().GetIndex(); v.snapshotReceived == nil || !v.snapshotReceived(idx) {
			return nil, fmt.Errorf("%w: MsgSnap at index %d without its data (snapshots come through the snapshot stream)", errScreened, idx)
		}
		if err := checkSnapshotConf(m.GetSnapshot()); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// checkAppendSlice checks what raft asserts of a MsgApp's entries: they
// follow (Index, LogTerm) one index at a time, with terms that never go
// down and none above the message's term.
func checkAppendSlice(m *rpb.Message) error {
	prevTerm, term := m.GetLogTerm(), m.GetTerm()
	if prevTerm > term {
		return fmt.Errorf("%w: MsgApp log term %d above its term %d", errScreened, prevTerm, term)
	}
	next := m.GetIndex() + 1
	if next == 0 {
		return fmt.Errorf("%w: MsgApp index %d overflows", errScreened, m.GetIndex())
	}
	last := prevTerm
	for i, e := range m.GetEntries() {
		if e.GetIndex() != next+uint64(i) {
			return fmt.Errorf("%w: MsgApp entry %d has index %d, want %d", errScreened, i, e.GetIndex(), next+uint64(i))
		}
		if e.GetTerm() < last || e.GetTerm() > term {
			return fmt.Errorf("%w: MsgApp entry %d has term %d, outside [%d, %d]", errScreened, e.GetIndex(), e.GetTerm(), last, term)
		}
		last = e.GetTerm()
	}
	return nil
}

// checkSnapshotConf checks a snapshot's configuration as raft restores
// it, which panics if it cannot: no replica listed twice, none both voter
// and learner, and the changes that rebuild it valid.
func checkSnapshotConf(s *rpb.Snapshot) error {
	// A copy: EnsureConfState fills in fields, and the message is the
	// caller's.
	var cs *rpb.ConfState
	if c := s.GetMetadata().GetConfState(); c != nil {
		cs = proto.CloneOf(c)
	}
	cs = rpb.EnsureConfState(cs)
	voters := map[uint64]bool{}
	for _, l := range []struct {
		name string
		ids  []uint64
	}{{"voters", cs.GetVoters()}, {"learners", cs.GetLearners()}, {"outgoing voters", cs.GetVotersOutgoing()}, {"next learners", cs.GetLearnersNext()}} {
		inList := map[uint64]bool{}
		for _, id := range l.ids {
			if inList[id] {
				return fmt.Errorf("%w: snapshot configuration lists replica %d twice in %s", errScreened, id, l.name)
			}
			inList[id] = true
			if l.name == "voters" {
				voters[id] = true
			}
			if l.name == "learners" && voters[id] {
				return fmt.Errorf("%w: snapshot configuration has replica %d as voter and learner", errScreened, id)
			}
		}
	}
	if len(cs.GetVoters()) == 0 {
		return fmt.Errorf("%w: snapshot configuration has no voter", errScreened)
	}
	chg := confchange.Changer{Tracker: tracker.MakeProgressTracker(1, 0), LastIndex: s.GetMetadata().GetIndex()}
	cfg, trk, err := confchange.Restore(chg, cs)
	if err != nil {
		return fmt.Errorf("%w: snapshot configuration %v: %v", errScreened, cs, err)
	}
	// raft asserts the configuration it rebuilt is the one it was given.
	chg.Tracker.Config, chg.Tracker.Progress = cfg, trk
	if err := cs.Equivalent(chg.Tracker.ConfState()); err != nil {
		return fmt.Errorf("%w: snapshot configuration %v: %v", errScreened, cs, err)
	}
	return nil
}
