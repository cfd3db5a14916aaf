//go:build failpoints

package raftgroup

import (
	"context"
	"fmt"
	"testing"
	"time"

	fp "github.com/novagraph/novagraph/internal/failpoint"
)

// Crash tests at the engine's disk steps. Run with
//
//	go test -tags failpoints ./raftgroup -run Failpoint

// waitFailed waits until one of the stores' engines stopped on the
// failpoint and returns it.
func waitFailed(t *testing.T, ctx context.Context, stores []*testStore) *testStore {
	t.Helper()
	for ctx.Err() == nil {
		for _, s := range stores {
			if s.engine != nil && s.engine.Failed() != nil {
				return s
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no engine hit the failpoint")
	return nil
}

// crashAndRestart simulates the process dying where the engine stopped:
// close everything, reopen from disk.
func crashAndRestart(t *testing.T, net *memNetwork, s *testStore, g GroupID) {
	t.Helper()
	s.stop(net)
	s.engine = nil
	s.start(t, net, []GroupID{g}, []uint64{1, 2, 3})
}

// A follower crashes after writing a snapshot's raft state and marker but
// before ingesting its data; on restart it finishes the install from the
// marker and holds every write.
func TestFailpointSnapshotIngestCrash(t *testing.T) {
	g := GroupID{11, 1}
	net, _, stores := startSnapshotCluster(t, g, 3, shortLogs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	down := stores[2]
	down.stop(net)
	down.engine = nil
	for k := uint64(0); k < 100; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	off, err := enableFailpoint(fpBeforeSnapshotIngest, `1*return("crash")`)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	down.start(t, net, []GroupID{g}, []uint64{1, 2, 3})
	if failed := waitFailed(t, ctx, []*testStore{down}); failed != down {
		t.Fatalf("store %d failed, want %d", failed.id, down.id)
	}
	off()
	crashAndRestart(t, net, down, g)
	for k := uint64(0); k < 100; k++ {
		want := fmt.Sprintf("v%d", k)
		for ctx.Err() == nil && down.read(t, g, k) != want {
			time.Sleep(10 * time.Millisecond)
		}
		if got := down.read(t, g, k); got != want {
			t.Fatalf("after the repaired install: key %d = %q, want %q", k, got, want)
		}
	}
}

// A store crashes right after an apply batch (data and applied index
// written, proposer not yet told) or right after a log write (durable, but
// no one told): after restart nothing is lost, replayed twice or skipped,
// and every replica holds the same data.
func TestFailpointApplyAndLogCrash(t *testing.T) {
	for _, fp := range []string{fpAfterApply, fpBeforeApply, fpAfterLogWrite, fpBeforeLogWrite} {
		t.Run(fp, func(t *testing.T) {
			net := newMemNetwork()
			g := GroupID{12, 1}
			stores := make([]*testStore, 3)
			for i := range stores {
				stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir()}
				stores[i].start(t, net, []GroupID{g}, []uint64{1, 2, 3})
			}
			defer func() {
				for _, s := range stores {
					if s.engine != nil {
						s.stop(net)
					}
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for k := uint64(0); k < 20; k++ {
				if err := propose(ctx, stores, g, k, fmt.Sprintf("a%d", k)); err != nil {
					t.Fatal(err)
				}
			}
			off, err := enableFailpoint(fp, `1*return("crash")`)
			if err != nil {
				t.Fatal(err)
			}
			// Keep proposing until some store trips; the write that was in
			// flight may or may not have been acknowledged.
			pctx, pcancel := context.WithCancel(ctx)
			proposing := make(chan struct{})
			go func() {
				defer close(proposing)
				for k := uint64(20); pctx.Err() == nil; k++ {
					_ = propose(pctx, stores, g, k%40, fmt.Sprintf("b%d", k%40))
				}
			}()
			failed := waitFailed(t, ctx, stores)
			pcancel()
			<-proposing
			if l := failed.engine.Leading(); len(l) != 0 {
				t.Fatalf("a halted engine still claims to lead %v", l)
			}
			off()
			crashAndRestart(t, net, failed, g)
			// The group keeps working, and all replicas converge.
			for k := uint64(100); k < 110; k++ {
				if err := propose(ctx, stores, g, k, fmt.Sprintf("c%d", k)); err != nil {
					t.Fatalf("after restart: %v", err)
				}
			}
			for _, s := range stores {
				for ctx.Err() == nil && s.read(t, g, 109) != "c109" {
					time.Sleep(10 * time.Millisecond)
				}
			}
			for k := uint64(0); k < 110; k++ {
				want := stores[0].read(t, g, k)
				for _, s := range stores[1:] {
					for ctx.Err() == nil && s.read(t, g, k) != want {
						time.Sleep(5 * time.Millisecond)
						want = stores[0].read(t, g, k)
					}
					if got := s.read(t, g, k); got != want {
						t.Fatalf("key %d: store %d has %q, store 1 has %q", k, s.id, got, want)
					}
				}
			}
		})
	}
}

// With every log write taking longer than an election timeout, leaders keep
// their leadership: ticks and heartbeats do not wait for the disk (the
// append writer is separate from the workers), so no follower
// times out, and proposals still commit, slowly.
func TestFailpointSlowDiskKeepsLeader(t *testing.T) {
	net := newMemNetwork()
	g := GroupID{13, 1}
	stores := make([]*testStore, 3)
	for i := range stores {
		stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir()}
		stores[i].start(t, net, []GroupID{g}, []uint64{1, 2, 3})
		defer stores[i].stop(net)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := propose(ctx, stores, g, 0, "x"); err != nil {
		t.Fatal(err)
	}
	leader := leaderOf(stores, g)
	_, term, _ := leader.engine.Leader(g)
	// Election timeout is 10 ticks of 10ms; each write now takes 300ms.
	off, err := enableFailpoint(fpBeforeLogWrite, `sleep(300)`)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	for k := uint64(1); k <= 3; k++ {
		if err := propose(ctx, stores, g, k, "slow"); err != nil {
			t.Fatalf("proposal on a slow disk: %v", err)
		}
	}
	off()
	for _, s := range stores {
		l, tm, _ := s.engine.Leader(g)
		if l != leader.id || tm != term {
			t.Fatalf("store %d sees leader %d term %d, want leader %d term %d: a slow disk cost the leadership", s.id, l, tm, leader.id, term)
		}
	}
}

// enableFailpoint turns a failpoint on with gofail terms, e.g.
// `1*return("x")`; the returned func turns it off.
func enableFailpoint(name, terms string) (func(), error) { return fp.Enable(name, terms) }
