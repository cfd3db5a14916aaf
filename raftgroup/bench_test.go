package raftgroup

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/proto/raftmsgpb"
)

// BenchmarkProposals measures committed proposals per second and proposal
// latency on a 3-store cluster: three Engines in this process, each with its
// own RocksDB in a temp dir (real fsync), talking through the real
// GRPCTransport over loopback. It runs every combination of
//
//	groups           1, 16, 256 (leaders spread evenly over the stores)
//	batchedWrite     true: one WriteBatch+sync per DB per round;
//	                 false: Config.SeparateWrites, one per group
//	batchedTransport true: up to 512 messages per stream send;
//	                 false: TransportOptions{MaxBatch: 1}
//
// Each operation is one proposal of a 64-byte value through kvApplier, from
// benchProposers concurrent proposers (round-robin over the groups, each to
// the group's leader, following NotLeaderError hints), timed from the first
// attempt until Propose returns (applied on the leader). -benchtime sets the
// proposal count (-benchtime=20000x) or the duration (-benchtime=5s); the
// cluster is built once per case either way (b.Loop). Reported:
//
//	proposals/s       completed proposals / wall time (including the drain of
//	                  the last in-flight proposals; ns/op is its inverse)
//	p50-ms, p99-ms    proposal latency percentiles
//	fsyncs/op         synced RocksDB writes on all three stores per proposal
//	groups/round      Readies persisted per engine round (what one write covers)
//	msgs/send         raft messages per gRPC stream message received
//
// Run it (docs/benchmarks.md has the figures):
//
//	go test ./raftgroup -run '^$' -bench BenchmarkProposals -benchtime=20000x
func BenchmarkProposals(b *testing.B) {
	for _, groups := range []int{1, 16, 256} {
		for _, batchedWrite := range []bool{true, false} {
			for _, batchedTransport := range []bool{true, false} {
				name := fmt.Sprintf("groups=%d/batchedWrite=%t/batchedTransport=%t", groups, batchedWrite, batchedTransport)
				b.Run(name, func(b *testing.B) {
					benchProposals(b, groups, batchedWrite, batchedTransport)
				})
			}
		}
	}
}

const (
	benchStores    = 3
	benchProposers = 64
	benchValueSize = 64
	benchTimeout   = 30 * time.Second // per proposal, retries included
)

// benchStore is one store of the benchmark cluster.
type benchStore struct {
	id        uint64
	db        *grocksdb.DB
	engine    *Engine
	transport *GRPCTransport
	server    *grpc.Server
}

// benchCluster is three stores wired by GRPCTransport over loopback.
type benchCluster struct {
	stores  []*benchStore
	groups  []GroupID
	leaders []atomic.Uint64 // per group: the store id proposals go to
	started bool
	// Counted on the receiving side: stream messages and raft messages.
	batches, msgs atomic.Uint64
}

