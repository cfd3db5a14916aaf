package gossip

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// startNodes starts n nodes on loopback, each seeded with the first.
func startNodes(t *testing.T, n int) []*Node {
	t.Helper()
	var nodes []*Node
	for i := 0; i < n; i++ {
		cfg := Config{Role: "storaged", ServiceAddr: fmt.Sprintf("127.0.0.1:%d", 9700+i)}
		if i > 0 {
			cfg.Seeds = []string{nodes[0].Addr()}
		}
		nd, err := Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nd.Kill)
		nodes = append(nodes, nd)
	}
	return nodes
}

// waitFor polls cond until it holds or the (generous) deadline passes, and
// returns how long it took. The deadline only keeps a broken build from
// hanging; how fast detection is goes to the log and docs, not an assert.
func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for deadline := start.Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return time.Since(start)
		}
	}
	t.Fatalf("%s: not within 20s", what)
	return 0
}

func aliveCount(nd *Node) int {
	k := 0
	for _, m := range nd.Members() {
		if m.State == Alive {
			k++
		}
	}
	return k
}

// TestCrashIsSuspectedAndLeaveIsImmediate: every node learns every other;
// a crashed node (no goodbye) becomes suspected on the others, a node
// that leaves is marked dead, and a restarted node on the same service
// address is alive again.
func TestCrashIsSuspectedAndLeaveIsImmediate(t *testing.T) {
	nodes := startNodes(t, 4)
	waitFor(t, "full membership", func() bool {
		for _, nd := range nodes {
			if aliveCount(nd) != 4 {
				return false
			}
		}
		return true
	})
	for _, nd := range nodes {
		for _, peer := range nodes {
			if nd.Suspected(peer.cfg.ServiceAddr) {
				t.Fatalf("%s suspects live %s", nd.cfg.ServiceAddr, peer.cfg.ServiceAddr)
			}
		}
		if nd.Suspected("127.0.0.1:1") {
			t.Fatalf("an address nobody advertises must not be suspected")
		}
	}

	crashed := nodes[3].cfg.ServiceAddr
	nodes[3].Kill()
	took := waitFor(t, "crash suspected by every survivor", func() bool {
		for _, nd := range nodes[:3] {
			if !nd.Suspected(crashed) {
				return false
			}
		}
		return true
	})
	t.Logf("crash of %s suspected by all survivors after %v", crashed, took)

	left := nodes[2].cfg.ServiceAddr
	if err := nodes[2].Close(); err != nil {
		t.Fatal(err)
	}
	took = waitFor(t, "leave seen", func() bool { return nodes[0].Suspected(left) && nodes[1].Suspected(left) })
	t.Logf("leave of %s seen after %v", left, took)

	// The crashed daemon comes back (a new node, same service address).
	back, err := Start(Config{Role: "storaged", ServiceAddr: crashed, Seeds: []string{nodes[0].Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Kill)
	waitFor(t, "restarted node alive again", func() bool { return !nodes[0].Suspected(crashed) && !nodes[1].Suspected(crashed) })
	for _, m := range back.Members() {
		if m.ServiceAddr == nodes[0].cfg.ServiceAddr && m.Role != "storaged" {
			t.Fatalf("role not advertised: %+v", m)
		}
	}
}

// TestJoinRetriesUntilASeedIsUp: a node started before its seed joins once
// the seed appears.
func TestJoinRetriesUntilASeedIsUp(t *testing.T) {
	first, err := Start(Config{Role: "graphd", ServiceAddr: "127.0.0.1:9669"})
	if err != nil {
		t.Fatal(err)
	}
	seed := first.Addr()
	first.Kill()
	late, err := Start(Config{Role: "storaged", ServiceAddr: "127.0.0.1:9779", Seeds: []string{seed}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(late.Kill)
	time.Sleep(300 * time.Millisecond) // a failed join or two
	again, err := Start(Config{Role: "graphd", ServiceAddr: "127.0.0.1:9669", BindAddr: seed})
	if err != nil {
		t.Skipf("the seed's port was taken meanwhile: %v", err)
	}
	t.Cleanup(again.Kill)
	waitFor(t, "late joiner sees the seed", func() bool { return aliveCount(late) == 2 })
}

// A --gossip-addr host may be a name: the node binds the address it
// resolves to and advertises that address, not the unspecified one.
func TestBindAddrMayBeAName(t *testing.T) {
	nd, err := Start(Config{Role: "storaged", ServiceAddr: "storage1:9779", BindAddr: "localhost:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer nd.Close()
	host, _, err := net.SplitHostPort(nd.Addr())
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		t.Fatalf("gossip on localhost:0 advertises %s (%v), want a loopback address", nd.Addr(), err)
	}
	if _, err := Start(Config{Role: "storaged", ServiceAddr: "x:1", BindAddr: "no-such-host.invalid:0"}); err == nil ||
		!strings.Contains(err.Error(), "no-such-host.invalid") {
		t.Fatalf("an unresolvable gossip host: %v", err)
	}
}
