// Package testcluster runs a whole novagraph cluster inside one test
// process: metad, N storaged and one graphd on loopback ports, with real
// RocksDB and etcd in temporary directories. Stores can be stopped and
// restarted on the same address and data, as a crash and reboot would.
package testcluster

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/metad"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged"
)

// Password of root in test clusters (metad's RootPassword).
const Password = "nova"

// Cluster is an in-process cluster.
type Cluster struct {
	t    testing.TB
	opts Options
	tick time.Duration
	dir  string
	log  *slog.Logger
	// Meta is the first metad (Metas[0] when it was first started): what
	// tests of a single metad use.
	Meta *metad.Server
	// Metas are the metad slots (Options.Metas); see metas.go.
	Metas  []*MetaNode
	Stores []*Store
	Graph  *graphd.Server
	// GraphRegistry holds Graph's metrics, as graphd's /metrics serves
	// them.
	GraphRegistry *prometheus.Registry
	pool          *client.Pool
	// extra are the graphds AddGraph started beside Graph.
	extra []*ExtraGraph
	// gossipKeys is the keyring of Options.GossipKey; nil: plaintext.
	gossipKeys [][]byte
	// TLS is the cluster's CA and certificates with Options.TLS (nil
	// without): attacker tests load other roles' certificates from it.
	TLS *TLSFiles
}

// Store is one storaged slot: its data stays when it is stopped.
type Store struct {
	Server *storaged.Server // nil while stopped
	// Registry holds the running Server's metrics (a new one per start),
	// for tests that read what /metrics would show.
	Registry *prometheus.Registry
	dataDir  string
	addr     string // fixed after the first start, so the store id stays
}

// Options tune a cluster.
type Options struct {
	Stores int
	// Metas is the number of metad (default 1), members of one embedded
	// etcd cluster; graphd and storaged are given all their addresses.
	Metas    int
	RaftTick time.Duration // default 50ms: elections after 0.5–1s
	// MaxLogEntries and LogCatchUpEntries set raft log truncation; tests
	// set them small so restarted stores catch up by snapshot.
	MaxLogEntries, LogCatchUpEntries int
	// RaftEntryCacheBytes is each store's raft entry cache budget
	// (storaged.Config; 0: the default).
	RaftEntryCacheBytes int64
	// WrapTransport wraps each store's raft transport (fault injection).
	WrapTransport func(storeID uint64, inner raftgroup.Transport) raftgroup.Transport
	// MirrorWait is storaged's wait for edge mirrors (storaged.Config).
	MirrorWait time.Duration
	// Graph, if set, adjusts graphd's configuration before it starts.
	Graph func(*graphd.Config)
	// NoGossip turns gossip off; by default graphd and every store gossip
	// on loopback (package gossip) as a deployed cluster does.
	NoGossip bool
	// GossipKey encrypts the gossip with a key of the cluster's own, as
	// deployed clusters do (TLS alone leaves gossip plaintext).
	GossipKey bool
	// DiskReserve turns on each store's disk guard (storaged.Config;
	// default off), polling every DiskPollInterval. DiskFree, if set,
	// measures the free space of store slot's data path instead of
	// statfs, so tests can make a disk full.
	DiskReserve      int64
	DiskPollInterval time.Duration
	DiskFree         func(slot int, path string) (uint64, error)
	// AdjacencyCacheBytes and AdjacencyQuiet configure each store's
	// adjacency cache (storaged.Config). Unlike storaged's default, the
	// quiet period defaults to nothing here: a partition is cached at the
	// first read after a write, so that every test that reads after
	// writing checks that the cache follows the writes.
	AdjacencyCacheBytes int64
	AdjacencyQuiet      time.Duration
	// TLS runs every daemon with certificates from a CA of the cluster's
	// own (mutual TLS between them, TLS to graphd), as nova-certs makes
	// them; the cluster's sessions connect with a client certificate.
	TLS bool
}

