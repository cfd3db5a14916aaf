// Package graphd is the query daemon: it authenticates sessions and runs
// their nGQL through graphd/exec against the catalog cache and the storage
// client. It keeps no data of its own beyond sessions, so any number of
// graphd can serve one cluster.
package graphd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/graphd/nebulaapi"
	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/internal/grpcserve"
	"github.com/novagraph/novagraph/internal/nodetls"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/query/lexer"
	"github.com/novagraph/novagraph/query/value"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// DefaultMaxStatementBytes is Config.MaxStatementBytes' default (NebulaGraph
// caps a statement at 4 MiB as well): far above any statement a person
// writes, and a bulk INSERT of this size is tens of thousands of rows;
// larger values belong in parameters. A request over gRPC's 64 MiB message
// limit is refused by gRPC before graphd sees it.
const DefaultMaxStatementBytes = 4 << 20

// Config configures a graphd.
type Config struct {
	ListenAddr  string // e.g. 127.0.0.1:9669 (port 0 in tests)
	MetaAddrs   []string
	SessionIdle time.Duration // sessions idle longer are closed; default 8h
	Logger      *slog.Logger
	Registry    *prometheus.Registry // optional
	// TLS is graphd's certificate and CAs: TLS on its client port and
	// mutual TLS to metad and storaged. nil: plaintext.
	TLS *nodetls.Config

	// Per-query limits (queries.go); a query is one Execute request. Zero
	// is the default, negative none. Sessions override the memory limit
	// and the timeout with SET QUERY_MEMORY_LIMIT / SET QUERY_TIMEOUT.
	QueryTimeout          time.Duration // deadline; default 60s
	QueryMemoryLimit      int64         // bytes one query may charge; default 1 GiB
	QueryMemoryLimitTotal int64         // bytes all running queries may charge together; default 6 GiB
	SlowQueryThreshold    time.Duration // queries running longer are logged at WARN; default 1s

	// MaxStatementBytes refuses longer requests before they are parsed;
	// default DefaultMaxStatementBytes, negative none.
	MaxStatementBytes int
	// MaxSessionsPerUser bounds the sessions one user holds from one client
	// host; default DefaultMaxSessionsPerUser, negative none.
	MaxSessionsPerUser int
	// AllowDefaultRootPassword lets root sign in with the default password
	// (metad.DefaultRootPassword) from another host. Without it such a
	// sign-in succeeds only from loopback, where an operator changes the
	// password: metad refuses to serve beyond loopback while it is the
	// default, but a metad on loopback behind a graphd on 0.0.0.0 would
	// otherwise hand root to anyone who reaches graphd.
	AllowDefaultRootPassword bool

	// GossipAddr, if set, is the host:port graphd gossips on (package
	// gossip; port 0 picks one) and GossipSeeds the peers to join: the
	// storage client then routes around storaged hosts gossip suspects,
	// within a second of a crash instead of after connection timeouts.
	GossipAddr  string
	GossipSeeds []string
	// GossipKeys is the gossip keyring (gossip.Config.Keys); empty:
	// plaintext gossip.
	GossipKeys [][]byte

	// WebAddr, if set, is where graphd serves its HTTP/JSON API
	// (graphd/httpapi, docs/http-api.md) and the studio, a web page on that
	// API (graphd/studio, docs/studio.md): HTTPS with TLS's certificate when
	// TLS is on, since passwords and results cross it. It is a port of its
	// own, not the status port, which stays plain HTTP for Prometheus.
	WebAddr string
	// WebHosts are the host names (besides IP addresses and localhost)
	// a request to WebAddr may name in its Host header; see web.go.
	WebHosts []string

	// NebulaAddr, if set, is where graphd also speaks NebulaGraph 3.x's
	// graph protocol (Thrift; graphd/nebulaapi, docs/nebula-clients.md),
	// so that NebulaGraph's clients connect unchanged: TLS with TLS's
	// certificate when TLS is on, as the gRPC port.
	NebulaAddr string
}

