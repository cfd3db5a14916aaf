package client

import (
	"context"
	"sync"

	"github.com/novagraph/novagraph/proto/graphpb"
)

// Session is an authenticated session on one graphd. It is safe for
// concurrent use, but its statements share one current space (USE), so
// concurrent workers that need different spaces want a session each.
//
// A session does not survive a graphd restart: Execute then returns a
// *QueryError with Code E_SESSION (see IsSessionExpired and the package
// documentation for why it is not re-authenticated silently).
type Session struct {
	pool *Pool
	addr string
	rpc  graphpb.GraphServiceClient
	id   int64

	mu        sync.Mutex
	space     string
	closedErr error // ErrSessionClosed or ErrPoolClosed once closed
}

// ID is the session id graphd assigned.
func (s *Session) ID() int64 { return s.id }

// Addr is the graphd address (host:port) the session lives on.
func (s *Session) Addr() string { return s.addr }

// SpaceName is the session's current space as of its last successful
// statement; empty before any USE.
func (s *Session) SpaceName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.space
}

// Execute runs one statement text (graphd may accept several separated by
// ';' in one text). A statement graphd rejects returns a *QueryError;
// a call that got no answer returns a *TransportError. ctx's deadline
// bounds the whole call.
func (s *Session) Execute(ctx context.Context, stmt string) (*ResultSet, error) {
	if err := s.closedError(); err != nil {
		return nil, err
	}
	resp, err := s.rpc.Execute(ctx, &graphpb.ExecuteReq{SessionId: s.id, Stmt: stmt})
	if err != nil {
		return nil, newTransportError(ctx, s.addr, "execute", err)
	}
	if resp.GetCode() != graphpb.QueryErrorCode_OK {
		return nil, &QueryError{Code: resp.GetCode(), Msg: resp.GetError()}
	}
	s.mu.Lock()
	s.space = resp.GetSpaceName()
	s.mu.Unlock()
	return newResultSet(resp), nil
}

// Close signs the session out of graphd (best effort, bounded by a short
// timeout: graphd expires abandoned sessions anyway). It is idempotent.
func (s *Session) Close() error {
	if !s.markClosed(ErrSessionClosed) {
		return nil
	}
	s.pool.untrack(s)
	ctx, cancel := context.WithTimeout(context.Background(), signoutTimeout)
	defer cancel()
	return s.signout(ctx)
}

// markClosed records why the session closed and reports whether this call
// closed it, so that exactly one caller signs it out.
func (s *Session) markClosed(reason error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closedErr != nil {
		return false
	}
	s.closedErr = reason
	return true
}

func (s *Session) closedError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closedErr
}

func (s *Session) signout(ctx context.Context) error {
	if _, err := s.rpc.Signout(ctx, &graphpb.SignoutReq{SessionId: s.id}); err != nil {
		return newTransportError(ctx, s.addr, "signout", err)
	}
	return nil
}
