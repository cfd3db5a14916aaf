// Package nebulaapi is graphd's NebulaGraph 3.x protocol. It is the Thrift
// GraphService (authenticate, signout, execute, executeWithParameter,
// executeJson, executeJsonWithParameter, verifyClientVersion), so that NebulaGraph's own clients and tools
// (nebula-go, nebula-python, nebula-java, nebula-console) connect
// unchanged. docs/nebula-clients.md is the user's guide.
//
// The wire is not written here: the service types, their serialisation
// and the request dispatch are nebula-go v3.8.0's generated code
// (github.com/vesoft-inc/nebula-go/v3/nebula/graph) on its Thrift library
// (github.com/vesoft-inc/fbthrift), the code Nebula's clients themselves
// run. The transport is fbthrift's header transport, which nebula-go uses
// by default (compact protocol inside); it also reads plain framed
// transport with the binary or compact protocol, as NebulaGraph's graphd
// does. Unframed transport and HTTP/2 (nebula-go's UseHTTP2) are not
// served.
//
// Every call goes to the same GraphService methods the gRPC clients reach
// (Backend, which graphd.Server implements), in process: sessions are
// graphd's sessions, so a session signed in here can be listed, killed
// and limited like any other, and one signed in over gRPC can be used
// here.
//
// What this package adds is the connection handling (conn.go): it owns
// the listener and every connection, reads and checks each request's
// frame before fbthrift parses it, bounds what a hostile client can make
// graphd hold (frames, collections, nesting, connections, idle and
// stalled connections), cancels a statement whose client left, and stops
// them all with graphd.
package nebulaapi

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"
)

// Config configures the protocol's server.
type Config struct {
	// TLS, if set, makes every connection TLS (nebula-go's SslConfig):
	// graphd's own certificate, as on its gRPC port.
	TLS *tls.Config
	// MaxFrameBytes bounds one request frame; default DefaultMaxFrameBytes.
	// graphd's statement limit applies to the statement inside.
	MaxFrameBytes int
	// MaxBufferedBytes bounds the request frames all connections are
	// reading at once, and a quarter of it those of one client address;
	// default DefaultMaxBufferedBytes. A frame that would go over is
	// refused and its connection closed.
	MaxBufferedBytes int64
	// MaxConns bounds the connections open at once, MaxConnsPerHost those
	// from one client address; defaults DefaultMaxConns and
	// DefaultMaxConnsPerHost. A connection over either is closed at once.
	MaxConns, MaxConnsPerHost int
	// FirstRequestTimeout bounds the wait for a connection's first
	// request (the TLS handshake included); default
	// DefaultFirstRequestTimeout. Silent sockets would otherwise hold
	// connection slots for IdleTimeout.
	FirstRequestTimeout time.Duration
	// IdleTimeout closes a connection that sends no request for this
	// long after its first; default DefaultIdleTimeout. nebula-go
	// reconnects by itself.
	IdleTimeout time.Duration
	// IOTimeout bounds reading the rest of a request once it has begun,
	// and writing each 256 KiB of an answer to a client that does not
	// read it; default DefaultIOTimeout.
	IOTimeout time.Duration
	// Request, if set, wraps every request: it returns the context the
	// request runs in and a function called once its answer has been
	// written (graphd keeps the answer charged to the query's memory
	// budget until then).
	Request func(ctx context.Context) (context.Context, func())
	Logger  *slog.Logger
}

// The defaults of Config.
const (
	// DefaultMaxFrameBytes matches graphd's gRPC receive limit (64 MiB).
	DefaultMaxFrameBytes       = 64 << 20
	DefaultMaxBufferedBytes    = 512 << 20
	DefaultMaxConns            = 4096
	DefaultMaxConnsPerHost     = 1024
	DefaultFirstRequestTimeout = 30 * time.Second
	DefaultIdleTimeout         = time.Hour
	DefaultIOTimeout           = 2 * time.Minute
)

// Server serves the protocol on one listener. It owns its connections:
// Stop closes them all and returns when every goroutine it started has.
type Server struct {
	cfg  Config
	svc  *service
	proc thrift.ProcessorContext
	log  *slog.Logger

	// base is every request's parent context; Stop cancels it after the
	// grace period, which stops the statements still running.
	base   context.Context
	cancel context.CancelFunc
	// buffered is the bytes of request frames being read or answered,
	// bounded by Config.MaxBufferedBytes.
	buffered atomic.Int64
	// pools lend the chunks answers are made of (arena.go).
	pools pools

	mu      sync.Mutex
	lis     net.Listener
	conns   map[net.Conn]*connState
	perHost map[string]int // open connections by client address
	// hostBuffered is the frame bytes being read by client address: a
	// host gets a quarter of Config.MaxBufferedBytes.
	hostBuffered map[string]int64
	stopping     bool

	connsWG  sync.WaitGroup // serveConn goroutines
	requests sync.WaitGroup // requests being answered
	accepted chan struct{}  // closed when the accept loop returns
	stopped  chan struct{}  // closed by Stop
}

