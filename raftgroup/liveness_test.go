package raftgroup

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"
	"go.etcd.io/raft/v3"
	rpb "go.etcd.io/raft/v3/raftpb"
	"go.etcd.io/raft/v3/tracker"
	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
)

// Liveness under a double fault with a tiny raft log.
//
// Three stores A, B, C host liveGroups groups (a storaged's worth of
// partitions). Each iteration:
//
//  1. spreads the leaders over A, B and C (TransferLeadership);
//  2. stops B and writes enough to every group that A and C truncate their
//     logs far past what B holds (MaxLogEntries 3, LogCatchUpEntries 1), so
//     B can only catch up by snapshot;
//  3. spreads the leaders over A and C;
//  4. restarts B and, before B caught up (after a seeded delay of zero to a
//     few election timeouts, so C is often streaming snapshots to B when it
//     goes), stops C;
//  5. asserts that every group elects a leader among A and B and commits a
//     proposal within liveBudget (10 election timeouts): A is up to date, B
//     must first take a snapshot from A;
//  6. restarts C and waits until every store holds every write.
//
// It runs over the in-process network with a snapshot sender that behaves
// like GRPCTransport's (2 slots, streaming in chunks, cancelled and waited
// for when its store stops), and over the real GRPCTransport and
// SnapshotServer on loopback, as storaged wires them. A group that misses
// the budget is logged with its raft status (progress states included) on
// every live store.
//
// This is the e2e's "restart store 3, stop store 1 at once" (the LDBC test,
// which left a partition "without a reachable leader" for 30 s under the
// race detector). Here, and in that e2e with a watchdog on the engines,
// raft always had a leader serving ReadIndex within about two seconds; the
// 30 s were the storage client's (storaged/client): its cached gRPC
// connection to the restarted store was still in gRPC's reconnect backoff
// (up to 120 s by default, grown while the store was down for minutes
// under -race), failing every call with the stale "connection refused"
// while that store led the partition.
//
// NOVAGRAPH_LIVENESS_ITERS sets the iterations per transport (default 6,
// each store plays each role twice; use e.g. 50 with -race for a soak),
// NOVAGRAPH_LIVENESS_SEED the seed (default fixed; "random" picks one,
// logged).

const (
	liveGroups        = 8
	liveTick          = 20 * time.Millisecond
	liveElectionTicks = 10
	liveElection      = liveElectionTicks * liveTick
	// liveBudget is how long a group may go without a leader that commits
	// after C stopped. raft elects within 1–2 election timeouts (randomized)
	// once B's leader lease on C ran out (≤ 1 timeout); B then needs one
	// snapshot from A. Ten timeouts leave room for the race detector on two
	// busy cores (the worst seen there was under four).
	liveBudget = 10 * liveElection
	// liveReconnect is GRPCTransport's reconnect backoff ceiling (runPeer):
	// a raft stream to B that failed while B was down is retried only that
	// long after B is back, five of this test's short election timeouts.
	liveReconnect = time.Second
	// liveWrites is how many entries each group commits while B is down:
	// many times MaxLogEntries, so B is far behind the truncation point.
	liveWrites = 30
)

func TestLivenessRestartThenStopAnother(t *testing.T) {
	iters := 6
	if v := os.Getenv("NOVAGRAPH_LIVENESS_ITERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("NOVAGRAPH_LIVENESS_ITERS=%q", v)
		}
		iters = n
	}
	seed := int64(20261130)
	if v := os.Getenv("NOVAGRAPH_LIVENESS_SEED"); v == "random" {
		seed = time.Now().UnixNano()
	} else if v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("NOVAGRAPH_LIVENESS_SEED=%q", v)
		}
		seed = n
	}
	for _, kind := range []string{"mem", "grpc"} {
		t.Run(kind, func(t *testing.T) {
			t.Logf("seed %d, %d iterations", seed, iters)
			c := newLiveCluster(t, kind)
			defer c.close()
			c.run(t, rand.New(rand.NewSource(seed)), iters)
		})
	}
}

// liveStore is one store of the liveness cluster; its directories and
// address survive restarts.
type liveStore struct {
	id      uint64
	dir     string // RocksDB
	snapDir string // received snapshot files
	addr    string // grpc: fixed after the first start

	// Set while the store runs.
	db        *grocksdb.DB
	engine    *Engine
	snaps     *liveSnapshotSender // mem
	transport *GRPCTransport      // grpc
	server    *grpc.Server        // grpc
	logs      *ringHandler
}

