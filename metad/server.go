// Package metad is the catalog service: spaces, tag and edge schemas,
// partition placement, storage hosts and partition leaders, users and their
// roles (users.go), kept in etcd with metad as the only writer. By default
// metad embeds a single-member etcd; Config.EtcdEndpoints points it at an
// external etcd instead.
//
// Every catalog change is one etcd transaction whose comparisons cover
// everything the change was computed from (see txnReader), so concurrent
// writers, even two metad processes, can never interleave a read-modify-write.
// The catalog version is the etcd revision the catalog was read at; metad
// follows the catalog with one prefix watch (catalogWatcher) and streams it
// to graphd and storaged through WatchCatalog.
package metad

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/grpcserve"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/metapb"
)

// Config configures a Server. Zero fields take the defaults shown.
type Config struct {
	// ListenAddr is the gRPC address of MetaService ("127.0.0.1:9559").
	// Port 0 picks a free port; Server.Addr reports it.
	ListenAddr string
	// HTTPAddr serves /healthz and /metrics ("127.0.0.1:19559"); port 0 works.
	HTTPAddr string
	// DebugPages adds /debug/pprof/ to HTTPAddr (--enable-debug-pages).
	DebugPages bool
	// DataPath holds the embedded etcd's data (in DataPath/etcd). Required
	// unless EtcdEndpoints is set.
	DataPath string
	// EtcdClientAddr and EtcdPeerAddr are the embedded etcd's listen (and
	// advertised) addresses ("127.0.0.1:2379", "127.0.0.1:2380"); port 0
	// picks a free port, which suits a single member only.
	EtcdClientAddr string
	EtcdPeerAddr   string
	// EtcdName is the embedded member's name ("metad"), and
	// EtcdInitialCluster the "name=http://peer,..." list of a new etcd
	// cluster of several metad (default: this member alone).
	EtcdName           string
	EtcdInitialCluster string
	// EtcdEndpoints, if set, makes metad use that external etcd and embed none.
	EtcdEndpoints []string
	// EtcdTickMs is the embedded etcd's Raft tick (etcd's default 100ms); the
	// election timeout is ten ticks. Tests shorten it: a single member then
	// elects itself sooner and short host leases are allowed (etcd's minimum
	// lease TTL is 15 ticks).
	EtcdTickMs uint
	// HostTTL is how long a host stays online after its last heartbeat
	// (10s). It is rounded up to whole seconds, as etcd leases count in
	// seconds, and etcd raises it to at least 15 ticks (2s at the default
	// tick).
	HostTTL time.Duration
	// Logger receives metad's logs and, at warning level, etcd's (discarded
	// if nil).
	Logger *slog.Logger
	// Registry receives metad's metrics (a private registry if nil).
	Registry *prometheus.Registry
	// RootPassword is the password user root gets when metad creates it, on
	// the first start of a new catalog ("nova"). Later starts ignore it:
	// root's password is then whatever ALTER USER or CHANGE PASSWORD set.
	RootPassword string
	// AllowDefaultRootPassword lets metad serve on an address other than
	// loopback while root's password is still DefaultRootPassword. Without
	// it such a start is refused (refuseDefaultRootPassword): anyone who
	// reaches graphd would sign in as root.
	AllowDefaultRootPassword bool
	// TLS is metad's certificate and CAs: mutual TLS on its gRPC port
	// (each method open to the roles of metad's policy, authz.go) and on
	// the embedded etcd's client and peer ports. nil: plaintext.
	TLS *nodetls.Config
	// EtcdAllowedCNs are the certificate common names the embedded etcd
	// accepts on its client and peer ports, with TLS: only metad talks
	// to etcd, and any other certificate of the cluster's CA (a graphd's, a
	// storaged's) would otherwise get at the catalog past metad's checks.
	// Default: the common name of metad's own certificate (nova-certs
	// gives every metad the same one).
	EtcdAllowedCNs []string
	// GossipAddr, if set, makes metad join the storaged/graphd gossip
	// (package gossip; port 0 picks one) at GossipSeeds. The job runner
	// then holds a step on a host gossip says is dead until either gossip
	// sees it again or its lease expires: gossip is the fast signal, the
	// lease the confirmation that decides.
	GossipAddr  string
	GossipSeeds []string
	// GossipKeys is the gossip keyring (gossip.Config.Keys); empty:
	// plaintext gossip.
	GossipKeys [][]byte
	// BcryptCost is the bcrypt cost of stored password hashes
	// (bcrypt.DefaultCost). Tests lower it to bcrypt.MinCost.
	BcryptCost int
	// RequireAddHosts makes a storaged that registers wait for ADD HOSTS
	// before it is part of the cluster, as in NebulaGraph 3.x. By default a
	// host that registers is added at once (hosts.go).
	RequireAddHosts bool
}

