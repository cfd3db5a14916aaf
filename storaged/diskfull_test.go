package storaged_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novagraph/novagraph/client"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// Full-disk tests: each store's free space comes from fakeDisks, so a
// test makes a disk full by setting the bytes "others" use on it; the
// store's reserve file (a real file) counts on top, as on a real disk.

const diskReserve = 1 << 20

type fakeDisks struct {
	mu   sync.Mutex
	used map[int]uint64
}

const diskCapacity = 1 << 40

func (f *fakeDisks) free(slot int, path string) (uint64, error) {
	f.mu.Lock()
	taken := f.used[slot]
	f.mu.Unlock()
	if fi, err := os.Stat(filepath.Join(path, storaged.BallastName)); err == nil {
		taken += uint64(fi.Size())
	}
	if taken >= diskCapacity {
		return 0, nil
	}
	return diskCapacity - taken, nil
}

// fill leaves `left` bytes free on slot's disk (beside its reserve file).
func (f *fakeDisks) fill(slot int, left uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.used[slot] = diskCapacity - diskReserve - left
}

func (f *fakeDisks) empty(slot int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.used[slot] = 0
}

func startDiskCluster(t *testing.T, stores int) (*testcluster.Cluster, *fakeDisks) {
	disks := &fakeDisks{used: map[int]uint64{}}
	c := testcluster.Start(t, testcluster.Options{
		Stores: stores, DiskReserve: diskReserve, DiskPollInterval: 10 * time.Millisecond, DiskFree: disks.free,
	})
	return c, disks
}

// exec runs a statement and returns its rows sorted, or its error.
func exec(s *client.Session, stmt string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rs, err := s.Execute(ctx, stmt)
	if err != nil {
		return nil, err
	}
	out := make([]string, rs.Len())
	for i := range out {
		row := rs.Row(i)
		var cells []string
		for j := 0; j < row.Len(); j++ {
			cells = append(cells, fmt.Sprint(row.Value(j)))
		}
		out[i] = strings.Join(cells, "|")
	}
	sort.Strings(out)
	return out, nil
}

func mustExec(t *testing.T, s *client.Session, stmt string) []string {
	t.Helper()
	out, err := exec(s, stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return out
}

// waitUntil polls cond; the deadline only bounds a failing test.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting until %s", what)
		}
	}
}

func ballastExists(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, storaged.BallastName))
	return err == nil
}

