package testcluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"

	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/metad"
)

// MetaNode is one metad slot: its data and addresses stay when it is
// stopped, so it restarts as the same etcd member.
type MetaNode struct {
	Server *metad.Server // nil while stopped
	// Registry holds the running Server's metrics, as the daemon's
	// /metrics serves them (a new one per start).
	Registry *prometheus.Registry
	cfg      metad.Config
}

// Addr is the metad's MetaService address (also while it is stopped).
func (m *MetaNode) Addr() string { return m.cfg.ListenAddr }

// hostTTL is how long a store stays online after its last heartbeat in a
// test cluster: short, so that tests that stop a store see it offline
// soon. A store heartbeats every 200ms and gives each heartbeat this long,
// so that a metad slowed down by -race and the packages tested beside it
// still keeps every store online.
const hostTTL = 3 * time.Second

// startMetas configures and starts Options.Metas metad. A single metad
// listens on ports the system picks, as before; several need their
// addresses up front, since each etcd member is told its peers' addresses,
// and start together, since a new etcd cluster is ready only once a
// quorum of members is.
func (c *Cluster) startMetas(ctx context.Context) error {
	n := max(c.opts.Metas, 1)
	base := metad.Config{
		HTTPAddr: "127.0.0.1:0", EtcdTickMs: 10,
		HostTTL: hostTTL,
		// Cheap hashes keep sign-ins fast under -race.
		RootPassword: Password, BcryptCost: bcrypt.MinCost,
		TLS: c.tlsFor(nodetls.RoleMetad),
	}
	if n == 1 {
		cfg := base
		cfg.ListenAddr, cfg.EtcdClientAddr, cfg.EtcdPeerAddr = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
		cfg.DataPath = filepath.Join(c.dir, "meta")
		cfg.Logger = c.log.With("daemon", "metad")
		c.Metas = []*MetaNode{{cfg: cfg}}
		if err := c.startMeta(ctx, 0); err != nil {
			return err
		}
		// Restarts keep the address clients know.
		c.Metas[0].cfg.ListenAddr = c.Metas[0].Server.Addr()
		return nil
	}
	// Elections of short ticks flap among three members on two busy cores
	// under -race: with 50 ms ticks (500 ms elections) two members left of
	// three lost and re-elected their leader for seconds while the cores
	// were saturated (TestClusterOperationsUnderLoad). etcd's default
	// 100 ms tick (1 s elections) holds.
	base.EtcdTickMs = 100
	addrs, err := freeAddrs(3 * n)
	if err != nil {
		return err
	}
	var peers []string
	for i := range n {
		peers = append(peers, addrs[3*i+2])
	}
	for i := range n {
		cfg := base
		cfg.ListenAddr, cfg.EtcdClientAddr, cfg.EtcdPeerAddr = addrs[3*i], addrs[3*i+1], addrs[3*i+2]
		mp, err := metad.ParseMetaPeers(strings.Join(peers, ","), cfg.EtcdPeerAddr)
		if err != nil {
			return err
		}
		cfg.EtcdName, cfg.EtcdInitialCluster = mp.Name, mp.InitialCluster
		cfg.DataPath = filepath.Join(c.dir, fmt.Sprintf("meta%d", i+1))
		cfg.Logger = c.log.With("daemon", "metad", "slot", i)
		c.Metas = append(c.Metas, &MetaNode{cfg: cfg})
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = c.startMeta(ctx, i) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("metad %d: %w", i, err)
		}
	}
	return nil
}

func (c *Cluster) startMeta(ctx context.Context, i int) error {
	m := c.Metas[i]
	cfg := m.cfg
	cfg.Registry = daemon.NewRegistry()
	srv := metad.New(cfg)
	if err := srv.Start(ctx); err != nil {
		return err
	}
	m.Server, m.Registry = srv, cfg.Registry
	if i == 0 {
		c.Meta = srv
	}
	return nil
}

// freeAddrs returns n distinct loopback addresses nothing listens on now,
// on ports below the kernel's ephemeral range (32768 and up on Linux): a
// daemon restarts on its old address, and a port from the ephemeral range
// can meanwhile be taken as the local end of some outgoing connection
// (this cluster's own gRPC dials), which made a restart fail with
// "address already in use".
func freeAddrs(n int) ([]string, error) {
	const lowPort, highPort = 20000, 32768
	var out []string
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for tries := 0; len(out) < n; tries++ {
		if tries > 1000*n {
			return nil, fmt.Errorf("no free loopback port in [%d, %d) after %d tries", lowPort, highPort, tries)
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", lowPort+rand.IntN(highPort-lowPort)))
		if err != nil {
			continue // taken: another
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	return out, nil
}

// MetaAddrs are the MetaService addresses of every metad slot, running or
// not, as graphd and storaged are configured.
func (c *Cluster) MetaAddrs() []string {
	out := make([]string, len(c.Metas))
	for i, m := range c.Metas {
		out[i] = m.Addr()
	}
	return out
}

// StopMeta stops metad i (its etcd member's data stays).
func (c *Cluster) StopMeta(i int) {
	if m := c.Metas[i]; m.Server != nil {
		m.Server.Stop()
		m.Server = nil
	}
}

// RestartMeta starts metad i again on its addresses and data; it rejoins
// the etcd cluster and catches up. It returns once the metad serves, which
// needs a quorum of etcd members to be running.
func (c *Cluster) RestartMeta(i int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.startMeta(ctx, i); err != nil {
		c.t.Fatalf("restarting metad %d: %v", i, err)
	}
}

// RestartMetas starts the stopped metad together: when a quorum is down,
// no member is ready before the others are up.
func (c *Cluster) RestartMetas(slots ...int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errs := make([]error, len(slots))
	var wg sync.WaitGroup
	for k, i := range slots {
		wg.Go(func() { errs[k] = c.startMeta(ctx, i) })
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			c.t.Fatalf("restarting metad %d: %v", slots[k], err)
		}
	}
}
