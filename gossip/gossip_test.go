package gossip

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
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

// TestKeyring: nodes that share a key see each other; a node with another
// key, or with none, joining through the same seed is never taken into
// their membership (nor they into its), and a node that also opens a new
// key, the first step of a rotation, joins.
func TestKeyring(t *testing.T) {
	keyFile := func(lines ...string) [][]byte {
		t.Helper()
		path := filepath.Join(t.TempDir(), "gossip.key")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		keys, err := LoadKeyFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	k1, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := NewKey()
	start := func(service string, keys [][]byte, seeds ...string) *Node {
		t.Helper()
		nd, err := Start(Config{Role: "storaged", ServiceAddr: service, Keys: keys, Seeds: seeds})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nd.Kill)
		return nd
	}
	a := start("127.0.0.1:9801", keyFile("# the cluster's key", k1))
	b := start("127.0.0.1:9802", keyFile(k1), a.Addr())
	waitFor(t, "two nodes with one key see each other", func() bool { return aliveCount(a) == 2 && aliveCount(b) == 2 })
	rotated := start("127.0.0.1:9803", keyFile(k1, "", k2), a.Addr())
	waitFor(t, "a node that also opens a new key joins", func() bool { return aliveCount(a) == 3 && aliveCount(rotated) == 3 })
	intruders := []*Node{start("127.0.0.1:9804", keyFile(k2), a.Addr()), start("127.0.0.1:9805", nil, a.Addr())}
	time.Sleep(2 * time.Second) // many probe and gossip intervals
	for _, nd := range []*Node{a, b} {
		for _, m := range nd.Members() {
			if m.ServiceAddr == "127.0.0.1:9804" || m.ServiceAddr == "127.0.0.1:9805" {
				t.Errorf("%s took %s (another key, or none) into its membership", nd.cfg.ServiceAddr, m.ServiceAddr)
			}
		}
	}
	for _, nd := range intruders {
		if n := aliveCount(nd); n != 1 {
			t.Errorf("%s (another key, or none) sees %d live members, want only itself", nd.cfg.ServiceAddr, n)
		}
	}
}

// TestLoadKeyFileErrors: a key file that cannot be used is refused with
// its line and why.
func TestLoadKeyFileErrors(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"", "holds no key"},
		{"# only a comment\n", "holds no key"},
		{"not base64!\n", "line 1: not base64"},
		{"\nc2hvcnQ=\n", "line 2: a key of 5 bytes"},
	} {
		path := filepath.Join(t.TempDir(), "k")
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKeyFile(path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.content, err, tc.want)
		}
	}
}

// TestPeersByRole: Peers lists the live members of a role other than the
// node itself, each once although two advertise the same wildcard service
// address, which becomes the member's gossip host with the service port;
// a crashed peer drops out.
func TestPeersByRole(t *testing.T) {
	a, err := Start(Config{Role: "graphd", ServiceAddr: "0.0.0.0:9669"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Kill)
	var others []*Node
	for _, cfg := range []Config{
		{Role: "graphd", ServiceAddr: "0.0.0.0:9669"},
		{Role: "graphd", ServiceAddr: "127.0.0.1:9670"},
		{Role: "storaged", ServiceAddr: "127.0.0.1:9779"},
	} {
		cfg.Seeds = []string{a.Addr()}
		nd, err := Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nd.Kill)
		others = append(others, nd)
	}
	addrs := func() string {
		var out []string
		for _, m := range a.Peers("graphd") {
			out = append(out, m.ServiceAddr)
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	host, _, _ := net.SplitHostPort(others[0].Addr())
	want := strings.Join(slices.Sorted(slices.Values([]string{net.JoinHostPort(host, "9669"), "127.0.0.1:9670"})), " ")
	waitFor(t, "both graphd peers listed", func() bool { return addrs() == want })
	others[1].Kill()
	waitFor(t, "the crashed graphd dropped", func() bool { return addrs() == net.JoinHostPort(host, "9669") })
}
