// Package storaged is the storage daemon: it hosts partition replicas, each
// a raft group (raftgroup) over one of its RocksDB instances, and serves the
// StorageService and the raft transport on one gRPC port.
package storaged

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/grpcserve"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/internal/rocksopts"

	"github.com/linxGnu/grocksdb"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/metad/catalog"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/raftmsgpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// DefaultRaftEntryCacheBytes is Config.RaftEntryCacheBytes's default.
const DefaultRaftEntryCacheBytes = raftgroup.DefaultEntryCacheBytes

// maxStreamsPerConn caps the concurrent calls one client connection may
// have open (grpcserve.Options): graphd sends one request per host and
// step of each running query, a peer one raft stream and a snapshot or two.
const maxStreamsPerConn = 4096

// Config configures a storaged.
type Config struct {
	ListenAddr        string   // gRPC for storage and raft, e.g. 127.0.0.1:9779 (port 0 in tests)
	DataPaths         []string // one RocksDB per path
	MetaAddrs         []string
	Zone              string        // zone label for placement (BALANCE DATA); "" for none
	RaftTick          time.Duration // default 100ms
	HeartbeatInterval time.Duration // default 1s
	// HeartbeatTimeout bounds one heartbeat; default 5s. It is longer than
	// the interval on purpose: a heartbeat that a loaded metad answers late
	// still renews the lease as long as it lands within metad's host TTL
	// (10s by default), while giving up early would take the host offline,
	// move its leaders away and load metad further.
	HeartbeatTimeout time.Duration
	Logger           *slog.Logger
	Registry         prometheus.Registerer // optional: where metrics go
	// MaxLogEntries and LogCatchUpEntries set raft log truncation (see
	// raftgroup.Config); zero means the engine's defaults.
	MaxLogEntries, LogCatchUpEntries int
	MaxLogBytes                      int64
	LogIdleTruncateAfter             time.Duration // raftgroup.Config.LogIdleTruncateAfter
	// RaftEntryCacheBytes bounds the raft log entries kept in memory, all
	// partitions together (raftgroup.Config.EntryCacheBytes: 0 the default
	// DefaultRaftEntryCacheBytes; < 0 none). Older entries are read from
	// RocksDB.
	RaftEntryCacheBytes int64
	// DegreeCacheEntries bounds the vertex degrees the raft apply keeps in
	// memory, all partitions together (raftgroup.Config.ApplyCacheEntries:
	// 0 the default of 1Mi, about 100 MB; < 0 none).
	DegreeCacheEntries int
	// MirrorWait bounds how long an edge write waits for the other halves
	// of its edges before it is acknowledged anyway (default 10s).
	MirrorWait time.Duration
	// RequestPartWorkers bounds how many partitions of one storage request
	// run at once (service.forEachPart; 0: DefaultRequestPartWorkers).
	RequestPartWorkers int
	// RocksDB tunes the RocksDB instance of each data path (block cache,
	// memtables, compression, blooms, compaction rate); zero fields take
	// rocksopts.Default.
	RocksDB rocksopts.Options
	// TLS is this storaged's certificate and CAs: mutual TLS on its port
	// and to its peers, metad and the stores it writes to, each method
	// open only to the roles of storaged's policy (authz.go). nil:
	// plaintext, open to whoever reaches the port.
	TLS *nodetls.Config
	// WrapTransport, if set, wraps the raft transport: fault-injection tests
	// use it to drop, delay, reorder and partition raft messages.
	WrapTransport func(storeID uint64, inner raftgroup.Transport) raftgroup.Transport
	// GossipAddr, if set, is the host:port this store gossips on
	// (memberlist, package gossip; port 0 picks one), and GossipSeeds the
	// gossip addresses of peers to join. The store's own storage client
	// (edge mirrors, forwarded deletes) then routes around stores gossip
	// suspects, as graphd's does.
	GossipAddr  string
	GossipSeeds []string
	// GossipKeys is the gossip keyring (gossip.Config.Keys); empty:
	// plaintext gossip.
	GossipKeys [][]byte
	// DiskReserve is the full-disk threshold and ballast size in bytes
	// (diskguard.go): a data path with less free is full, and this store
	// refuses writes to the partitions it leads there and moves their
	// leadership away. 0 disables the guard (the daemon's default is
	// DefaultDiskReserve).
	DiskReserve int64
	// DiskPollInterval is how often free space is measured (default
	// DefaultDiskPollInterval).
	DiskPollInterval time.Duration
	// DiskFree measures a data path's free bytes (default StatfsFree);
	// tests inject one to simulate a full disk.
	DiskFree DiskFreeFunc
	// AdjacencyCacheBytes bounds the edges and tag rows of unwritten
	// partitions held in memory for reads, all partitions together
	// (adjacency.go; 0: the default, DefaultAdjacencyCacheBytes: a quarter
	// of the memory the process may use; < 0: no cache). AdjacencyQuiet is how
	// long a partition must go unwritten before it is cached (0: the
	// default DefaultAdjacencyQuiet).
	AdjacencyCacheBytes int64
	AdjacencyQuiet      time.Duration
}

