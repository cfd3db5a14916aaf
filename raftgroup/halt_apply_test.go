package raftgroup

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// haltingApplier is kvApplier, except that while blocked it cannot apply
// a command whose value is "halt" (as a storaged replica missing an SST
// file cannot apply the ingest).
type haltingApplier struct {
	blocked *atomic.Bool
	calls   *atomic.Int64 // Apply calls of "halt" refused
}

func (a haltingApplier) Apply(b *ApplyBatch, g GroupID, index uint64, cmd []byte) ([]byte, error) {
	if len(cmd) > 8 && string(cmd[8:]) == "halt" && a.blocked.Load() {
		a.calls.Add(1)
		return nil, fmt.Errorf("%w: %s entry %d: the test blocks it", ErrApplyHalted, g, index)
	}
	return kvApplier{}.Apply(b, g, index, cmd)
}

// TestApplyHaltedGroupStopsAndResumes: a replica whose applier cannot
// apply an entry here stops that group before the entry (nothing of it
// written, the applied index before it) while its other groups, on the
// same worker and in the same write batches, go on; it reports the halt,
// retries, and once the entry can be applied catches up to the others.
// A leader that halts hands its leadership to another voter.
func TestApplyHaltedGroupStopsAndResumes(t *testing.T) {
	net := newMemNetwork()
	a, b := GroupID{1, 1}, GroupID{1, 2}
	groups := []GroupID{a, b}
	voters := []uint64{1, 2, 3}
	stores := make([]*testStore, 3)
	blocked := make([]*atomic.Bool, 3)
	refused := make([]*atomic.Int64, 3)
	for i := range stores {
		blocked[i], refused[i] = new(atomic.Bool), new(atomic.Int64)
		app := haltingApplier{blocked: blocked[i], calls: refused[i]}
		stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir(), tweak: func(c *Config) {
			c.Applier = app
			c.Workers = 1 // both groups share the worker, its rounds and batches
			c.ApplyRetryInterval = 20 * time.Millisecond
		}}
		stores[i].start(t, net, groups, voters)
	}
	defer func() {
		for _, s := range stores {
			s.stop(net)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wait := func(what string, cond func() bool) {
		t.Helper()
		for !cond() {
			if ctx.Err() != nil {
				t.Fatalf("gave up waiting until %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	status := func(s *testStore, g GroupID) Status {
		t.Helper()
		st, err := s.engine.Status(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	mustPropose := func(g GroupID, k uint64, v string) {
		t.Helper()
		if err := propose(ctx, stores, g, k, v); err != nil {
			t.Fatalf("propose %s %d=%s: %v", g, k, v, err)
		}
	}
	converged := func(k uint64, want string) func() bool {
		return func() bool {
			for _, s := range stores {
				if s.read(t, a, k) != want {
					return false
				}
			}
			return true
		}
	}

	for _, tc := range []struct {
		name       string
		haltLeader bool
		key        uint64
	}{
		{"follower", false, 10},
		{"leader", true, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustPropose(a, tc.key, "before")
			wait("a leader of "+a.String(), func() bool { return leaderOf(stores, a) != nil })
			lead := leaderOf(stores, a)
			victim := lead
			if !tc.haltLeader {
				victim = stores[int(lead.id)%3]
			}
			vi := int(victim.id - 1)
			wait("the write before applied everywhere", converged(tc.key, "before"))
			before := status(victim, a).Applied
			blocked[vi].Store(true)

			// The halting entry, then more writes to both groups. The
			// proposal may end ambiguously when its leader halts and
			// steps down; propose retries it, which is harmless.
			mustPropose(a, tc.key+1, "halt")
			mustPropose(a, tc.key+2, "after")
			mustPropose(b, tc.key, "other group")
			wait("the halt reported", func() bool { h := status(victim, a).Halt; return h != nil && h.Retries >= 2 })
			st := status(victim, a)
			if st.Halt.Index <= before || st.Applied != st.Halt.Index-1 {
				t.Fatalf("halted replica: applied %d, halt %+v; want stopped right before an entry after %d", st.Applied, *st.Halt, before)
			}
			if got := victim.engine.Stats().HaltedGroups; got != 1 {
				t.Fatalf("HaltedGroups = %d, want 1", got)
			}
			for k, want := range map[uint64]string{tc.key: "before", tc.key + 1: "", tc.key + 2: ""} {
				if got := victim.read(t, a, k); got != want {
					t.Fatalf("halted replica: key %d = %q, want %q", k, got, want)
				}
			}
			for _, s := range stores {
				if s != victim && s.read(t, a, tc.key+2) != "after" {
					wait(fmt.Sprintf("store %d applies past the halted entry", s.id), func() bool { return s.read(t, a, tc.key+2) == "after" })
				}
			}
			// The other group, on the same worker, goes on.
			wait("the other group applied on the halted store", func() bool { return victim.read(t, b, tc.key) == "other group" })
			if tc.haltLeader {
				wait("leadership off the halted replica", func() bool {
					l := leaderOf(stores, a)
					return l != nil && l != victim
				})
			}

			blocked[vi].Store(false)
			wait("the halted replica catching up", converged(tc.key+2, "after"))
			if got := victim.read(t, a, tc.key+1); got != "halt" {
				t.Fatalf("resumed replica: halting key = %q", got)
			}
			wait("the halt cleared", func() bool { return status(victim, a).Halt == nil && victim.engine.Stats().HaltedGroups == 0 })
		})
	}
}
