package graphd

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/metad/catalog"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// SHOW QUERIES, SHOW SESSIONS, KILL QUERY and KILL SESSION reach every
// graphd of the cluster, as in NebulaGraph; SHOW LOCAL QUERIES and SHOW
// LOCAL SESSIONS stay on the graphd that runs them.
//
// Who the peers are. graphd finds the other graphds by gossip (the
// members of role graphd it holds alive, gossip.Node.Peers), so without
// --gossip-addr SHOW QUERIES is this graphd's alone. Nor does it ask peers
// when neither TLS nor a gossip key is set: plaintext gossip lets anyone
// who reaches the gossip port pose as a graphd and be sent the sessions'
// credentials (graphd says so at start). Every deployment
// here gossips (compose, Kubernetes); the address dialled is the one a
// peer advertises, or its gossip host with its port when it listens on a
// wildcard address. With TLS the peer must present a graphd certificate of
// the cluster's CA (nodetls.RoleClientCredentials): the pods of one
// Deployment share a certificate that names the Service, not each pod's IP.
//
// Whose call it is. A peer call carries the asking session's metad
// credential (metaclient.AttachCredential), and the peer has metad name
// the user behind it (WhoAmI) rather than taking the asker's word: it
// then lists everything for GOD and the user's own queries and sessions
// otherwise, and stops only what that user may stop. GraphPeerService is
// on graphd's client port, so without TLS any client can call it, and
// gets nothing without a credential, which only graphd and metad hold.
// With TLS only a graphd may call it (policy).
//
// A peer that does not answer fails SHOW QUERIES and SHOW SESSIONS with
// its address, rather than leaving its rows out unnoticed: SHOW LOCAL …
// on each graphd still works. KILL succeeds if the peer that has the
// query answers, whatever the others do.

// peerCallTimeout bounds one call to a peer graphd.
const peerCallTimeout = 3 * time.Second

// maxPeers bounds the graphds one statement asks: gossip lists whoever
// joined it, and a cluster has a handful of graphds.
const maxPeers = 64

// peerConnIdle is how long a connection to an address that stopped being
// a peer is kept: a peer suspected for a moment keeps its connection, and
// a call using it is not cut off.
const peerConnIdle = 5 * time.Minute

// peerConns owns graphd's client connections to its peer graphds, by
// address. Connections to addresses that stopped being peers are closed
// on the next call that lists the peers.
type peerConns struct {
	mu       sync.Mutex
	conns    map[string]*grpc.ClientConn
	lastPeer map[string]time.Time // when each address was last a peer
	closed   bool
}

// conn returns the connection to addr, dialling it with opts if there is
// none.
func (p *peerConns) conn(addr string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("graphd is stopping")
	}
	if c := p.conns[addr]; c != nil {
		return c, nil
	}
	c, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("graphd %s: %w", addr, err)
	}
	if p.conns == nil {
		p.conns = map[string]*grpc.ClientConn{}
	}
	p.conns[addr] = c
	return c, nil
}

// retain notes addrs as peers now and closes the connections to
// addresses that have not been peers for peerConnIdle.
func (p *peerConns) retain(addrs []string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lastPeer == nil {
		p.lastPeer = map[string]time.Time{}
	}
	for _, a := range addrs {
		p.lastPeer[a] = now
	}
	for a, seen := range p.lastPeer {
		if now.Sub(seen) < peerConnIdle {
			continue
		}
		if c := p.conns[a]; c != nil {
			_ = c.Close()
			delete(p.conns, a)
		}
		delete(p.lastPeer, a)
	}
}

func (p *peerConns) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for a, c := range p.conns {
		_ = c.Close()
		delete(p.conns, a)
	}
}

// askPeersAllowed reports whether graphd may send sessions' credentials
// to the graphds gossip lists: with TLS it checks each is a graphd of the
// cluster's CA; with a gossip key only members holding it are listed.
func (s *Server) askPeersAllowed() bool {
	return s.gossip != nil && (s.cfg.TLS.Enabled() || len(s.cfg.GossipKeys) > 0)
}

// peerAddrs lists the other live graphds, at most maxPeers; none without
// gossip, or when graphd may not ask them (askPeersAllowed).
func (s *Server) peerAddrs() []string {
	if !s.askPeersAllowed() {
		return nil
	}
	var addrs []string
	for _, m := range s.gossip.Peers("graphd") {
		if m.ServiceAddr != s.Addr() {
			addrs = append(addrs, m.ServiceAddr)
		}
	}
	sort.Strings(addrs)
	addrs = slices.Compact(addrs)
	if len(addrs) > maxPeers {
		s.log.Warn("gossip lists more graphds than a statement asks", "graphds", len(addrs), "asked", maxPeers)
		addrs = addrs[:maxPeers]
	}
	s.peers.retain(addrs, time.Now())
	return addrs
}

