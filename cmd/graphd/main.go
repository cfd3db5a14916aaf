// Command graphd runs a novagraph query daemon.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/nodetls"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "graphd:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("graphd", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: graphd [flags]\n\nServes nGQL sessions for a novagraph cluster.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:9669", "gRPC listen address of GraphService")
	httpAddr := fs.String("http-addr", "127.0.0.1:19669", "HTTP address for /healthz and /metrics")
	webAddr := fs.String("web-addr", "", "host:port of the studio and the HTTP/JSON API (docs/studio.md, docs/http-api.md), HTTPS with --tls-dir; empty: off")
	webHosts := fs.String("web-hosts", "", "comma-separated host names browsers reach --web-addr by (graph.example.com); IP addresses and localhost are always answered, any other name refused (DNS rebinding)")
	nebulaAddr := fs.String("nebula-addr", "", "host:port where graphd also speaks NebulaGraph 3.x's graph protocol (Thrift), so that nebula-go, nebula-python, nebula-java and nebula-console connect unchanged (docs/nebula-clients.md); TLS with --tls-dir; empty: off")
	metaAddrs := fs.String("meta-addrs", "127.0.0.1:9559", "comma-separated metad addresses")
	gossipAddr := fs.String("gossip-addr", "", "host:port to gossip on (memberlist) with storaged and other graphd: requests then avoid a crashed storaged within a second; empty: no gossip")
	gossipSeeds := fs.String("gossip-seeds", "", "comma-separated gossip addresses of peers to join (any live one suffices)")
	queryTimeout := fs.Duration("query-timeout", graphd.DefaultQueryTimeout, "deadline of one query (request); 0: none. SET QUERY_TIMEOUT overrides it per session")
	queryMemory := sizeFlag(graphd.DefaultQueryMemoryLimit)
	fs.Var(&queryMemory, "query-memory-limit", "memory one query may use (bytes, or with a unit: 512MB, 2GiB; powers of 1024); 0: none. SET QUERY_MEMORY_LIMIT overrides it per session")
	queryMemoryTotal := sizeFlag(graphd.DefaultQueryMemoryLimitTotal)
	fs.Var(&queryMemoryTotal, "query-memory-limit-total", "memory all running queries together may use; the query that goes over it stops; 0: none")
	var goMemory daemon.GoMemoryFlag
	fs.Var(&goMemory, "go-memory-limit", "Go soft memory limit graphd sets (runtime/debug.SetMemoryLimit), a size as for --query-memory-limit; it wins over GOMEMLIMIT. Default: 1.5 × --query-memory-limit-total + 256 MiB, unless GOMEMLIMIT is set; 0 or off: graphd sets none")
	goGC := fs.Int("go-gc-percent", defaultGoGCPercent, "Go collector target graphd sets (runtime/debug.SetGCPercent), so that a query's garbage is reused rather than collected and handed back to the OS on every query. Default: 400 while a Go memory limit is in effect, none without one or when GOGC is set; given, it applies as it is; negative: graphd sets none")
	slowQuery := fs.Duration("slow-query-threshold", graphd.DefaultSlowQueryThreshold, "log queries running longer at WARN, with duration, rows and memory; 0: off")
	sessionIdle := fs.Duration("session-idle-timeout", 8*time.Hour, "close sessions idle for longer")
	maxStatement := sizeFlag(graphd.DefaultMaxStatementBytes)
	fs.Var(&maxStatement, "max-statement-bytes", "refuse requests whose statement text is longer (a size as for --query-memory-limit); 0: no limit")
	maxSessions := fs.Int("max-sessions-per-user", graphd.DefaultMaxSessionsPerUser, "sessions one user may hold from one client host; 0: no limit")
	allowDefaultRoot := fs.Bool("allow-default-root-password", false, "let root sign in with the default password from other hosts; without it that sign-in works only from loopback, to change the password")
	tlsFlags := nodetls.RegisterFlags(fs, "graphd")
	gossipKeyFile := gossip.RegisterKeyFileFlag(fs)
	debugPages := daemon.DebugPagesFlag(fs)
	log, err := daemon.ParseFlags(fs, args, "graphd")
	if err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	ctx, stop := daemon.SignalContext()
	defer stop()
	reg := daemon.NewRegistry()
	metas := daemon.SplitList(*metaAddrs)
	tlsConfig, err := tlsFlags.LoadDaemon(nodetls.RoleGraphd)
	if err != nil {
		return err
	}
	gossipKeys, err := gossip.LoadKeys(*gossipKeyFile)
	if err != nil {
		return err
	}
	srv := graphd.New(graphd.Config{
		ListenAddr: *addr, MetaAddrs: metas, TLS: tlsConfig,
		GossipAddr: *gossipAddr, GossipSeeds: daemon.SplitList(*gossipSeeds), GossipKeys: gossipKeys,
		WebAddr: *webAddr, WebHosts: daemon.SplitList(*webHosts), NebulaAddr: *nebulaAddr,
		SessionIdle: *sessionIdle, Logger: log, Registry: reg,
		QueryTimeout: orNone(*queryTimeout), QueryMemoryLimit: orNone(int64(queryMemory)),
		QueryMemoryLimitTotal: orNone(int64(queryMemoryTotal)), SlowQueryThreshold: orNone(*slowQuery),
		MaxStatementBytes: int(orNone(int64(maxStatement))), MaxSessionsPerUser: int(orNone(int64(*maxSessions))),
		AllowDefaultRootPassword: *allowDefaultRoot,
	})
	daemon.SetGoMemoryLimit(log, goMemory, srv.DefaultGoMemoryLimit(), "query_memory_limit_total",
		"query_memory_limit_total", bytesize.Format(int64(queryMemoryTotal)))
	setGoGCPercent(log, *goGC, daemon.FlagGiven(fs, "go-gc-percent"))
	if err := srv.Start(); err != nil {
		return err
	}
	status, err := daemon.StartStatusServer(*httpAddr, reg, srv.Healthy, *debugPages, log)
	if err != nil {
		srv.Stop()
		return err
	}
	<-ctx.Done()
	log.Info("shutting down")
	_ = status.Close()
	srv.Stop()
	return nil
}

