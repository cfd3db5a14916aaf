package raftgroup

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// Move a replica: store 4 joins empty as a learner, catches up (by
// snapshot: the log was truncated), is promoted; store 1 is removed after
// leadership moves off it; the group keeps committing without store 1.
func TestMoveReplica(t *testing.T) {
	// With the leader's log truncated and with its whole log still there:
	// a joiner must take a snapshot either way (it starts uninitialized).
	for _, maxLog := range []int{20, 0} {
		t.Run(fmt.Sprintf("maxLog=%d", maxLog), func(t *testing.T) { testMoveReplica(t, maxLog) })
	}
}

func testMoveReplica(t *testing.T, maxLog int) {
	g := GroupID{6, 1}
	// Store 4 joins empty.
	net, _, stores := startSnapshotCluster(t, g, 4, func(_ int, c *Config) {
		if maxLog > 0 {
			c.MaxLogEntries, c.LogCatchUpEntries = maxLog, 5
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for k := uint64(0); k < 100; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	if m, _ := stores[3].engine.Members(g); len(m.Voters)+len(m.Learners) != 0 {
		t.Fatalf("an empty joiner must know no members yet, has %+v", m)
	}
	leader := leaderOf(stores, g)
	if err := leader.engine.AddReplica(ctx, g, 4); err != nil {
		t.Fatalf("AddReplica: %v", err)
	}
	if got := stores[3].read(t, g, 99); got != "v99" {
		t.Fatalf("new replica after catch-up: key 99 = %q", got)
	}
	// Remove store 1; if it leads, hand leadership to store 2 first.
	leader = leaderOf(stores, g)
	if leader.id == 1 {
		if err := leader.engine.TransferLeadership(ctx, g, 2); err != nil {
			t.Fatal(err)
		}
		for ctx.Err() == nil {
			if leader = leaderOf(stores, g); leader != nil && leader.id != 1 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := leader.engine.RemoveReplica(ctx, g, 1); err != nil {
		t.Fatalf("RemoveReplica: %v", err)
	}
	stores[0].stop(net)
	stores[0].engine = nil
	for k := uint64(100); k < 120; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatalf("propose %d after the move: %v", k, err)
		}
	}
	want := []uint64{2, 3, 4}
	for _, s := range stores[1:] {
		for ctx.Err() == nil && s.read(t, g, 119) != "v119" {
			time.Sleep(10 * time.Millisecond)
		}
		m, _ := s.engine.Members(g)
		if !slices.Equal(m.Voters, want) || len(m.Learners) != 0 {
			t.Fatalf("store %d: members %+v, want voters %v", s.id, m, want)
		}
		for k := uint64(0); k < 120; k++ {
			if got := s.read(t, g, k); got != fmt.Sprintf("v%d", k) {
				t.Fatalf("store %d key %d = %q", s.id, k, got)
			}
		}
	}
}

func TestTransferLeadership(t *testing.T) {
	net := newMemNetwork()
	g := GroupID{8, 1}
	stores := make([]*testStore, 3)
	for i := range stores {
		stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir()}
		stores[i].start(t, net, []GroupID{g}, []uint64{1, 2, 3})
		defer stores[i].stop(net)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := propose(ctx, stores, g, 1, "x"); err != nil {
		t.Fatal(err)
	}
	for _, to := range []uint64{3, 2, 1} {
		l := leaderOf(stores, g)
		if l.id == to {
			continue
		}
		if err := l.engine.TransferLeadership(ctx, g, to); err != nil {
			t.Fatalf("transfer %d→%d: %v", l.id, to, err)
		}
		for ctx.Err() == nil {
			if nl := leaderOf(stores, g); nl != nil && nl.id == to {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if nl := leaderOf(stores, g); nl == nil || nl.id != to {
			t.Fatalf("leadership did not reach store %d", to)
		}
	}
	if err := leaderOf(stores, g).engine.RemoveReplica(ctx, g, 1); err == nil {
		t.Fatal("removing the leader itself must be refused")
	}
}

// ReplaceReplica swaps a voter for a new store in one joint-consensus
// change, and the group ends in the simple configuration {2, 3, 4}.
func TestReplaceReplicaJoint(t *testing.T) {
	g := GroupID{14, 1}
	_, _, stores := startSnapshotCluster(t, g, 4, nil) // store 4 joins empty
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for k := uint64(0); k < 30; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	leader := leaderOf(stores, g)
	if leader.id == 1 {
		if err := leader.engine.TransferLeadership(ctx, g, 2); err != nil {
			t.Fatal(err)
		}
		for ctx.Err() == nil {
			if leader = leaderOf(stores, g); leader != nil && leader.id != 1 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := leader.engine.ReplaceReplica(ctx, g, 1, 4); err != nil {
		t.Fatalf("ReplaceReplica: %v", err)
	}
	if err := leader.engine.ReplaceReplica(ctx, g, 1, 4); err != nil {
		t.Fatalf("repeating a finished ReplaceReplica: %v", err)
	}
	if err := propose(ctx, stores, g, 99, "after"); err != nil {
		t.Fatal(err)
	}
	for _, s := range stores[1:] {
		for ctx.Err() == nil && s.read(t, g, 99) != "after" {
			time.Sleep(10 * time.Millisecond)
		}
		m, _ := s.engine.Members(g)
		if m.Joint || !slices.Equal(m.Voters, []uint64{2, 3, 4}) || len(m.Learners) != 0 {
			t.Fatalf("store %d: members %+v after the replace", s.id, m)
		}
		if got := s.read(t, g, 29); got != "v29" {
			t.Fatalf("store %d: key 29 = %q", s.id, got)
		}
	}
}

// TestStatusCallerGivesUpFirst: a Status call whose context ends before
// the worker reaches the inspection returns the context's error, and the
// inspection, run later, must not write what that caller has already
// returned (the race detector catches it; CI's -race run once did, from
// AddReplica's catch-up wait). Calls with a live context still answer.
func TestStatusCallerGivesUpFirst(t *testing.T) {
	g := GroupID{7, 1}
	net := newMemNetwork()
	s := &testStore{id: 1, dir: t.TempDir()}
	s.start(t, net, []GroupID{g}, []uint64{1})
	defer s.stop(net)
	gaveUp, answered := 0, 0
	for range 300 {
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		st, err := s.engine.Status(ended, g)
		switch {
		case err == nil:
			answered++ // the worker was quicker than the select
		case errors.Is(err, context.Canceled):
			gaveUp++
			if st.Match != nil {
				t.Fatalf("a call that gave up returned a status: %+v", st)
			}
		default:
			t.Fatalf("Status with an ended context: %v", err)
		}
	}
	if gaveUp == 0 {
		t.Fatalf("no Status call with an ended context gave up (%d answered): the test proves nothing", answered)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.engine.Status(ctx, g); err != nil {
		t.Fatalf("Status after the abandoned calls: %v", err)
	}
}
