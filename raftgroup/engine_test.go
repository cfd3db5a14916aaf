package raftgroup

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// memNetwork routes messages between engines in one process. A store that
// is down or cut off loses its messages, as on a real network.
type memNetwork struct {
	mu      sync.Mutex
	engines map[uint64]*Engine
	cut     map[uint64]bool
}

func newMemNetwork() *memNetwork {
	return &memNetwork{engines: map[uint64]*Engine{}, cut: map[uint64]bool{}}
}

type memTransport struct {
	net  *memNetwork
	from uint64
}

func (t memTransport) Send(msgs []Envelope) {
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	for _, m := range msgs {
		to := m.Msg.GetTo()
		if t.net.cut[to] || t.net.cut[t.from] {
			continue
		}
		if e := t.net.engines[to]; e != nil {
			_ = e.Step(m.Group, m.Msg)
		}
	}
}

// kvApplier stores commands "key=value" as data keys of the partition and
// returns the value the key had before.
type kvApplier struct{}

func (kvApplier) Apply(b *ApplyBatch, g GroupID, _ uint64, cmd []byte) ([]byte, error) {
	if len(cmd) < 8 {
		return nil, fmt.Errorf("short command")
	}
	k := binary.BigEndian.Uint64(cmd)
	key := partition.TagKey(g.Space, g.Part, binary.BigEndian.AppendUint64(nil, k), 1)
	old, err := b.Get(key)
	if err != nil {
		return nil, err
	}
	b.Put(key, cmd[8:])
	return old, nil
}

type testStore struct {
	id     uint64
	dir    string
	db     *grocksdb.DB
	engine *Engine
	tweak  func(*Config) // adjusts the engine config before each start
}

