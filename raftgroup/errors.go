package raftgroup

import (
	"errors"
	"fmt"
)

// NotLeaderError is returned by Propose and ReadIndex on a replica that is
// not the group's leader. Leader is the store id of the leader this replica
// knows of, 0 if none.
type NotLeaderError struct {
	Group  GroupID
	Leader uint64
}

func (e *NotLeaderError) Error() string {
	if e.Leader == 0 {
		return fmt.Sprintf("%s: not leader, no leader known", e.Group)
	}
	return fmt.Sprintf("%s: not leader, leader is store %d", e.Group, e.Leader)
}

var (
	// ErrGroupNotFound: this engine hosts no replica of the group.
	ErrGroupNotFound = errors.New("raft group not found on this store")
	// ErrStopped: the engine or the group was stopped.
	ErrStopped = errors.New("raft engine stopped")
	// ErrAmbiguous: the proposal was accepted by a leader that lost
	// leadership before applying it; it may or may not commit later. Callers
	// must treat the write as possibly applied.
	ErrAmbiguous = errors.New("leadership lost before the proposal applied: outcome unknown")
)

// ErrApplyHalted marks an Applier's error as local to this replica: the
// entry is valid and the other replicas apply it, but this one cannot now
// (a file it needs is missing here). Unlike any other Apply error, which
// is the entry's deterministic result and does not stop the group, it
// makes the engine stop applying the group at that entry: nothing of the
// entry is written, the applied index stays before it, and the apply is
// tried again every Config.ApplyRetryInterval until it succeeds. Skipping
// the entry instead would leave this replica's data different from the
// others' forever. An Applier returns it wrapped, with its reason:
//
//	fmt.Errorf("%w: %s: file x is missing", raftgroup.ErrApplyHalted, g)
//
// and must not have added anything to the batch for that entry.
var ErrApplyHalted = errors.New("apply halted on this replica")
