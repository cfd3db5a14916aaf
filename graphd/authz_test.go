package graphd

import (
	"slices"
	"testing"

	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// TestPolicy: every method of graphd's services has an entry; the client
// service is open to anyone (users sign in by password) and the peer
// service to graphd alone.
func TestPolicy(t *testing.T) {
	if err := policy.Covers(graphpb.GraphService_ServiceDesc, graphpb.GraphPeerService_ServiceDesc); err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string][]nodetls.Role{
		"/novagraph.graph.GraphService/Execute":          {nodetls.Anyone},
		"/novagraph.graph.GraphPeerService/PeerQueries":  {nodetls.RoleGraphd},
		"/novagraph.graph.GraphPeerService/PeerSessions": {nodetls.RoleGraphd},
		"/novagraph.graph.GraphPeerService/PeerKill":     {nodetls.RoleGraphd},
	} {
		if got, _ := policy.Allowed(method); !slices.Equal(got, want) {
			t.Errorf("%s: open to %v, want %v", method, got, want)
		}
	}
}