func (c *Config) applyDefaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.ListenAddr, "127.0.0.1:9559")
	def(&c.HTTPAddr, "127.0.0.1:19559")
	def(&c.EtcdClientAddr, "127.0.0.1:2379")
	def(&c.EtcdPeerAddr, "127.0.0.1:2380")
	def(&c.EtcdName, "metad")
	def(&c.RootPassword, DefaultRootPassword)
	if c.BcryptCost == 0 {
		c.BcryptCost = bcrypt.DefaultCost
	}
	if c.HostTTL <= 0 {
		c.HostTTL = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Registry == nil {
		c.Registry = prometheus.NewRegistry()
	}
}

// Server is one metad process: MetaService on gRPC, the status server and,
// unless an external etcd is configured, an embedded etcd member. A Server
// is started once and stopped once; restart by creating a new one on the
// same DataPath.
type Server struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	// snapshotStorage, if set (tests), replaces the storage client of
	// CREATE and DROP SNAPSHOT.
	snapshotStorage func() (snapshotStorage, error)

	// Set by Start and read-only afterwards.
	healthDown func()      // the gRPC health service goes NOT_SERVING (grpcserve.RegisterStandard)
	etcd       *embed.Etcd // nil with an external etcd
	cli        *clientv3.Client
	cat        *catalogWatcher
	grpc       *grpc.Server
	ln         net.Listener
	status     *daemon.StatusServer
	gossip     *gossip.Node       // nil without Config.GossipAddr
	cancel     context.CancelFunc // ends the background goroutines
	wg         sync.WaitGroup     // the background goroutines

	// stopping is closed by Stop so that WatchCatalog streams end and a
	// graceful gRPC stop does not wait for them forever.
	stopping chan struct{}
	stopOnce sync.Once
	// closing is set once Stop starts tearing down etcd: the errors etcd
	// logs about its listeners closing are then expected, not news.
	closing atomic.Bool

	// ddlSem (capacity 1) serializes this metad's catalog changes; see
	// commit. A channel rather than a mutex so that waiting honours ctx.
	ddlSem chan struct{}
	// beforeCommit, if set (by tests only), runs in commit after a change's
	// reads and before its transaction is committed, so a test can make a
	// conflicting write land exactly there.
	beforeCommit atomic.Pointer[func()]

	// dummyHash is compared against when a login names no user, so that
	// VerifyUser takes as long for an unknown user as for a wrong password.
	dummyHash     []byte
	dummyHashOnce sync.Once

	// credentialKey signs and checks credentials (credential.go); read
	// from etcd in Start before the port opens, never changed after.
	credentialKey []byte

	// hbMu guards lastHeartbeat: metad's clock at each host's last heartbeat.
	// It lives in memory only, to keep heartbeats from writing to etcd.
	hbMu          sync.Mutex
	lastHeartbeat map[uint64]int64

	// jobs runs SUBMIT JOB jobs while this metad holds the runner election
	// (jobs_run.go).
	jobs *jobRunner
}

// New returns a Server that Start will run with cfg.
func New(cfg Config) *Server {
	cfg.applyDefaults()
	return &Server{
		cfg:           cfg,
		log:           cfg.Logger,
		metrics:       newMetrics(cfg.Registry),
		stopping:      make(chan struct{}),
		ddlSem:        make(chan struct{}, 1),
		lastHeartbeat: map[uint64]int64{},
		jobs:          newJobRunner(),
	}
}