// orNone maps a flag's 0 ("none") to graphd.Config's negative ("none"; 0
// there is the default).
func orNone[T int64 | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// sizeFlag is a byte size flag: bytes, or a number with a unit.
type sizeFlag int64

func (f *sizeFlag) String() string { return bytesize.Format(int64(*f)) }

func (f *sizeFlag) Set(s string) error {
	n, err := bytesize.Parse(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

// defaultGoGCPercent is --go-gc-percent's default. A GO 3 STEPS allocates
// tens of megabytes that die with it (storage batches, result columns);
// at the runtime's default of 100 the heap goal stays near twice graphd's
// small live heap, so the collector ran several times per query and the
// scavenger handed the freed pages back to the OS, to be faulted in again
// by the next query: at c=1, 300,000 page faults in 20 s of GO 3 with
// properties. At 400 the pages stay in the heap: graphd's CPU per query
// fell by a quarter and the QPS rose 20.9 → 27.5 (800 bought nothing more;
// docs/benchmarks.md, "Issue 22, seventeenth session"). The memory limit,
// not this target, bounds the heap under load.
const defaultGoGCPercent = 400

// goGCPercent is the Go collector target graphd sets, negative for none:
// the flag's when it was given, else the default when a Go memory limit
// is in effect (which bounds the heap the higher target lets grow) and
// GOGC does not set the runtime's.
func goGCPercent(flagValue int, flagSet, gogcSet, limitInEffect bool) int {
	switch {
	case flagSet:
		return flagValue
	case gogcSet || !limitInEffect:
		return -1
	}
	return defaultGoGCPercent
}

// setGoGCPercent sets the process's Go collector target (goGCPercent) and
// logs it; call it after daemon.SetGoMemoryLimit.
func setGoGCPercent(log *slog.Logger, flagValue int, flagSet bool) {
	limit := debug.SetMemoryLimit(-1) // reads the limit in effect
	gogc := os.Getenv("GOGC")
	percent := goGCPercent(flagValue, flagSet, gogc != "", limit < math.MaxInt64)
	if percent < 0 {
		log.Info("Go GC percent not set by graphd", "GOGC", gogc, "go_memory_limit_in_effect", limit < math.MaxInt64)
		return
	}
	debug.SetGCPercent(percent)
	log.Info("Go GC percent set", "percent", percent)
}