// Server is one storaged.
type Server struct {
	cfg Config
	log *slog.Logger
	// healthDown turns the gRPC health service to NOT_SERVING before the
	// server stops (grpcserve.RegisterStandard); set by Start.
	healthDown func()
	// sstOptions writes SST files as the store's own (raft snapshots,
	// snapshot exports); set by Start.
	sstOptions raftgroup.SSTOptions
	dbs        []*grocksdb.DB
	meta       *metaclient.Client
	storeID    uint64
	addr       string

	engine    *raftgroup.Engine
	transport *raftgroup.GRPCTransport
	grpc      *grpc.Server
	lis       net.Listener

	metrics   *metrics
	resolver  *resolver       // edge-pair intents (pair.go)
	adjacency *adjacencyCache // nil until Start, and when disabled
	gossip    *gossip.Node    // nil without Config.GossipAddr

	guard *diskGuard // nil when Config.DiskReserve is 0
	// shed is the leadership shedding of partitions on full disks; only
	// the guard's goroutine touches it.
	shed  map[raftgroup.GroupID]*shedState
	fatal chan error // Fatal

	mu      sync.Mutex
	groupDB map[raftgroup.GroupID]*grocksdb.DB
	healthy error

	// dbLife and dbsClosed let SpaceBytes and the RocksDB memory
	// collector (metrics scrapes, which may come during start and stop)
	// read the RocksDB instances without racing Start and closeDBs.
	dbLife    sync.RWMutex
	dbsClosed bool

	// fetchCtx bounds fetches of staged SST files from peers
	// (stagedfetch.go), which run on goroutines counted in fetchWG and
	// start, under fetchMu, only while fetchCtx is live: stop cancels it,
	// then, once the engine (which starts them) is stopped, waits.
	fetchCtx    context.Context
	fetchCancel context.CancelFunc
	fetchWG     sync.WaitGroup
	// slowFetch, in tests, wraps the download of a staged file.
	slowFetch   func(download stagedDownload) stagedDownload
	fetchMu     sync.Mutex
	fetching    map[string]*stagedFetch // by space/part/file: fetches running
	fetchFailed map[string]fetchFailure // by space/part/file: the last failed fetch

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a storaged that is not yet started.
func New(cfg Config) *Server {
	if cfg.RaftTick == 0 {
		cfg.RaftTick = 100 * time.Millisecond
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = time.Second
	}
	if cfg.HeartbeatTimeout == 0 {
		cfg.HeartbeatTimeout = 5 * time.Second
	}
	if cfg.MirrorWait == 0 {
		cfg.MirrorWait = defaultMirrorWait
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.DiskPollInterval <= 0 {
		cfg.DiskPollInterval = DefaultDiskPollInterval
	}
	if cfg.AdjacencyCacheBytes == 0 {
		cfg.AdjacencyCacheBytes = DefaultAdjacencyCacheBytes()
	}
	if cfg.AdjacencyQuiet <= 0 {
		cfg.AdjacencyQuiet = DefaultAdjacencyQuiet
	}
	s := &Server{cfg: cfg, log: cfg.Logger, groupDB: map[raftgroup.GroupID]*grocksdb.DB{}, healthy: errors.New("starting"), metrics: newMetrics(),
		shed: map[raftgroup.GroupID]*shedState{}, fatal: make(chan error, 1), fetching: map[string]*stagedFetch{}, fetchFailed: map[string]fetchFailure{}}
	s.fetchCtx, s.fetchCancel = context.WithCancel(context.Background())
	if cfg.Registry != nil {
		s.metrics.register(cfg.Registry, func() *raftgroup.Engine {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.engine
		})
		s.metrics.registerAdjacency(cfg.Registry, func() *adjacencyCache {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.adjacency
		})
		s.metrics.registerResolver(cfg.Registry, func() *resolver {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.resolver
		})
		cfg.Registry.MustRegister(newSpaceBytesCollector(s), newRocksMemoryCollector(s), newRocksStatsCollector(s))
	}
	return s
}

// Start opens the data paths, registers with metad and serves. It returns
// once the store is registered and listening; partitions open as the
// catalog assigns them.
func (s *Server) Start(ctx context.Context) error {
	if len(s.cfg.DataPaths) == 0 {
		return errors.New("storaged: at least one --data-path is required")
	}
	rocks, err := s.cfg.RocksDB.WithDefaults()
	if err != nil {
		return err
	}
	if err := s.WaitForDiskSpace(ctx); err != nil {
		return err
	}
	if s.cfg.DiskReserve > 0 {
		s.guard = newDiskGuard(s.cfg.DataPaths, uint64(s.cfg.DiskReserve), s.cfg.DiskPollInterval, s.cfg.DiskFree, s.log, s.metrics)
		s.guard.whileFull = s.shedLeaders
		s.guard.fullEnded = func() { clear(s.shed) }
		if err := s.guard.prepare(); err != nil {
			return err
		}
	}
	cache := rocksopts.NewBlockCache(rocks) // one per process; each instance holds a reference
	for _, p := range s.cfg.DataPaths {
		db, err := openDB(p, rocks, cache)
		if err != nil {
			cache.Destroy()
			s.closeDBs()
			return err
		}
		s.dbLife.Lock() // a metrics scrape may read s.dbs already
		s.dbs = append(s.dbs, db)
		s.dbLife.Unlock()
	}
	cache.Destroy()
	lis, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		s.closeDBs()
		return fmt.Errorf("storaged: listening on %s: %w", s.cfg.ListenAddr, err)
	}
	s.lis = lis
	s.addr = serviceAddr(s.cfg.ListenAddr, lis.Addr())
	if err := checkServiceAddr(s.addr); err != nil {
		lis.Close()
		s.closeDBs()
		return fmt.Errorf("storaged: --addr %s: %w", s.cfg.ListenAddr, err)
	}
	s.meta = metaclient.New(s.cfg.MetaAddrs, s.log, metaclient.WithTLS(s.cfg.TLS))
	host, portStr, _ := net.SplitHostPort(s.addr)
	port, _ := strconv.Atoi(portStr)
	storeID, err := s.register(ctx, host, int32(port))
	if err != nil {
		s.meta.Close()
		lis.Close()
		s.closeDBs()
		return err
	}
	s.storeID = storeID
	// The raft engine tags its own lines with the store; it gets the
	// logger from before this one does, or every line would say it twice.
	untagged := s.log
	s.log = s.log.With("store", storeID)
	if s.guard != nil {
		s.guard.log = s.log // its goroutine starts below
	}

	s.transport = raftgroup.NewGRPCTransport(storeID, func(id uint64) (string, bool) {
		return s.meta.Catalog().HostAddr(id)
	}, s.log, raftgroup.TransportOptions{TLS: s.cfg.TLS})
	var transport raftgroup.Transport = s.transport
	var snapshots raftgroup.SnapshotTransport = s.transport
	if s.cfg.WrapTransport != nil {
		transport = s.cfg.WrapTransport(storeID, transport)
		// A wrapper that also carries snapshots (the fault network) sees
		// them too, so a partition cuts snapshot streams as well.
		if st, ok := transport.(raftgroup.SnapshotTransport); ok {
			snapshots = st
		}
	}
	engine := raftgroup.NewEngine(raftgroup.Config{
		StoreID:              storeID,
		TickInterval:         s.cfg.RaftTick,
		Transport:            transport,
		SnapshotTransport:    snapshots,
		MaxLogEntries:        s.cfg.MaxLogEntries,
		LogCatchUpEntries:    s.cfg.LogCatchUpEntries,
		MaxLogBytes:          s.cfg.MaxLogBytes,
		LogIdleTruncateAfter: s.cfg.LogIdleTruncateAfter,
		EntryCacheBytes:      s.cfg.RaftEntryCacheBytes,
		Applier:              applier{store: storeID, fetchStaged: s.fetchStaged},
		// Every edge write reads and rewrites its vertices' degrees.
		ApplyCacheKey:     func(k []byte) bool { return partition.IsDegreeKey(k) || partition.IsVersionBaseKey(k) },
		ApplyCacheEntries: s.cfg.DegreeCacheEntries,
		Logger:            untagged,
	})
	var adjacency *adjacencyCache
	if s.cfg.AdjacencyCacheBytes > 0 {
		adjacency = newAdjacencyCache(engine.Applied, s.cfg.AdjacencyCacheBytes, s.cfg.AdjacencyQuiet, s.log)
	}
	s.mu.Lock()
	s.engine = engine
	s.adjacency = adjacency
	s.mu.Unlock()
	s.transport.SetEngine(engine)
	engine.Start()
	go s.watchEngine(engine)

	// WaitForHandlers: Stop must not return while a handler still reads a
	// RocksDB that Stop closes next.
	// NumStreamWorkers: requests run on reused goroutines, whose stacks
	// have grown already (a fresh goroutine per request grew its stack
	// for every small read; busy workers fall back to a new goroutine).
	// grpcserve.Options: panic recovery and a stream cap per connection,
	// far above what graphd's requests (one per host and step of a query)
	// and the raft streams (one per peer) use.
	// With TLS the policy's interceptors run after recovery, before the
	// metrics: a refused call is not a storage request.
	opts := append(grpcserve.Options(s.log, maxStreamsPerConn), grpc.Creds(s.cfg.TLS.ServerCredentials(nodetls.RequireClientCert)))
	opts = append(opts, s.cfg.TLS.ServerOptions(policy)...)
	s.grpc = grpc.NewServer(append(opts,
		grpc.MaxRecvMsgSize(64<<20), grpc.ChainUnaryInterceptor(s.metrics.interceptor), grpc.WaitForHandlers(true), raftgroup.ServerKeepalive(),
		grpc.NumStreamWorkers(uint32(4*runtime.GOMAXPROCS(0))))...)
	var check raftgroup.PeerCheck
	if s.cfg.TLS.Enabled() {
		check = s.peerCheck
	}
	storagepb.RegisterStorageServiceServer(s.grpc, &service{srv: s})
	raftmsgpb.RegisterRaftServiceServer(s.grpc, raftgroup.NewServer(storeID, engine, check, s.log))
	// Received snapshots are staged next to the first data path's RocksDB,
	// so ingesting them there is a move.
	s.sstOptions = s.snapshotSSTOptions(rocks)
	snaps, err := raftgroup.NewSnapshotServer(storeID, engine, filepath.Join(s.cfg.DataPaths[0], "snapshots"), s.sstOptions, check, s.log)
	if err != nil {
		s.grpc.Stop()
		lis.Close()
		s.transport.Close()
		engine.Stop()
		s.meta.Close()
		s.closeDBs()
		return err
	}
	raftmsgpb.RegisterRaftSnapshotServiceServer(s.grpc, snaps)
	storagepb.RegisterStorageAdminServiceServer(s.grpc, &adminService{srv: s})
	s.healthDown = grpcserve.RegisterStandard(s.grpc, s.Healthy)
	go func() {
		if err := s.grpc.Serve(lis); err != nil {
			s.log.Error("grpc server stopped", "err", err)
		}
	}()

	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	sc := storageclient.New(s.meta, s.log)
	if s.cfg.GossipAddr != "" {
		node, err := gossip.Start(gossip.Config{
			Role: "storaged", ServiceAddr: s.addr, BindAddr: s.cfg.GossipAddr, Seeds: s.cfg.GossipSeeds, Keys: s.cfg.GossipKeys,
			Logger: s.log.With("component", "gossip"),
		})
		if err != nil {
			cancel()
			s.grpc.Stop()
			s.transport.Close()
			engine.Stop()
			s.meta.Close()
			s.closeDBs()
			return fmt.Errorf("storaged: %w", err)
		}
		s.gossip = node
		sc.SetSuspicion(node.Suspected)
	}
	s.mu.Lock()
	s.resolver = newResolver(runCtx, s, sc)
	s.mu.Unlock()
	s.wg.Add(3)
	go s.reconcileLoop(runCtx)
	go s.heartbeatLoop(runCtx)
	go func() {
		defer s.wg.Done()
		s.resolver.run(runCtx)
	}()
	if s.guard != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.guard.run(runCtx)
		}()
	}
	s.mu.Lock()
	s.healthy = nil
	s.mu.Unlock()
	s.log.Info("storaged started", "addr", s.addr, "data_paths", s.cfg.DataPaths)
	return nil
}