// Start brings up etcd (embedded or external), loads the catalog and starts
// serving. ctx bounds the startup only; the Server runs until Stop. On error
// everything Start brought up is torn down again.
func (s *Server) Start(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel

	endpoints := s.cfg.EtcdEndpoints
	if len(endpoints) == 0 {
		if s.cfg.DataPath == "" {
			return errors.New("metad: a data path is required to embed etcd (or give etcd endpoints)")
		}
		start := time.Now()
		if s.etcd, err = startEmbeddedEtcd(ctx, s.cfg, s.demoteEtcdLog); err != nil {
			return err
		}
		endpoints = []string{s.etcd.Clients[0].Addr().String()}
		s.log.Info("embedded etcd ready", "client_addr", endpoints[0], "dir", s.etcd.Config().Dir,
			"took", time.Since(start).Round(time.Millisecond).String())
		s.wg.Go(func() { s.watchEtcdErrors(runCtx) })
	}
	s.cli, err = clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		TLS:         s.etcdClientTLS(),
		Logger:      newZapBridge(s.log, "etcd-client", func(string, map[string]any) bool { return s.closing.Load() }),
		// The client's own context only ends with Close; startup is bounded
		// by the first read below.
	})
	if err != nil {
		return fmt.Errorf("metad: connecting to etcd %v: %w", endpoints, err)
	}

	s.cat = newCatalogWatcher(s.cli, s.log, s.metrics.observeView)
	if err := s.cat.load(ctx); err != nil {
		return fmt.Errorf("metad: %w", err)
	}
	s.wg.Go(func() { s.cat.run(runCtx) })
	if err := s.bootstrapRoot(ctx); err != nil {
		return fmt.Errorf("metad: %w", err)
	}
	if err := s.refuseDefaultRootPassword(ctx); err != nil {
		return fmt.Errorf("metad: %w", err)
	}
	if err := s.loadCredentialKey(ctx); err != nil {
		return fmt.Errorf("metad: %w", err)
	}

	if s.ln, err = net.Listen("tcp", s.cfg.ListenAddr); err != nil {
		return fmt.Errorf("metad: listening on %s: %w", s.cfg.ListenAddr, err)
	}
	// grpcserve.Options first: its panic recovery wraps the interceptors
	// below too.
	// With TLS, the policy's interceptors come next: a refused call counts
	// in no metric and waits for no quorum.
	opts := append(grpcserve.Options(s.log, 1024), grpc.Creds(s.cfg.TLS.ServerCredentials(nodetls.RequireClientCert)))
	opts = append(opts, s.cfg.TLS.ServerOptions(policy)...)
	s.grpc = grpc.NewServer(append(opts,
		grpc.ChainUnaryInterceptor(s.metrics.unaryInterceptor, limitDeadline, s.requireQuorum),
		grpc.ChainStreamInterceptor(s.metrics.streamInterceptor),
		// Clients keep their watch stream alive with pings; allow them, and
		// ping idle clients ourselves so half-open streams get cleaned up.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 10 * time.Second}),
	)...)
	metapb.RegisterMetaServiceServer(s.grpc, &service{s: s})
	s.healthDown = grpcserve.RegisterStandard(s.grpc, s.Healthy)
	ln := s.ln
	s.wg.Go(func() {
		if err := s.grpc.Serve(ln); err != nil {
			s.log.Error("gRPC server stopped", "err", err)
		}
	})

	if s.cfg.GossipAddr != "" {
		if s.gossip, err = gossip.Start(gossip.Config{
			Role: "metad", ServiceAddr: s.Addr(), BindAddr: s.cfg.GossipAddr, Seeds: s.cfg.GossipSeeds, Keys: s.cfg.GossipKeys,
			Logger: s.log.With("component", "gossip"),
		}); err != nil {
			return fmt.Errorf("metad: %w", err)
		}
	}
	s.jobs.start(runCtx, s)

	if s.status, err = daemon.StartStatusServer(s.cfg.HTTPAddr, s.cfg.Registry, s.Healthy, s.cfg.DebugPages, s.log); err != nil {
		return fmt.Errorf("metad: %w", err)
	}
	s.log.Info("metad serving", "addr", s.Addr(), "http_addr", s.status.Addr(), "catalog_version", s.cat.current().version())
	return nil
}

// Gossip is metad's gossip node, nil when it does not gossip.
func (s *Server) Gossip() *gossip.Node { return s.gossip }

// suspected reports whether gossip holds the storaged at addr dead while
// its lease may still live (false without gossip).
func (s *Server) suspected(addr string) bool {
	return s.gossip != nil && s.gossip.Suspected(addr)
}

// Addr is the address MetaService listens on (valid after Start).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// HTTPAddr is the address of /healthz and /metrics (valid after Start).
func (s *Server) HTTPAddr() string { return s.status.Addr() }

// Healthy reports whether metad can serve: etcd answers a linearizable read
// (it has a leader and a quorum) and the catalog watch is not failing.
func (s *Server) Healthy() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := s.cli.Get(ctx, keyHealth); err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	if err := s.cat.health(); err != nil {
		return fmt.Errorf("catalog watch: %w", err)
	}
	return nil
}