// askPeers calls fn on every peer graphd at once, each call carrying the
// credential ctx holds and bounded by peerCallTimeout, and returns the
// error of the first peer (by address) that failed, naming it.
func (s *Server) askPeers(ctx context.Context, what string, fn func(ctx context.Context, cli graphpb.GraphPeerServiceClient, addr string) error) error {
	addrs := s.peerAddrs()
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := s.peers.conn(addr, grpc.WithTransportCredentials(s.cfg.TLS.RoleClientCredentials(nodetls.RoleGraphd)))
			if err == nil {
				cctx, cancel := context.WithTimeout(metaclient.AttachCredential(ctx), peerCallTimeout)
				err = fn(cctx, graphpb.NewGraphPeerServiceClient(conn), addr)
				cancel()
			}
			if err != nil {
				errs[i] = fmt.Errorf("%s: graphd %s failed: %v; SHOW LOCAL QUERIES and SHOW LOCAL SESSIONS on each graphd list its own", what, addr, status.Convert(err).Message())
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return &exec.Error{Code: graphpb.QueryErrorCode_E_EXECUTION, Msg: err.Error()}
		}
	}
	return nil
}

// Queries implements exec.QueryAdmin.
func (s *Server) Queries(ctx context.Context, local bool) ([]exec.QueryInfo, error) {
	out := s.queries.Queries()
	if local {
		return out, nil
	}
	var mu sync.Mutex
	err := s.askPeers(ctx, "SHOW QUERIES", func(ctx context.Context, cli graphpb.GraphPeerServiceClient, _ string) error {
		resp, err := cli.PeerQueries(ctx, &graphpb.PeerListReq{})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, q := range resp.GetQueries() {
			out = append(out, exec.QueryInfo{
				SessionID: q.GetSessionId(), PlanID: q.GetPlanId(), User: q.GetUser(), Host: q.GetHost(), Text: q.GetText(),
				Start: time.UnixMicro(q.GetStartUnixUs()), Status: q.GetStatus(), MemoryUsed: q.GetMemoryUsed(), MemoryLimit: q.GetMemoryLimit(),
			})
		}
		return nil
	})
	return out, err
}

// Sessions implements exec.SessionAdmin.
func (s *Server) Sessions(ctx context.Context, local bool) ([]exec.SessionInfo, error) {
	out := s.localSessions()
	if local {
		return out, nil
	}
	var mu sync.Mutex
	err := s.askPeers(ctx, "SHOW SESSIONS", func(ctx context.Context, cli graphpb.GraphPeerServiceClient, _ string) error {
		resp, err := cli.PeerSessions(ctx, &graphpb.PeerListReq{})
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, ss := range resp.GetSessions() {
			out = append(out, exec.SessionInfo{
				ID: ss.GetId(), User: ss.GetUser(), Space: ss.GetSpace(), Created: time.UnixMicro(ss.GetCreatedUnixUs()),
				Updated: time.UnixMicro(ss.GetUpdatedUnixUs()), GraphAddr: ss.GetGraphAddr(), ClientIP: ss.GetClientIp(),
			})
		}
		return nil
	})
	return out, err
}

// KillQuery implements exec.QueryAdmin: a query of this graphd is stopped
// here, another one by the peer that runs it.
func (s *Server) KillQuery(ctx context.Context, session, plan int64) error {
	if _, mine := s.queries.owner(session, plan); session == 0 || mine {
		return s.queries.KillQuery(ctx, session, plan)
	}
	err := s.killOnPeer(ctx, "KILL QUERY", &graphpb.PeerKillReq{SessionId: session, PlanId: plan})
	if err == errNotOnAnyGraphd {
		return &exec.Error{Code: graphpb.QueryErrorCode_E_SEMANTIC,
			Msg: fmt.Sprintf("KILL QUERY: no running query with plan=%d in session %d on any graphd (SHOW QUERIES lists the running ones)", plan, session)}
	}
	return err
}

// KillSession implements exec.SessionAdmin: a session of this graphd is
// signed out here, another one by the peer that holds it.
func (s *Server) KillSession(ctx context.Context, id int64) error {
	if s.killLocalSession(ctx, id) {
		return nil
	}
	err := s.killOnPeer(ctx, "KILL SESSION", &graphpb.PeerKillReq{SessionId: id, WholeSession: true})
	if err == errNotOnAnyGraphd {
		return &exec.Error{Code: graphpb.QueryErrorCode_E_SEMANTIC,
			Msg: fmt.Sprintf("KILL SESSION: no session %d on any graphd (SHOW SESSIONS lists them)", id)}
	}
	return err
}

// errNotOnAnyGraphd: every peer answered and none has what KILL names.
var errNotOnAnyGraphd = fmt.Errorf("not on any graphd")

