package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"slices"
	"testing"
	"time"

	metaclient "github.com/novagraph/novagraph/metad/client"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/oracle"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestMoveReplica moves one replica of every partition onto a fourth store
// through StorageAdminService while the graph is served: add (learner →
// catch-up by snapshot → voter), then remove the old one. Afterwards the
// catalog matches raft, replicas hold identical data, the removed store
// has dropped its replica, and GO answers like the reference with the old
// store stopped.
func TestMoveReplica(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 4})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE m(partition_num=3, replica_factor=3, vid_type=INT64)")
	exec(t, s, "USE m")
	exec(t, s, "CREATE EDGE e(w int)")
	rng := rand.New(rand.NewSource(7))
	g := oracle.New()
	for batch := 0; batch < 10; batch++ {
		stmt := "INSERT EDGE e(w) VALUES "
		for i := 0; i < 30; i++ {
			a, b, w := rng.Int63n(60), rng.Int63n(60), rng.Int63n(1000)
			if i > 0 {
				stmt += ", "
			}
			stmt += fmt.Sprintf("%d->%d:(%d)", a, b, w)
			g.AddEdge(oracle.Edge{Src: a, Dst: b, Type: "e", Props: map[string]any{"w": w}})
		}
		exec(t, s, stmt)
	}

	meta := metaclient.New([]string{c.MetaAddr()}, slog.New(slog.DiscardHandler))
	defer meta.Close()
	sc := storageclient.New(meta, slog.New(slog.DiscardHandler))
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := meta.WaitVersion(ctx, 1); err != nil {
		t.Fatal(err)
	}
	snap := meta.Catalog()
	space, _ := snap.SpaceByName("m")
	sid := space.GetSpaceId()
	storeIDs := make([]uint64, len(c.Stores))
	for i, st := range c.Stores {
		storeIDs[i] = st.Server.StoreID()
	}
	// Move every partition's replicas so that store slot 0 holds none.
	victim := storeIDs[0]
	moved := 0
	for part, replicas := range snap.Parts(sid) {
		if !slices.Contains(replicas, victim) {
			continue
		}
		var target uint64
		for _, id := range storeIDs {
			if !slices.Contains(replicas, id) {
				target = id
			}
		}
		if err := sc.AddReplica(ctx, sid, part, target); err != nil {
			t.Fatalf("part %d: adding store %d: %v", part, target, err)
		}
		// The victim may lead: move leadership to the new replica first.
		if err := sc.TransferLeader(ctx, sid, part, target); err != nil {
			t.Fatalf("part %d: transferring leadership to %d: %v", part, target, err)
		}
		if err := sc.RemoveReplica(ctx, sid, part, victim); err != nil {
			t.Fatalf("part %d: removing store %d: %v", part, victim, err)
		}
		moved++
		t.Logf("part %d: moved replica from store %d to store %d", part, victim, target)
		// Writes keep working between moves.
		exec(t, s, fmt.Sprintf("INSERT EDGE e(w) VALUES %d->%d:(1)", part, 100+part))
		g.AddEdge(oracle.Edge{Src: int64(part), Dst: int64(100 + part), Type: "e", Props: map[string]any{"w": int64(1)}})
	}

	if moved == 0 {
		t.Fatalf("store %d held no replica to move: %v", victim, snap.Parts(sid))
	}
	// The catalog lists no partition on the victim, and the victim dropped
	// its replicas.
	snap = meta.Catalog()
	for part, replicas := range snap.Parts(sid) {
		if slices.Contains(replicas, victim) || len(replicas) != 3 || len(snap.Learners(sid)[part]) != 0 {
			t.Fatalf("part %d: catalog replicas %v learners %v after the move", part, replicas, snap.Learners(sid)[part])
		}
	}
	for ctx.Err() == nil && len(c.Stores[0].Server.Engine().Groups()) != 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(c.Stores[0].Server.Engine().Groups()); n != 0 {
		t.Fatalf("removed store still hosts %d replicas", n)
	}
	// Every replica of every partition converges to the same data.
	for part, replicas := range snap.Parts(sid) {
		var sums []uint64
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			sums = sums[:0]
			for i, st := range c.Stores {
				if !slices.Contains(replicas, storeIDs[i]) {
					continue
				}
				sum, err := st.Server.PartChecksum(sid, part)
				if err != nil {
					t.Fatalf("part %d store %d: %v", part, storeIDs[i], err)
				}
				sums = append(sums, sum)
			}
			if sums[0] == sums[1] && sums[1] == sums[2] {
				break
			}
		}
		if sums[0] != sums[1] || sums[1] != sums[2] {
			t.Fatalf("part %d: replica checksums differ: %x", part, sums)
		}
	}
	// With the victim gone entirely, queries answer like the reference.
	c.StopStore(0)
	for start := int64(0); start < 60; start += 7 {
		for steps := 1; steps <= 2; steps++ {
			stmt := fmt.Sprintf("GO %d STEPS FROM %d OVER e YIELD src(edge), dst(edge), e.w", steps, start)
			got := render(exec(t, s, stmt))
			rows := g.Go([]oracle.Vid{start}, steps, steps, []string{"e"}, oracle.Out)
			want := make([]string, len(rows))
			for i, r := range rows {
				want[i] = fmt.Sprintf("%v|%v|%v", r.Edge.Src, r.Edge.Dst, r.Edge.Props["w"])
			}
			sortStrings(want)
			if diff, ok := sameMultiset(got, want); !ok {
				t.Fatalf("%s: %s", stmt, diff)
			}
		}
	}
}