func openBenchDB(b *testing.B) *grocksdb.DB {
	b.Helper()
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	defer opts.Destroy()
	db, err := grocksdb.OpenDb(opts, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func startBenchCluster(b *testing.B, nGroups int, batchedWrite, batchedTransport bool) *benchCluster {
	b.Helper()
	logger := slog.New(slog.DiscardHandler)
	c := &benchCluster{leaders: make([]atomic.Uint64, nGroups)}
	for i := range nGroups {
		c.groups = append(c.groups, GroupID{Space: 1, Part: int32(i + 1)})
	}
	listeners := make([]net.Listener, benchStores)
	addrs := make(map[uint64]string, benchStores)
	for i := range listeners {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		listeners[i] = lis
		addrs[uint64(i+1)] = lis.Addr().String()
	}
	resolve := func(id uint64) (string, bool) {
		addr, ok := addrs[id]
		return addr, ok
	}
	topts := TransportOptions{}
	if !batchedTransport {
		topts.MaxBatch = 1
	}
	for i := range benchStores {
		s := &benchStore{id: uint64(i + 1), db: openBenchDB(b)}
		s.transport = NewGRPCTransport(s.id, resolve, logger, topts)
		s.engine = NewEngine(Config{
			StoreID:        s.id,
			Transport:      s.transport,
			Applier:        kvApplier{},
			Logger:         logger,
			SeparateWrites: !batchedWrite,
		})
		s.transport.SetEngine(s.engine)
		s.server = grpc.NewServer()
		raftmsgpb.RegisterRaftServiceServer(s.server, &countingRaftServer{inner: NewServer(s.id, s.engine, nil, logger), c: c})
		go func(lis net.Listener) { _ = s.server.Serve(lis) }(listeners[i])
		c.stores = append(c.stores, s)
	}
	b.Cleanup(c.stop)

	// Create the replicas, the stores in parallel (each creation is a synced
	// write). The voter list is rotated per group so that its first voter,
	// which campaigns at once, and hence the leaders, are spread evenly over
	// the stores as a balanced cluster would have them.
	errs := make(chan error, benchStores)
	for _, s := range c.stores {
		go func() {
			for i, g := range c.groups {
				voters := make([]uint64, benchStores)
				for j := range voters {
					voters[j] = uint64((i+j)%benchStores + 1)
				}
				if err := s.engine.AddGroup(g, s.db, voters); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range c.stores {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	for _, s := range c.stores {
		s.engine.Start()
	}
	c.started = true
	c.waitLeaders(b)
	return c
}

// waitLeaders returns once every group has a leader that all three stores
// agree on and that knows it leads.
func (c *benchCluster) waitLeaders(b *testing.B) {
	b.Helper()
	deadline := time.Now().Add(benchTimeout)
	for i, g := range c.groups {
		for {
			if l := c.agreedLeader(g); l != 0 {
				c.leaders[i].Store(l)
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s: no leader after %v", g, benchTimeout)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func (c *benchCluster) agreedLeader(g GroupID) uint64 {
	var leader uint64
	for _, s := range c.stores {
		l, _, ok := s.engine.Leader(g)
		if !ok || l == 0 || (leader != 0 && l != leader) {
			return 0
		}
		leader = l
	}
	if l, _, _ := c.stores[leader-1].engine.Leader(g); l != leader {
		return 0
	}
	return leader
}

// proposeErrors counts the retries of one run.
type proposeErrors struct {
	notLeader, other atomic.Uint64
}

// propose sends key k with a 64-byte value to group i's leader and retries
// until it is applied there. Retrying after an ambiguous outcome is safe: the
// command is a blind put.
func (c *benchCluster) propose(ctx context.Context, i int, k uint64, errs *proposeErrors) error {
	cmd := make([]byte, 8, 8+benchValueSize)
	binary.BigEndian.PutUint64(cmd, k)
	for range benchValueSize {
		cmd = append(cmd, byte('a'+k%26))
	}
	g := c.groups[i]
	for {
		leader := c.leaders[i].Load()
		err := c.stores[leader-1].engine.Propose(ctx, g, cmd)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		if nl, ok := AsNotLeader(err); ok {
			errs.notLeader.Add(1)
			next := nl.Leader
			if next == 0 {
				next = leader%benchStores + 1
				time.Sleep(5 * time.Millisecond) // election under way
			}
			c.leaders[i].CompareAndSwap(leader, next)
			continue
		}
		if errors.Is(err, ErrStopped) || errors.Is(err, ErrGroupNotFound) {
			return err
		}
		errs.other.Add(1) // ErrAmbiguous: leadership moved
		time.Sleep(5 * time.Millisecond)
	}
}

// stats sums the counters of the three engines.
func (c *benchCluster) stats() Stats {
	var t Stats
	for _, s := range c.stores {
		st := s.engine.Stats()
		t.Rounds += st.Rounds
		t.Syncs += st.Syncs
		t.GroupsReady += st.GroupsReady
	}
	return t
}

func (c *benchCluster) stop() {
	for _, s := range c.stores {
		s.server.Stop()
	}
	for _, s := range c.stores {
		s.transport.Close()
	}
	for _, s := range c.stores {
		if c.started {
			s.engine.Stop()
		}
		s.db.Close()
	}
}

// countingRaftServer wraps the RaftService to count what arrives.
type countingRaftServer struct {
	raftmsgpb.UnimplementedRaftServiceServer
	inner *Server
	c     *benchCluster
}

func (s *countingRaftServer) Send(stream grpc.ClientStreamingServer[raftmsgpb.MessageBatch, raftmsgpb.BatchAck]) error {
	return s.inner.Send(countingStream{stream, s.c})
}

type countingStream struct {
	grpc.ClientStreamingServer[raftmsgpb.MessageBatch, raftmsgpb.BatchAck]
	c *benchCluster
}

func (s countingStream) Recv() (*raftmsgpb.MessageBatch, error) {
	batch, err := s.ClientStreamingServer.Recv()
	if err == nil {
		s.c.batches.Add(1)
		s.c.msgs.Add(uint64(len(batch.Messages)))
	}
	return batch, err
}

func benchProposals(b *testing.B, nGroups int, batchedWrite, batchedTransport bool) {
	c := startBenchCluster(b, nGroups, batchedWrite, batchedTransport)
	ctx := context.Background()
	var (
		errMu    sync.Mutex
		firstErr error
		failed   int
	)
	fail := func(err error) {
		errMu.Lock()
		if failed++; firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
	}

	// Warm up: one proposal per group, so every stream is connected and
	// every leader has committed an entry of its term.
	var wg sync.WaitGroup
	warm := make(chan int)
	var warmErrs proposeErrors
	for range benchProposers {
		wg.Go(func() {
			for i := range warm {
				pctx, cancel := context.WithTimeout(ctx, benchTimeout)
				if err := c.propose(pctx, i, 0, &warmErrs); err != nil {
					fail(err)
				}
				cancel()
			}
		})
	}
	for i := range c.groups {
		warm <- i
	}
	close(warm)
	wg.Wait()
	if failed > 0 {
		b.Fatalf("%d warm-up proposals failed, first: %v", failed, firstErr)
	}

	before := c.stats()
	batchesBefore, msgsBefore := c.batches.Load(), c.msgs.Load()
	work := make(chan uint64)
	lats := make([][]time.Duration, benchProposers)
	var errs proposeErrors
	for p := range benchProposers {
		wg.Go(func() {
			for k := range work {
				start := time.Now()
				pctx, cancel := context.WithTimeout(ctx, benchTimeout)
				err := c.propose(pctx, int(k%uint64(nGroups)), k, &errs)
				cancel()
				if err != nil {
					fail(err)
					continue
				}
				lats[p] = append(lats[p], time.Since(start))
			}
		})
	}
	start := time.Now()
	var n uint64
	for b.Loop() {
		work <- n
		n++
	}
	close(work)
	wg.Wait()
	wall := time.Since(start)
	if failed > 0 {
		b.Fatalf("%d of %d proposals failed, first: %v", failed, n, firstErr)
	}

	all := slices.Concat(lats...)
	slices.Sort(all)
	pct := func(q float64) float64 {
		return float64(all[int(q*float64(len(all)-1))]) / float64(time.Millisecond)
	}
	after := c.stats()
	b.ReportMetric(float64(wall.Nanoseconds())/float64(n), "ns/op")
	b.ReportMetric(float64(n)/wall.Seconds(), "proposals/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(after.Syncs-before.Syncs)/float64(n), "fsyncs/op")
	if r := after.Rounds - before.Rounds; r > 0 {
		b.ReportMetric(float64(after.GroupsReady-before.GroupsReady)/float64(r), "groups/round")
	}
	if bt := c.batches.Load() - batchesBefore; bt > 0 {
		b.ReportMetric(float64(c.msgs.Load()-msgsBefore)/float64(bt), "msgs/send")
	}
	if nl, o := errs.notLeader.Load(), errs.other.Load(); nl+o > 0 {
		b.Logf("retries during the run: %d not-leader, %d ambiguous/other", nl, o)
	}
}