// Server is one graphd.
type Server struct {
	graphpb.UnimplementedGraphServiceServer
	cfg     Config
	log     *slog.Logger
	meta    *metaclient.Client
	storage *storageclient.Client
	gossip  *gossip.Node // nil without Config.GossipAddr
	peers   peerConns    // connections to the other graphds (peers.go)
	// healthDown turns the gRPC health service to NOT_SERVING before
	// the server stops (grpcserve.RegisterStandard).
	healthDown func()
	executor   *exec.Executor
	queries    *queryRegistry
	grpc       *grpc.Server
	lis        net.Listener
	web        webServer // Config.WebAddr's (web.go)
	// nebula serves Config.NebulaAddr (nebula.go); nil without it. Set
	// at Start, read by the metrics, which may be scraped before.
	nebula    atomic.Pointer[nebulaapi.Server]
	nebulaLis net.Listener
	metrics   *metrics

	signIns  *signInGuard
	mu       sync.Mutex
	sessions map[int64]*session

	stop chan struct{}
	wg   sync.WaitGroup
}

// session is one authenticated client. Statements of one session run one at
// a time (mu), as a console user expects: USE then a query.
type session struct {
	mu   sync.Mutex
	id   int64
	user string
	host string // the client's, as it signed in
	// credential is metad's proof of the sign-in, attached to the metad
	// calls of the session's statements: metad's users and roles methods
	// check it themselves (metad/credential.go).
	credential []byte
	state      exec.SessionState
	lastUsed   time.Time
	// created, and the space and last use as SHOW SESSIONS shows them,
	// guarded by Server.mu (state and lastUsed are the statement's, under
	// mu, which SHOW SESSIONS itself holds for its own session).
	created   time.Time
	shownUsed time.Time
	shownIn   string
}

type metrics struct {
	queries  *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	sessions prometheus.Gauge
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "novagraph_graphd_queries_total", Help: "Requests executed, by statement kind (go, match, fetch, insert, ddl, ...: stmtkind.go) and result code.",
		}, []string{"kind", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "novagraph_graphd_query_duration_seconds", Help: "Request latency in graphd, by statement kind.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"kind"}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "novagraph_graphd_sessions", Help: "Open sessions."}),
	}
	if reg != nil {
		reg.MustRegister(m.queries, m.latency, m.sessions)
	}
	return m
}

// New returns a graphd that is not yet started.
func New(cfg Config) *Server {
	if cfg.SessionIdle == 0 {
		cfg.SessionIdle = 8 * time.Hour
	}
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.QueryMemoryLimit == 0 {
		cfg.QueryMemoryLimit = DefaultQueryMemoryLimit
	}
	if cfg.QueryMemoryLimitTotal == 0 {
		cfg.QueryMemoryLimitTotal = DefaultQueryMemoryLimitTotal
	}
	if cfg.SlowQueryThreshold == 0 {
		cfg.SlowQueryThreshold = DefaultSlowQueryThreshold
	}
	if cfg.MaxStatementBytes == 0 {
		cfg.MaxStatementBytes = DefaultMaxStatementBytes
	}
	if cfg.MaxSessionsPerUser == 0 {
		cfg.MaxSessionsPerUser = DefaultMaxSessionsPerUser
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, sessions: map[int64]*session{}, stop: make(chan struct{}), metrics: newMetrics(cfg.Registry),
		queries: newQueryRegistry(max(cfg.QueryMemoryLimitTotal, 0)), signIns: newSignInGuard()}
	registerQueryMetrics(cfg.Registry, s)
	return s
}

