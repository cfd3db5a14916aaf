// Command graphd runs a novagraph query daemon.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/novagraph/novagraph/graphd"
	"github.com/novagraph/novagraph/internal/daemon"
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
	password := fs.String("password", "nova", "password of user root")
	queryTimeout := fs.Duration("query-timeout", 60*time.Second, "deadline of one statement")
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
		ListenAddr: *addr, MetaAddrs: metas, RootPassword: *password,
		QueryTimeout: *queryTimeout, SessionIdle: *sessionIdle, Logger: log, Registry: reg,
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
