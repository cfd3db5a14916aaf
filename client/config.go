package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"google.golang.org/grpc"
)

// Defaults applied by NewPool to zero Config fields.
const (
	DefaultConnsPerAddress = 1
	DefaultConnectTimeout  = 3 * time.Second
	// DefaultMaxRecvMsgBytes is well above gRPC's 4 MiB default, which a
	// large GO or FETCH result set exceeds.
	DefaultMaxRecvMsgBytes = 64 << 20
)

// Config describes a Pool.
type Config struct {
	// Addresses are graphd endpoints as host:port; at least one.
	Addresses []string
	// ConnsPerAddress bounds the gRPC connections kept to each address.
	// One is usually enough: gRPC multiplexes concurrent calls; raise it
	// only when a single HTTP/2 connection becomes the bottleneck.
	ConnsPerAddress int
	// ConnectTimeout bounds one connection attempt, so that an address
	// that drops packets is given up on (and failed over) in bounded time.
	ConnectTimeout time.Duration
	// MaxRecvMsgBytes bounds the size of one response.
	MaxRecvMsgBytes int
	// TLS, if set, makes the pool connect over TLS: RootCAs must hold the
	// CA that signed graphd's certificate, and Certificates may hold a
	// client certificate for a graphd that verifies them. nil: plaintext.
	TLS *tls.Config
	// DialOptions are appended to the pool's own.
	DialOptions []grpc.DialOption
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, error) {
	if len(c.Addresses) == 0 {
		return c, errors.New("client: config: no graphd addresses")
	}
	for _, addr := range c.Addresses {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return c, fmt.Errorf("client: config: graphd address %q: %w", addr, err)
		}
	}
	if c.ConnsPerAddress < 0 || c.ConnectTimeout < 0 || c.MaxRecvMsgBytes < 0 {
		return c, errors.New("client: config: negative ConnsPerAddress, ConnectTimeout or MaxRecvMsgBytes")
	}
	if c.ConnsPerAddress == 0 {
		c.ConnsPerAddress = DefaultConnsPerAddress
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.MaxRecvMsgBytes == 0 {
		c.MaxRecvMsgBytes = DefaultMaxRecvMsgBytes
	}
	return c, nil
}
