package graphd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/novagraph/novagraph/graphd/httpapi"
	"github.com/novagraph/novagraph/graphd/studio"
	"github.com/novagraph/novagraph/internal/nodetls"
)

// webServer is graphd's HTTP port for the API and the studio
// (Config.WebAddr). Its requests are statements like gRPC's, so it is
// owned like the gRPC server: opened with the other listener at Start
// (an address in use fails Start before anything runs), served once
// graphd serves, and stopped by Stop before storage and meta close.
type webServer struct {
	lis      net.Listener
	srv      *http.Server
	handlers sync.WaitGroup // requests being answered
	// cancel ends the context of every request still running after the
	// grace period, which stops their statements.
	cancel context.CancelFunc
}

// listenWeb opens Config.WebAddr, if set.
func (s *Server) listenWeb() error {
	if s.cfg.WebAddr == "" {
		return nil
	}
	lis, err := net.Listen("tcp", s.cfg.WebAddr)
	if err != nil {
		return fmt.Errorf("graphd: the web API on %s: %w", s.cfg.WebAddr, err)
	}
	s.web.lis = lis
	return nil
}

// serveWeb serves the API under /api/ and the studio on the rest.
func (s *Server) serveWeb() {
	if s.web.lis == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", httpapi.Handler(s, s.log.With("component", "httpapi")))
	mux.Handle("/", studio.Handler())
	base, cancel := context.WithCancel(context.Background())
	s.web.cancel = cancel
	s.web.srv = &http.Server{
		Handler:           s.webRequest(mux),
		ReadHeaderTimeout: 10 * time.Second,
		// The whole request, body included: a client that sends a body
		// slowly must not hold a connection for ever.
		ReadTimeout: 2 * time.Minute,
		IdleTimeout: 2 * time.Minute,
		// No WriteTimeout: a statement may run up to its query timeout.
		BaseContext: func(net.Listener) context.Context { return base },
		ErrorLog:    slog.NewLogLogger(s.log.With("component", "web").Handler(), slog.LevelWarn),
	}
	lis := s.web.lis
	if s.cfg.TLS.Enabled() {
		s.web.srv.TLSConfig = s.cfg.TLS.ServerTLS(nodetls.VerifyClientCertIfGiven)
		lis = tls.NewListener(lis, s.web.srv.TLSConfig)
	}
	go func() {
		if err := s.web.srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("web API stopped", "err", err)
		}
	}()
	s.log.Info("web API and studio started", "addr", s.web.lis.Addr().String(), "tls", s.cfg.TLS.Enabled())
}

// webRequest wraps every request: it refuses a Host graphd was not named
// by, counts the request for Stop, and keeps a statement's result charged
// to the memory budget until its answer is written, as sendTracker does
// for gRPC.
//
// The Host check is what stops DNS rebinding: a page of another site
// whose name is made to resolve to graphd's address (127.0.0.1 under
// make run) would otherwise be the same origin as the API and could sign
// in and read the answers. A browser sends the name it resolved, so
// only IP addresses, localhost and Config.WebHosts are answered.
func (s *Server) webRequest(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.webHostAllowed(r.Host) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusMisdirectedRequest)
			fmt.Fprintf(w, "graphd does not answer to the host name %q: use its IP address or localhost, or start graphd with --web-hosts naming it\n", r.Host)
			return
		}
		s.web.handlers.Add(1)
		defer s.web.handlers.Done()
		end := &rpcEnd{}
		defer end.end()
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), rpcEndKey{}, end)))
	})
}

func (s *Server) webHostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if net.ParseIP(host) != nil || strings.EqualFold(host, "localhost") {
		return true
	}
	return slices.ContainsFunc(s.cfg.WebHosts, func(h string) bool { return strings.EqualFold(h, host) })
}

// stopWeb stops taking requests, gives running ones the same grace as
// gRPC's, then cancels them; the channel closes once every handler has
// returned.
func (s *Server) stopWeb() <-chan struct{} {
	done := make(chan struct{})
	if s.web.srv == nil {
		if s.web.lis != nil {
			s.web.lis.Close()
		}
		close(done)
		return done
	}
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.web.srv.Shutdown(ctx); err != nil {
			s.web.cancel()
			s.web.srv.Close()
		}
		s.web.cancel()
		s.web.handlers.Wait()
	}()
	return done
}

// WebAddr is the address of the HTTP/JSON API and the studio, empty
// without one.
func (s *Server) WebAddr() string {
	if s.web.lis == nil {
		return ""
	}
	return s.web.lis.Addr().String()
}
