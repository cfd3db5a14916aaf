package nebulaapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/vesoft-inc/nebula-go/v3/nebula"
	"github.com/vesoft-inc/nebula-go/v3/nebula/graph"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// Backend is what the protocol calls: graphd's GraphService, in process,
// so that sign-in checks, the session cap, statement and query limits,
// roles and the redaction of passwords are the gRPC service's own.
type Backend interface {
	Authenticate(ctx context.Context, req *graphpb.AuthReq) (*graphpb.AuthResp, error)
	Execute(ctx context.Context, req *graphpb.ExecuteReq) (*graphpb.ExecuteResp, error)
	Signout(ctx context.Context, req *graphpb.SignoutReq) (*graphpb.SignoutResp, error)
	// EdgeTypeID is the catalog id of an edge type of a space, 0 if there
	// is none: NebulaGraph's edges carry it.
	EdgeTypeID(space, edge string) int32
}

// NebulaGraph's error codes that nebula-go v3.8.0's enum lacks; the
// values are those of NebulaGraph 3.x's common.thrift.
const (
	// ErrGraphMemoryExceeded is E_GRAPH_MEMORY_EXCEEDED: graphd stopped the
	// query at its memory limit (NebulaGraph 3.4 and later).
	ErrGraphMemoryExceeded nebula.ErrorCode = -2600
)

// MaxAnswerBytes bounds the estimated size of one answer in NebulaGraph's
// form, which takes several times the memory of graphd's columns (a
// pointer and a union per cell): a larger answer is refused with a hint
// to page it, as the HTTP API refuses one.
const MaxAnswerBytes = 256 << 20

// errorCode maps graphd's error codes to NebulaGraph's, so that a Nebula
// client's handling of a syntax error, a refusal or an expired session
// works unchanged. A query stopped at its deadline has no code of its own
// in NebulaGraph 3.x (nebula-go has none): it is E_EXECUTION_ERROR, and
// its message says it timed out.
func errorCode(c graphpb.QueryErrorCode) nebula.ErrorCode {
	switch c {
	case graphpb.QueryErrorCode_OK:
		return nebula.ErrorCode_SUCCEEDED
	case graphpb.QueryErrorCode_E_SYNTAX:
		return nebula.ErrorCode_E_SYNTAX_ERROR
	case graphpb.QueryErrorCode_E_SEMANTIC:
		return nebula.ErrorCode_E_SEMANTIC_ERROR
	case graphpb.QueryErrorCode_E_SESSION:
		return nebula.ErrorCode_E_SESSION_INVALID
	case graphpb.QueryErrorCode_E_AUTH:
		return nebula.ErrorCode_E_BAD_USERNAME_PASSWORD
	case graphpb.QueryErrorCode_E_MEMORY_EXCEEDED:
		return ErrGraphMemoryExceeded
	case graphpb.QueryErrorCode_E_KILLED:
		return nebula.ErrorCode_E_PLAN_IS_KILLED
	case graphpb.QueryErrorCode_E_BAD_PERMISSION:
		return nebula.ErrorCode_E_BAD_PERMISSION
	}
	return nebula.ErrorCode_E_EXECUTION_ERROR // E_EXECUTION, E_TIMEOUT
}

// service implements NebulaGraph's graph.GraphService on a Backend.
type service struct {
	b   Backend
	log *slog.Logger
}

var _ graph.GraphService = (*service)(nil)

// utcName is the time zone a session's answers are in: novagraph's
// values are UTC (package temporal), and nebula-go shows local times by
// the offset the sign-in names.
var utcName = []byte("UTC")

func (s *service) Authenticate(ctx context.Context, username, password []byte) (*graph.AuthResponse, error) {
	r, err := s.b.Authenticate(ctx, &graphpb.AuthReq{Username: string(username), Password: string(password)})
	if err != nil {
		return &graph.AuthResponse{ErrorCode: nebula.ErrorCode_E_RPC_FAILURE, ErrorMsg: []byte(err.Error())}, nil
	}
	switch r.Code {
	case commonpb.ErrorCode_SUCCEEDED:
		id, offset := r.SessionId, int32(0)
		return &graph.AuthResponse{ErrorCode: nebula.ErrorCode_SUCCEEDED, SessionID: &id, TimeZoneOffsetSeconds: &offset, TimeZoneName: utcName}, nil
	case commonpb.ErrorCode_E_INVALID_ARGUMENT:
		// A wrong password, too many failures, too many sessions, root's
		// default password from afar: graphd refused the user, and says
		// which in the message.
		return &graph.AuthResponse{ErrorCode: nebula.ErrorCode_E_BAD_USERNAME_PASSWORD, ErrorMsg: []byte(r.Error)}, nil
	}
	// metad could not be asked: nothing was refused, it may work later.
	return &graph.AuthResponse{ErrorCode: nebula.ErrorCode_E_RPC_FAILURE, ErrorMsg: []byte(r.Error)}, nil
}

func (s *service) Signout(ctx context.Context, sessionID int64) error {
	_, err := s.b.Signout(ctx, &graphpb.SignoutReq{SessionId: sessionID})
	return err
}

func (s *service) Execute(ctx context.Context, sessionID int64, stmt []byte) (*graph.ExecutionResponse, error) {
	return s.execute(ctx, sessionID, stmt, nil)
}

func (s *service) ExecuteWithParameter(ctx context.Context, sessionID int64, stmt []byte, params map[string]*nebula.Value) (*graph.ExecutionResponse, error) {
	return s.execute(ctx, sessionID, stmt, params)
}

