//go:build failpoints

package raftgroup

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// TestFailpointHaltRetryWaitsForSnapshotInstall: a follower halted at an
// entry (ErrApplyHalted) is cut off while the others go on and truncate
// their logs, then comes back and gets a snapshot. Its held entries are
// all below the snapshot; if a retry ran while the append writer was
// laying the snapshot down (the failpoint holds it there for 1.5 s, with
// the applier willing again), it wrote an old value over the snapshot's
// data and the replica differed from the others for good. The retry now
// waits for the install, which drops the held entries.
func TestFailpointHaltRetryWaitsForSnapshotInstall(t *testing.T) {
	g := GroupID{7, 1}
	blocked := make([]*atomic.Bool, 3)
	apps := make([]haltingApplier, 3)
	for i := range apps {
		blocked[i] = new(atomic.Bool)
		apps[i] = haltingApplier{blocked: blocked[i], calls: new(atomic.Int64)}
	}
	net, _, stores := startSnapshotCluster(t, g, 3, func(i int, c *Config) {
		shortLogs(i, c)
		c.Applier = apps[i]
		c.ApplyRetryInterval = 20 * time.Millisecond
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := propose(ctx, stores, g, 0, "v0"); err != nil {
		t.Fatal(err)
	}
	var lead *testStore
	for lead = leaderOf(stores, g); lead == nil; lead = leaderOf(stores, g) {
		time.Sleep(5 * time.Millisecond)
	}
	victim := stores[int(lead.id)%3]
	vi := int(victim.id - 1)
	for victim.read(t, g, 0) != "v0" {
		time.Sleep(5 * time.Millisecond)
	}
	blocked[vi].Store(true)
	if err := propose(ctx, stores, g, 100, "halt"); err != nil {
		t.Fatal(err)
	}
	for {
		st, _ := victim.engine.Status(ctx, g)
		if st.Halt != nil {
			t.Logf("victim %d halted: applied %d halt %+v", victim.id, st.Applied, *st.Halt)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	net.mu.Lock()
	net.cut[victim.id] = true
	net.mu.Unlock()
	if err := propose(ctx, stores, g, 100, "newer"); err != nil {
		t.Fatal(err)
	}
	for k := uint64(1); k <= 100; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	off, err := enableFailpoint(fpAfterSnapshotIngest, `sleep(1500)`)
	if err != nil {
		t.Fatal(err)
	}
	defer off()
	net.mu.Lock()
	net.cut[victim.id] = false
	net.mu.Unlock()
	// Unblock the victim's applier once the writer is inside the install
	// (snapshot marker written, file ingested, marker not yet cleared).
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	for {
		v, _ := victim.db.GetBytes(ro, partition.RaftSnapshotApplyKey(g.Space, g.Part))
		if v != nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no snapshot install seen")
		}
		time.Sleep(time.Millisecond)
	}
	t.Logf("snapshot install in progress on victim; unblocking its applier")
	blocked[vi].Store(false)
	time.Sleep(3 * time.Second)
	off()
	if err := propose(ctx, stores, g, 101, "after"); err != nil {
		t.Fatal(err)
	}
	for victim.read(t, g, 101) != "after" && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	st, _ := victim.engine.Status(ctx, g)
	t.Logf("victim status: applied %d halt %v", st.Applied, st.Halt)
	for _, s := range stores {
		t.Logf("store %d: key 100 = %q", s.id, s.read(t, g, 100))
	}
	if got, want := victim.read(t, g, 100), lead.read(t, g, 100); got != want {
		t.Fatalf("victim's key 100 = %q after the snapshot, the leader's %q: the retry applied an old entry over the snapshot", got, want)
	}
}
