// Command metad runs the novagraph catalog service: MetaService on gRPC,
// /healthz and /metrics on HTTP, and an embedded etcd member (or a client of
// an external etcd given by --etcd-endpoints).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/metad"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("metad", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: metad [flags]

metad keeps the novagraph catalog (spaces, schemas, partition placement, hosts
and leaders) in etcd and serves it to graphd and storaged.

High availability: run three metad (or five), each on its own host, with the
same --meta-peers, the list of every metad's etcd peer address; each metad
embeds one member of their etcd cluster and finds itself in the
list by its --etcd-peer-addr. Any metad serves reads and writes; the
cluster stays writable while a majority (2 of 3) is up. Give graphd and
storaged all metad addresses: --meta-addrs=h1:9559,h2:9559,h3:9559.

  metad --addr=h1:9559 --etcd-client-addr=127.0.0.1:2379 --etcd-peer-addr=h1:2380 \
        --meta-peers=h1:2380,h2:2380,h3:2380 --data-path=/data/meta
  (likewise on h2 and h3, with their own addresses)

An entry may name its member (meta1=h1:2380) and carry http://. The first
start of all members creates the cluster; later starts rejoin it from
--data-path (the list must not change then).

Storage hosts: a storaged that registers is added to the cluster at once,
unless --require-add-hosts is set; then, as in NebulaGraph 3.x, it serves
nothing until ADD HOSTS "host":port names it. DROP HOSTS removes a host that
holds no partition replica.

