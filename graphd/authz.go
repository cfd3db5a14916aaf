package graphd

import (
	"github.com/novagraph/novagraph/internal/grpcserve"
	"github.com/novagraph/novagraph/internal/nodetls"
)

// policy opens graphd's client port to every caller: users prove who they
// are by password (Authenticate) and each statement is checked against
// the session's role. With TLS a client certificate is verified when one
// is given, so a certificate from another CA is still refused.
// GraphPeerService is for the other graphds only (peers.go); gRPC health
// and reflection for anyone (grpcserve.WithPublic).
var policy = grpcserve.WithPublic(nodetls.Policy{
	"/novagraph.graph.GraphService/*":     {nodetls.Anyone},
	"/novagraph.graph.GraphPeerService/*": {nodetls.RoleGraphd},
})