// Start connects to metad and serves GraphService.
func (s *Server) Start() error {
	lis, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("graphd: listening on %s: %w", s.cfg.ListenAddr, err)
	}
	s.lis = lis
	if err := s.listenWeb(); err != nil {
		lis.Close()
		return err
	}
	if err := s.listenNebula(); err != nil {
		lis.Close()
		if s.web.lis != nil {
			s.web.lis.Close()
		}
		return err
	}
	s.meta = metaclient.New(s.cfg.MetaAddrs, s.log, metaclient.WithTLS(s.cfg.TLS))
	s.storage = storageclient.New(s.meta, s.log)
	s.storage.SetFailFastOffline(true)
	if s.cfg.GossipAddr != "" {
		node, err := gossip.Start(gossip.Config{
			Role: "graphd", ServiceAddr: lis.Addr().String(), BindAddr: s.cfg.GossipAddr, Seeds: s.cfg.GossipSeeds, Keys: s.cfg.GossipKeys,
			Logger: s.log.With("component", "gossip"),
		})
		if err != nil {
			lis.Close()
			if s.web.lis != nil {
				s.web.lis.Close()
			}
			if s.nebulaLis != nil {
				s.nebulaLis.Close()
			}
			s.meta.Close()
			return fmt.Errorf("graphd: %w", err)
		}
		s.gossip = node
		if !s.askPeersAllowed() {
			s.log.Warn("gossip is plaintext and TLS is off: SHOW QUERIES, SHOW SESSIONS and KILL reach this graphd only, since anyone who reaches the gossip port could pose as a graphd and be sent sessions' credentials; set --gossip-key-file (or --tls-dir) to reach the others")
		}
		s.storage.SetSuspicion(node.Suspected)
	}
	s.executor = exec.New(s.meta, s.storage, s.log)
	s.queries.host = lis.Addr().String()
	s.executor.SetQueryAdmin(s)
	s.executor.SetSessionAdmin(s)
	s.executor.SetLimitCeilings(exec.LimitCeilings{MemoryLimit: max(s.cfg.QueryMemoryLimit, 0), Timeout: max(s.cfg.QueryTimeout, 0)})
	// sendTracker tells endQuery when a response has been written, so a
	// query's result stays charged until then (queries.go).
	// NumStreamWorkers: requests run on reused goroutines, whose stacks
	// have grown already (see storaged's server).
	// grpcserve.Options: panic recovery (execute has its own, which keeps
	// the session's query registered) and a stream cap per connection.
	// With TLS, clients verify graphd's certificate; a client certificate
	// is verified when given and not required (users sign in by password).
	opts := append(grpcserve.Options(s.log, 1024), grpc.Creds(s.cfg.TLS.ServerCredentials(nodetls.VerifyClientCertIfGiven)))
	opts = append(opts, s.cfg.TLS.ServerOptions(policy)...)
	s.grpc = grpc.NewServer(append(opts,
		grpc.MaxRecvMsgSize(64<<20), grpc.MaxSendMsgSize(256<<20), grpc.StatsHandler(sendTracker{}),
		grpc.NumStreamWorkers(uint32(4*runtime.GOMAXPROCS(0))))...)
	graphpb.RegisterGraphServiceServer(s.grpc, s)
	graphpb.RegisterGraphPeerServiceServer(s.grpc, peerService{s: s})
	s.healthDown = grpcserve.RegisterStandard(s.grpc, s.Healthy)
	go func() {
		if err := s.grpc.Serve(lis); err != nil {
			s.log.Error("grpc server stopped", "err", err)
		}
	}()
	s.serveWeb()
	s.serveNebula()
	s.wg.Add(1)
	go s.reapSessions()
	s.log.Info("graphd started", "addr", lis.Addr().String())
	return nil
}

// SessionExists reports whether a session is signed in (httpapi.Backend).
func (s *Server) SessionExists(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id] != nil
}

// CancelSession stops the statements a session is running
// (httpapi.Backend); false if there is no such session.
func (s *Server) CancelSession(id int64) bool {
	if !s.SessionExists(id) {
		return false
	}
	s.queries.stopSession(id, exec.CancelledError)
	return true
}

// Addr is the address graphd serves on.
func (s *Server) Addr() string { return s.lis.Addr().String() }

// Healthy reports whether graphd can serve: it needs a catalog.
func (s *Server) Healthy() error {
	if s.meta == nil || s.meta.Catalog().Version() == 0 {
		return errors.New("no catalog from metad yet")
	}
	return nil
}

// Gossip is graphd's gossip node, nil when it does not gossip.
func (s *Server) Gossip() *gossip.Node { return s.gossip }

// Storage is graphd's storage client (tests read its routing counters).
func (s *Server) Storage() *storageclient.Client { return s.storage }