// connState is what Stop needs of one connection, under Server.mu.
type connState struct {
	busy bool // a request is being answered
}

// New returns a server for b; Serve starts it.
func New(b Backend, cfg Config) *Server {
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if cfg.MaxBufferedBytes <= 0 {
		cfg.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxConnsPerHost <= 0 {
		cfg.MaxConnsPerHost = DefaultMaxConnsPerHost
	}
	if cfg.FirstRequestTimeout <= 0 {
		cfg.FirstRequestTimeout = DefaultFirstRequestTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.IOTimeout <= 0 {
		cfg.IOTimeout = DefaultIOTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	svc := &service{b: b, log: cfg.Logger}
	base, cancel := context.WithCancel(context.Background())
	return &Server{cfg: cfg, svc: svc, proc: graph.NewGraphServiceProcessor(svc), log: cfg.Logger,
		base: base, cancel: cancel, conns: map[net.Conn]*connState{}, perHost: map[string]int{}, hostBuffered: map[string]int64{},
		accepted: make(chan struct{}), stopped: make(chan struct{})}
}

// Serve accepts connections on lis until Stop; it returns at once, the
// accept loop runs on its own goroutine. A server serves one listener
// once: after Stop, Serve closes lis.
func (s *Server) Serve(lis net.Listener) {
	if s.cfg.TLS != nil {
		lis = tls.NewListener(lis, s.cfg.TLS)
	}
	s.mu.Lock()
	if s.stopping || s.lis != nil {
		s.mu.Unlock()
		lis.Close()
		return
	}
	s.lis = lis
	s.mu.Unlock()
	go s.acceptLoop(lis)
}

func (s *Server) acceptLoop(lis net.Listener) {
	defer close(s.accepted)
	var backoff time.Duration
	for {
		conn, err := lis.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait, as net/http
			// does, unless graphd is stopping.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accepting a NebulaGraph-protocol connection", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-s.stopped:
				return
			}
			continue
		}
		backoff = 0
		host := hostOf(conn.RemoteAddr())
		s.mu.Lock()
		if s.stopping || len(s.conns) >= s.cfg.MaxConns || s.perHost[host] >= s.cfg.MaxConnsPerHost {
			stopping, hostFull := s.stopping, s.perHost[host] >= s.cfg.MaxConnsPerHost
			s.mu.Unlock()
			if !stopping {
				s.log.Warn("NebulaGraph-protocol connection refused: too many open", "from", conn.RemoteAddr().String(),
					"from_this_host", hostFull, "max", s.cfg.MaxConns, "max_per_host", s.cfg.MaxConnsPerHost)
			}
			conn.Close()
			continue
		}
		st := &connState{}
		s.conns[conn] = st
		s.perHost[host]++
		s.connsWG.Add(1)
		s.mu.Unlock()
		go s.serveConn(conn, st, host)
	}
}

// hostOf is a client address without its port, what the per-host limit
// counts.
func hostOf(a net.Addr) string {
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return a.String()
}

// Conns is the number of connections open.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Addr is the address the server listens on, nil before Serve.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lis == nil {
		return nil
	}
	return s.lis.Addr()
}

// Stop stops taking connections and requests, gives the requests being
// answered up to grace to finish, then cancels them and closes every
// connection; it returns once all of the server's goroutines have.
func (s *Server) Stop(grace time.Duration) {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	close(s.stopped)
	lis := s.lis
	var idle []net.Conn
	for c, st := range s.conns {
		if !st.busy {
			idle = append(idle, c) // nothing to wait for
		}
	}
	s.mu.Unlock()
	closeAll(idle)
	if lis != nil {
		lis.Close()
		<-s.accepted
	}
	finished := make(chan struct{})
	go func() {
		s.requests.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(grace):
		s.log.Warn("NebulaGraph-protocol requests still running after the grace period: cancelling them")
	}
	s.cancel()
	s.mu.Lock()
	all := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		all = append(all, c)
	}
	s.mu.Unlock()
	closeAll(all)
	s.connsWG.Wait()
}

// closeAll closes conns at once: closing a TLS connection may wait on its
// peer, so one slow client must not hold up the others.
func closeAll(conns []net.Conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
}
