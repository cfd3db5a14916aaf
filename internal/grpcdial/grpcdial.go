// Package grpcdial makes the gRPC client connections between novagraph's
// daemons: storaged to its raft peers (raftgroup), graphd and storaged to
// metad (metad/client), graphd to storaged (storaged/client).
//
// Each connection looks its peer's name up inside every connection
// attempt, bounded by that attempt's connect timeout, instead of through
// gRPC's DNS resolver. That resolver looks names up in a goroutine of its
// own with a 30 s timeout and backs off for up to two minutes after a
// failure. A peer whose name was briefly gone from Docker's or Kubernetes'
// DNS (a container restarting, a network disconnected and healed) then
// stayed unreachable long after it was back: after a Docker network heal
// a store sat 5 s in a lookup its DNS server never answered, with the raft
// stream, and so its partitions' elections, waiting on it.
package grpcdial

import (
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/novagraph/novagraph/internal/nodetls"
)

// Target is the gRPC dial target for addr ("host:port"): the passthrough
// resolver hands addr as it is to the dialer, which resolves the host at
// each connection attempt, within the attempt's deadline.
func Target(addr string) string { return "passthrough:///" + addr }

// NewClient returns a connection to addr (see Target), over TLS with
// tlsConfig's certificates or plaintext when it is nil, that
// gives up each connection attempt, name lookup included, after
// connectTimeout (or the current reconnect backoff delay, when that is
// longer: gRPC's rule), and waits between attempts as reconnect says. opts
// are the caller's own (keepalive, message sizes, …); they must not set
// connect parameters again, which would replace these.
func NewClient(addr string, tlsConfig *nodetls.Config, connectTimeout time.Duration, reconnect backoff.Config, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	if connectTimeout <= 0 {
		return nil, errors.New("grpcdial: the connect timeout must be positive")
	}
	all := append([]grpc.DialOption{
		grpc.WithTransportCredentials(tlsConfig.ClientCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: reconnect, MinConnectTimeout: connectTimeout}),
	}, opts...)
	return grpc.NewClient(Target(addr), all...)
}
