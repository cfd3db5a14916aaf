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
// What this package adds is the connection handling: it owns the
// listener and every connection, bounds what a hostile client can make
// graphd hold (frames, connections, idle and stalled connections), and
// stops them with graphd.
package nebulaapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/vesoft-inc/fbthrift/thrift/lib/go/thrift"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"
	"google.golang.org/grpc/peer"
)

// Config configures the protocol's server.
type Config struct {
	// TLS, if set, makes every connection TLS (nebula-go's SslConfig):
	// graphd's own certificate, as on its gRPC port.
	TLS *tls.Config
	// MaxFrameBytes bounds one request frame; default DefaultMaxFrameBytes.
	// graphd's statement limit applies to the statement inside.
	MaxFrameBytes int
	// MaxConns bounds the connections open at once; default
	// DefaultMaxConns. A connection over it is closed at once.
	MaxConns int
	// IdleTimeout closes a connection that sends no request for this
	// long; default DefaultIdleTimeout. nebula-go reconnects by itself.
	IdleTimeout time.Duration
	// WriteTimeout bounds writing one answer to a client that does not
	// read it; default DefaultWriteTimeout.
	WriteTimeout time.Duration
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
	DefaultMaxFrameBytes = 64 << 20
	DefaultMaxConns      = 4096
	DefaultIdleTimeout   = time.Hour
	DefaultWriteTimeout  = 2 * time.Minute
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

	mu       sync.Mutex
	lis      net.Listener
	conns    map[net.Conn]*connState
	stopping bool

	conns_   sync.WaitGroup // serveConn goroutines
	requests sync.WaitGroup // requests being answered
	accepted chan struct{}  // closed when the accept loop returns
}

// connState is what Stop needs of one connection.
type connState struct {
	busy bool // a request is being answered
}

// New returns a server for b; Serve starts it.
func New(b Backend, cfg Config) *Server {
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	svc := &service{b: b, log: cfg.Logger}
	base, cancel := context.WithCancel(context.Background())
	return &Server{cfg: cfg, svc: svc, proc: graph.NewGraphServiceProcessor(svc), log: cfg.Logger,
		base: base, cancel: cancel, conns: map[net.Conn]*connState{}, accepted: make(chan struct{})}
}

// Serve accepts connections on lis until Stop; it returns at once, the
// accept loop runs on its own goroutine.
func (s *Server) Serve(lis net.Listener) {
	if s.cfg.TLS != nil {
		lis = tls.NewListener(lis, s.cfg.TLS)
	}
	s.mu.Lock()
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
			// Out of file descriptors and the like: wait, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accepting a NebulaGraph-protocol connection", "err", err, "retry_in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.mu.Lock()
		if s.stopping || len(s.conns) >= s.cfg.MaxConns {
			full := !s.stopping
			s.mu.Unlock()
			if full {
				s.log.Warn("NebulaGraph-protocol connection refused: too many open", "from", conn.RemoteAddr().String(), "max", s.cfg.MaxConns)
			}
			conn.Close()
			continue
		}
		st := &connState{}
		s.conns[conn] = st
		s.conns_.Add(1)
		s.mu.Unlock()
		go s.serveConn(conn, st)
	}
}

// serveConn answers one connection's requests, one at a time, as
// NebulaGraph's clients send them.
func (s *Server) serveConn(conn net.Conn, st *connState) {
	defer s.conns_.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
	}()
	g := &guardedConn{Conn: conn, s: s, st: st, r: bufio.NewReaderSize(conn, 32<<10)}
	sock, err := thrift.NewSocket(thrift.SocketConn(g))
	if err != nil {
		return
	}
	trans := thrift.NewHeaderTransport(thrift.NewBufferedTransport(sock, 64<<10))
	proto := thrift.NewHeaderProtocol(trans)
	// The sign-in's client host, as gRPC's peer gives it to graphd.
	ctx := peer.NewContext(s.base, &peer.Peer{Addr: conn.RemoteAddr(), LocalAddr: conn.LocalAddr()})
	for {
		keepOpen, err := s.process(ctx, g, proto)
		if err != nil {
			if !g.quiet(err) {
				s.log.Info("NebulaGraph-protocol connection closed on an error", "from", conn.RemoteAddr().String(), "err", err)
			}
			return
		}
		if !keepOpen {
			return
		}
	}
}

// process answers one request. The request counts as running from its
// first byte (guardedConn marks it) until its answer is written.
func (s *Server) process(ctx context.Context, g *guardedConn, proto thrift.Protocol) (keepOpen bool, err error) {
	defer func() {
		if g.inRequest {
			g.inRequest = false
			s.mu.Lock()
			g.st.busy = false
			s.mu.Unlock()
			s.requests.Done()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			// The generated code or the library: log, and drop the
			// connection rather than graphd.
			s.log.Error("NebulaGraph-protocol request panicked", "panic", r)
			keepOpen, err = false, fmt.Errorf("internal error: %v", r)
		}
	}()
	done := func() {}
	if s.cfg.Request != nil {
		ctx, done = s.cfg.Request(ctx)
	}
	defer done()
	return thrift.ProcessContext(ctx, s.proc, proto, proto)
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
	s.stopping = true
	lis := s.lis
	for c, st := range s.conns {
		if !st.busy {
			c.Close() // idle: nothing to wait for
		}
	}
	s.mu.Unlock()
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
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.conns_.Wait()
}