// TestDiskFullRefusesWritesKeepsReads: a one-store cluster whose disk
// fills refuses every kind of write with E_DISK_FULL naming the disk,
// through graphd and through the storage client (which does not retry
// it), serves reads, and after space returns takes writes again with
// nothing lost.
func TestDiskFullRefusesWritesKeepsReads(t *testing.T) {
	c, disks := startDiskCluster(t, 1)
	dir := c.DataDir(0)
	if !ballastExists(dir) {
		t.Fatalf("no reserve file in %s after start", dir)
	}
	s := c.Session()
	defer s.Close()
	mustExec(t, s, "CREATE SPACE full(partition_num=3, replica_factor=1, vid_type=INT64)")
	mustExec(t, s, "USE full")
	mustExec(t, s, "CREATE TAG t(x int)")
	mustExec(t, s, "CREATE EDGE e(w int)")
	mustExec(t, s, "INSERT VERTEX t(x) VALUES 1:(1), 2:(2), 3:(3)")
	mustExec(t, s, "INSERT EDGE e(w) VALUES 1->2:(12), 2->3:(23)")
	wantT := []string{"1|1", "2|2", "3|3"}
	wantE := []string{"1|2|12", "2|3|23"}

	disks.fill(0, diskReserve-1)
	srv := c.Stores[0].Server
	waitUntil(t, "the store sees its disk full", func() bool { return len(srv.FullDataPaths()) == 1 })
	if got := srv.FullDataPaths(); got[0] != dir {
		t.Fatalf("full paths %v, want [%s]", got, dir)
	}
	if ballastExists(dir) {
		t.Fatal("the reserve file is still there on a full disk")
	}

	for _, stmt := range []string{
		"INSERT VERTEX t(x) VALUES 4:(4)",
		"INSERT EDGE e(w) VALUES 3->1:(31)",
		"UPDATE VERTEX ON t 1 SET x = 100",
		"DELETE VERTEX 2",
		"DELETE EDGE e 1->2",
	} {
		_, err := exec(s, stmt)
		if err == nil {
			t.Fatalf("%s succeeded on a full disk", stmt)
		}
		msg := err.Error()
		for _, want := range []string{"E_DISK_FULL", "data disk " + dir + " is full", "writes are refused until space is freed", srv.Addr()} {
			if !strings.Contains(msg, want) {
				t.Fatalf("%s: error %q does not say %q", stmt, msg, want)
			}
		}
	}

	// The storage client fails at once with the code: not a leader
	// change to chase.
	quiet := slog.New(slog.DiscardHandler)
	meta := metaclient.New(c.MetaAddrs(), quiet)
	defer meta.Close()
	sc := storageclient.New(meta, quiet)
	defer sc.Close()
	var space int32
	waitUntil(t, "the test's catalog has the space", func() bool {
		sp, ok := meta.Catalog().SpaceByName("full")
		space = sp.GetSpaceId()
		return ok
	})
	vid := partition.EncodeInt64Vid(3)
	part := partition.PartOfInt64(3, 3)
	err := sc.DeleteVertices(context.Background(), &storagepb.DeleteVerticesReq{SpaceId: space, Parts: map[int32]*storagepb.VidList{part: {Vids: [][]byte{vid}}}})
	pe, ok := storageclient.IsPartError(err)
	if !ok || pe.Code != commonpb.ErrorCode_E_DISK_FULL || !strings.Contains(pe.Msg, dir) {
		t.Fatalf("storage client DeleteVertices on a full disk: %v, want E_DISK_FULL naming %s", err, dir)
	}
	if n := sc.Retries(); n != 0 {
		t.Fatalf("the storage client retried a refused write %d times", n)
	}

	// Reads work.
	if got := mustExec(t, s, "FETCH PROP ON t 1, 2, 3 YIELD id(vertex), t.x"); !slices.Equal(got, wantT) {
		t.Fatalf("FETCH on a full disk: %q, want %q", got, wantT)
	}
	if got := mustExec(t, s, "GO FROM 1, 2 OVER e YIELD src(edge), dst(edge), e.w"); !slices.Equal(got, wantE) {
		t.Fatalf("GO on a full disk: %q, want %q", got, wantE)
	}

	// Space under twice the reserve: still refused (hysteresis).
	disks.fill(0, diskReserve/2) // counted without the reserve file: 1.5 MiB free
	time.Sleep(100 * time.Millisecond)
	if _, err := exec(s, "INSERT VERTEX t(x) VALUES 4:(4)"); err == nil || !strings.Contains(err.Error(), "E_DISK_FULL") {
		t.Fatalf("a write with 1.5 reserves free: %v, want E_DISK_FULL", err)
	}

	// Space returns.
	disks.empty(0)
	waitUntil(t, "the store sees space again", func() bool { return len(srv.FullDataPaths()) == 0 })
	if !ballastExists(dir) {
		t.Fatal("the reserve file was not made again")
	}
	mustExec(t, s, "INSERT VERTEX t(x) VALUES 4:(4)")
	mustExec(t, s, "INSERT EDGE e(w) VALUES 3->1:(31)")
	if got, want := mustExec(t, s, "FETCH PROP ON t 1, 2, 3, 4 YIELD id(vertex), t.x"), append(wantT, "4|4"); !slices.Equal(got, want) {
		t.Fatalf("FETCH after recovery: %q, want %q", got, want)
	}
	if got, want := mustExec(t, s, "GO FROM 1, 2, 3 OVER e YIELD src(edge), dst(edge), e.w"), append(wantE, "3|1|31"); !slices.Equal(got, want) {
		t.Fatalf("GO after recovery: %q, want %q", got, want)
	}
	if got := mustExec(t, s, "GO FROM 1 OVER e REVERSELY YIELD src(edge), dst(edge)"); !slices.Equal(got, []string{"3|1"}) {
		t.Fatalf("the new edge's in-edge: %q", got)
	}
}