// Start brings up a cluster and waits until every store is online.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.RaftTick == 0 {
		opts.RaftTick = 50 * time.Millisecond
	}
	if opts.AdjacencyQuiet == 0 {
		opts.AdjacencyQuiet = time.Nanosecond
	}
	dir := t.TempDir()
	var certs *TLSFiles
	if opts.TLS {
		var err error
		if certs, err = makeCerts(filepath.Join(dir, "certs")); err != nil {
			t.Fatal(err)
		}
	}
	level := slog.LevelError
	if os.Getenv("NOVAGRAPH_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	c := &Cluster{t: t, opts: opts, tick: opts.RaftTick, dir: dir, TLS: certs, log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))}
	t.Cleanup(c.Close)
	if opts.GossipKey {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			t.Fatal(err)
		}
		c.gossipKeys = [][]byte{key}
	}

	// Alone, a cluster is up in a second or two; under -race beside other
	// packages' tests it has taken most of a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.startMetas(ctx); err != nil {
		t.Fatalf("starting metad: %v", err)
	}
	storeAddrs, err := freeAddrs(opts.Stores)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < opts.Stores; i++ {
		s := &Store{dataDir: filepath.Join(dir, fmt.Sprintf("storage%d", i+1)), addr: storeAddrs[i]}
		c.Stores = append(c.Stores, s)
		if err := c.startStore(ctx, i, opts.RaftTick); err != nil {
			t.Fatal(err)
		}
	}
	graphCfg := c.graphConfig("graphd")
	c.GraphRegistry = daemon.NewRegistry()
	graphCfg.Registry = c.GraphRegistry
	c.Graph = graphd.New(graphCfg)
	if err := c.Graph.Start(); err != nil {
		t.Fatalf("starting graphd: %v", err)
	}
	pool, err := client.NewPool(client.Config{Addresses: []string{c.Graph.Addr()}, TLS: c.tlsFor(nodetls.RoleClient).ClientTLS()})
	if err != nil {
		t.Fatal(err)
	}
	c.pool = pool
	c.waitOnline(ctx, opts.Stores)
	return c
}

// graphConfig is the configuration of a graphd of the cluster.
func (c *Cluster) graphConfig(name string) graphd.Config {
	cfg := graphd.Config{
		ListenAddr: "127.0.0.1:0", MetaAddrs: c.MetaAddrs(),
		Logger: c.log.With("daemon", name),
		TLS:    c.tlsFor(nodetls.RoleGraphd),
	}
	if !c.opts.NoGossip {
		cfg.GossipAddr, cfg.GossipSeeds, cfg.GossipKeys = "127.0.0.1:0", c.gossipSeeds(), c.gossipKeys
	}
	if c.opts.Graph != nil {
		c.opts.Graph(&cfg)
	}
	return cfg
}

// GossipKeys is the cluster's gossip keyring (Options.GossipKey); nil when
// gossip is plaintext.
func (c *Cluster) GossipKeys() [][]byte { return c.gossipKeys }

// ExtraGraph is a graphd started beside the cluster's own (AddGraph).
type ExtraGraph struct {
	Server *graphd.Server
	pool   *client.Pool
}

// SessionAs signs in as user on this graphd.
func (g *ExtraGraph) SessionAs(user, password string) (*client.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return g.pool.Session(ctx, user, password)
}

// AddGraph starts another graphd of the cluster, gossiping with the
// others as deployed graphds do; it stops with the cluster.
func (c *Cluster) AddGraph() *ExtraGraph {
	c.t.Helper()
	srv := graphd.New(c.graphConfig(fmt.Sprintf("graphd%d", len(c.extra)+2)))
	if err := srv.Start(); err != nil {
		c.t.Fatalf("starting another graphd: %v", err)
	}
	pool, err := client.NewPool(client.Config{Addresses: []string{srv.Addr()}, TLS: c.tlsFor(nodetls.RoleClient).ClientTLS()})
	if err != nil {
		srv.Stop()
		c.t.Fatal(err)
	}
	g := &ExtraGraph{Server: srv, pool: pool}
	c.extra = append(c.extra, g)
	return g
}

// gossipSeeds is where a starting daemon joins gossip: graphd once it
// runs (it outlives store restarts), else the first store. metad does not
// gossip in test clusters (its job-step gating has its own test in metad).
func (c *Cluster) gossipSeeds() []string {
	if c.opts.NoGossip {
		return nil
	}
	if c.Graph != nil && c.Graph.Gossip() != nil {
		return []string{c.Graph.Gossip().Addr()}
	}

	if len(c.Stores) > 0 && c.Stores[0].Server != nil && c.Stores[0].Server.Gossip() != nil {
		return []string{c.Stores[0].Server.Gossip().Addr()}
	}
	return nil
}

