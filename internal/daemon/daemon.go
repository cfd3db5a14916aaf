// Package daemon holds what metad, storaged and graphd share as processes:
// flag and config-file handling, structured logging, the HTTP status server
// (/healthz, /metrics) and shutdown on SIGTERM/SIGINT.
package daemon

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"gopkg.in/yaml.v3"

	"github.com/novagraph/novagraph/internal/buildinfo"
)

// ParseFlags parses args into fs and returns the daemon's JSON logger on
// stderr. A `--config FILE` flag (registered here) names a YAML file whose
// top-level keys are flag names; flags given on the command line win over the
// file, so a packaged config can be overridden for one run.
func ParseFlags(fs *flag.FlagSet, args []string, daemon string) (*slog.Logger, error) {
	configPath := fs.String("config", "", "YAML config file; keys are flag names, command-line flags override it")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	showVersion := buildinfo.Flag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *showVersion {
		fmt.Println(buildinfo.Read().String(daemon))
		return nil, flag.ErrHelp // done, as after -h
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags start with -)", fs.Arg(0))
	}
	if *configPath != "" {
		if err := applyConfigFile(fs, *configPath); err != nil {
			return nil, err
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: %w", *logLevel, err)
	}
	return NewLogger(os.Stderr, daemon, level), nil
}

func applyConfigFile(fs *flag.FlagSet, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading config: %w", err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(data, &values); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	setOnCommandLine := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { setOnCommandLine[f.Name] = true })
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if fs.Lookup(name) == nil {
			return fmt.Errorf("config %s: unknown key %q (not a flag of this daemon)", path, name)
		}
		if setOnCommandLine[name] {
			continue
		}
		v := values[name]
		if v == nil {
			// YAML's "key:" with nothing after it; fmt would make it
			// the text "<nil>" (a root password, a data path).
			return fmt.Errorf("config %s: key %q has no value (give one, or remove the key for the default)", path, name)
		}
		var text string
		if list, ok := v.([]any); ok {
			parts := make([]string, len(list))
			for i, item := range list {
				if item == nil {
					return fmt.Errorf("config %s: key %q: item %d has no value", path, name, i)
				}
				parts[i] = fmt.Sprint(item)
			}
			text = strings.Join(parts, ",")
		} else {
			text = fmt.Sprint(v)
		}
		if err := fs.Set(name, text); err != nil {
			return fmt.Errorf("config %s: key %q: %w", path, name, err)
		}
	}
	return nil
}

// FlagGiven reports whether the flag name was set on the command line or
// in the config file (ParseFlags sets the config's keys as flags).
func FlagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// LoopbackOnly reports whether a listen address (host:port) accepts
// connections from this machine alone: a loopback IP or "localhost". An
// empty host, 0.0.0.0, :: or any other name or address is reachable from
// elsewhere (or may be).
func LoopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SplitList splits a comma-separated flag value (addresses, paths) and
// drops empty items, so "a, b," is [a b].
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// NewLogger returns a JSON logger tagged with the daemon's name.
func NewLogger(w io.Writer, daemon string, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})).With("daemon", daemon)
}

// NewRegistry returns a Prometheus registry with the Go and process
// collectors; each daemon owns its own so that several daemons can share a
// test process.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	buildinfo.Register(reg)
	return reg
}

// StatusServer serves /healthz and /metrics on the daemon's HTTP port.
type StatusServer struct {
	srv *http.Server
	ln  net.Listener
	mux *http.ServeMux
}

// DebugPagesFlag adds --enable-debug-pages to fs.
func DebugPagesFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("enable-debug-pages", false, "serve /debug/pprof/ (profiles, traces) on the HTTP port, and storaged's full-replica checksums (/parts?checksum=1): off by default, as they cost CPU on request and show internals to whoever reaches the port (docs/security.md)")
}

// StartStatusServer listens on addr. healthy reports whether the daemon can
// serve; /healthz answers 200 "ok" or 503 with the reason. debugPages adds
// /debug/pprof/ (DebugPagesFlag).
func StartStatusServer(addr string, reg *prometheus.Registry, healthy func() error, debugPages bool, log *slog.Logger) (*StatusServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("status server on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if err := healthy(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	// Profiles on the status port (bound to the operator's --http-addr):
	// the way to see where a slow import or query spends its time. Only
	// when asked for: a profile or trace costs CPU for its duration, and
	// the heap and goroutine pages show internals to anyone on the port.
	if debugPages {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	} else {
		mux.HandleFunc("/debug/", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "debug pages are off: start the daemon with --enable-debug-pages", http.StatusNotFound)
		})
	}
	s := &StatusServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, ln: ln, mux: mux}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("status server stopped", "err", err)
		}
	}()
	return s, nil
}

// Handle adds a daemon's own page (storaged's /parts) to the status server.
func (s *StatusServer) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Addr is the address the status server listens on.
func (s *StatusServer) Addr() string { return s.ln.Addr().String() }

// Close stops the status server.
func (s *StatusServer) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// SignalContext is cancelled on SIGTERM or SIGINT.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
}
