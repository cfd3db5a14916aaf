// Command graphd runs a novagraph query daemon.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/query/parser"
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
	metaAddrs := fs.String("meta-addrs", "127.0.0.1:9559", "comma-separated metad addresses")
	gossipAddr := fs.String("gossip-addr", "", "host:port to gossip on (memberlist) with storaged and other graphd: requests then avoid a crashed storaged within a second; empty: no gossip")
	gossipSeeds := fs.String("gossip-seeds", "", "comma-separated gossip addresses of peers to join (any live one suffices)")
	queryTimeout := fs.Duration("query-timeout", graphd.DefaultQueryTimeout, "deadline of one query (request); 0: none. SET QUERY_TIMEOUT overrides it per session")
	queryMemory := sizeFlag(graphd.DefaultQueryMemoryLimit)
	fs.Var(&queryMemory, "query-memory-limit", "memory one query may use (bytes, or with a unit: 512MB, 2GiB; powers of 1024); 0: none. SET QUERY_MEMORY_LIMIT overrides it per session")
	queryMemoryTotal := sizeFlag(graphd.DefaultQueryMemoryLimitTotal)
	fs.Var(&queryMemoryTotal, "query-memory-limit-total", "memory all running queries together may use; the query that goes over it stops; 0: none")
	slowQuery := fs.Duration("slow-query-threshold", graphd.DefaultSlowQueryThreshold, "log queries running longer at WARN, with duration, rows and memory; 0: off")
	sessionIdle := fs.Duration("session-idle-timeout", 8*time.Hour, "close sessions idle for longer")
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
	srv := graphd.New(graphd.Config{
		ListenAddr: *addr, MetaAddrs: metas,
		GossipAddr: *gossipAddr, GossipSeeds: daemon.SplitList(*gossipSeeds),
		SessionIdle: *sessionIdle, Logger: log, Registry: reg,
		QueryTimeout: orNone(*queryTimeout), QueryMemoryLimit: orNone(int64(queryMemory)),
		QueryMemoryLimitTotal: orNone(int64(queryMemoryTotal)), SlowQueryThreshold: orNone(*slowQuery),
	})
	if err := srv.Start(); err != nil {
		return err
	}
	status, err := daemon.StartStatusServer(*httpAddr, reg, srv.Healthy, log)
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
	n, err := parser.ParseSize(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}