// register retries until metad assigns this host its store id.
func (s *Server) register(ctx context.Context, host string, port int32) (uint64, error) {
	backoff := 100 * time.Millisecond
	for {
		id, _, err := s.meta.RegisterHostInZone(ctx, &commonpb.HostAddr{Host: host, Port: port}, s.cfg.Zone)
		if err == nil {
			return id, nil
		}
		s.log.Warn("registering with metad", "err", err)
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("storaged: registering with metad %v: %w", s.cfg.MetaAddrs, err)
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

// Addr is the gRPC address this store serves on.
func (s *Server) Addr() string { return s.addr }

// serviceAddr is the address a store registers in metad (its identity
// there: host_addrs/<host:port> holds its store id) and gossips: the
// listen address's host as given when it is a name, so that a store whose
// IP changes on a restart, as a container's or a Kubernetes pod's does,
// comes back as the same host; otherwise the address bound (which fills in
// port 0).
func serviceAddr(listen string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil || host == "" || net.ParseIP(host) != nil {
		return bound.String()
	}
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		return bound.String()
	}
	return net.JoinHostPort(host, port)
}

// checkServiceAddr refuses a wildcard address as a store's identity:
// every store started with --addr 0.0.0.0:9779 would register the same
// "[::]:9779", get one store id between them and act as one raft store.
func checkServiceAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("the address a store registers with metad, which the other hosts dial, cannot be the wildcard %s: give this host's name or IP (it listens on that address)", host)
	}
	return nil
}