func (c *Cluster) startStore(ctx context.Context, i int, tick time.Duration) error {
	s := c.Stores[i]
	gossipAddr := ""
	if !c.opts.NoGossip {
		gossipAddr = "127.0.0.1:0"
	}
	var diskFree storaged.DiskFreeFunc
	if f := c.opts.DiskFree; f != nil {
		diskFree = func(path string) (uint64, error) { return f(i, path) }
	}
	reg := daemon.NewRegistry()
	srv := storaged.New(storaged.Config{
		Registry:   reg,
		ListenAddr: s.addr, DataPaths: []string{s.dataDir}, MetaAddrs: c.MetaAddrs(),
		RaftTick: tick, HeartbeatInterval: 200 * time.Millisecond, HeartbeatTimeout: hostTTL, WrapTransport: c.opts.WrapTransport,
		MaxLogEntries: c.opts.MaxLogEntries, LogCatchUpEntries: c.opts.LogCatchUpEntries,
		RaftEntryCacheBytes: c.opts.RaftEntryCacheBytes,
		MirrorWait:          c.opts.MirrorWait,
		Logger:              c.log.With("daemon", "storaged", "slot", i),
		GossipAddr:          gossipAddr, GossipSeeds: c.gossipSeeds(), GossipKeys: c.gossipKeys,
		DiskReserve: c.opts.DiskReserve, DiskPollInterval: c.opts.DiskPollInterval, DiskFree: diskFree,
		AdjacencyCacheBytes: c.opts.AdjacencyCacheBytes, AdjacencyQuiet: c.opts.AdjacencyQuiet,
		TLS: c.tlsFor(nodetls.RoleStoraged),
	})
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("starting storaged %d: %w", i, err)
	}
	s.Server, s.Registry, s.addr = srv, reg, srv.Addr()
	return nil
}

// DataDir is store slot i's data path.
func (c *Cluster) DataDir(i int) string { return c.Stores[i].dataDir }

// StopStore stops store i (its data stays).
func (c *Cluster) StopStore(i int) {
	if s := c.Stores[i]; s.Server != nil {
		s.Server.Stop()
		s.Server, s.Registry = nil, nil
	}
}

// RestartStore starts store i again on its address and data.
func (c *Cluster) RestartStore(i int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.startStore(ctx, i, c.tick); err != nil {
		c.t.Fatal(err)
	}
}

func (c *Cluster) waitOnline(ctx context.Context, n int) {
	c.t.Helper()
	sess := c.Session()
	defer sess.Close()
	// last is what SHOW HOSTS said the last time, so that a cluster that
	// never comes up says which stores were missing or why it could not tell.
	var last string
	for ctx.Err() == nil {
		rs, err := sess.Execute(ctx, "SHOW HOSTS")
		if err != nil {
			last = err.Error()
		} else {
			online := 0
			var hosts []string
			for i := 0; i < rs.Len(); i++ {
				addr, _ := rs.Row(i).String(0)
				status, _ := rs.Row(i).String(2)
				hosts = append(hosts, addr+" "+status)
				if status == "ONLINE" {
					online++
				}
			}
			if online >= n {
				return
			}
			last = fmt.Sprintf("%d of %d online: %s", online, n, strings.Join(hosts, ", "))
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("cluster: %d stores did not come online (SHOW HOSTS: %s)", n, last)
}

// MetaAddr is the first metad's address (for storage clients built by
// tests); MetaAddrs lists all.
func (c *Cluster) MetaAddr() string { return c.Meta.Addr() }

// Session opens a root session on graphd.
func (c *Cluster) Session() *client.Session {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.pool.Session(ctx, "root", Password)
	if err != nil {
		c.t.Fatalf("opening session: %v", err)
	}
	return s
}

// SessionAs signs in as user on graphd.
func (c *Cluster) SessionAs(user, password string) (*client.Session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.pool.Session(ctx, user, password)
}

// Close stops everything.
func (c *Cluster) Close() {
	if c.pool != nil {
		c.pool.Close()
		c.pool = nil
	}
	for _, g := range c.extra {
		g.pool.Close()
		g.Server.Stop()
	}
	c.extra = nil
	if c.Graph != nil {
		c.Graph.Stop()
		c.Graph = nil
	}
	for i := range c.Stores {
		c.StopStore(i)
	}
	for i := range c.Metas {
		c.StopMeta(i)
	}
	c.Meta = nil
}

// CrashStore stops store i the way a power cut would, as far as its peers
// can tell: it vanishes from gossip without leaving, so peers must notice
// by probing. Its data stays; RestartStore brings it back.
func (c *Cluster) CrashStore(i int) {
	if s := c.Stores[i]; s.Server != nil {
		if g := s.Server.Gossip(); g != nil {
			g.Kill()
		}
		s.Server.Stop()
		s.Server = nil
	}
}
