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
	return s.execute(ctx, &graphpb.ExecuteReq{SessionId: s.id, Stmt: stmt, Columnar: true, PackedStrings: true})
}

// ExecuteWithParams is Execute with query parameters, which the statement
// reads as $name, as in NebulaGraph 3:
//
//	sess.ExecuteWithParams(ctx, "GO FROM $p OVER follow WHERE follow.degree > $min YIELD dst(edge)",
//		map[string]any{"p": []string{"player100", "player101"}, "min": 90})
//
// A parameter is a vid or a list of vids where the statement starts from
// one (GO FROM $p, FETCH PROP ON tag $p), any value in an expression. See
// ParamValue for the Go types a parameter may have; one of another type
// fails the call before anything is sent. A parameter the statement reads
// but params lacks is graphd's E_SEMANTIC error naming it.
func (s *Session) ExecuteWithParams(ctx context.Context, stmt string, params map[string]any) (*ResultSet, error) {
	values, err := paramValues(params)
	if err != nil {
		return nil, err
	}
	return s.execute(ctx, &graphpb.ExecuteReq{SessionId: s.id, Stmt: stmt, Params: values, Columnar: true, PackedStrings: true})
}

func (s *Session) execute(ctx context.Context, req *graphpb.ExecuteReq) (*ResultSet, error) {
	if err := s.closedError(); err != nil {
		return nil, err
	}
	resp, err := s.rpc.Execute(ctx, req)
	if err != nil {
		return nil, newTransportError(ctx, s.addr, "execute", err)
	}
	if resp.GetCode() != graphpb.QueryErrorCode_OK {
		return nil, &QueryError{Code: resp.GetCode(), Msg: resp.GetError()}
	}
	s.mu.Lock()
	s.space = resp.GetSpaceName()
	s.mu.Unlock()
	rs, err := newResultSet(resp)
	if err != nil {
		return nil, &TransportError{Addr: s.addr, Op: "execute", Err: err}
	}
	return rs, nil
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