func (s *service) ExecuteJson(ctx context.Context, sessionID int64, stmt []byte) ([]byte, error) {
	return s.executeJSON(ctx, sessionID, stmt, nil)
}

func (s *service) ExecuteJsonWithParameter(ctx context.Context, sessionID int64, stmt []byte, params map[string]*nebula.Value) ([]byte, error) {
	return s.executeJSON(ctx, sessionID, stmt, params)
}

func (s *service) executeJSON(ctx context.Context, sessionID int64, stmt []byte, params map[string]*nebula.Value) ([]byte, error) {
	r, err := s.execute(ctx, sessionID, stmt, params)
	if err != nil {
		return nil, err
	}
	out, err := ResponseJSON(r)
	if err != nil {
		// An answer JSON cannot hold (a NaN, an infinity) is the
		// statement's error, not the connection's: a transport error
		// would make nebula-go reconnect and run the statement again.
		f := failed(nebula.ErrorCode_E_EXECUTION_ERROR, "the answer cannot be written as JSON: "+err.Error()+"; use execute, or filter the value out")
		f.SpaceName, f.LatencyInUs = r.SpaceName, r.LatencyInUs
		return ResponseJSON(f)
	}
	return out, nil
}

// execute runs one request: graphd answers in columns with packed
// strings, which convert to NebulaGraph's rows with the fewest
// allocations.
func (s *service) execute(ctx context.Context, sessionID int64, stmt []byte, params map[string]*nebula.Value) (*graph.ExecutionResponse, error) {
	req := &graphpb.ExecuteReq{SessionId: sessionID, Stmt: string(stmt), Columnar: true, PackedStrings: true}
	if len(params) > 0 {
		req.Params = make(map[string]*commonpb.Value, len(params))
		for name, v := range params {
			pv, err := paramValue(v, 0)
			if err != nil {
				return failed(nebula.ErrorCode_E_SEMANTIC_ERROR, fmt.Sprintf("parameter $%s: %v", name, err)), nil
			}
			req.Params[name] = pv
		}
	}
	r, err := s.b.Execute(ctx, req)
	if err != nil {
		return failed(nebula.ErrorCode_E_EXECUTION_ERROR, err.Error()), nil
	}
	out := &graph.ExecutionResponse{ErrorCode: errorCode(r.Code), LatencyInUs: r.LatencyUs}
	if r.SpaceName != "" {
		out.SpaceName = []byte(r.SpaceName)
	}
	if r.Code != graphpb.QueryErrorCode_OK {
		out.ErrorMsg = []byte(r.Error)
		return out, nil
	}
	if d := r.Data; d != nil {
		if est := estimateBytes(d); est > MaxAnswerBytes {
			// The statement ran (a write took effect); only its answer is
			// refused.
			out.ErrorCode = nebula.ErrorCode_E_EXECUTION_ERROR
			out.ErrorMsg = []byte(fmt.Sprintf("the statement ran, but its answer is about %d MiB in NebulaGraph's form, over the protocol's %d MiB: page it with LIMIT and SKIP", est>>20, MaxAnswerBytes>>20))
			return out, nil
		}
		space := r.SpaceName
		conv := newConverter(func(name string) int32 { return s.b.EdgeTypeID(space, name) })
		conv.arena = arenaFrom(ctx)
		ds, err := conv.dataSet(d)
		if err != nil {
			s.log.Error("graphd's answer does not convert", "err", err)
			return failed(nebula.ErrorCode_E_EXECUTION_ERROR, "internal error converting the answer: "+err.Error()), nil
		}
		out.Data = ds
	}
	return out, nil
}

// estimateBytes is what an answer takes in NebulaGraph's form: per cell a
// row slot, a union and its scalar, plus the bytes of typed strings. Cells
// of composite values are counted once, which is low, but those answers
// are charged to the query's budget by graphd in their own form already.
func estimateBytes(d *graphpb.DataSet) int64 {
	rows := int64(d.NumRows)
	if len(d.Columns) == 0 {
		rows = int64(len(d.Rows))
	}
	est := rows * int64(len(d.ColumnNames)) * 160
	for _, c := range d.Columns {
		est += int64(len(c.StrData))
		for _, s := range c.Strs {
			est += int64(len(s))
		}
	}
	return est
}

func failed(code nebula.ErrorCode, msg string) *graph.ExecutionResponse {
	return &graph.ExecutionResponse{ErrorCode: code, ErrorMsg: []byte(msg)}
}

// clientVersion is what VerifyClientVersion accepts: NebulaGraph 3.x's
// clients send their major.minor[.patch] (nebula-go 3.8.0 sends "3.0.0",
// or its HandshakeKey when set), and novagraph speaks 3.x's protocol.
var clientVersion = regexp.MustCompile(`^3(\.[0-9]+){0,2}$`)

func (s *service) VerifyClientVersion(_ context.Context, req *graph.VerifyClientVersionReq) (*graph.VerifyClientVersionResp, error) {
	v := strings.TrimSpace(string(req.GetVersion()))
	if clientVersion.MatchString(v) {
		return &graph.VerifyClientVersionResp{ErrorCode: nebula.ErrorCode_SUCCEEDED}, nil
	}
	s.log.Info("client version refused", "version", v)
	return &graph.VerifyClientVersionResp{ErrorCode: nebula.ErrorCode_E_CLIENT_SERVER_INCOMPATIBLE,
		ErrorMsg: []byte(fmt.Sprintf("client version %q is not accepted: novagraph speaks NebulaGraph 3.x's graph protocol and accepts clients of version 3 (3, 3.y or 3.y.z)", v))}, nil
}

// errServerStopping is what a request gets once graphd is stopping.
var errServerStopping = errors.New("graphd is stopping")