func openTestDB(t testing.TB, dir string) *grocksdb.DB {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	defer opts.Destroy()
	db, err := grocksdb.OpenDb(opts, dir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func (s *testStore) start(t *testing.T, net *memNetwork, groups []GroupID, voters []uint64) {
	t.Helper()
	s.db = openTestDB(t, s.dir)
	cfg := Config{StoreID: s.id, TickInterval: 10 * time.Millisecond, Transport: memTransport{net, s.id}, Applier: kvApplier{}}
	if s.tweak != nil {
		s.tweak(&cfg)
	}
	s.engine = NewEngine(cfg)
	for _, g := range groups {
		if err := s.engine.AddGroup(g, s.db, voters); err != nil {
			t.Fatal(err)
		}
	}
	net.mu.Lock()
	net.engines[s.id] = s.engine
	net.mu.Unlock()
	s.engine.Start()
}

func (s *testStore) stop(net *memNetwork) {
	net.mu.Lock()
	delete(net.engines, s.id)
	net.mu.Unlock()
	s.engine.Stop()
	s.db.Close()
}

func (s *testStore) read(t *testing.T, g GroupID, k uint64) string {
	t.Helper()
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	v, err := s.db.GetBytes(ro, partition.TagKey(g.Space, g.Part, binary.BigEndian.AppendUint64(nil, k), 1))
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// propose sends cmd to whichever store leads g, following NotLeader hints.
func propose(ctx context.Context, stores []*testStore, g GroupID, k uint64, v string) error {
	cmd := append(binary.BigEndian.AppendUint64(nil, k), v...)
	target := 0
	for ctx.Err() == nil {
		s := stores[target]
		if s.engine == nil {
			target = (target + 1) % len(stores)
			continue
		}
		err := s.engine.Propose(ctx, g, cmd)
		if err == nil {
			return nil
		}
		if nl, ok := AsNotLeader(err); ok && nl.Leader != 0 {
			target = int(nl.Leader - 1)
		} else {
			target = (target + 1) % len(stores)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ctx.Err()
}

func leaderOf(stores []*testStore, g GroupID) *testStore {
	for _, s := range stores {
		if s.engine == nil {
			continue
		}
		if l, _, ok := s.engine.Leader(g); ok && l == s.id {
			return s
		}
	}
	return nil
}

func TestReplicationSurvivesRestart(t *testing.T) {
	net := newMemNetwork()
	groups := []GroupID{{1, 1}, {1, 2}, {1, 3}}
	voters := []uint64{1, 2, 3}
	stores := make([]*testStore, 3)
	for i := range stores {
		stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir()}
		stores[i].start(t, net, groups, voters)
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

	for k := uint64(0); k < 50; k++ {
		g := groups[k%3]
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatalf("propose %d: %v", k, err)
		}
	}
	// Take one store down; writes go on with the other two.
	down := stores[2]
	down.stop(net)
	down.engine = nil
	for k := uint64(50); k < 100; k++ {
		if err := propose(ctx, stores, groups[k%3], k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatalf("propose %d with a store down: %v", k, err)
		}
	}
	// Restart it from its RocksDB; it must catch up on everything.
	down.start(t, net, groups, voters)
	for k := uint64(0); k < 100; k++ {
		g := groups[k%3]
		want := fmt.Sprintf("v%d", k)
		for ctx.Err() == nil && down.read(t, g, k) != want {
			time.Sleep(10 * time.Millisecond)
		}
		if got := down.read(t, g, k); got != want {
			t.Fatalf("restarted store: key %d = %q, want %q", k, got, want)
		}
	}
	// Every replica holds the same data.
	for _, s := range stores {
		for k := uint64(0); k < 100; k++ {
			if got := s.read(t, groups[k%3], k); got != fmt.Sprintf("v%d", k) {
				t.Fatalf("store %d key %d = %q", s.id, k, got)
			}
		}
	}
}

func TestReadIndexAndNotLeader(t *testing.T) {
	net := newMemNetwork()
	g := GroupID{7, 1}
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
	leader := leaderOf(stores, g)
	if leader == nil {
		t.Fatal("no leader after a committed proposal")
	}
	// Many concurrent reads on the leader all succeed and see the write.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- leader.engine.ReadIndex(ctx, g)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("read index on leader: %v", err)
		}
	}
	if got := leader.read(t, g, 1); got != "x" {
		t.Fatalf("leader read %q after ReadIndex", got)
	}
	// A follower refuses, naming the leader.
	for _, s := range stores {
		if s == leader {
			continue
		}
		err := s.engine.ReadIndex(ctx, g)
		nl, ok := AsNotLeader(err)
		if !ok || nl.Leader != leader.id {
			t.Fatalf("follower %d ReadIndex: %v, want NotLeader naming %d", s.id, err, leader.id)
		}
	}
	if err := stores[0].engine.Propose(ctx, GroupID{99, 1}, []byte("x")); err == nil {
		t.Fatal("proposal to an unknown group succeeded")
	}
}

func TestLeaderIsolationFailsOver(t *testing.T) {
	net := newMemNetwork()
	g := GroupID{3, 1}
	stores := make([]*testStore, 3)
	for i := range stores {
		stores[i] = &testStore{id: uint64(i + 1), dir: t.TempDir()}
		stores[i].start(t, net, []GroupID{g}, []uint64{1, 2, 3})
		defer stores[i].stop(net)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := propose(ctx, stores, g, 1, "before"); err != nil {
		t.Fatal(err)
	}
	old := leaderOf(stores, g)
	net.mu.Lock()
	net.cut[old.id] = true
	net.mu.Unlock()
	var others []*testStore
	for _, s := range stores {
		if s != old {
			others = append(others, s)
		}
	}
	// The majority elects a new leader and commits.
	for ctx.Err() == nil {
		if l := leaderOf(others, g); l != nil {
			if err := l.engine.Propose(ctx, g, append(binary.BigEndian.AppendUint64(nil, 2), "after"...)); err == nil {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatal("majority did not elect a leader and commit")
	}
	// The isolated old leader steps down (CheckQuorum) and cannot serve reads.
	rctx, rcancel := context.WithTimeout(ctx, 3*time.Second)
	defer rcancel()
	if err := old.engine.ReadIndex(rctx, g); err == nil {
		t.Fatal("isolated old leader served a linearizable read")
	}
	net.mu.Lock()
	net.cut[old.id] = false
	net.mu.Unlock()
	for ctx.Err() == nil && old.read(t, g, 2) != "after" {
		time.Sleep(10 * time.Millisecond)
	}
	if old.read(t, g, 2) != "after" {
		t.Fatal("healed store did not catch up")
	}
}
