package raftgroup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// memSnapshots delivers snapshots between engines of one process the way the
// gRPC snapshot stream does: read the range from the RocksDB snapshot, write
// an SST file in the receiver's directory, hand it to the receiver's engine.
type memSnapshots struct {
	net  *memNetwork
	dirs map[uint64]string
	// inflight counts SendSnapshot's delivery goroutines, so that a test's
	// cleanup waits for them before its directories are removed. Nil for a
	// memSnapshots used only through deliver.
	inflight *sync.WaitGroup
}

var memSnapshotSeq atomic.Uint64

// startSnapshotCluster starts n stores (ids 1..n) holding group g, with
// snapshots sent over the memSnapshots it returns; stores 1-3 are its voters and any
// further store starts empty, to be added by a membership change. tweak,
// if set, changes store i's Config (index i, id i+1) on every start,
// restarts included. Every store still running when the test ends is
// stopped; a test that stops one for good sets its engine to nil.
func startSnapshotCluster(t *testing.T, g GroupID, n int, tweak func(i int, c *Config)) (*memNetwork, memSnapshots, []*testStore) {
	t.Helper()
	net := newMemNetwork()
	snaps := memSnapshots{net: net, dirs: map[uint64]string{}, inflight: &sync.WaitGroup{}}
	stores := make([]*testStore, n)
	dataDirs := make([]string, n)
	for i := range stores {
		snaps.dirs[uint64(i+1)] = t.TempDir()
		dataDirs[i] = t.TempDir()
	}
	// Registered after the first t.TempDir: cleanups run last-in first-out,
	// so the stores stop and the deliveries end before the directories are
	// removed. (The other order let a running RocksDB write a file while
	// RemoveAll emptied its directory: "directory not empty".)
	// A delivery in flight reads the sender's RocksDB and releases its
	// snapshot there: the engines stop first, then the deliveries end,
	// then the databases close.
	t.Cleanup(func() {
		var running []*testStore
		for _, s := range stores {
			if s != nil && s.engine != nil {
				running = append(running, s)
				net.mu.Lock()
				delete(net.engines, s.id)
				net.mu.Unlock()
				s.engine.Stop()
			}
		}
		snaps.inflight.Wait()
		for _, s := range running {
			s.db.Close()
		}
	})
	for i := range stores {
		id := uint64(i + 1)
		stores[i] = &testStore{id: id, dir: dataDirs[i], tweak: func(c *Config) {
			c.SnapshotTransport = snaps
			if tweak != nil {
				tweak(i, c)
			}
		}}
		var voters []uint64
		if id <= 3 {
			voters = []uint64{1, 2, 3}
		}
		stores[i].start(t, net, []GroupID{g}, voters)
	}
	return net, snaps, stores
}

// shortLogs is a startSnapshotCluster tweak: logs truncated past 20
// entries, so that a replica left behind catches up by snapshot.
func shortLogs(_ int, c *Config) { c.MaxLogEntries, c.LogCatchUpEntries = 20, 5 }

func (m memSnapshots) SendSnapshot(d *SnapshotData) {
	m.inflight.Add(1)
	go func() {
		defer m.inflight.Done()
		d.Release(m.deliver(d) == nil)
	}()
}