type liveCluster struct {
	t      *testing.T
	kind   string
	budget time.Duration // see liveBudget
	net    *memNetwork
	stores []*liveStore
	groups []GroupID
	voters []uint64
	nextK  uint64 // next key to write (every write has its own key)

	mu      sync.Mutex
	written map[GroupID]uint64 // last key acknowledged per group

	cutStreams atomic.Int64 // snapshot streams cut by their sender stopping
	// stallFrom names a store whose snapshot streams hang after their first
	// chunk until the sender stops (0: none), so that C certainly is in the
	// middle of streaming to B when it goes.
	stallFrom atomic.Uint64
}

func newLiveCluster(t *testing.T, kind string) *liveCluster {
	c := &liveCluster{t: t, kind: kind, budget: liveBudget, net: newMemNetwork(), voters: []uint64{1, 2, 3}, written: map[GroupID]uint64{}}
	if kind == "grpc" {
		c.budget += liveReconnect
	}
	for i := range liveGroups {
		c.groups = append(c.groups, GroupID{Space: 21, Part: int32(i + 1)})
	}
	for i := range 3 {
		s := &liveStore{id: uint64(i + 1), dir: t.TempDir(), snapDir: t.TempDir(), logs: newRingHandler(4000, &c.cutStreams)}
		if kind == "grpc" {
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			s.addr = lis.Addr().String()
			lis.Close()
		}
		c.stores = append(c.stores, s)
	}
	for _, s := range c.stores {
		c.start(s)
	}
	return c
}

func (c *liveCluster) resolve(id uint64) (string, bool) {
	if id < 1 || int(id) > len(c.stores) {
		return "", false
	}
	return c.stores[id-1].addr, true
}

// start opens a store on its data, as a storaged restart does.
func (c *liveCluster) start(s *liveStore) {
	t := c.t
	t.Helper()
	s.db = openTestDB(t, s.dir)
	logger := slog.New(s.logs)
	cfg := Config{
		StoreID: s.id, TickInterval: liveTick, ElectionTicks: liveElectionTicks, Applier: kvApplier{}, Logger: logger,
		MaxLogEntries: 3, LogCatchUpEntries: 1,
	}
	switch c.kind {
	case "mem":
		s.snaps = &liveSnapshotSender{from: s.id, stallFrom: &c.stallFrom, net: c.net, cut: &c.cutStreams, dirOf: c.snapDirOf, slots: make(chan struct{}, maxSnapshotSends), stop: make(chan struct{})}
		cfg.Transport = memTransport{c.net, s.id}
		cfg.SnapshotTransport = s.snaps
	case "grpc":
		s.transport = NewGRPCTransport(s.id, c.resolve, logger, TransportOptions{})
		cfg.Transport = s.transport
		cfg.SnapshotTransport = s.transport
	}
	s.engine = NewEngine(cfg)
	for _, g := range c.groups {
		if err := s.engine.AddGroup(g, s.db, c.voters); err != nil {
			t.Fatal(err)
		}
	}
	switch c.kind {
	case "mem":
		c.net.mu.Lock()
		c.net.engines[s.id] = s.engine
		c.net.mu.Unlock()
	case "grpc":
		s.transport.SetEngine(s.engine)
		var lis net.Listener
		var err error
		for range 100 { // the old listener's port may linger a moment
			if lis, err = net.Listen("tcp", s.addr); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("store %d: listening on %s again: %v", s.id, s.addr, err)
		}
		s.server = grpc.NewServer(grpc.MaxRecvMsgSize(64<<20), ServerKeepalive(), grpc.StreamInterceptor(c.stallSnapshots))
		raftmsgpb.RegisterRaftServiceServer(s.server, NewServer(s.id, s.engine, nil, logger))
		snaps, err := NewSnapshotServer(s.id, s.engine, s.snapDir, nil, nil, logger)
		if err != nil {
			t.Fatal(err)
		}
		raftmsgpb.RegisterRaftSnapshotServiceServer(s.server, snaps)
		go func(srv *grpc.Server) { _ = srv.Serve(lis) }(s.server)
	}
	s.engine.Start()
}

func (c *liveCluster) snapDirOf(id uint64) string { return c.stores[id-1].snapDir }

