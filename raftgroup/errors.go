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