// Stop ends every session and stops serving.
func (s *Server) Stop() {
	close(s.stop)
	s.wg.Wait()
	webStopped := s.stopWeb()
	nebulaStopped := s.stopNebula()
	if s.gossip != nil {
		if err := s.gossip.Close(); err != nil {
			s.log.Warn("leaving gossip", "err", err)
		}
	}
	if s.grpc != nil {
		if s.healthDown != nil {
			s.healthDown()
		}
		// Give running statements a moment, then cut them off: a statement
		// must not keep the daemon from stopping.
		stopped := make(chan struct{})
		go func() {
			s.grpc.GracefulStop()
			close(stopped)
		}()
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			s.grpc.Stop()
		}
	}
	<-webStopped // its statements use storage and meta too
	<-nebulaStopped
	s.peers.close()
	if s.storage != nil {
		s.storage.Close()
	}
	if s.meta != nil {
		s.meta.Close()
	}
	s.log.Info("graphd stopped")
}

func (s *Server) reapSessions() {
	defer s.wg.Done()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			for id, sess := range s.sessions {
				if sess.mu.TryLock() {
					idle := now.Sub(sess.lastUsed)
					sess.mu.Unlock()
					if idle > s.cfg.SessionIdle {
						delete(s.sessions, id)
					}
				}
			}
			s.metrics.sessions.Set(float64(len(s.sessions)))
			s.mu.Unlock()
			s.signIns.sweep(now)
		}
	}
}

// authWait bounds how long a sign-in waits for this graphd's catalog to
// know the user metad just verified (a user created through another graphd
// a moment ago).
const authWait = 3 * time.Second

// Root's name and its password until changed: metad.RootUser and
// metad.DefaultRootPassword (TestDefaultRootPasswordMatchesMetad).
const (
	rootUser            = "root"
	defaultRootPassword = "nova"
)

// refuseDefaultRootPassword refuses a sign-in that metad accepted if it is
// root's with the default password from a host other than this one, unless
// Config.AllowDefaultRootPassword: the password is public, so whoever
// reaches graphd would be root. Only a correct password gets here, so the
// answer tells a guesser nothing new.
func (s *Server) refuseDefaultRootPassword(req *graphpb.AuthReq, host string) error {
	if s.cfg.AllowDefaultRootPassword || req.Username != rootUser || req.Password != defaultRootPassword {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("root still has the default password %q, refused from %s: sign in from this graphd's host (loopback) and ALTER USER root WITH PASSWORD, "+
		"or start metad the first time with --root-password-file; graphd's --allow-default-root-password lets it in from anywhere", defaultRootPassword, host)
}

// Authenticate implements GraphService. metad checks the name and password
// (VerifyUser: the hash never leaves metad); an unknown user and a wrong
// password get the same answer. The session remembers the user, whose roles
// every statement is checked against (graphd/exec/users.go). Failed
// sign-ins are rate limited and a user's sessions per client host capped
// (signin.go).
func (s *Server) Authenticate(ctx context.Context, req *graphpb.AuthReq) (*graphpb.AuthResp, error) {
	host := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		host = hostOf(p.Addr.String())
	}
	if wait, blocked := s.signIns.blocked(req.Username, host, time.Now()); blocked {
		s.log.Warn("sign-in refused: too many failures", "user", req.Username, "host", host)
		return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT,
			Error: fmt.Sprintf("too many failed sign-ins as %q from %s: try again in %s", req.Username, host, wait.Round(time.Millisecond))}, nil
	}
	v, err := s.meta.VerifyUser(ctx, req.Username, req.Password)
	if err != nil {
		s.log.Warn("cannot verify a sign-in", "user", req.Username, "err", err)
		return &graphpb.AuthResp{Code: metaclient.CodeOf(err), Error: fmt.Sprintf("cannot verify the user now: %v", err)}, nil
	}
	if !v.OK {
		s.signIns.failed(req.Username, host, time.Now())
		s.log.Info("sign-in refused", "user", req.Username, "host", host)
		return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT, Error: "bad username or password"}, nil
	}
	if err := s.refuseDefaultRootPassword(req, host); err != nil {
		s.log.Warn("sign-in refused: root's default password from another host", "host", host)
		return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT, Error: err.Error()}, nil
	}
	wctx, cancel := context.WithTimeout(ctx, authWait)
	err = s.meta.WaitVersion(wctx, v.Version)
	cancel()
	if err != nil {
		// The session works once the catalog catches up; until then its
		// statements are refused as of an unknown user.
		s.log.Warn("catalog lags behind a sign-in", "user", req.Username, "err", err)
	}
	now := time.Now()
	sess := &session{user: req.Username, host: host, credential: v.Credential, lastUsed: now, created: now, shownUsed: now}
	sess.state.User, sess.state.UserCreated = req.Username, v.Created
	s.mu.Lock()
	defer s.mu.Unlock()
	if limit := s.cfg.MaxSessionsPerUser; limit > 0 {
		n := 0
		for _, o := range s.sessions {
			if o.user == sess.user && o.host == host {
				n++
			}
		}
		if n >= limit {
			s.log.Warn("sign-in refused: too many sessions", "user", req.Username, "host", host, "sessions", n)
			return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT,
				Error: fmt.Sprintf("user %q already has %d sessions from %s, the most graphd allows (--max-sessions-per-user): sign out of one, or wait for idle ones to expire", req.Username, n, host)}, nil
		}
	}
	for sess.id == 0 || s.sessions[sess.id] != nil {
		sess.id = newSessionID()
	}
	s.sessions[sess.id] = sess
	s.metrics.sessions.Set(float64(len(s.sessions)))
	return &graphpb.AuthResp{SessionId: sess.id}, nil
}