// stallSnapshots makes the receiving side of a snapshot stream from store
// stallFrom stop reading after the header, until the stream is cut.
func (c *liveCluster) stallSnapshots(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if info.FullMethod != raftmsgpb.RaftSnapshotService_Snapshot_FullMethodName {
		return handler(srv, ss)
	}
	return handler(srv, &stallingStream{ServerStream: ss, stallFrom: &c.stallFrom})
}

type stallingStream struct {
	grpc.ServerStream
	stallFrom *atomic.Uint64
	from      uint64
}

func (s *stallingStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if chunk, ok := m.(*raftmsgpb.SnapshotChunk); ok && chunk.GetHeader() != nil {
		s.from = chunk.GetHeader().GetFromStore()
	}
	// Hold the chunk (a small snapshot is one chunk) until the sender is
	// gone or the stall is lifted.
	for s.from != 0 && s.stallFrom.Load() == s.from {
		select {
		case <-s.Context().Done():
			return s.Context().Err()
		case <-time.After(liveTick):
		}
	}
	return nil
}

// stop stops a store in storaged's order: stop serving, stop the
// transports (cancelling outgoing snapshot streams), stop raft, close
// RocksDB.
func (c *liveCluster) stop(s *liveStore) {
	if s.engine == nil {
		return
	}
	switch c.kind {
	case "mem":
		c.net.mu.Lock()
		delete(c.net.engines, s.id)
		c.net.mu.Unlock()
		s.snaps.close()
	case "grpc":
		s.server.Stop()
		s.transport.Close()
	}
	s.engine.Stop()
	s.db.Close()
	s.engine, s.db, s.snaps, s.transport, s.server = nil, nil, nil, nil, nil
}

func (c *liveCluster) close() {
	for _, s := range c.stores {
		c.stop(s)
	}
}

func (c *liveCluster) live() []*liveStore {
	var out []*liveStore
	for _, s := range c.stores {
		if s.engine != nil {
			out = append(out, s)
		}
	}
	return out
}

// leader returns the live store that leads g, if any.
func (c *liveCluster) leader(g GroupID) *liveStore {
	for _, s := range c.live() {
		if l, _, ok := s.engine.Leader(g); ok && l == s.id {
			return s
		}
	}
	return nil
}

// proposeOnce tries one proposal on whichever live store leads g.
func (c *liveCluster) proposeOnce(ctx context.Context, g GroupID, k uint64) error {
	l := c.leader(g)
	if l == nil {
		return errors.New("no leader")
	}
	cmd := binary.BigEndian.AppendUint64(nil, k)
	cmd = append(cmd, fmt.Sprintf("v%d", k)...)
	if err := l.engine.Propose(ctx, g, cmd); err != nil {
		return err
	}
	c.mu.Lock()
	c.written[g] = max(c.written[g], k)
	c.mu.Unlock()
	return nil
}

// propose writes key k to g, retrying until ctx ends.
func (c *liveCluster) propose(ctx context.Context, g GroupID, k uint64) error {
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := c.proposeOnce(pctx, g, k)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: key %d: %w (last error: %v)", g, k, ctx.Err(), err)
		case <-time.After(liveTick):
		}
	}
}