// guardedConn is a connection as the Thrift transport reads it: it checks
// each request frame's length before the transport sees it, puts the
// idle and write deadlines on the connection, and marks when a request
// starts for Stop.
//
// Why it looks at frames at all: the transport would accept a frame of up
// to 1 GiB and size a string from the frame's declared length, before
// the bytes arrive; and a header frame may ask for zlib or zstd
// decompression, which the transport does into memory without a bound.
// Every frame the header transport reads starts with its length (4 bytes,
// big-endian); a header frame goes on with the magic 0x0FFF, flags,
// sequence id, the header's length in words, then varints for the
// protocol id and the number of transforms (fbthrift's header.go).
type guardedConn struct {
	net.Conn
	s *Server
	r *bufio.Reader
	// st is shared with Stop, under Server.mu.
	st *connState
	// frameLeft is the unread rest of the current frame.
	frameLeft int64
	// inRequest: a request's first frame has been read and its answer
	// not yet written (process ends it).
	inRequest bool
	// refused is why the connection was closed by the guard, if it was.
	refused error
}

// errRefusedFrame marks a frame the guard would not read.
var errRefusedFrame = errors.New("refused frame")

func (g *guardedConn) Read(p []byte) (int, error) {
	if g.frameLeft == 0 {
		if err := g.nextFrame(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > g.frameLeft {
		p = p[:g.frameLeft]
	}
	n, err := g.r.Read(p)
	g.frameLeft -= int64(n)
	return n, err
}

// nextFrame waits (up to the idle timeout) for the next frame and checks
// its start.
func (g *guardedConn) nextFrame() error {
	s := g.s
	if err := g.Conn.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout)); err != nil {
		return err
	}
	head, err := g.r.Peek(4)
	if err != nil {
		return err
	}
	// A request begins: from here on it runs, for Stop's purposes.
	s.mu.Lock()
	stopping := s.stopping
	if !stopping && !g.inRequest {
		g.st.busy = true
		g.inRequest = true
		s.requests.Add(1)
	}
	s.mu.Unlock()
	if stopping {
		return g.refuse(errServerStopping)
	}
	// The rest of a request may take a while to arrive, not for ever.
	if err := g.Conn.SetReadDeadline(time.Now().Add(s.cfg.WriteTimeout)); err != nil {
		return err
	}
	size := int64(binary.BigEndian.Uint32(head))
	if size > int64(s.cfg.MaxFrameBytes) {
		return g.refuse(fmt.Errorf("%w: a frame of %d bytes, over the %d this port reads (or a client that does not frame its requests: use the header or framed transport)", errRefusedFrame, size, s.cfg.MaxFrameBytes))
	}
	// The header of a header-transport frame: refuse transforms.
	if hdr, err := g.r.Peek(int(min(4+size, 32))); err == nil && len(hdr) >= 14 && binary.BigEndian.Uint16(hdr[4:6]) == 0x0FFF {
		rd := bytes.NewReader(hdr[14:])
		if _, err := binary.ReadUvarint(rd); err == nil { // protocol id
			if n, err := binary.ReadUvarint(rd); err == nil && n > 0 {
				return g.refuse(fmt.Errorf("%w: the frame asks for %d transforms (compression); this port reads none", errRefusedFrame, n))
			}
		}
	}
	g.frameLeft = 4 + size
	return nil
}

// The Thrift socket sets (and, with no timeout of its own, clears) the
// deadlines around each read and write; the guard owns them instead.
func (g *guardedConn) SetDeadline(time.Time) error      { return nil }
func (g *guardedConn) SetReadDeadline(time.Time) error  { return nil }
func (g *guardedConn) SetWriteDeadline(time.Time) error { return nil }

func (g *guardedConn) refuse(err error) error {
	g.refused = err
	return err
}

func (g *guardedConn) Write(p []byte) (int, error) {
	if err := g.Conn.SetWriteDeadline(time.Now().Add(g.s.cfg.WriteTimeout)); err != nil {
		return 0, err
	}
	return g.Conn.Write(p)
}

// quiet reports whether err ends a connection in the ordinary way: the
// client went away, stayed idle, or graphd is stopping. A refused frame
// is not quiet: the log names it.
func (g *guardedConn) quiet(err error) bool {
	if g.refused != nil {
		return errors.Is(g.refused, errServerStopping)
	}
	var te thrift.TransportException
	if errors.As(err, &te) && te.TypeID() == thrift.END_OF_FILE {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) || isTimeout(err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