// Signout implements GraphService.
func (s *Server) Signout(_ context.Context, req *graphpb.SignoutReq) (*graphpb.SignoutResp, error) {
	s.mu.Lock()
	delete(s.sessions, req.SessionId)
	s.metrics.sessions.Set(float64(len(s.sessions)))
	s.mu.Unlock()
	return &graphpb.SignoutResp{}, nil
}

// localSessions lists this graphd's sessions (SHOW SESSIONS).
func (s *Server) localSessions() []exec.SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]exec.SessionInfo, 0, len(s.sessions))
	for _, sess := range s.sessions {
		out = append(out, exec.SessionInfo{ID: sess.id, User: sess.user, Space: sess.shownIn, Created: sess.created,
			Updated: sess.shownUsed, GraphAddr: s.queries.host, ClientIP: sess.host})
	}
	return out
}

// killLocalSession signs one of this graphd's sessions out and stops its
// running queries (KILL SESSION); false if it has no such session.
// Killing one's own session ends it after the statement.
func (s *Server) killLocalSession(ctx context.Context, id int64) bool {
	s.mu.Lock()
	if s.sessions[id] == nil {
		s.mu.Unlock()
		return false
	}
	delete(s.sessions, id)
	s.metrics.sessions.Set(float64(len(s.sessions)))
	s.mu.Unlock()
	// A session runs one statement at a time: when it kills itself, the
	// only query it has running is this KILL SESSION, which finishes.
	if asker, _ := ctx.Value(sessionKey{}).(int64); asker != id {
		s.queries.killSession(id)
	}
	return true
}

// params converts a request's query parameters for the executor. A
// parameter is the client's, not a value storaged or the executor made:
// its dates and times are checked against their ranges here, since the
// temporal arithmetic relies on operands in range.
func params(in map[string]*commonpb.Value) (map[string]value.Value, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]value.Value, len(in))
	for name, v := range in {
		pv := value.FromProto(v)
		if err := checkParam(pv); err != nil {
			return nil, &exec.Error{Code: graphpb.QueryErrorCode_E_SEMANTIC, Msg: fmt.Sprintf("parameter $%s: %v", name, err)}
		}
		out[name] = pv
	}
	return out, nil
}