Flags:
`)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:9559", "gRPC listen address of MetaService")
	httpAddr := fs.String("http-addr", "127.0.0.1:19559", "HTTP listen address of /healthz and /metrics")
	dataPath := fs.String("data-path", "data/meta", "directory of the embedded etcd's data (unused with --etcd-endpoints)")
	etcdClient := fs.String("etcd-client-addr", "127.0.0.1:2379", "client address of the embedded etcd")
	etcdPeer := fs.String("etcd-peer-addr", "127.0.0.1:2380", "peer address of the embedded etcd")
	etcdName := fs.String("etcd-name", "metad", "member name of the embedded etcd; unique per metad (with --meta-peers: derived from it)")
	etcdCluster := fs.String("etcd-initial-cluster", "", "name=http://peer-addr,... of a new multi-metad etcd cluster (default: this member alone); --meta-peers is simpler")
	metaPeers := fs.String("meta-peers", "", "etcd peer address (host:port) of every metad, comma-separated, the same on all of them; this metad is the entry equal to --etcd-peer-addr (default: a single metad)")
	requireAddHosts := fs.Bool("require-add-hosts", false, "a storaged that registers serves only once ADD HOSTS added it (NebulaGraph 3.x); default: registering adds it")
	etcdEndpoints := fs.String("etcd-endpoints", "", "comma-separated client URLs of an external etcd; if set, no etcd is embedded")
	hostTTL := fs.Duration("host-ttl", 10*time.Second, "a storage host is offline this long after its last heartbeat (whole seconds)")
	gossipAddr := fs.String("gossip-addr", "", "host:port to gossip on (memberlist) with storaged and graphd: balance jobs then hold a step on a storaged gossip says is down until it answers or its lease expires; empty: no gossip")
	gossipSeeds := fs.String("gossip-seeds", "", "comma-separated gossip addresses of peers to join")
	rootPassword := fs.String("root-password", metad.DefaultRootPassword, "password of user root when metad creates it, on the first start of a new catalog; ignored afterwards (ALTER USER root / CHANGE PASSWORD change it). Visible in the process list: prefer --root-password-file or "+rootPasswordEnv)
	allowDefaultRoot := fs.Bool("allow-default-root-password", false, "serve beyond loopback (--addr other than 127.0.0.0/8, ::1 or localhost) even while root's password is still the default "+metad.DefaultRootPassword+"; without it such a start is refused")
	rootPasswordFile := fs.String("root-password-file", "", "file holding root's password for a new catalog (its first line), e.g. a mounted Secret; or set "+rootPasswordEnv+". Either keeps it out of the process list")

	tlsFlags := nodetls.RegisterFlags(fs, "metad")
	gossipKeyFile := gossip.RegisterKeyFileFlag(fs)
	debugPages := daemon.DebugPagesFlag(fs)
	etcdCNs := fs.String("etcd-allowed-cns", "", "with TLS: comma-separated certificate common names the embedded etcd accepts on its client and peer ports (default: the common name of this metad's certificate, which nova-certs gives every metad)")

	log, err := daemon.ParseFlags(fs, args, "metad")
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "metad:", err)
		return 2
	}
	tlsConfig, err := tlsFlags.LoadDaemon(nodetls.RoleMetad)
	if err != nil {
		fmt.Fprintln(os.Stderr, "metad:", err)
		return 2
	}
	gossipKeys, err := gossip.LoadKeys(*gossipKeyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "metad:", err)
		return 2
	}

	password, err := resolveRootPassword(daemon.FlagGiven(fs, "root-password"), *rootPassword, *rootPasswordFile, os.Getenv(rootPasswordEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "metad:", err)
		return 2
	}

	endpoints := daemon.SplitList(*etcdEndpoints)
	if *metaPeers != "" {
		if *etcdCluster != "" || len(endpoints) > 0 {
			fmt.Fprintln(os.Stderr, "metad: --meta-peers excludes --etcd-initial-cluster and --etcd-endpoints")
			return 2
		}
		peers, err := metad.ParseMetaPeers(*metaPeers, *etcdPeer)
		if err != nil {
			fmt.Fprintln(os.Stderr, "metad:", err)
			return 2
		}
		*etcdName, *etcdCluster = peers.Name, peers.InitialCluster
		log.Info("metad peers", "members", peers.Size, "name", peers.Name, "initial_cluster", peers.InitialCluster)
	}

	ctx, stop := daemon.SignalContext()
	defer stop()

	srv := metad.New(metad.Config{
		ListenAddr:               *addr,
		HTTPAddr:                 *httpAddr,
		DataPath:                 *dataPath,
		EtcdClientAddr:           *etcdClient,
		EtcdPeerAddr:             *etcdPeer,
		EtcdName:                 *etcdName,
		EtcdInitialCluster:       *etcdCluster,
		EtcdEndpoints:            endpoints,
		HostTTL:                  *hostTTL,
		RootPassword:             password,
		AllowDefaultRootPassword: *allowDefaultRoot,
		RequireAddHosts:          *requireAddHosts,
		GossipAddr:               *gossipAddr,
		GossipSeeds:              daemon.SplitList(*gossipSeeds),
		GossipKeys:               gossipKeys,
		TLS:                      tlsConfig,
		DebugPages:               *debugPages,
		EtcdAllowedCNs:           daemon.SplitList(*etcdCNs),
		Logger:                   log,
		Registry:                 daemon.NewRegistry(),
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

// rootPasswordEnv names the environment variable that may hold root's
// password for a new catalog (compose passes it so).
const rootPasswordEnv = "NOVA_ROOT_PASSWORD"

// resolveRootPassword picks root's password for a new catalog from the
// one way it was given: --root-password (flagGiven), --root-password-file
// (its first line, without the line end) or the environment; none gives
// the default. Two ways at once are refused, as one would silently win.
func resolveRootPassword(flagGiven bool, flagValue, file, env string) (string, error) {
	var ways []string
	if flagGiven {
		ways = append(ways, "--root-password")
	}
	if file != "" {
		ways = append(ways, "--root-password-file")
	}
	if env != "" {
		ways = append(ways, rootPasswordEnv)
	}
	if len(ways) > 1 {
		return "", fmt.Errorf("root's password is given %s: give it one way", strings.Join(ways, " and "))
	}
	switch {
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--root-password-file: %w", err)
		}
		password, _, _ := strings.Cut(string(data), "\n")
		password = strings.TrimSuffix(password, "\r")
		if password == "" {
			return "", fmt.Errorf("--root-password-file %s: its first line is empty", file)
		}
		return password, nil
	case env != "":
		return env, nil
	}
	return flagValue, nil
}
