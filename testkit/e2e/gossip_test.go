package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestGossipRoutesAroundACrashedStore: graphd and the stores gossip; when
// the store leading the most partitions crashes (no goodbye), graphd's
// gossip suspects it within about a second — long before its metad lease
// would expire — and graphd's storage client sends that store's partitions
// to the other replicas instead, so queries keep answering.
func TestGossipRoutesAroundACrashedStore(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	// Raft elections after 3–6 s (300 ms ticks): gossip must see the crash
	// before raft has a new leader, so the catalog and the client still
	// name the dead store when the queries run.
	c := testcluster.Start(t, testcluster.Options{Stores: 3, RaftTick: 300 * time.Millisecond})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE gsp(partition_num=6, replica_factor=3, vid_type=INT64)`)
	exec(t, s, `USE gsp`)
	exec(t, s, `CREATE EDGE e(w int)`)
	var es []string
	for i := 0; i < 60; i++ {
		es = append(es, fmt.Sprintf("%d->%d:(%d)", i, (i+1)%60, i))
	}
	exec(t, s, `INSERT EDGE e(w) VALUES `+strings.Join(es, ", "))
	const q = `GO FROM 0,1,2,3,4,5,6,7,8,9,10,11 OVER e YIELD dst(edge)`
	if n := len(rows(t, s, q)); n != 12 {
		t.Fatalf("fixture: %d rows", n)
	}
	g := c.Graph.Gossip()
	waitUntil(t, 20*time.Second, "graphd gossips with every store", func() bool {
		alive := map[string]bool{}
		for _, m := range g.Members() {
			alive[m.ServiceAddr] = m.Role == "storaged" && m.State == gossip.Alive
		}
		for _, st := range c.Stores {
			if !alive[st.Server.Addr()] {
				return false
			}
		}
		return true
	})

	// Crash the store that leads the most partitions.
	leads := map[string]int{}
	for _, row := range rows(t, s, `SHOW HOSTS`) {
		f := strings.Split(row, "|")
		var n int
		fmt.Sscan(f[3], &n)
		leads[f[0]+":"+f[1]] = n
	}
	victim, most := -1, -1
	for i, st := range c.Stores {
		if n := leads[st.Server.Addr()]; n > most {
			victim, most = i, n
		}
	}
	if most <= 0 {
		t.Fatalf("no store leads a partition: %v", leads)
	}
	addr := c.Stores[victim].Server.Addr()
	before := c.Graph.Storage().Rerouted()
	start := time.Now()
	c.CrashStore(victim)
	took := waitUntil(t, 20*time.Second, "graphd suspects the crashed store", func() bool { return g.Suspected(addr) })
	t.Logf("store %s (leading %d partitions) crashed; graphd's gossip suspected it after %v", addr, most, took)

	// Every query answers in full; partitions the victim led went to the
	// other replicas because gossip said so.
	for i := 0; i < 5; i++ {
		if n := len(rows(t, s, q)); n != 12 {
			t.Fatalf("after the crash: %d rows, want 12", n)
		}
	}
	if c.Graph.Storage().Rerouted() == before {
		t.Fatalf("no request was routed around the suspected store")
	}
	t.Logf("queries answered %v after the crash; %d partition requests rerouted", time.Since(start).Round(time.Millisecond), c.Graph.Storage().Rerouted()-before)

	// Back from the dead: alive again in gossip.
	c.RestartStore(victim)
	waitUntil(t, 20*time.Second, "the restarted store is alive in gossip", func() bool { return !g.Suspected(addr) })
}

// waitUntil polls cond until it holds, failing after limit (a guard against
// hangs, not a performance assertion); it returns how long it took.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		if cond() {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v", what, limit)
	return 0
}