// StoreID is the id metad assigned to this store.
func (s *Server) StoreID() uint64 { return s.storeID }

// Engine exposes the raft engine (tests and status pages).
func (s *Server) Engine() *raftgroup.Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.engine
}

// Healthy reports whether the store serves: started, not stopping, and its
// raft engine not halted by a disk failure.
func (s *Server) Healthy() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.healthy == nil && s.engine != nil {
		if err := s.engine.Failed(); err != nil {
			return fmt.Errorf("raft engine halted: %w", err)
		}
	}
	return s.healthy
}

// Fatal delivers, once, the error of a raft engine that halted on its own
// (a failed disk write; the error names the data disk when it is full).
// Such a store serves nothing any more, so the daemon exits on it and its
// supervisor restarts it (cmd/storaged); a restart waits for disk space
// first (WaitForDiskSpace). Exiting loses nothing acknowledged: a write is
// acknowledged only after its raft entry was written and synced by a
// quorum and applied, and a restart replays the synced log.
func (s *Server) Fatal() <-chan error { return s.fatal }

// Gossip is the store's gossip node, nil when it does not gossip.
func (s *Server) Gossip() *gossip.Node { return s.gossip }

// Stop shuts the store down: stop serving, stop raft, close RocksDB.
func (s *Server) Stop() { s.stop(true) }

