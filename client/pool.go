package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// signoutTimeout bounds the best-effort signouts of Session.Close and
// Pool.Close, which take no context: graphd expires abandoned sessions
// anyway, so a dead graphd must not hang the caller's shutdown.
const signoutTimeout = 2 * time.Second

// Pool holds gRPC connections to one or more graphd addresses and opens
// sessions on them. It is safe for concurrent use.
type Pool struct {
	endpoints []*endpoint
	next      atomic.Uint64 // round-robin cursor over endpoints

	mu       sync.Mutex
	closed   bool
	sessions map[*Session]struct{} // open sessions, signed out by Close
}

// endpoint is one graphd address and the connections kept to it.
type endpoint struct {
	addr  string
	conns []*grpc.ClientConn
	next  atomic.Uint64 // round-robin cursor over conns
}

func (e *endpoint) pick() *grpc.ClientConn {
	return e.conns[(e.next.Add(1)-1)%uint64(len(e.conns))]
}

// NewPool validates cfg and prepares the connections. It does not dial:
// connections are established by the first call that needs them, so
// NewPool succeeds even while graphd is down.
func NewPool(cfg Config) (*Pool, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pool{sessions: make(map[*Session]struct{})}
	opts := dialOptions(cfg)
	for _, addr := range cfg.Addresses {
		ep := &endpoint{addr: addr}
		p.endpoints = append(p.endpoints, ep)
		for range cfg.ConnsPerAddress {
			conn, err := grpc.NewClient(addr, opts...)
			if err != nil {
				_ = p.closeConns()
				return nil, fmt.Errorf("client: graphd %s: %w", addr, err)
			}
			ep.conns = append(ep.conns, conn)
		}
	}
	return p, nil
}

func dialOptions(cfg Config) []grpc.DialOption {
	// gRPC's default reconnect backoff grows to two minutes, during which a
	// restarted graphd stays unreachable to us; cap it at a few seconds.
	reconnect := backoff.DefaultConfig
	reconnect.BaseDelay = 100 * time.Millisecond
	reconnect.MaxDelay = 2 * time.Second
	creds := insecure.NewCredentials()
	if cfg.TLS != nil {
		creds = credentials.NewTLS(cfg.TLS)
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           reconnect,
			MinConnectTimeout: cfg.ConnectTimeout,
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxRecvMsgBytes)),
	}
	return append(opts, cfg.DialOptions...)
}

// Session authenticates user on one graphd, chosen round-robin. When that
// address is unreachable it tries the next, until every address has been
// tried or ctx ends. A rejected login is a *QueryError with Code E_AUTH and
// is not retried elsewhere.
func (p *Pool) Session(ctx context.Context, user, password string) (*Session, error) {
	if p.isClosed() {
		return nil, ErrPoolClosed
	}
	start := p.next.Add(1) - 1
	var unreachable []error
	for i := range len(p.endpoints) {
		ep := p.endpoints[(start+uint64(i))%uint64(len(p.endpoints))]
		sess, err := p.authenticate(ctx, ep, user, password)
		if err == nil {
			if err := p.track(sess); err != nil {
				return nil, err
			}
			return sess, nil
		}
		if !isUnreachable(err) || ctx.Err() != nil {
			return nil, err
		}
		unreachable = append(unreachable, err)
	}
	return nil, fmt.Errorf("client: no graphd reachable: %w", errors.Join(unreachable...))
}

func (p *Pool) authenticate(ctx context.Context, ep *endpoint, user, password string) (*Session, error) {
	rpc := graphpb.NewGraphServiceClient(ep.pick())
	resp, err := rpc.Authenticate(ctx, &graphpb.AuthReq{Username: user, Password: password})
	if err != nil {
		return nil, newTransportError(ctx, ep.addr, "authenticate", err)
	}
	if resp.GetCode() != commonpb.ErrorCode_SUCCEEDED {
		msg := resp.GetError()
		if msg == "" {
			msg = resp.GetCode().String()
		}
		return nil, &QueryError{Code: graphpb.QueryErrorCode_E_AUTH, Msg: msg}
	}
	return &Session{pool: p, addr: ep.addr, rpc: rpc, id: resp.GetSessionId()}, nil
}

// isUnreachable reports whether err means the address could not be reached
// at all, as opposed to graphd answering (which is never retried elsewhere:
// the statement may have run).
func isUnreachable(err error) bool {
	var te *TransportError
	return errors.As(err, &te) && status.Code(te.Err) == codes.Unavailable
}

func newTransportError(ctx context.Context, addr, op string, err error) *TransportError {
	ctxErr := ctx.Err()
	if _, hasDeadline := ctx.Deadline(); ctxErr == nil && hasDeadline && status.Code(err) == codes.DeadlineExceeded {
		// gRPC sends our deadline along and the server enforces it too; its
		// verdict can arrive before our own timer fires.
		ctxErr = context.DeadlineExceeded
	}
	return &TransportError{Addr: addr, Op: op, Err: err, ctxErr: ctxErr}
}

// track registers sess so that Close signs it out; a pool closed meanwhile
// signs it out at once.
func (p *Pool) track(sess *Session) error {
	p.mu.Lock()
	closed := p.closed
	if !closed {
		p.sessions[sess] = struct{}{}
	}
	p.mu.Unlock()
	if closed {
		_ = sess.Close()
		return ErrPoolClosed
	}
	return nil
}

func (p *Pool) untrack(sess *Session) {
	p.mu.Lock()
	delete(p.sessions, sess)
	p.mu.Unlock()
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close signs out the open sessions (best effort, bounded by a short
// timeout) and closes the connections. Sessions of a closed pool return
// ErrPoolClosed. Close is idempotent.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	sessions := p.sessions
	p.sessions = nil
	p.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), signoutTimeout)
	defer cancel()
	for sess := range sessions {
		if sess.markClosed(ErrPoolClosed) {
			_ = sess.signout(ctx) // graphd expires it anyway
		}
	}
	return p.closeConns()
}

func (p *Pool) closeConns() error {
	var errs []error
	for _, ep := range p.endpoints {
		for _, conn := range ep.conns {
			if err := conn.Close(); err != nil {
				errs = append(errs, fmt.Errorf("client: closing connection to %s: %w", ep.addr, err))
			}
		}
	}
	return errors.Join(errs...)
}