// Stop ends WatchCatalog streams, stops gRPC gracefully (forcibly after a
// grace period), then the status server, the catalog watch, the etcd client
// and the embedded etcd, in that order, so nothing uses what is already
// closed. Stop is idempotent and safe after a failed Start.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		close(s.stopping)
		if s.gossip != nil {
			if err := s.gossip.Close(); err != nil {
				s.log.Warn("leaving gossip", "err", err)
			}
		}
		if s.grpc != nil {
			if s.healthDown != nil {
				s.healthDown()
			}
			done := make(chan struct{})
			go func() { s.grpc.GracefulStop(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				s.log.Warn("graceful gRPC stop timed out; closing connections")
				s.grpc.Stop()
				<-done
			}
		} else if s.ln != nil {
			_ = s.ln.Close()
		}
		if s.status != nil {
			if err := s.status.Close(); err != nil {
				s.log.Warn("closing status server", "err", err)
			}
		}
		s.closing.Store(true)
		if s.cancel != nil {
			s.cancel()
		}
		s.wg.Wait()
		if s.cli != nil {
			if err := s.cli.Close(); err != nil && !errors.Is(err, context.Canceled) {
				s.log.Warn("closing etcd client", "err", err)
			}
		}
		if s.etcd != nil {
			s.etcd.Close()
		}
		s.log.Info("metad stopped")
	})
}

func (s *Server) demoteEtcdLog(msg string, fields map[string]any) bool {
	return s.closing.Load() || benignEtcdLog(msg, fields)
}

// watchEtcdErrors logs fatal errors of the embedded etcd's servers.
func (s *Server) watchEtcdErrors(ctx context.Context) {
	select {
	case err := <-s.etcd.Err():
		if err != nil {
			s.log.Error("embedded etcd failed", "err", err)
		}
	case <-ctx.Done():
	}
}

// etcdClientTLS is the TLS of metad's clients of its embedded etcd: its
// own certificate, expecting its own host in etcd's (it dials etcd's bound
// IP address, which the certificate need not name). nil without TLS, and
// for an external etcd (--etcd-endpoints), which is reached as its
// endpoints' schemes say.
func (s *Server) etcdClientTLS() *tls.Config {
	if s.etcd == nil {
		return nil
	}
	return s.cfg.TLS.WithServerName(s.cfg.TLS.OwnHost()).ClientTLS()
}

// startEmbeddedEtcd starts a member with data in cfg.DataPath/etcd and waits
// until it serves (for a new multi-member cluster: until it has a quorum).
func startEmbeddedEtcd(ctx context.Context, cfg Config, demoteLog func(string, map[string]any) bool) (*embed.Etcd, error) {
	scheme := "http://"
	if cfg.TLS.Enabled() {
		scheme = "https://"
	}
	clientURL, err := url.Parse(scheme + cfg.EtcdClientAddr)
	if err != nil {
		return nil, fmt.Errorf("metad: etcd client address %q: %w", cfg.EtcdClientAddr, err)
	}
	peerURL, err := url.Parse(scheme + cfg.EtcdPeerAddr)
	if err != nil {
		return nil, fmt.Errorf("metad: etcd peer address %q: %w", cfg.EtcdPeerAddr, err)
	}
	// etcd binds IP addresses only; a host name (a container's or a
	// Kubernetes pod's DNS name, stable when its IP is not) is advertised
	// as given and listened on at the address it resolves to.
	listenClient, err := bindURL(ctx, *clientURL)
	if err != nil {
		return nil, fmt.Errorf("metad: etcd client address %q: %w", cfg.EtcdClientAddr, err)
	}
	listenPeer, err := bindURL(ctx, *peerURL)
	if err != nil {
		return nil, fmt.Errorf("metad: etcd peer address %q: %w", cfg.EtcdPeerAddr, err)
	}
	ec := embed.NewConfig()
	ec.Name = cfg.EtcdName
	ec.Dir = filepath.Join(cfg.DataPath, "etcd")
	ec.ListenClientUrls, ec.AdvertiseClientUrls = []url.URL{listenClient}, []url.URL{*clientURL}
	ec.ListenPeerUrls, ec.AdvertisePeerUrls = []url.URL{listenPeer}, []url.URL{*peerURL}
	ec.InitialCluster = cfg.EtcdInitialCluster
	if ec.InitialCluster == "" {
		ec.InitialCluster = ec.Name + "=" + peerURL.String()
	}
	ec.InitialClusterToken = "novagraph-meta"
	if cfg.TLS.Enabled() {
		// --meta-peers lists http:// members (ParseMetaPeers); with TLS
		// every member is https. etcd keeps a member's peer URLs in its
		// data, so TLS is chosen when the metad cluster is created
		// (docs/security.md).
		ec.InitialCluster = strings.ReplaceAll(ec.InitialCluster, "=http://", "=https://")
		files := cfg.TLS.Files()
		allowed := cfg.EtcdAllowedCNs
		if len(allowed) == 0 {
			allowed = []string{cfg.TLS.Identity.Name}
		}
		info := transport.TLSInfo{CertFile: files.Cert, KeyFile: files.Key, TrustedCAFile: files.CA, ClientCertAuth: true, AllowedCNs: allowed}
		ec.ClientTLSInfo, ec.PeerTLSInfo = info, info
	}
	// metad talks gRPC to etcd; the JSON gateway would only add a listener.
	ec.EnableGRPCGateway = false
	// Lease expiries and leader changes add revisions forever; drop history
	// older than an hour. The catalog watch reloads if it ever falls behind.
	ec.AutoCompactionMode = embed.CompactorModePeriodic
	ec.AutoCompactionRetention = "1h"
	if cfg.EtcdTickMs > 0 {
		ec.TickMs = cfg.EtcdTickMs
		ec.ElectionMs = 10 * cfg.EtcdTickMs
	}
	ec.ZapLoggerBuilder = embed.NewZapLoggerBuilder(newZapBridge(cfg.Logger, "etcd", demoteLog))

	e, err := embed.StartEtcd(ec)
	if err != nil {
		return nil, fmt.Errorf("metad: starting embedded etcd in %s: %w", ec.Dir, err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("metad: embedded etcd failed while starting: %w", err)
	case <-ctx.Done():
		e.Server.Stop() // ReadyNotify may never fire without a quorum
		e.Close()
		return nil, fmt.Errorf("metad: waiting for embedded etcd: %w", ctx.Err())
	}
}

// maxRequestTime bounds every unary call, whatever deadline the caller set
// (or did not): a call blocked on an unreachable etcd must give up, not hold
// its goroutine, and its place in commit's queue, forever.
const maxRequestTime = 15 * time.Second

func limitDeadline(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, maxRequestTime)
	defer cancel()
	return handler(ctx, req)
}