// Abort is Stop for a store whose raft engine halted on a failed disk
// write (Fatal), before the process exits: everything stops but RocksDB
// is left open. Closing it would write its WAL again, which RocksDB 7.8
// must not do after a failed WAL append (raftgroup's Engine.halt;
// Debian's build aborts the process on an assertion instead of exiting
// with the clear error). Nothing is lost: what was acknowledged is synced.
func (s *Server) Abort() { s.stop(false) }

func (s *Server) stop(closeDBs bool) {
	s.mu.Lock()
	s.healthy = errors.New("stopping")
	s.mu.Unlock()
	if s.gossip != nil {
		// Leave first: peers stop routing here before requests fail.
		if err := s.gossip.Close(); err != nil {
			s.log.Warn("leaving gossip", "err", err)
		}
	}
	if s.cancel != nil {
		s.cancel()
	}
	s.fetchCancel()
	s.wg.Wait()
	if s.grpc != nil {
		// Stop, not GracefulStop: raft streams never end by themselves.
		if s.healthDown != nil {
			s.healthDown()
		}
		s.grpc.Stop()
	}
	if s.resolver != nil {
		s.resolver.close()
	}
	if s.transport != nil {
		s.transport.Close()
	}
	if s.engine != nil {
		s.engine.Stop()
	}
	if s.adjacency != nil {
		s.adjacency.close()
	}
	s.fetchMu.Lock() // no fetch starts after this: fetchCtx is cancelled
	s.fetchMu.Unlock()
	s.fetchWG.Wait()
	if s.meta != nil {
		s.meta.Close()
	}
	if !closeDBs {
		s.log.Info("storaged stopped, RocksDB left to the process exit")
		return
	}
	s.closeDBs()
	s.log.Info("storaged stopped")
}

