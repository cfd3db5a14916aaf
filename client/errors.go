package client

import (
	"errors"
	"fmt"

	"github.com/novagraph/novagraph/proto/graphpb"
)

var (
	// ErrPoolClosed is returned by a Pool, and by its sessions, after Pool.Close.
	ErrPoolClosed = errors.New("client: pool is closed")
	// ErrSessionClosed is returned by Execute after Session.Close.
	ErrSessionClosed = errors.New("client: session is closed")
	// ErrNull is returned by the typed Row accessors for a NULL cell.
	ErrNull = errors.New("client: value is NULL")
	// ErrType is wrapped by the typed Row accessors when the cell holds
	// another type than the one asked for.
	ErrType = errors.New("client: wrong value type")
)

// QueryError is a statement (or an authentication) that graphd answered
// with a non-OK code.
type QueryError struct {
	Code graphpb.QueryErrorCode
	Msg  string
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Msg)
}

// IsSessionExpired reports whether err says graphd no longer knows the
// session (it restarted, or the session timed out). The caller must open a
// new Session and replay its USE; see the package documentation.
func IsSessionExpired(err error) bool {
	var qe *QueryError
	return errors.As(err, &qe) && qe.Code == graphpb.QueryErrorCode_E_SESSION
}

// TransportError is a call that did not get an answer from graphd at Addr.
type TransportError struct {
	Addr string // the graphd address, host:port
	Op   string // "authenticate", "execute" or "signout"
	// Err is the gRPC status error.
	Err error
	// ctxErr is the caller's context error when its deadline or cancellation
	// ended the call, so that errors.Is(err, context.DeadlineExceeded) works.
	ctxErr error
}

func (e *TransportError) Error() string {
	if e.ctxErr != nil {
		return fmt.Sprintf("graphd %s: %s: %v", e.Addr, e.Op, e.ctxErr)
	}
	return fmt.Sprintf("graphd %s: %s: %v", e.Addr, e.Op, e.Err)
}

// Unwrap exposes both the gRPC status error (for status.Code) and the
// context error, if any.
func (e *TransportError) Unwrap() []error {
	if e.ctxErr != nil {
		return []error{e.ctxErr, e.Err}
	}
	return []error{e.Err}
}