// TestDiskFullMovesLeadership: with replica_factor 3, a store whose disk
// fills hands the leadership of its partitions to the other replicas, so
// writes go on; it keeps replicating as a follower, and after space
// returns every replica holds the same data and nothing is lost.
func TestDiskFullMovesLeadership(t *testing.T) {
	c, disks := startDiskCluster(t, 3)
	s := c.Session()
	defer s.Close()
	const parts = 6
	mustExec(t, s, fmt.Sprintf("CREATE SPACE rf3(partition_num=%d, replica_factor=3, vid_type=INT64)", parts))
	mustExec(t, s, "USE rf3")
	mustExec(t, s, "CREATE TAG t(x int)")
	var want []string
	insert := func(from, to int) {
		t.Helper()
		var vals []string
		for i := from; i < to; i++ {
			vals = append(vals, fmt.Sprintf("%d:(%d)", i, i))
			want = append(want, fmt.Sprintf("%d|%d", i, i))
		}
		stmt := "INSERT VERTEX t(x) VALUES " + strings.Join(vals, ", ")
		for attempt := 0; ; attempt++ {
			_, err := exec(s, stmt)
			if err == nil {
				return
			}
			// Leadership can come back to the full store by an election
			// (a slow tick under -race): it refuses again and hands it
			// on. Allowed only for the full store's refusals, a few times.
			full := c.Stores[0].Server
			if attempt < 3 && strings.Contains(err.Error(), "E_DISK_FULL") && strings.Contains(err.Error(), full.Addr()) {
				t.Logf("refused while store 0 led again: %v", err)
				waitUntil(t, "store 0 leads nothing again", func() bool { return len(full.Engine().Leading()) == 0 })
				continue
			}
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	check := func(what string) {
		t.Helper()
		sort.Strings(want)
		var vids []string
		for i := range want {
			vids = append(vids, strings.Split(want[i], "|")[0])
		}
		got := mustExec(t, s, "FETCH PROP ON t "+strings.Join(vids, ", ")+" YIELD id(vertex), t.x")
		if !slices.Equal(got, want) {
			t.Fatalf("%s: FETCH gives %d rows, want %d", what, len(got), len(want))
		}
	}
	insert(0, 60)

	// Store 0 leads some partitions (the first replica of each initial
	// group campaigns; make sure by moving two there if needed).
	leads := func(i int) int { return len(c.Stores[i].Server.Engine().Leading()) }
	waitUntil(t, "every partition has a leader", func() bool { return leads(0)+leads(1)+leads(2) == parts })
	if leads(0) == 0 {
		moveLeadersTo(t, c, 0)
	}
	t.Logf("store 0 leads %d of %d partitions before its disk fills", leads(0), parts)

	disks.fill(0, 0)
	full := c.Stores[0].Server
	waitUntil(t, "store 0 sees its disk full", func() bool { return len(full.FullDataPaths()) == 1 })
	waitUntil(t, "store 0 hands on every leadership", func() bool { return leads(0) == 0 && leads(1)+leads(2) == parts })

	insert(60, 200)
	check("with store 0 full")
	sameReplicas(t, c, "with store 0 full (it follows)")

	disks.empty(0)
	waitUntil(t, "store 0 sees space again", func() bool { return len(full.FullDataPaths()) == 0 })
	insert(200, 260)
	check("after recovery")
	sameReplicas(t, c, "after recovery")
}

// moveLeadersTo makes store slot lead at least one partition.
func moveLeadersTo(t *testing.T, c *testcluster.Cluster, slot int) {
	t.Helper()
	to := c.Stores[slot].Server.StoreID()
	for i, st := range c.Stores {
		if i == slot {
			continue
		}
		for _, l := range st.Server.Engine().Leading() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := st.Server.Engine().TransferLeadership(ctx, l.Group, to)
			cancel()
			if err == nil {
				return
			}
		}
	}
	t.Fatalf("could not move any leadership to store %d", to)
}

// sameReplicas waits until every partition's replicas hold the same data
// (PartChecksum); the deadline bounds only a failing run.
func sameReplicas(t *testing.T, c *testcluster.Cluster, what string) {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	meta := metaclient.New(c.MetaAddrs(), quiet)
	defer meta.Close()
	var last string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		sp, ok := meta.Catalog().SpaceByName("rf3")
		if ok {
			var diffs []string
			for part := range meta.Catalog().Parts(sp.GetSpaceId()) {
				sums := map[uint64]bool{}
				for _, st := range c.Stores {
					sum, err := st.Server.PartChecksum(sp.GetSpaceId(), part)
					if err != nil {
						diffs = append(diffs, fmt.Sprintf("partition %d: %v", part, err))
						continue
					}
					sums[sum] = true
				}
				if len(sums) != 1 {
					diffs = append(diffs, fmt.Sprintf("partition %d: %d different checksums", part, len(sums)))
				}
			}
			if len(diffs) == 0 {
				return
			}
			last = strings.Join(diffs, "; ")
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: replicas differ: %s", what, last)
		}
	}
}