// writeAll writes n keys to every group, the groups in parallel.
func (c *liveCluster) writeAll(ctx context.Context, n int) error {
	base := c.nextK
	c.nextK += uint64(n * len(c.groups))
	errs := make(chan error, len(c.groups))
	for gi, g := range c.groups {
		go func() {
			for j := range n {
				if err := c.propose(ctx, g, base+uint64(j*len(c.groups)+gi)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range c.groups {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// placeLeaders moves the leader of group i to want(i), best effort: a
// transfer to a store that is behind may time out, which only changes
// where the leaders are, not what is checked.
func (c *liveCluster) placeLeaders(ctx context.Context, want func(i int) *liveStore) {
	var wg sync.WaitGroup
	for i, g := range c.groups {
		to := want(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				l := c.leader(g)
				if l == to {
					return
				}
				if l == nil {
					time.Sleep(liveTick)
					continue
				}
				tctx, cancel := context.WithTimeout(ctx, 3*liveElection)
				_ = l.engine.TransferLeadership(tctx, g, to.id)
				cancel()
			}
		}()
	}
	wg.Wait()
}

// waitReplicated waits until every store holds the last write of every group.
func (c *liveCluster) waitReplicated(ctx context.Context) error {
	for _, s := range c.stores {
		for _, g := range c.groups {
			c.mu.Lock()
			k := c.written[g]
			c.mu.Unlock()
			want := fmt.Sprintf("v%d", k)
			for c.readKey(s, g, k) != want {
				select {
				case <-ctx.Done():
					return fmt.Errorf("store %d %s: key %d = %q, want %q", s.id, g, k, c.readKey(s, g, k), want)
				case <-time.After(liveTick):
				}
			}
		}
	}
	return nil
}

func (c *liveCluster) readKey(s *liveStore, g GroupID, k uint64) string {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	v, err := s.db.GetBytes(ro, liveKey(g, k))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(v)
}

// liveKey is where kvApplier stores key k of g.
func liveKey(g GroupID, k uint64) []byte {
	return partition.TagKey(g.Space, g.Part, binary.BigEndian.AppendUint64(nil, k), 1)
}

func (c *liveCluster) run(t *testing.T, rng *rand.Rand, iters int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(iters)*90*time.Second)
	defer cancel()
	if err := c.writeAll(ctx, 1); err != nil {
		t.Fatal(err)
	}
	var worst time.Duration
	var recoveries []time.Duration
	for it := range iters {
		// Roles rotate so every store plays each part.
		b, cc, a := c.stores[it%3], c.stores[(it+1)%3], c.stores[(it+2)%3]
		off := rng.Intn(3)
		c.placeLeaders(ctx, func(i int) *liveStore { return []*liveStore{a, b, cc}[(i+off)%3] })
		c.stop(b)
		if err := c.writeAll(ctx, liveWrites); err != nil {
			t.Fatalf("iteration %d: writing with store %d down: %v", it, b.id, err)
		}
		// Most groups led by C, which then streams them snapshots; the
		// rest by A.
		c.placeLeaders(ctx, func(i int) *liveStore {
			if (i+off)%4 == 0 {
				return a
			}
			return cc
		})
		var leaders []string
		for _, g := range c.groups {
			if l := c.leader(g); l != nil {
				leaders = append(leaders, strconv.FormatUint(l.id, 10))
			} else {
				leaders = append(leaders, "-")
			}
		}
		// Every other iteration C's snapshot streams hang after their
		// first chunk: C is certainly in the middle of streaming to B when
		// it stops.
		stall := it%2 == 1
		if stall {
			c.stallFrom.Store(cc.id)
		}
		c.start(b)
		// Zero to three election timeouts, in steps: B gets somewhere
		// between nothing and a few snapshots from C before C goes.
		delay := time.Duration(rng.Intn(7)) * liveElection / 2
		if stall {
			delay = max(delay, liveElection) // long enough for C to start
		}
		time.Sleep(delay)
		stopped := time.Now()
		c.stop(cc)
		c.stallFrom.Store(0)
		took, err := c.checkLiveness(ctx)
		if err != nil {
			t.Errorf("iteration %d (A=%d B=%d C=%d, leaders before restart %v, C stopped %v after B restarted, its snapshot streams stalled: %t): %v",
				it, a.id, b.id, cc.id, leaders, delay, stall, err)
			c.dump(t)
			return
		}
		recoveries = append(recoveries, took)
		worst = max(worst, took)
		t.Logf("iteration %d: A=%d B=%d C=%d leaders %v, C stopped %v after B restarted (its snapshot streams stalled: %t); every group committed %v after C stopped (%v since)",
			it, a.id, b.id, cc.id, leaders, delay, stall, took, time.Since(stopped))
		c.start(cc)
		rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
		if err := c.writeAll(rctx, 1); err != nil {
			rcancel()
			t.Fatalf("iteration %d: writing after restarting C: %v", it, err)
		}
		if err := c.waitReplicated(rctx); err != nil {
			rcancel()
			c.dump(t)
			t.Fatalf("iteration %d: %v", it, err)
		}
		rcancel()
	}
	sort.Slice(recoveries, func(i, j int) bool { return recoveries[i] < recoveries[j] })
	t.Logf("%d iterations: recovery median %v, worst %v (budget %v); snapshot streams cut by their sender stopping: %d",
		iters, recoveries[len(recoveries)/2], worst, c.budget, c.cutStreams.Load())
}

// checkLiveness waits until every group elected a leader among the live
// stores and committed a proposal there, and returns how long the slowest
// group took. A group that needs longer than c.budget fails the check; it
// is given 20 s more to tell slow from stuck, and a stuck one is logged.
func (c *liveCluster) checkLiveness(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	type result struct {
		g    GroupID
		took time.Duration
		err  error
	}
	res := make(chan result, len(c.groups))
	for gi, g := range c.groups {
		k := c.nextK + uint64(gi)
		go func() {
			gctx, cancel := context.WithTimeout(ctx, c.budget+20*time.Second)
			defer cancel()
			err := c.propose(gctx, g, k)
			res <- result{g: g, took: time.Since(start), err: err}
		}()
	}
	c.nextK += uint64(len(c.groups))
	var worst time.Duration
	var slow []string
	for range c.groups {
		r := <-res
		worst = max(worst, r.took)
		if r.err != nil {
			slow = append(slow, fmt.Sprintf("%s: no commit after %v: %v", r.g, r.took.Round(time.Millisecond), r.err))
			c.dumpGroup(r.g)
		} else if r.took > c.budget {
			slow = append(slow, fmt.Sprintf("%s: committed only after %v", r.g, r.took.Round(time.Millisecond)))
		}
	}
	if len(slow) > 0 {
		sort.Strings(slow)
		return worst, fmt.Errorf("groups without a committing leader for more than %v after C stopped:\n  %s", c.budget, strings.Join(slow, "\n  "))
	}
	return worst, nil
}

// dumpGroup logs the raft state of g on every live store.
func (c *liveCluster) dumpGroup(g GroupID) {
	for _, s := range c.live() {
		c.t.Logf("store %d %s: %s", s.id, g, describeGroup(s.engine, g))
	}
}

// dump logs every group's raft state and each live store's recent log.
func (c *liveCluster) dump(t *testing.T) {
	for _, g := range c.groups {
		c.dumpGroup(g)
	}
	for _, s := range c.live() {
		t.Logf("store %d recent log:\n%s", s.id, s.logs.String())
	}
}

// describeGroup renders a replica's raft status, progress included, read on
// its worker.
func describeGroup(e *Engine, id GroupID) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := inspect(ctx, e, id, func(g *group) string {
		st := g.rn.Status()
		first, _ := g.store.FirstIndex()
		last, _ := g.store.LastIndex()
		g.snapMu.Lock()
		var incoming []uint64
		for idx := range g.incoming {
			incoming = append(incoming, idx)
		}
		g.snapMu.Unlock()
		var b strings.Builder
		fmt.Fprintf(&b, "%s term %d lead %d commit %d applied %d (engine %d) trunc %d log [%d,%d] incoming %v",
			st.RaftState, st.GetTerm(), st.Lead, st.GetCommit(), st.Applied, g.applied, g.truncIdx, first, last, incoming)
		ids := make([]uint64, 0, len(st.Progress))
		for id := range st.Progress {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			pr := st.Progress[id]
			fmt.Fprintf(&b, "\n    progress %d: %s match %d next %d pendingSnap %d recentActive %t paused %t",
				id, pr.State, pr.Match, pr.Next, pr.PendingSnapshot, pr.RecentActive, pr.MsgAppFlowPaused)
		}
		return b.String()
	})
	if err != nil {
		return "status: " + err.Error()
	}
	return out
}

// liveSnapshotSender is the in-process snapshot stream with GRPCTransport's
// behaviour: at most maxSnapshotSends at once, streamed in chunks (so a
// transfer takes a while and its sender can stop in the middle), the
// receiver writing an SST file as it goes and handing it to its engine at
// the end; closing the sender cancels its streams and waits for them.
type liveSnapshotSender struct {
	from      uint64
	stallFrom *atomic.Uint64 // see liveCluster.stallFrom
	net       *memNetwork
	cut       *atomic.Int64 // counts streams cut by close
	dirOf     func(uint64) string
	slots     chan struct{}
	stop      chan struct{}
	wg        sync.WaitGroup

	mu     sync.Mutex
	closed bool
	seq    int
}

const (
	liveChunkKeys  = 16
	liveChunkDelay = 2 * time.Millisecond
)

func (s *liveSnapshotSender) SendSnapshot(d *SnapshotData) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		d.Release(false)
		return
	}
	s.seq++
	seq := s.seq
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		select {
		case s.slots <- struct{}{}:
		case <-s.stop:
			d.Release(false)
			return
		}
		defer func() { <-s.slots }()
		d.Release(s.deliver(d, seq) == nil)
	}()
}