func (s *Server) closeDBs() {
	s.dbLife.Lock()
	defer s.dbLife.Unlock()
	for _, db := range s.dbs {
		db.Close()
	}
	s.dbs = nil
	s.dbsClosed = true
}

// openDB opens the RocksDB of one data path with the options of o
// (withDefaults applied) and the process's shared block cache.
func openDB(path string, o rocksopts.Options, cache *grocksdb.Cache) (*grocksdb.DB, error) {
	dir := filepath.Join(path, "rocksdb")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storaged: creating data path %s: %w", dir, err)
	}
	opts, bbto, err := rocksopts.New(o, cache)
	if err != nil {
		return nil, err
	}
	defer bbto.Destroy()
	defer opts.Destroy()
	db, err := grocksdb.OpenDb(opts, dir)
	if err != nil {
		return nil, fmt.Errorf("storaged: opening RocksDB at %s: %w", dir, err)
	}
	return db, nil
}

// snapshotSSTOptions is how received raft snapshots are written: with the
// table options of the store's own files (rocksopts.New, so partitioned
// index and filters with prefix blooms), lz4-compressed as the importer's
// are. Written with RocksDB's defaults instead, a moved replica's file had
// no filter and a whole index, which the block cache then had to take in
// whole.
func (s *Server) snapshotSSTOptions(o rocksopts.Options) raftgroup.SSTOptions {
	o.CompressionPerLevel = []string{"lz4"} // an SST writer compresses as the last level does
	return func() (*grocksdb.Options, error) {
		opts, bbto, err := rocksopts.New(o, nil)
		if err != nil {
			return nil, err
		}
		bbto.Destroy()
		return opts, nil
	}
}

func (s *Server) dbOf(g raftgroup.GroupID) *grocksdb.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.groupDB[g]
}

