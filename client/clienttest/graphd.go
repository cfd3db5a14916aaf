// Package clienttest runs a scripted GraphService on a real gRPC listener:
// a stand-in for graphd in tests of code built on package client (the
// console, the importer, the benchmark driver).
package clienttest

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// Handler answers one scripted statement. ctx is the RPC's context, so a
// handler can block until the client's deadline to test timeouts.
type Handler func(ctx context.Context, stmt string) *graphpb.ExecuteResp

// Graphd is a fake graphd. It knows the user root with password nova, keeps
// a current space per session (set by "USE name"), answers statements from
// its script, and answers anything unscripted with E_SYNTAX.
type Graphd struct {
	graphpb.UnimplementedGraphServiceServer

	// Addr is the host:port it listens on.
	Addr string
	srv  *grpc.Server

	mu        sync.Mutex
	passwords map[string]string  // user → password
	script    map[string]Handler // normalized statement → handler
	sessions  map[int64]string   // session id → current space
	lastID    int64
	executed  []string
	params    []map[string]*commonpb.Value // of each executed statement
}

// Start serves a Graphd on 127.0.0.1:0 until the test ends.
func Start(t testing.TB) *Graphd {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("clienttest: listen: %v", err)
	}
	g := &Graphd{
		Addr:      lis.Addr().String(),
		srv:       grpc.NewServer(),
		passwords: map[string]string{"root": "nova"},
		script:    make(map[string]Handler),
		sessions:  make(map[int64]string),
	}
	graphpb.RegisterGraphServiceServer(g.srv, g)
	go func() { _ = g.srv.Serve(lis) }()
	t.Cleanup(g.Stop)
	return g
}

// DeadAddr returns a loopback address nothing listens on, so connecting to
// it is refused.
func DeadAddr(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("clienttest: listen: %v", err)
	}
	addr := lis.Addr().String()
	if err := lis.Close(); err != nil {
		t.Fatalf("clienttest: close listener: %v", err)
	}
	return addr
}

// Stop ends serving abruptly, as a crashed graphd would.
func (g *Graphd) Stop() { g.srv.Stop() }

// Script makes stmt answer resp. Statements match when they are equal
// once runs of white space are collapsed, so a multi-line statement can be
// scripted on one line. Data in
// resp is shared between answers and must not be modified afterwards.
func (g *Graphd) Script(stmt string, resp *graphpb.ExecuteResp) {
	g.ScriptFunc(stmt, func(context.Context, string) *graphpb.ExecuteResp {
		return &graphpb.ExecuteResp{
			Code:      resp.GetCode(),
			Error:     resp.GetError(),
			Data:      resp.GetData(),
			LatencyUs: resp.GetLatencyUs(),
			SpaceName: resp.GetSpaceName(),
		}
	})
}

// ScriptFunc makes stmt (matched as by Script) answer whatever h returns,
// which must be a fresh response each time.
func (g *Graphd) ScriptFunc(stmt string, h Handler) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.script[normalize(stmt)] = h
}

// Executed returns the statements received so far, in order, trimmed.
func (g *Graphd) Executed() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.executed...)
}

// ExecutedParams returns the query parameters sent with each statement
// Executed returns, in the same order (nil for a statement sent without).
func (g *Graphd) ExecutedParams() []map[string]*commonpb.Value {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]map[string]*commonpb.Value(nil), g.params...)
}

// OpenSessions is the number of sessions not signed out or expired.
func (g *Graphd) OpenSessions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.sessions)
}

// ExpireSessions forgets every session, as a restarted graphd would.
func (g *Graphd) ExpireSessions() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.sessions)
}

// Authenticate implements graphpb.GraphServiceServer.
func (g *Graphd) Authenticate(_ context.Context, req *graphpb.AuthReq) (*graphpb.AuthResp, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if want, ok := g.passwords[req.GetUsername()]; !ok || want != req.GetPassword() {
		return &graphpb.AuthResp{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT, Error: "bad username or password"}, nil
	}
	g.lastID++
	g.sessions[g.lastID] = ""
	return &graphpb.AuthResp{SessionId: g.lastID}, nil
}

// Execute implements graphpb.GraphServiceServer.
func (g *Graphd) Execute(ctx context.Context, req *graphpb.ExecuteReq) (*graphpb.ExecuteResp, error) {
	stmt := strings.TrimSpace(req.GetStmt())
	g.mu.Lock()
	space, ok := g.sessions[req.GetSessionId()]
	g.executed = append(g.executed, stmt)
	g.params = append(g.params, req.GetParams())
	handler := g.script[normalize(stmt)]
	g.mu.Unlock()

	if !ok {
		msg := fmt.Sprintf("session %d not found", req.GetSessionId())
		return &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_SESSION, Error: msg}, nil
	}
	var resp *graphpb.ExecuteResp
	switch {
	case handler != nil:
		resp = handler(ctx, stmt)
	case isUse(stmt):
		space = strings.Trim(strings.TrimSpace(stmt[len("USE"):]), "`")
		resp = &graphpb.ExecuteResp{SpaceName: space}
	default:
		msg := fmt.Sprintf("clienttest: no response scripted for %q", stmt)
		resp = &graphpb.ExecuteResp{Code: graphpb.QueryErrorCode_E_SYNTAX, Error: msg}
	}
	if resp.GetCode() == graphpb.QueryErrorCode_OK {
		g.setSpace(req.GetSessionId(), resp, space)
	}
	return resp, nil
}

// setSpace records the space a successful statement left the session in;
// a scripted answer without a space keeps the session's current one.
func (g *Graphd) setSpace(id int64, resp *graphpb.ExecuteResp, space string) {
	if resp.SpaceName == "" {
		resp.SpaceName = space
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.sessions[id]; ok {
		g.sessions[id] = resp.SpaceName
	}
}

// Signout implements graphpb.GraphServiceServer.
func (g *Graphd) Signout(_ context.Context, req *graphpb.SignoutReq) (*graphpb.SignoutResp, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.sessions, req.GetSessionId())
	return &graphpb.SignoutResp{}, nil
}

func isUse(stmt string) bool {
	fields := strings.Fields(stmt)
	return len(fields) == 2 && strings.EqualFold(fields[0], "USE")
}

func normalize(stmt string) string { return strings.Join(strings.Fields(stmt), " ") }
