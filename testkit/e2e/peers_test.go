package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/nodetls"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestQueriesAcrossGraphds: with two graphds, SHOW QUERIES and SHOW
// SESSIONS on one list the other's too (SHOW LOCAL … its own only), a
// user who is not GOD sees only its own there as well, KILL QUERY and KILL
// SESSION reach a query or session of the other graphd (another user's
// only for GOD), and the peer service gives nothing to a caller without a
// session's credential. Plaintext with an encrypted gossip, and with TLS
// (peers then dial by role).
func TestQueriesAcrossGraphds(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	for _, tls := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tls), func(t *testing.T) { testQueriesAcrossGraphds(t, tls) })
	}
}

// TestPlaintextGossipKeepsQueriesLocal: with neither TLS nor a gossip key,
// anyone could join the gossip as a graphd, so graphd sends no session's
// credential to the graphds it hears of: SHOW SESSIONS lists its own,
// although gossip knows the other graphd.
func TestPlaintextGossipKeepsQueriesLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	g2 := c.AddGraph()
	other, err := g2.SessionAs("root", testcluster.Password)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for deadline := time.Now().Add(30 * time.Second); len(c.Graph.Gossip().Peers("graphd")) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("gossip never listed the second graphd")
		}
	}
	root := c.Session()
	defer root.Close()
	rs := exec(t, root, "SHOW SESSIONS")
	for i := 0; i < rs.Len(); i++ {
		if id, _ := rs.Row(i).Int(0); id == other.ID() {
			t.Fatal("SHOW SESSIONS over plaintext gossip listed the other graphd's session: its credential was sent to a peer no one vouched for")
		}
	}
}