// metrics are metad's Prometheus series.
type metrics struct {
	rpcs           *prometheus.CounterVec
	rpcSeconds     *prometheus.HistogramVec
	catalogVersion prometheus.Gauge
	hostsOnline    prometheus.Gauge
	watchStreams   prometheus.Gauge
	txnConflicts   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "novagraph_metad_rpcs_total",
			Help: "MetaService calls by method and result code (ErrorCode, or the gRPC code if the call failed outright).",
		}, []string{"method", "code"}),
		rpcSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "novagraph_metad_rpc_duration_seconds",
			Help:    "Latency of unary MetaService calls.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 8),
		}, []string{"method"}),
		catalogVersion: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "novagraph_metad_catalog_version",
			Help: "Version (etcd revision) of the catalog metad serves.",
		}),
		hostsOnline: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "novagraph_metad_hosts_online",
			Help: "Registered storage hosts whose heartbeat lease is alive.",
		}),
		watchStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "novagraph_metad_watch_streams",
			Help: "Open WatchCatalog streams.",
		}),
		txnConflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "novagraph_metad_txn_conflicts_total",
			Help: "Catalog transactions retried because what they read changed before they committed.",
		}),
	}
	reg.MustRegister(m.rpcs, m.rpcSeconds, m.catalogVersion, m.hostsOnline, m.watchStreams, m.txnConflicts)
	return m
}

func (m *metrics) observeView(v *view) {
	m.catalogVersion.Set(float64(v.version()))
	m.hostsOnline.Set(float64(v.online))
}

func (m *metrics) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	method := path.Base(info.FullMethod)
	start := time.Now()
	resp, err := handler(ctx, req)
	m.rpcSeconds.WithLabelValues(method).Observe(time.Since(start).Seconds())
	code := status.Code(err).String()
	if r, ok := resp.(interface{ GetStatus() *metapb.Status }); ok && err == nil {
		code = r.GetStatus().GetCode().String()
	}
	m.rpcs.WithLabelValues(method, code).Inc()
	return resp, err
}

func (m *metrics) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	m.watchStreams.Inc()
	defer m.watchStreams.Dec()
	err := handler(srv, ss)
	m.rpcs.WithLabelValues(path.Base(info.FullMethod), status.Code(err).String()).Inc()
	return err
}