// TestDiskFullMirrorsWaitForSpace: an edge whose owner is on a healthy
// store and whose destination partition is on a full one is written (the
// out-edge) and acknowledged; its in-edge, refused by the full store, is
// not lost: the owner's intent stays and the resolver lands it once space
// is back. An in-edge written after it to a healthy partition lands
// meanwhile, although the refused target's intents fill more than a
// resolver batch ahead of it: one target that fails does not hold back the
// others (it held back nearly every in-edge of an SF100 import).
func TestDiskFullMirrorsWaitForSpace(t *testing.T) {
	c, disks := startDiskCluster(t, 2)
	s := c.Session()
	defer s.Close()
	const parts = 4
	mustExec(t, s, fmt.Sprintf("CREATE SPACE mirrors(partition_num=%d, replica_factor=1, vid_type=INT64)", parts))
	mustExec(t, s, "USE mirrors")
	mustExec(t, s, "CREATE EDGE e(w int)")

	quiet := slog.New(slog.DiscardHandler)
	meta := metaclient.New(c.MetaAddrs(), quiet)
	defer meta.Close()
	storeOf := map[int32]uint64{}
	waitUntil(t, "the test's catalog places the space", func() bool {
		sp, ok := meta.Catalog().SpaceByName("mirrors")
		if !ok {
			return false
		}
		for p, rs := range meta.Catalog().Parts(sp.GetSpaceId()) {
			storeOf[p] = rs[0]
		}
		return len(storeOf) == parts
	})
	full, healthy := c.Stores[1].Server.StoreID(), c.Stores[0].Server.StoreID()
	vidOn := func(store uint64, after int64) int64 {
		for v := after + 1; v < 1000; v++ {
			if storeOf[partition.PartOfInt64(v, parts)] == store {
				return v
			}
		}
		t.Fatalf("no vid after %d with its partition on store %d (placement %v)", after, store, storeOf)
		return 0
	}
	src, dst := vidOn(healthy, 0), vidOn(full, 0)
	dstHealthy := vidOn(healthy, src)

	disks.fill(1, 0)
	waitUntil(t, "store 1 sees its disk full", func() bool { return len(c.Stores[1].Server.FullDataPaths()) == 1 })
	mustExec(t, s, fmt.Sprintf("INSERT EDGE e(w) VALUES %d->%d:(7)", src, dst))
	edge := fmt.Sprintf("%d|%d|7", src, dst)
	if got := mustExec(t, s, fmt.Sprintf("GO FROM %d OVER e YIELD src(edge), dst(edge), e.w", src)); !slices.Equal(got, []string{edge}) {
		t.Fatalf("out-edge: %q", got)
	}
	// More mirrors to the full store than one resolver batch carries
	// (storaged.ResolveBatch; one statement, one intent), then one edge
	// to the healthy store: its intent comes after them all.
	var ranked []string
	for r := 1; r <= storaged.ResolveBatch+10; r++ {
		ranked = append(ranked, fmt.Sprintf("%d->%d@%d:(%d)", src, dst, r, r))
	}
	mustExec(t, s, "INSERT EDGE e(w) VALUES "+strings.Join(ranked, ", "))
	mustExec(t, s, fmt.Sprintf("INSERT EDGE e(w) VALUES %d->%d:(8)", src, dstHealthy))
	edgeHealthy := fmt.Sprintf("%d|%d|8", src, dstHealthy)
	waitUntil(t, "the in-edge on the healthy store lands while the other target refuses its own", func() bool {
		got, err := exec(s, fmt.Sprintf("GO FROM %d OVER e REVERSELY YIELD src(edge), dst(edge), e.w", dstHealthy))
		return err == nil && slices.Equal(got, []string{edgeHealthy})
	})
	if got := mustExec(t, s, fmt.Sprintf("GO FROM %d OVER e REVERSELY YIELD src(edge), dst(edge), e.w", dst)); len(got) != 0 {
		t.Fatalf("in-edge %q on the full store: its mirror was not refused", got)
	}
	// A flush of the owner (what the importer asks at its end) says the
	// intents are pending, to be asked again (E_TIMEOUT, which the client
	// retries until its deadline): not a failure of the owner's own
	// partition (it said E_STORAGE, which ended the importer's flush).
	storage := storageclient.New(meta, quiet)
	defer storage.Close()
	sp, _ := meta.Catalog().SpaceByName("mirrors")
	fctx, fcancel := context.WithTimeout(context.Background(), 2*time.Second)
	err := storage.FlushIntents(fctx, sp.GetSpaceId(), []int32{partition.PartOfInt64(src, parts)})
	fcancel()
	if err == nil {
		t.Fatal("FlushIntents succeeded while a target's disk is full")
	}
	var pe *storageclient.PartError
	if errors.As(err, &pe) && pe.Code != commonpb.ErrorCode_E_TIMEOUT {
		t.Fatalf("FlushIntents of the owner failed for good while a target's disk is full: %v", err)
	}

	disks.empty(1)
	waitUntil(t, "the in-edges land once space is back", func() bool {
		got, err := exec(s, fmt.Sprintf("GO FROM %d OVER e REVERSELY YIELD src(edge), dst(edge), e.w", dst))
		return err == nil && len(got) == storaged.ResolveBatch+11
	})
}