func testQueriesAcrossGraphds(t *testing.T, tls bool) {
	c := testcluster.Start(t, testcluster.Options{Stores: 1, TLS: tls, GossipKey: !tls})
	g2 := c.AddGraph()
	root1 := c.Session()
	defer root1.Close()
	loadSuperVertex(t, root1)
	for _, u := range []string{"ann", "bob"} {
		exec(t, root1, fmt.Sprintf(`CREATE USER %s WITH PASSWORD "%s-pw"`, u, u))
		exec(t, root1, fmt.Sprintf(`GRANT ROLE GUEST ON budget TO %s`, u))
	}
	signIn := func(on func(user, pw string) (*client.Session, error), user string) *client.Session {
		t.Helper()
		s, err := on(user, user+"-pw")
		if err != nil {
			t.Fatalf("%s signing in: %v", user, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	ann2 := signIn(g2.SessionAs, "ann")
	ann1 := signIn(c.SessionAs, "ann")
	bob1 := signIn(c.SessionAs, "bob")

	sessionIDs := func(s *client.Session, stmt string) map[int64]string {
		t.Helper()
		rs := exec(t, s, stmt)
		out := map[int64]string{}
		for i := 0; i < rs.Len(); i++ {
			id, _ := rs.Row(i).Int(0)
			user, _ := rs.Row(i).String(1)
			addr, _ := rs.Row(i).String(5)
			out[id] = user + "@" + addr
		}
		return out
	}
	// Gossip brings the graphds together within a second or two.
	g2Addr := g2.Server.Addr()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if sessionIDs(root1, "SHOW SESSIONS")[ann2.ID()] == "ann@"+g2Addr {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SHOW SESSIONS on graphd 1 never listed ann's session on graphd 2: %v", sessionIDs(root1, "SHOW SESSIONS"))
		}
	}
	if _, ok := sessionIDs(root1, "SHOW LOCAL SESSIONS")[ann2.ID()]; ok {
		t.Fatal("SHOW LOCAL SESSIONS lists a session of the other graphd")
	}
	annSees := sessionIDs(ann1, "SHOW SESSIONS")
	if len(annSees) != 2 || annSees[ann2.ID()] == "" || annSees[ann1.ID()] == "" {
		t.Fatalf("SHOW SESSIONS as ann: %v, want her two sessions (%d, %d)", annSees, ann1.ID(), ann2.ID())
	}

	// ann's endless query on graphd 2, seen and stopped from graphd 1.
	exec(t, ann2, "USE budget")
	running := start(ann2, endlessGo)
	var plan int64
	for deadline := time.Now().Add(30 * time.Second); plan == 0; time.Sleep(10 * time.Millisecond) {
		rs := exec(t, root1, "SHOW QUERIES")
		for i := 0; i < rs.Len(); i++ {
			if sid, _ := rs.Row(i).Int(0); sid == ann2.ID() {
				plan, _ = rs.Row(i).Int(1)
				if host, _ := rs.Row(i).String(3); host != g2Addr {
					t.Fatalf("SHOW QUERIES: ann's query runs on %s, want %s", host, g2Addr)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("ann's query on graphd 2 never showed in SHOW QUERIES on graphd 1")
		}
	}
	for _, s := range []*client.Session{root1, bob1} {
		rs := exec(t, s, "SHOW LOCAL QUERIES")
		for i := 0; i < rs.Len(); i++ {
			if sid, _ := rs.Row(i).Int(0); sid == ann2.ID() {
				t.Fatal("SHOW LOCAL QUERIES lists a query of the other graphd")
			}
		}
	}
	if rs := exec(t, bob1, "SHOW QUERIES"); rs.Len() != 1 { // bob's own SHOW QUERIES
		t.Fatalf("SHOW QUERIES as bob: %d rows, want his own statement only: %v", rs.Len(), resultRows(rs))
	}
	kill := fmt.Sprintf(`KILL QUERY (session=%d, plan=%d)`, ann2.ID(), plan)
	expectError(t, bob1, kill, graphpb.QueryErrorCode_E_BAD_PERMISSION, `user "bob" is not GOD`, `of user "ann" needs GOD`)
	expectError(t, root1, fmt.Sprintf(`KILL QUERY (session=%d, plan=%d)`, ann2.ID(), plan+1000), graphpb.QueryErrorCode_E_SEMANTIC, "on any graphd")
	exec(t, root1, kill)
	checkQueryError(t, endlessGo, <-running, graphpb.QueryErrorCode_E_KILLED)

	// The peer service itself: nothing without a session's credential,
	// nor with a forged one; with a user's, what that user may see.
	var graphdTLS *nodetls.Config // plaintext
	if tls {
		var err error
		if graphdTLS, err = c.TLS.Load(nodetls.RoleGraphd); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := grpc.NewClient(g2Addr, grpc.WithTransportCredentials(graphdTLS.RoleClientCredentials(nodetls.RoleGraphd)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	peer := graphpb.NewGraphPeerServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, err := peer.PeerSessions(ctx, &graphpb.PeerListReq{}); err == nil {
		t.Fatalf("PeerSessions without a credential answered %d sessions", len(resp.GetSessions()))
	}
	forged := metadata.AppendToOutgoingContext(ctx, metaclient.CredentialHeader, "\x01forged-credential-of-root-with-no-valid-mac-at-all")
	if resp, err := peer.PeerKill(forged, &graphpb.PeerKillReq{SessionId: ann1.ID(), WholeSession: true}); err == nil {
		t.Fatalf("PeerKill with a forged credential answered %v", resp)
	}
	root2, err := g2.SessionAs("root", testcluster.Password)
	if err != nil {
		t.Fatal(err)
	}
	defer root2.Close()
	meta := metaclient.New(c.MetaAddrs(), slog.New(slog.DiscardHandler), metaclient.WithTLS(graphdTLS))
	defer meta.Close()
	listed := func(user string) map[int64]bool {
		t.Helper()
		pw := user + "-pw"
		if user == "root" {
			pw = testcluster.Password
		}
		v, err := meta.VerifyUser(ctx, user, pw)
		if err != nil || !v.OK {
			t.Fatalf("verifying %s: %v %v", user, v.OK, err)
		}
		resp, err := peer.PeerSessions(metaclient.AttachCredential(metaclient.WithCredential(ctx, v.Credential)), &graphpb.PeerListReq{})
		if err != nil {
			t.Fatalf("PeerSessions as %s: %v", user, err)
		}
		out := map[int64]bool{}
		for _, ss := range resp.GetSessions() {
			out[ss.GetId()] = true
		}
		return out
	}
	if got := listed("ann"); !got[ann2.ID()] || got[root2.ID()] {
		t.Fatalf("PeerSessions as ann: %v, want ann's %d and not root's %d", got, ann2.ID(), root2.ID())
	}
	if got := listed("root"); !got[ann2.ID()] || !got[root2.ID()] {
		t.Fatalf("PeerSessions as root: %v, want ann's %d and root's %d", got, ann2.ID(), root2.ID())
	}

	// A graphd gossip lists that does not answer (here a gossip member
	// posing as one, on a port nothing serves): SHOW SESSIONS fails and
	// names it, SHOW LOCAL SESSIONS and KILL of a local session still work.
	if !tls {
		ghost, err := gossip.Start(gossip.Config{Role: "graphd", ServiceAddr: "127.0.0.1:1", BindAddr: "127.0.0.1:0",
			Seeds: []string{c.Graph.Gossip().Addr()}, Keys: c.GossipKeys()})
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if len(c.Graph.Gossip().Peers("graphd")) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("gossip never listed the ghost graphd")
			}
		}
		expectError(t, root1, "SHOW SESSIONS", graphpb.QueryErrorCode_E_EXECUTION, "graphd 127.0.0.1:1 failed", "SHOW LOCAL")
		exec(t, root1, "SHOW LOCAL SESSIONS")
		extra := signIn(c.SessionAs, "bob")
		exec(t, root1, fmt.Sprintf("KILL SESSION %d", extra.ID()))
		ghost.Kill()
		for deadline := time.Now().Add(30 * time.Second); len(c.Graph.Gossip().Peers("graphd")) != 1; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("gossip never dropped the ghost graphd")
			}
		}
	}

	// KILL SESSION of a session on the other graphd.
	expectError(t, bob1, fmt.Sprintf("KILL SESSION %d", ann2.ID()), graphpb.QueryErrorCode_E_BAD_PERMISSION, `user "bob" is not GOD`)
	expectError(t, bob1, "KILL SESSION 12345", graphpb.QueryErrorCode_E_SEMANTIC, "no session 12345 on any graphd")
	exec(t, root1, fmt.Sprintf("KILL SESSION %d", ann2.ID()))
	if _, err := ann2.Execute(context.Background(), "YIELD 1"); err == nil {
		t.Fatal("ann's session on graphd 2, killed from graphd 1, still runs statements")
	}

}
