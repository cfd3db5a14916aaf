// Command storaged runs a novagraph storage daemon.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/storaged"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "storaged:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("storaged", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: storaged [flags]\n\nHosts partition replicas of novagraph spaces (raft groups on RocksDB).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:9779", "gRPC listen address for storage and raft traffic (also the address registered in metad)")
	httpAddr := fs.String("http-addr", "127.0.0.1:19779", "HTTP address for /healthz and /metrics")
	dataPaths := fs.String("data-path", "data/storage", "comma-separated data paths, one RocksDB instance each (one per disk)")
	metaAddrs := fs.String("meta-addrs", "127.0.0.1:9559", "comma-separated metad addresses")
	raftTick := fs.Duration("raft-tick", 100*time.Millisecond, "raft tick interval (election timeout is 10 ticks)")
	maxLog := fs.Int("raft-max-log-entries", 10000, "truncate a partition's raft log once it holds this many applied entries (-1: never)")
	catchUp := fs.Int("raft-log-catchup-entries", 2000, "entries kept behind the applied index when truncating, so slightly lagging followers catch up without a snapshot")
	maxLogBytes := fs.Int64("raft-max-log-bytes", 64<<20, "also truncate once the entries applied since the last truncation reach this many bytes (-1: never)")
	log, err := daemon.ParseFlags(fs, args, "storaged")
	if err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	ctx, stop := daemon.SignalContext()
	defer stop()

	reg := daemon.NewRegistry()
	srv := storaged.New(storaged.Config{
		ListenAddr:    *addr,
		DataPaths:     daemon.SplitList(*dataPaths),
		MetaAddrs:     daemon.SplitList(*metaAddrs),
		RaftTick:      *raftTick,
		MaxLogEntries: *maxLog, LogCatchUpEntries: *catchUp, MaxLogBytes: *maxLogBytes,
		Logger:   log,
		Registry: reg,
	})
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := srv.Start(startCtx); err != nil {
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