func (s *liveSnapshotSender) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.stop)
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *liveSnapshotSender) deliver(d *SnapshotData, seq int) error {
	to := d.Msg.GetTo()
	engineOf := func() *Engine {
		s.net.mu.Lock()
		defer s.net.mu.Unlock()
		if s.net.cut[to] {
			return nil
		}
		return s.net.engines[to]
	}
	dst := engineOf()
	if dst == nil {
		return fmt.Errorf("store %d unreachable", to)
	}
	path := filepath.Join(s.dirOf(to), fmt.Sprintf("%d-%d-%d-%d-%d.sst", d.Group.Space, d.Group.Part, d.Msg.GetSnapshot().GetMetadata().GetIndex(), d.Msg.GetFrom(), seq))
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
	fail := func(err error) error {
		_ = os.Remove(path)
		return err
	}
	for it.Seek(d.Lower); it.Valid(); it.Next() {
		if n == 0 {
			if err := w.Open(path); err != nil {
				return fail(err)
			}
		}
		if err := w.Add(append([]byte(nil), it.Key().Data()...), append([]byte(nil), it.Value().Data()...)); err != nil {
			return fail(err)
		}
		n++
		for n == 1 && s.stallFrom.Load() == s.from {
			select {
			case <-s.stop:
				s.cut.Add(1)
				return fail(errors.New("sender stopped"))
			case <-time.After(liveTick):
			}
		}
		if n%liveChunkKeys == 0 {
			select {
			case <-s.stop:
				s.cut.Add(1)
				return fail(errors.New("sender stopped"))
			case <-time.After(liveChunkDelay):
			}
			if engineOf() != dst {
				return fail(fmt.Errorf("store %d went away mid-stream", to))
			}
		}
	}
	if err := it.Err(); err != nil {
		return fail(err)
	}
	if n == 0 {
		path = ""
	} else if err := w.Finish(); err != nil {
		return fail(err)
	}
	if engineOf() != dst {
		return fail(fmt.Errorf("store %d went away mid-stream", to))
	}
	return dst.StepSnapshot(d.Group, d.Msg, path)
}