// chooseDB returns the RocksDB that holds the replica of g, or for a new
// replica the one with the fewest replicas, so partitions spread over disks.
func (s *Server) chooseDB(g raftgroup.GroupID) (*grocksdb.DB, error) {
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	for _, db := range s.dbs {
		v, err := db.GetBytes(ro, partition.RaftHardStateKey(g.Space, g.Part))
		if err != nil {
			return nil, fmt.Errorf("%s: probing data path: %w", g, err)
		}
		if v != nil {
			return db, nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[*grocksdb.DB]int{}
	for _, db := range s.groupDB {
		counts[db]++
	}
	best := s.dbs[0]
	for _, db := range s.dbs[1:] {
		if counts[db] < counts[best] {
			best = db
		}
	}
	return best, nil
}

// reconcileLoop makes the hosted replicas follow the catalog: open every
// partition placed on this store, drop those of dropped spaces.
func (s *Server) reconcileLoop(ctx context.Context) {
	defer s.wg.Done()
	var seen int64 = -1
	for {
		snap := s.meta.Catalog()
		if snap.Version() != seen {
			if err := s.reconcile(ctx, snap); err != nil {
				s.log.Error("reconciling partitions with the catalog", "version", snap.Version(), "err", err)
			} else {
				seen = snap.Version()
			}
		}
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_ = s.meta.WaitVersion(wctx, snap.Version()+1)
		cancel()
		if ctx.Err() != nil {
			return
		}
	}
}

func (s *Server) reconcile(ctx context.Context, snap *catalog.Snapshot) error {
	if snap.Version() == 0 {
		return nil // no catalog yet: never act on an empty one
	}
	// voters is nil for a replica joining an existing group: it opens empty
	// and the leader fills it by snapshot (raftgroup/membership.go). Only an
	// initial replica of a partition that never had a leader bootstraps the
	// group, with the initial voter list, so every bootstrap of one group
	// is identical and nothing bootstraps over a group that already moved
	// on.
	type wanted struct{ voters []uint64 }
	want := map[raftgroup.GroupID]wanted{}
	for _, space := range snap.Spaces() {
		sid := space.GetSpaceId()
		initial := snap.InitialReplicas(sid)
		for part, replicas := range snap.Parts(sid) {
			if !slices.Contains(replicas, s.storeID) {
				continue
			}
			w := wanted{}
			if _, led := snap.Leader(sid, part); !led && slices.Contains(initial[part], s.storeID) {
				w.voters = initial[part]
			}
			want[raftgroup.GroupID{Space: sid, Part: part}] = w
		}
		for part, learners := range snap.Learners(space.GetSpaceId()) {
			if slices.Contains(learners, s.storeID) {
				want[raftgroup.GroupID{Space: space.GetSpaceId(), Part: part}] = wanted{}
			}
		}
	}
	var errs []error
	for g, w := range want {
		if s.dbOf(g) != nil {
			continue
		}
		db, err := s.chooseDB(g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := s.engine.AddGroup(g, db, w.voters); err != nil {
			errs = append(errs, err)
			continue
		}
		s.mu.Lock()
		s.groupDB[g] = db
		s.mu.Unlock()
		s.log.Debug("opened partition replica", "group", g, "voters", w.voters)
	}
	// A replica the catalog no longer lists is dropped: its space is gone,
	// or a membership change removed it. The catalog drops a replica only
	// after raft committed its removal (StorageAdminService), so no quorum
	// can depend on it any more.
	for _, g := range s.engine.Groups() {
		if _, ok := want[g]; ok {
			continue
		}
		if err := s.dropGroup(ctx, g); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// AdjacencyStats is what the adjacency cache holds and how reads used it
// (adjacency.go; the novagraph_storaged_adjacency_* metrics).
type AdjacencyStats struct {
	Bytes        int64
	Partitions   int    // current or stale; a stale one goes at its next read
	Hits, Misses uint64 // partition reads answered from memory or from RocksDB
}

// AdjacencyCached reports the adjacency cache's figures; zero when it is
// off or the store has not started.
func (s *Server) AdjacencyCached() AdjacencyStats {
	s.mu.Lock()
	c := s.adjacency
	s.mu.Unlock()
	if c == nil {
		return AdjacencyStats{}
	}
	bytes, parts := c.stats()
	return AdjacencyStats{Bytes: bytes, Partitions: parts, Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// dropGroup removes a replica of a dropped space and deletes its key range.
func (s *Server) dropGroup(ctx context.Context, g raftgroup.GroupID) error {
	if err := s.engine.RemoveGroup(ctx, g); err != nil {
		return fmt.Errorf("%s: stopping replica: %w", g, err)
	}
	s.adjacency.drop(g)
	db := s.dbOf(g)
	s.mu.Lock()
	delete(s.groupDB, g)
	s.mu.Unlock()
	if db == nil {
		return nil
	}
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	prefix := partition.PartPrefix(g.Space, g.Part)
	wb.DeleteRange(prefix, partition.PrefixEnd(prefix))
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := db.Write(wo, wb); err != nil {
		return fmt.Errorf("%s: deleting data of dropped space: %w", g, err)
	}
	s.log.Info("dropped partition replica", "group", g)
	// A store id can be added back later; the replica then starts empty.
	return nil
}

// heartbeatLoop keeps this host's lease alive in metad and reports the
// partitions it leads.
func (s *Server) heartbeatLoop(ctx context.Context) {
	defer s.wg.Done()
	host, portStr, _ := net.SplitHostPort(s.addr)
	port, _ := strconv.Atoi(portStr)
	addr := &commonpb.HostAddr{Host: host, Port: int32(port)}
	ticker := time.NewTicker(s.cfg.HeartbeatInterval)
	defer ticker.Stop()
	for {
		var leaders []*metapb.LeaderInfo
		for _, l := range s.engine.Leading() {
			leaders = append(leaders, &metapb.LeaderInfo{SpaceId: l.Group.Space, PartId: l.Group.Part, StoreId: s.storeID, Term: l.Term})
		}
		hctx, cancel := context.WithTimeout(ctx, s.cfg.HeartbeatTimeout)
		_, err := s.meta.Heartbeat(hctx, &metapb.HeartbeatReq{StoreId: s.storeID, Addr: addr, Leaders: leaders})
		if err != nil && ctx.Err() == nil {
			s.log.Warn("heartbeat to metad failed", "err", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// PartitionDB returns the RocksDB holding this store's replica of a
// partition, nil if it has none. It is for benchmarks and offline checks
// that compare against raw RocksDB access; serving code reads through the
// engine's ReadIndex first.
func (s *Server) PartitionDB(space, part int32) *grocksdb.DB {
	return s.dbOf(raftgroup.GroupID{Space: space, Part: part})
}

// goHeapHeadroom is what GoMemoryLimit allows beyond the caches: requests
// and replies in flight, apply batches, mirror queues and the collector's
// own slack.
const goHeapHeadroom = 1 << 30

// degreeEntryBytes is the memory of one degree cache entry (Config.
// DegreeCacheEntries: "about 100 bytes").
const degreeEntryBytes = 100

// GoMemoryLimit is the Go soft memory limit a storaged with cfg's budgets
// should run under (cmd/storaged's --go-memory-limit default): what its
// caches in the Go heap may hold (the adjacency cache, the raft entry
// cache, the degree cache; 0 means each one's default) plus
// goHeapHeadroom. RocksDB's block cache and memtables are C memory and not
// counted. Without a limit the collector lets the heap grow to twice what
// is live before it collects: 12 GiB for a full 6 GiB adjacency cache.
func (cfg Config) GoMemoryLimit() int64 {
	adjacency := cfg.AdjacencyCacheBytes
	if adjacency == 0 {
		adjacency = DefaultAdjacencyCacheBytes()
	}
	entries := cfg.RaftEntryCacheBytes
	if entries == 0 {
		entries = DefaultRaftEntryCacheBytes
	}
	degrees := int64(cfg.DegreeCacheEntries)
	if degrees == 0 {
		degrees = 1 << 20
	}
	return max(adjacency, 0) + max(entries, 0) + max(degrees, 0)*degreeEntryBytes + goHeapHeadroom
}