// checkParam reports a date, time or datetime out of range in v, or a
// list longer than value.MaxListItems, at any depth of its lists and maps.
func checkParam(v value.Value) error {
	if d, ok := v.DateVal(); ok && !d.Valid() {
		return fmt.Errorf("date %d days from the epoch is out of range", int64(d))
	}
	if t, ok := v.TimeVal(); ok && !t.Valid() {
		return fmt.Errorf("time %d µs from midnight is out of range", int64(t))
	}
	if dt, ok := v.DateTimeVal(); ok && !dt.Valid() {
		return fmt.Errorf("datetime %d µs from the epoch is out of range", int64(dt))
	}
	if items, ok := v.ListVal(); ok {
		// A list parameter feeds IN and UNWIND-like expansions: it gets the
		// bound a list built in a query has (value.MaxListItems).
		if len(items) > value.MaxListItems {
			return fmt.Errorf("a list of %d items; the limit is %d", len(items), value.MaxListItems)
		}
		for _, it := range items {
			if err := checkParam(it); err != nil {
				return err
			}
		}
	}
	if props, ok := v.MapVal(); ok {
		for _, p := range props {
			if err := checkParam(p.Value); err != nil {
				return fmt.Errorf("key %q: %w", p.Name, err)
			}
		}
	}
	return nil
}

// execute runs one request, turning a panic in the executor into an error
// for this statement instead of a crash of every session.
func (s *Server) execute(ctx context.Context, sess *session, stmt string, params map[string]value.Value) (data *graphpb.DataSet, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("statement panicked", "session", sess.id, "stmt", lexer.RedactSecrets(stmt), "panic", r, "stack", string(debug.Stack()))
			data, err = nil, &exec.Error{Code: graphpb.QueryErrorCode_E_EXECUTION, Msg: fmt.Sprintf("internal error while executing the statement: %v", r)}
		}
	}()
	return s.executor.ExecuteWithParams(metaclient.WithCredential(ctx, sess.credential), &sess.state, stmt, params)
}

// Execute implements GraphService.
func (s *Server) Execute(ctx context.Context, req *graphpb.ExecuteReq) (*graphpb.ExecuteResp, error) {
	start := time.Now()
	s.mu.Lock()
	sess := s.sessions[req.SessionId]
	s.mu.Unlock()
	if sess == nil {
		return &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_SESSION, Error: fmt.Sprintf("session %d not found (expired, or graphd restarted): sign in again", req.SessionId)}, nil
	}
	if limit := s.cfg.MaxStatementBytes; limit > 0 && len(req.Stmt) > limit {
		return &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_SYNTAX,
			Error: fmt.Sprintf("the statement is %s; graphd accepts at most %s (--max-statement-bytes): split it, or pass large values as query parameters",
				bytesize.Format(int64(len(req.Stmt))), bytesize.Format(int64(limit)))}, nil
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.lastUsed = start
	s.mu.Lock()
	// A statement that waited for the session while KILL SESSION or a
	// sign-out ended it does not run.
	ended := s.sessions[req.SessionId] != sess
	sess.shownUsed = start
	s.mu.Unlock()
	if ended {
		return &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_SESSION, Error: fmt.Sprintf("session %d was ended (KILL SESSION or sign-out) before this statement ran: sign in again", req.SessionId)}, nil
	}
	defer func() {
		s.mu.Lock()
		sess.shownIn = sess.state.SpaceName
		s.mu.Unlock()
	}()
	// The query list and the logs keep the text: never a password.
	ctx, q := s.beginQuery(ctx, sess, lexer.RedactSecrets(req.Stmt), start)
	if req.GetColumnar() {
		ctx = exec.WithColumnarResult(ctx)
	}
	ps, err := params(req.GetParams())
	var data *graphpb.DataSet
	if err == nil {
		data, err = s.execute(ctx, sess, req.Stmt, ps)
	}
	data, err = s.endQuery(ctx, q, data, err)
	if !req.GetPackedStrings() {
		for _, c := range data.GetColumns() {
			c.UnpackStrings() // a client from before the packing
		}
	}
	resp := &graphpb.ExecuteResp{Data: data, SpaceName: sess.state.SpaceName}
	if err != nil {
		resp.Code, resp.Error = exec.ErrorCode(err), err.Error()
		resp.Data = nil
	}
	resp.LatencyUs = time.Since(start).Microseconds()
	kind := statementKind(req.Stmt)
	s.metrics.queries.WithLabelValues(kind, resp.Code.String()).Inc()
	s.metrics.latency.WithLabelValues(kind).Observe(time.Since(start).Seconds())
	if resp.Code != graphpb.QueryErrorCode_OK {
		s.log.Debug("statement failed", "session", sess.id, "stmt", q.text, "err", resp.Error)
	}
	return resp, nil
}