// ringHandler keeps a store's last log records for dumps.
type ringHandler struct {
	mu    *sync.Mutex
	lines *[]string
	max   int
	attrs string
	// cut counts GRPCTransport's snapshot streams cancelled by its Close
	// (the sender stopping mid-stream).
	cut *atomic.Int64
}

func newRingHandler(n int, cut *atomic.Int64) *ringHandler {
	return &ringHandler{mu: &sync.Mutex{}, lines: new([]string), max: n, cut: cut}
}

func (h *ringHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *ringHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s%s", r.Time.Format("15:04:05.000"), r.Level, r.Message, h.attrs)

	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		if r.Message == "sending snapshot failed" && a.Key == "err" && strings.Contains(a.Value.String(), "Canceled") {
			h.cut.Add(1)
		}
		return true
	})
	h.mu.Lock()
	*h.lines = append(*h.lines, b.String())
	if len(*h.lines) > h.max {
		*h.lines = append((*h.lines)[:0], (*h.lines)[len(*h.lines)-h.max/2:]...)
	}
	h.mu.Unlock()
	return nil
}

func (h *ringHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	return &ringHandler{mu: h.mu, lines: h.lines, max: h.max, attrs: b.String(), cut: h.cut}
}

func (h *ringHandler) WithGroup(string) slog.Handler { return h }

func (h *ringHandler) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(*h.lines, "\n")
}

// heldSnapshots is a SnapshotTransport that keeps every snapshot until the
// test delivers or fails it, so a test decides when (and in which order)
// the sender hears the outcome.
type heldSnapshots struct {
	from  uint64
	deliv memSnapshots

	mu     sync.Mutex
	sent   []*SnapshotData
	pass   bool // deliver from now on, as memSnapshots does
	closed bool
	wg     sync.WaitGroup
}

func (h *heldSnapshots) SendSnapshot(d *SnapshotData) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		d.Release(false)
	case h.pass:
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			d.Release(h.deliv.deliver(d) == nil)
		}()
	default:
		h.sent = append(h.sent, d)
	}
}

// close fails what is still held and waits for deliveries, so that every
// snapshot is released before the sender's DB closes.
func (h *heldSnapshots) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.wg.Wait()
	for i := range h.count() {
		if h.get(i) != nil {
			_ = h.finish(i, false)
		}
	}
}

