// Command metad runs the novagraph catalog service: MetaService on gRPC,
// /healthz and /metrics on HTTP, and an embedded etcd member (or a client of
// an external etcd given by --etcd-endpoints).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/metad"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("metad", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: metad [flags]

metad keeps the novagraph catalog (spaces, schemas, partition placement, hosts
and leaders) in etcd and serves it to graphd and storaged.

Flags:
`)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:9559", "gRPC listen address of MetaService")
	httpAddr := fs.String("http-addr", "127.0.0.1:19559", "HTTP listen address of /healthz and /metrics")
	dataPath := fs.String("data-path", "data/meta", "directory of the embedded etcd's data (unused with --etcd-endpoints)")
	etcdClient := fs.String("etcd-client-addr", "127.0.0.1:2379", "client address of the embedded etcd")
	etcdPeer := fs.String("etcd-peer-addr", "127.0.0.1:2380", "peer address of the embedded etcd")
	etcdName := fs.String("etcd-name", "metad", "member name of the embedded etcd; unique per metad")
	etcdCluster := fs.String("etcd-initial-cluster", "", "name=http://peer-addr,... of a new multi-metad etcd cluster (default: this member alone)")
	etcdEndpoints := fs.String("etcd-endpoints", "", "comma-separated client URLs of an external etcd; if set, no etcd is embedded")
	hostTTL := fs.Duration("host-ttl", 10*time.Second, "a storage host is offline this long after its last heartbeat (whole seconds)")

	log, err := daemon.ParseFlags(fs, args, "metad")
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "metad:", err)
		return 2
	}

	endpoints := daemon.SplitList(*etcdEndpoints)

	ctx, stop := daemon.SignalContext()
	defer stop()

	srv := metad.New(metad.Config{
		ListenAddr:         *addr,
		HTTPAddr:           *httpAddr,
		DataPath:           *dataPath,
		EtcdClientAddr:     *etcdClient,
		EtcdPeerAddr:       *etcdPeer,
		EtcdName:           *etcdName,
		EtcdInitialCluster: *etcdCluster,
		EtcdEndpoints:      endpoints,
		HostTTL:            *hostTTL,
		Logger:             log,
		Registry:           daemon.NewRegistry(),
	})
	// Start waits for etcd, which for a new multi-member cluster means for
	// its peers; a signal cancels that wait.
	if err := srv.Start(ctx); err != nil {
		log.Error("metad failed to start", "err", err)
		return 1
	}
	<-ctx.Done()
	log.Info("shutting down")
	srv.Stop()
	return 0
}
