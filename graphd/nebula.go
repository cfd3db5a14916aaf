package graphd

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/novagraph/novagraph/graphd/nebulaapi"
	"github.com/novagraph/novagraph/internal/nodetls"
)

// The NebulaGraph protocol (Config.NebulaAddr) is owned like the web API:
// its listener opens at Start with the others (an address in use fails
// Start before anything runs), it serves once graphd serves, and Stop
// stops it before storage and meta close, since its statements use them.

// listenNebula opens Config.NebulaAddr, if set.
func (s *Server) listenNebula() error {
	if s.cfg.NebulaAddr == "" {
		return nil
	}
	lis, err := net.Listen("tcp", s.cfg.NebulaAddr)
	if err != nil {
		return fmt.Errorf("graphd: the NebulaGraph protocol on %s: %w", s.cfg.NebulaAddr, err)
	}
	s.nebulaLis = lis
	return nil
}

// serveNebula serves NebulaGraph's graph protocol on its listener. With
// TLS it is TLS with graphd's certificate; a client certificate is
// verified when given and not required, as on the gRPC port (users sign
// in by password).
func (s *Server) serveNebula() {
	if s.nebulaLis == nil {
		return
	}
	cfg := nebulaapi.Config{
		IdleTimeout: s.cfg.SessionIdle,
		Logger:      s.log.With("component", "nebulaapi"),
		// An answer stays charged to its query's memory budget until it
		// is written, as sendTracker does for gRPC.
		Request: func(ctx context.Context) (context.Context, func()) {
			end := &rpcEnd{}
			return context.WithValue(ctx, rpcEndKey{}, end), end.end
		},
	}
	if s.cfg.TLS.Enabled() {
		cfg.TLS = s.cfg.TLS.ServerTLS(nodetls.VerifyClientCertIfGiven)
	}
	srv := nebulaapi.New(s, cfg)
	s.nebula.Store(srv)
	srv.Serve(s.nebulaLis)
	s.log.Info("NebulaGraph protocol started", "addr", s.nebulaLis.Addr().String(), "tls", s.cfg.TLS.Enabled())
}

// stopNebula stops the protocol's server, with the grace gRPC's
// statements get.
func (s *Server) stopNebula() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if srv := s.nebula.Load(); srv != nil {
			srv.Stop(5 * time.Second)
		} else if s.nebulaLis != nil {
			s.nebulaLis.Close()
		}
	}()
	return done
}

// nebulaConns is the number of connections open on the NebulaGraph
// protocol's port (a metric).
func (s *Server) nebulaConns() int {
	if srv := s.nebula.Load(); srv != nil {
		return srv.Conns()
	}
	return 0
}

// NebulaAddr is the address of the NebulaGraph protocol, empty without
// one.
func (s *Server) NebulaAddr() string {
	if s.nebulaLis == nil {
		return ""
	}
	return s.nebulaLis.Addr().String()
}

// EdgeTypeID is the catalog id of an edge type of a space, 0 if there is
// none (nebulaapi.Backend).
func (s *Server) EdgeTypeID(space, edge string) int32 {
	cat := s.meta.Catalog()
	sp, ok := cat.SpaceByName(space)
	if !ok {
		return 0
	}
	e, ok := cat.EdgeByName(sp.GetSpaceId(), edge)
	if !ok {
		return 0
	}
	return e.GetEdgeType()
}