func (m memSnapshots) deliver(d *SnapshotData) error {
	to := d.Msg.GetTo()
	m.net.mu.Lock()
	dst := m.net.engines[to]
	cut := m.net.cut[to]
	m.net.mu.Unlock()
	if dst == nil || cut {
		return fmt.Errorf("store %d unreachable", to)
	}
	// Unique per transfer, as SnapshotServer's names are: two snapshots of
	// one index (from two leaders, or resent) must not share a file.
	path := filepath.Join(m.dirs[to], fmt.Sprintf("%d-%d-%d-%d.sst", d.Group.Space, d.Group.Part, d.Msg.GetSnapshot().GetMetadata().GetIndex(), memSnapshotSeq.Add(1)))
	env := grocksdb.NewDefaultEnvOptions()
	defer env.Destroy()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	w := grocksdb.NewSSTFileWriter(env, opts)
	defer w.Destroy()
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	ro.SetSnapshot(d.Snap)
	ro.SetIterateUpperBound(d.Upper)
	it := d.DB.NewIterator(ro)
	defer it.Close()
	n := 0
	for it.Seek(d.Lower); it.Valid(); it.Next() {
		if n == 0 {
			if err := w.Open(path); err != nil {
				return err
			}
		}
		if err := w.Add(append([]byte(nil), it.Key().Data()...), append([]byte(nil), it.Value().Data()...)); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		path = ""
	} else if err := w.Finish(); err != nil {
		return err
	}
	return dst.StepSnapshot(d.Group, d.Msg, path)
}

func logEntryExists(t *testing.T, s *testStore, g GroupID, index uint64) bool {
	t.Helper()
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	v, err := s.db.GetBytes(ro, partition.RaftLogKey(g.Space, g.Part, index))
	if err != nil {
		t.Fatal(err)
	}
	return v != nil
}

// A follower that was down while the others truncated their logs past what
// it has catches up by snapshot, and then by log again.
func TestFollowerCatchesUpBySnapshot(t *testing.T) {
	g := GroupID{5, 1}
	net, snaps, stores := startSnapshotCluster(t, g, 3, shortLogs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := propose(ctx, stores, g, 0, "v0"); err != nil {
		t.Fatal(err)
	}
	down := stores[2]
	down.stop(net)
	down.engine = nil
	for k := uint64(1); k <= 200; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatalf("propose %d: %v", k, err)
		}
	}
	// The live stores truncated: early entries are gone from RocksDB.
	for _, s := range stores[:2] {
		if logEntryExists(t, s, g, 10) {
			t.Fatalf("store %d still has log entry 10 after 200 proposals with MaxLogEntries=20", s.id)
		}
	}
	down.start(t, net, []GroupID{g}, []uint64{1, 2, 3})
	for k := uint64(0); k <= 200; k++ {
		want := fmt.Sprintf("v%d", k)
		for ctx.Err() == nil && down.read(t, g, k) != want {
			time.Sleep(10 * time.Millisecond)
		}
		if got := down.read(t, g, k); got != want {
			t.Fatalf("restarted store: key %d = %q, want %q", k, got, want)
		}
	}
	// After the snapshot it follows the log again.
	if err := propose(ctx, stores, g, 201, "after"); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil && down.read(t, g, 201) != "after" {
		time.Sleep(10 * time.Millisecond)
	}
	if down.read(t, g, 201) != "after" {
		t.Fatal("restarted store did not resume from the log after the snapshot")
	}
	// Its snapshot directory holds no leftovers.
	left, _ := os.ReadDir(snaps.dirs[3])
	if len(left) != 0 {
		t.Fatalf("snapshot files left behind: %v", left)
	}
	// And it survives its own restart with the installed state.
	down.stop(net)
	down.engine = nil
	down.start(t, net, []GroupID{g}, []uint64{1, 2, 3})
	if got := down.read(t, g, 150); got != "v150" {
		t.Fatalf("after restart: key 150 = %q", got)
	}
}