// release delivers everything held and whatever comes later.
func (h *heldSnapshots) release() error {
	h.mu.Lock()
	h.pass = true
	h.mu.Unlock()
	for i := range h.count() {
		if h.get(i) != nil {
			if err := h.finish(i, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func (h *heldSnapshots) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sent)
}

func (h *heldSnapshots) get(i int) *SnapshotData {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sent[i]
}

// finish delivers snapshot i (ok) or fails it, and reports the outcome.
func (h *heldSnapshots) finish(i int, ok bool) error {
	d := h.get(i)
	h.mu.Lock()
	h.sent[i] = nil
	h.mu.Unlock()
	if d == nil {
		return fmt.Errorf("snapshot %d of store %d already finished", i, h.from)
	}
	var err error
	if ok {
		err = h.deliv.deliver(d)
	}
	d.Release(ok && err == nil)
	return err
}

// progressOf returns the leader's raft progress of follower `to`.
func progressOf(t *testing.T, e *Engine, g GroupID, to uint64) (raft.StateType, tracker.Progress) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	type stateProgress struct {
		state raft.StateType
		pr    tracker.Progress
	}
	sp, err := inspect(ctx, e, g, func(g *group) stateProgress {
		st := g.rn.Status()
		return stateProgress{st.RaftState, st.Progress[to]}
	})
	if err != nil {
		t.Fatal(err)
	}
	return sp.state, sp.pr
}

// A snapshot report says only "to whom" and "ok or not"; raft applies it to
// whatever snapshot it currently waits for. The outcome of a snapshot sent
// in an earlier term (or superseded) must not end the wait for the one in
// flight now: a stale failure would make the leader send yet another
// snapshot while the current one is still streaming, and a stale success
// would make it probe the log as if the current one had arrived.
func TestStaleSnapshotReportIgnored(t *testing.T) {
	net := newMemNetwork()
	g := GroupID{22, 1}
	held := map[uint64]*heldSnapshots{}
	dirs := map[uint64]string{}
	stores := make([]*testStore, 3)
	for i := range stores {
		id := uint64(i + 1)
		dirs[id] = t.TempDir()
		held[id] = &heldSnapshots{from: id, deliv: memSnapshots{net: net, dirs: dirs}}
		stores[i] = &testStore{id: id, dir: t.TempDir(), tweak: func(c *Config) {
			c.SnapshotTransport = held[id]
			c.MaxLogEntries, c.LogCatchUpEntries = 3, 1
		}}
		stores[i].start(t, net, []GroupID{g}, []uint64{1, 2, 3})
	}
	defer func() {
		for _, h := range held {
			h.close()
		}
		for _, s := range stores {
			if s.engine != nil {
				s.stop(net)
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := propose(ctx, stores, g, 0, "v0"); err != nil {
		t.Fatal(err)
	}
	// Keep the leader on store 1 and take store 3 down while the log moves
	// past it.
	if l := leaderOf(stores, g); l.id != 1 {
		if err := l.engine.TransferLeadership(ctx, g, 1); err != nil {
			t.Fatal(err)
		}
	}
	lead, other, behind := stores[0], stores[1], stores[2]
	behind.stop(net)
	behind.engine = nil
	for k := uint64(1); k <= 20; k++ {
		if err := propose(ctx, stores, g, k, fmt.Sprintf("v%d", k)); err != nil {
			t.Fatal(err)
		}
	}
	behind.start(t, net, []GroupID{g}, []uint64{1, 2, 3})
	waitSends := func(h *heldSnapshots, n int) {
		t.Helper()
		for ctx.Err() == nil && h.count() < n {
			time.Sleep(5 * time.Millisecond)
		}
		if h.count() < n {
			t.Fatalf("store %d sent %d snapshots, want %d", h.from, h.count(), n)
		}
	}
	waitSends(held[1], 1) // S1, term T1
	first := held[1].get(0)
	// Leadership goes to store 2 and back: store 1 leads again in a later
	// term and sends store 3 a new snapshot, S2, while S1 is still out.
	if err := lead.engine.TransferLeadership(ctx, g, other.id); err != nil {
		t.Fatal(err)
	}
	if err := propose(ctx, stores, g, 21, "v21"); err != nil {
		t.Fatal(err)
	}
	if err := other.engine.TransferLeadership(ctx, g, lead.id); err != nil {
		t.Fatal(err)
	}
	if err := propose(ctx, stores, g, 22, "v22"); err != nil {
		t.Fatal(err)
	}
	waitSends(held[1], 2)
	second := held[1].get(1)
	if first.Msg.GetTerm() == second.Msg.GetTerm() {
		t.Fatalf("both snapshots were sent in term %d", first.Msg.GetTerm())
	}
	if _, pr := progressOf(t, lead.engine, g, behind.id); pr.State != tracker.StateSnapshot || pr.PendingSnapshot != second.Msg.GetSnapshot().GetMetadata().GetIndex() {
		t.Fatalf("leader's progress of store %d is %s, want StateSnapshot pending %d", behind.id, pr.String(), second.Msg.GetSnapshot().GetMetadata().GetIndex())
	}
	// S1, from the earlier term, fails late: the leader must keep waiting
	// for S2 and not start a third snapshot.
	if err := held[1].finish(0, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * 10 * time.Millisecond) // twenty heartbeats
	if n := held[1].count(); n != 2 {
		t.Fatalf("a stale failure report made the leader send another snapshot (%d sent) while the current one was in flight", n)
	}
	if _, pr := progressOf(t, lead.engine, g, behind.id); pr.State != tracker.StateSnapshot || pr.PendingSnapshot != second.Msg.GetSnapshot().GetMetadata().GetIndex() {
		t.Fatalf("after a stale report the leader's progress of store %d is %s, want StateSnapshot pending %d", behind.id, pr.String(), second.Msg.GetSnapshot().GetMetadata().GetIndex())
	}
	// S2 arrives (and any later one): store 3 catches up and follows the
	// log again.
	for _, h := range held {
		if err := h.release(); err != nil {
			t.Fatal(err)
		}
	}
	if err := propose(ctx, stores, g, 23, "v23"); err != nil {
		t.Fatal(err)
	}
	for ctx.Err() == nil && behind.read(t, g, 23) != "v23" {
		time.Sleep(10 * time.Millisecond)
	}
	if got := behind.read(t, g, 23); got != "v23" {
		for _, s := range stores {
			t.Logf("store %d: %s", s.id, describeGroup(s.engine, g))
		}
		for id, h := range held {
			t.Logf("store %d sent %d held snapshots", id, h.count())
		}
		for _, s := range stores {
			t.Logf("store %d engine failure: %v", s.id, s.engine.Failed())
		}
		t.Fatalf("store %d did not catch up after the current snapshot arrived: key 23 = %q", behind.id, got)
	}
}

// recordedSnapshots records sends and releases them at the end.
type recordedSnapshots struct {
	mu   sync.Mutex
	sent []*SnapshotData
}

func (r *recordedSnapshots) SendSnapshot(d *SnapshotData) {
	r.mu.Lock()
	r.sent = append(r.sent, d)
	r.mu.Unlock()
}

// When raft asks for two snapshots in one round (two followers behind the
// log: a restarted one and a new learner, say), both are at the applied
// index. Each needs a RocksDB snapshot of its own, since each transfer
// releases its own; the second must not fail for want of one.
func TestTwoSnapshotsOfOneIndexInOneRound(t *testing.T) {
	db := openTestDB(t, t.TempDir())
	defer db.Close()
	rec := &recordedSnapshots{}
	e := NewEngine(Config{StoreID: 1, Transport: memTransport{newMemNetwork(), 1}, Applier: kvApplier{}, SnapshotTransport: rec})
	id := GroupID{23, 1}
	if err := e.AddGroup(id, db, []uint64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	g := e.group(id)
	// What raft does for each follower that needs a snapshot: take one
	// (logStore.Snapshot), then emit a MsgSnap with it in the Ready.
	var msgs []*rpb.Message
	for _, to := range []uint64{2, 3} {
		snap, err := g.store.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, &rpb.Message{Type: rpb.MessageType_MsgSnap.Enum(), From: new(uint64(1)), To: new(to), Term: new(uint64(initialTerm)), Snapshot: snap})
	}
	for _, m := range msgs {
		e.sendSnapshot(g, m)
	}
	g.releaseOutgoing()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.sent) != 2 {
		t.Fatalf("%d of 2 snapshots of one index went to the transport", len(rec.sent))
	}
	if rec.sent[0].Snap == rec.sent[1].Snap {
		t.Fatal("two transfers share one RocksDB snapshot (each releases it)")
	}
	for _, d := range rec.sent {
		d.DB.ReleaseSnapshot(d.Snap)
	}
}