// killOnPeer asks every peer to stop what req names. The peer that has it
// answers found (or why the user may not); if none does, a peer that did
// not answer is the error, else errNotOnAnyGraphd.
func (s *Server) killOnPeer(ctx context.Context, what string, req *graphpb.PeerKillReq) error {
	var (
		mu     sync.Mutex
		found  bool
		denied string
	)
	err := s.askPeers(ctx, what, func(ctx context.Context, cli graphpb.GraphPeerServiceClient, _ string) error {
		resp, err := cli.PeerKill(ctx, req)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if resp.GetFound() {
			found, denied = true, resp.GetDenied()
		}
		return nil
	})
	switch {
	case found && denied != "":
		return &exec.Error{Code: graphpb.QueryErrorCode_E_BAD_PERMISSION, Msg: denied}
	case found:
		return nil
	case err != nil:
		return err
	}
	return errNotOnAnyGraphd
}

// peerService implements GraphPeerService for the other graphds.
type peerService struct {
	graphpb.UnimplementedGraphPeerServiceServer
	s *Server
}

// caller is the user whose session the call is made for: metad names it
// from the credential the call carries.
func (p peerService) caller(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get(metaclient.CredentialHeader)
	if len(vals) != 1 {
		return "", status.Errorf(codes.Unauthenticated, "a peer graphd call carries %d credentials, not one: only a graphd asking for a signed-in session may call it", len(vals))
	}
	user, err := p.s.meta.WhoAmI(metaclient.WithCredential(ctx, []byte(vals[0])))
	if err != nil {
		if c := status.Code(err); c == codes.Unauthenticated || c == codes.PermissionDenied {
			return "", err
		}
		return "", status.Errorf(codes.Unavailable, "asking metad whose credential the call carries: %v", err)
	}
	return user, nil
}

// PeerQueries lists this graphd's running queries the caller may see.
func (p peerService) PeerQueries(ctx context.Context, _ *graphpb.PeerListReq) (*graphpb.PeerQueriesResp, error) {
	user, err := p.caller(ctx)
	if err != nil {
		return nil, err
	}
	resp := &graphpb.PeerQueriesResp{}
	for _, q := range p.s.queries.Queries() {
		if user != catalog.RootUser && q.User != user {
			continue
		}
		resp.Queries = append(resp.Queries, &graphpb.PeerQuery{
			SessionId: q.SessionID, PlanId: q.PlanID, User: q.User, Host: q.Host, Text: q.Text, StartUnixUs: q.Start.UnixMicro(),
			Status: q.Status, MemoryUsed: q.MemoryUsed, MemoryLimit: q.MemoryLimit,
		})
	}
	return resp, nil
}

// PeerSessions lists this graphd's sessions the caller may see.
func (p peerService) PeerSessions(ctx context.Context, _ *graphpb.PeerListReq) (*graphpb.PeerSessionsResp, error) {
	user, err := p.caller(ctx)
	if err != nil {
		return nil, err
	}
	resp := &graphpb.PeerSessionsResp{}
	for _, ss := range p.s.localSessions() {
		if user != catalog.RootUser && ss.User != user {
			continue
		}
		resp.Sessions = append(resp.Sessions, &graphpb.PeerSession{
			Id: ss.ID, User: ss.User, Space: ss.Space, CreatedUnixUs: ss.Created.UnixMicro(), UpdatedUnixUs: ss.Updated.UnixMicro(),
			GraphAddr: ss.GraphAddr, ClientIp: ss.ClientIP,
		})
	}
	return resp, nil
}

// PeerKill stops one of this graphd's queries, or signs one of its
// sessions out, if the caller is GOD or its owner.
func (p peerService) PeerKill(ctx context.Context, req *graphpb.PeerKillReq) (*graphpb.PeerKillResp, error) {
	user, err := p.caller(ctx)
	if err != nil {
		return nil, err
	}
	var owner string
	var ok bool
	what := "KILL QUERY of a query"
	if req.GetWholeSession() {
		what = "KILL SESSION of a session"
		p.s.mu.Lock()
		if sess := p.s.sessions[req.GetSessionId()]; sess != nil {
			owner, ok = sess.user, true
		}
		p.s.mu.Unlock()
	} else {
		owner, ok = p.s.queries.owner(req.GetSessionId(), req.GetPlanId())
	}
	switch {
	case !ok:
		return &graphpb.PeerKillResp{}, nil
	case user != catalog.RootUser && user != owner:
		return &graphpb.PeerKillResp{Found: true, Denied: fmt.Sprintf("user %q is not GOD; %s of user %q needs GOD", user, what, owner)}, nil
	}
	p.s.log.Info("stopping at a peer graphd's request", "what", what, "user", user, "session", req.GetSessionId(), "plan", req.GetPlanId())
	if req.GetWholeSession() {
		p.s.killLocalSession(ctx, req.GetSessionId())
	} else if err := p.s.queries.KillQuery(ctx, req.GetSessionId(), req.GetPlanId()); err != nil {
		return &graphpb.PeerKillResp{}, nil // ended meanwhile
	}
	return &graphpb.PeerKillResp{Found: true}, nil
}