// A crash after the snapshot's state was written but before its file was
// ingested is repaired at open: the file is ingested into the cleared
// range and the marker removed; repeating the repair changes nothing.
func TestSnapshotIngestRepair(t *testing.T) {
	dir := t.TempDir()
	db := openTestDB(t, filepath.Join(dir, "db"))
	defer db.Close()
	g := GroupID{9, 3}
	vid := func(i int) []byte { return partition.EncodeInt64Vid(int64(i)) }
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	// Stale data that the snapshot replaces.
	if err := db.Put(wo, partition.TagKey(g.Space, g.Part, vid(99), 1), []byte("stale")); err != nil {
		t.Fatal(err)
	}
	sst := filepath.Join(dir, "snap.sst")
	env := grocksdb.NewDefaultEnvOptions()
	opts := grocksdb.NewDefaultOptions()
	w := grocksdb.NewSSTFileWriter(env, opts)
	if err := w.Open(sst); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := w.Add(partition.TagKey(g.Space, g.Part, vid(i), 1), []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	w.Destroy()
	env.Destroy()
	opts.Destroy()
	if err := db.Put(wo, partition.RaftSnapshotApplyKey(g.Space, g.Part), []byte(sst)); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		if err := repairSnapshot(db, g, wo); err != nil {
			t.Fatalf("repair round %d: %v", round, err)
		}
		ro := grocksdb.NewDefaultReadOptions()
		for i := 0; i < 3; i++ {
			v, _ := db.GetBytes(ro, partition.TagKey(g.Space, g.Part, vid(i), 1))
			if string(v) != fmt.Sprint(i) {
				t.Fatalf("round %d: key %d = %q after repair", round, i, v)
			}
		}
		if v, _ := db.GetBytes(ro, partition.TagKey(g.Space, g.Part, vid(99), 1)); v != nil {
			t.Fatalf("round %d: stale key survived the snapshot: %q", round, v)
		}
		if v, _ := db.GetBytes(ro, partition.RaftSnapshotApplyKey(g.Space, g.Part)); v != nil {
			t.Fatalf("round %d: marker not cleared", round)
		}
		ro.Destroy()
	}
}

// The log is cut by size too: a few large entries trigger truncation long
// before the entry count would (MaxLogBytes), and the entries kept behind
// the applied index for slow followers are bounded by size as well
// (LogCatchUpBytes), however large the count window (LogCatchUpEntries);
// and a group that stops being written is cut back after a quiet spell
// (LogIdleTruncateAfter) though no threshold was reached.
func TestLogTruncatedBySize(t *testing.T) {
	for _, tc := range []struct {
		name  string
		space int32
		tweak func(c *Config)
	}{
		{"trigger", 15, func(c *Config) { c.MaxLogEntries, c.LogCatchUpEntries, c.MaxLogBytes = -1, 1, 64<<10 }},
		{"catch-up window", 16, func(c *Config) {
			c.MaxLogEntries, c.LogCatchUpEntries, c.MaxLogBytes, c.LogCatchUpBytes = -1, 1000, 64<<10, 32<<10
		}},
		// Neither threshold is ever reached (a bulk load that then stops):
		// the quiet group cuts its log back to the window on its own.
		{"idle", 17, func(c *Config) {
			c.MaxLogEntries, c.LogCatchUpEntries, c.MaxLogBytes, c.LogIdleTruncateAfter = -1, 1, -1, 200*time.Millisecond
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net := newMemNetwork()
			g := GroupID{tc.space, 1}
			stores := make([]*testStore, 3)
			for i := range stores {
				stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir(), tweak: tc.tweak}
				stores[i].start(t, net, []GroupID{g}, []uint64{1, 2, 3})
				defer stores[i].stop(net)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			big := string(make([]byte, 16<<10))
			for k := uint64(0); k < 20; k++ {
				if err := propose(ctx, stores, g, k, big); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range stores {
				for ctx.Err() == nil && logEntryExists(t, s, g, 7) {
					time.Sleep(10 * time.Millisecond)
				}
				if logEntryExists(t, s, g, 7) {
					t.Fatalf("store %d kept entry 7 after 320 KiB of 16 KiB entries", s.id)
				}
				// LogSize (novagraph_storaged_raft_log_bytes) sees the cut: at most
				// the entries after the truncation point are left.
				if n, b := s.engine.LogSize(); n >= 20 || b >= 20*16<<10 {
					t.Fatalf("store %d: LogSize %d entries, %d bytes after the truncation", s.id, n, b)
				}
			}
		})
	}
}
