// Package gossip tells each daemon, within a second, which of its peers are
// alive: storaged and graphd (and metad, if it joins) run one memberlist
// node each, on its own UDP+TCP port, and advertise their role and the
// gRPC address others route to.
//
// The point is speed. Raft notices a dead storaged after an election
// timeout and metad after its host lease expires (10 s by default); a
// client that keeps sending to the dead leader until then waits on
// connection timeouts. memberlist probes every peer each ProbeInterval; a
// peer that misses a probe is suspect, and dead unless it refutes within
// the suspicion timeout (two probe intervals here), so a graphd can route
// around a crashed storaged within about a second, long before the lease
// says anything. Even so, this is a hint, not a verdict: a "dead" host may
// be alive (a long GC pause, a congested link), so users of Suspected only
// reorder their choices and never refuse a host outright, and decisions
// that move data (metad's balance jobs) go by the host's lease.
//
// A Node has one owner goroutine (watch) that folds memberlist's events
// into an immutable view; readers load the view without locks.
package gossip

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"
)

// Config configures a Node. Zero fields take the defaults shown.
type Config struct {
	// Role is what the daemon is: "storaged", "graphd", "metad".
	Role string
	// ServiceAddr is the daemon's gRPC host:port: the address peers route
	// requests to and the key Suspected is asked about.
	ServiceAddr string
	// BindAddr is the gossip host:port (UDP and TCP); port 0 picks a free
	// port, which Addr reports.
	BindAddr string
	// AdvertiseAddr is the gossip address peers reach this node at
	// (BindAddr's).
	AdvertiseAddr string
	// Seeds are gossip addresses of peers to join; any live one suffices.
	// A node keeps trying them in the background while it knows no peer.
	Seeds []string
	// ProbeInterval is how often each peer is probed (200ms). A peer that
	// misses a probe is declared dead about two intervals later unless it
	// refutes.
	ProbeInterval time.Duration
	// Keys is the gossip keyring: AES keys of 16, 24 or 32 bytes
	// (LoadKeyFile). The first encrypts and authenticates what this node
	// sends; any of them opens what it receives, so a key is rotated by
	// adding the new one second everywhere, then first, then dropping the
	// old. Empty: plaintext gossip, which anyone who reaches the port can
	// join and use to mark live peers dead (docs/security.md).
	Keys [][]byte
	// Logger receives membership changes (discarded if nil).
	Logger *slog.Logger
}

// LoadKeyFile reads a gossip keyring: one base64 key (16, 24 or 32 bytes:
// AES-128, -192 or -256) per line, the first the one nodes send with;
// blank lines and lines starting with # are skipped. nova-certs writes
// one (gossip.key) beside the certificates.
func LoadKeyFile(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gossip key file: %w", err)
	}
	var keys [][]byte
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			return nil, fmt.Errorf("gossip key file %s, line %d: not base64: %w", path, i+1, err)
		}
		if n := len(key); n != 16 && n != 24 && n != 32 {
			return nil, fmt.Errorf("gossip key file %s, line %d: a key of %d bytes; want 16, 24 or 32 (AES-128, -192, -256)", path, i+1, n)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("gossip key file %s holds no key", path)
	}
	return keys, nil
}

// NewKey returns a random AES-256 gossip key, base64, as LoadKeyFile reads it.
func NewKey() (string, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(key), nil
}

// State is what this node believes about a peer.
type State int

// Peer states: memberlist reports a peer dead (or gone) once its
// suspicion timed out or it left.
const (
	Alive State = iota
	Dead
)

func (s State) String() string {
	if s == Alive {
		return "alive"
	}
	return "dead"
}

// Member is one peer as this node sees it.
type Member struct {
	Name        string
	Role        string
	ServiceAddr string
	GossipAddr  string
	State       State
	Since       time.Time // when State last changed, as seen here
}

// meta is what a node advertises, as JSON in memberlist's node metadata
// (at most 512 bytes).
type meta struct {
	Role    string `json:"role"`
	Service string `json:"service"`
}

// Node is one daemon's membership in the gossip cluster.
type Node struct {
	cfg  Config
	log  *slog.Logger
	list *memberlist.Memberlist
	view atomic.Pointer[map[string]Member] // service addr → member; replaced whole
	all  atomic.Pointer[[]Member]          // every member by name, itself too; replaced whole
	name string                            // this node's member name

	// Memberlist calls the event sink with its node lock held, so the sink
	// only copies what it is told into pending and wakes the owner; the
	// owner (watch) alone reads pending out and rebuilds the view. Reading
	// memberlist's own node structs instead would race with its writes.
	mu      sync.Mutex
	pending []event
	members map[string]Member // by member name; owned by watch
	events  chan struct{}     // pending has events: rebuild the view
	stop    chan struct{}
	wg      sync.WaitGroup
	once    sync.Once
}

// Start creates the node, binds its port and starts joining the seeds in
// the background.
func Start(cfg Config) (*Node, error) {
	if cfg.ServiceAddr == "" {
		return nil, fmt.Errorf("gossip: the node's service address is required")
	}
	if cfg.ProbeInterval <= 0 {
		cfg.ProbeInterval = 200 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BindAddr == "" {
		cfg.BindAddr = "127.0.0.1:0"
	}
	n := &Node{cfg: cfg, log: cfg.Logger, members: map[string]Member{}, events: make(chan struct{}, 1), stop: make(chan struct{})}
	empty := map[string]Member{}
	n.view.Store(&empty)
	n.all.Store(&[]Member{})

	mc := memberlist.DefaultLANConfig()
	// A restarted daemon is a new member (its old incarnation may still be
	// suspect or dead on the peers, which refuse a name's address change),
	// so the name carries the start time.
	mc.Name = fmt.Sprintf("%s@%s/%d", cfg.Role, cfg.ServiceAddr, time.Now().UnixNano())
	n.name = mc.Name
	host, port, err := splitHostPort(cfg.BindAddr)
	if err != nil {
		return nil, fmt.Errorf("gossip: bind address %q: %w", cfg.BindAddr, err)
	}
	if host, err = bindHost(host); err != nil {
		return nil, fmt.Errorf("gossip: bind address %q: %w", cfg.BindAddr, err)
	}
	mc.BindAddr, mc.BindPort = host, port
	if cfg.AdvertiseAddr != "" {
		ah, ap, err := splitHostPort(cfg.AdvertiseAddr)
		if err != nil {
			return nil, fmt.Errorf("gossip: advertise address %q: %w", cfg.AdvertiseAddr, err)
		}
		mc.AdvertiseAddr, mc.AdvertisePort = ah, ap
	}
	// Fast failure detection on a LAN: a missed probe makes a suspect at
	// once; suspicion lasts SuspicionMult probe intervals (times log10 of
	// the cluster size, at least 1) before the peer is declared dead and
	// the event sink hears of it.
	mc.ProbeInterval = cfg.ProbeInterval
	mc.ProbeTimeout = cfg.ProbeInterval / 2
	mc.SuspicionMult = 2
	mc.GossipInterval = cfg.ProbeInterval / 2
	mc.PushPullInterval = 10 * time.Second
	mc.TCPTimeout = time.Second
	mc.Delegate = &delegate{meta: mustJSON(meta{Role: cfg.Role, Service: cfg.ServiceAddr})}
	mc.Events = &eventSink{n: n}
	mc.Logger = log.New(io.Discard, "", 0) // memberlist logs every probe; we log changes
	if len(cfg.Keys) > 0 {
		kr, err := memberlist.NewKeyring(cfg.Keys[1:], cfg.Keys[0])
		if err != nil {
			return nil, fmt.Errorf("gossip: keyring: %w", err)
		}
		// Nothing unencrypted in or out: a peer without the key is not
		// heard, and cannot hear who is alive.
		mc.Keyring = kr
		mc.GossipVerifyIncoming, mc.GossipVerifyOutgoing = true, true
	}
	list, err := memberlist.Create(mc)
	if err != nil {
		return nil, fmt.Errorf("gossip: starting on %s: %w", cfg.BindAddr, err)
	}
	n.list = list
	n.wg.Add(1)
	go n.watch()
	return n, nil
}

// Addr is the gossip address peers use to join this node.
func (n *Node) Addr() string {
	ln := n.list.LocalNode()
	return net.JoinHostPort(ln.Addr.String(), strconv.Itoa(int(ln.Port)))
}

// Members returns every peer this node has heard of (itself included),
// dead ones too until memberlist forgets them.
func (n *Node) Members() []Member {
	v := *n.view.Load()
	out := make([]Member, 0, len(v))
	for _, m := range v {
		out = append(out, m)
	}
	return out
}

// Peers returns the other members of role that this node holds alive,
// each with ServiceAddr an address to reach it at: the one it advertises,
// or, when it listens on a wildcard address (0.0.0.0:9669, as graphd does
// in the containers), that port on the host gossip reaches it at. Members
// are taken by name, not by service address, so peers that all advertise
// the same wildcard address are each listed.
func (n *Node) Peers(role string) []Member {
	var out []Member
	for _, m := range *n.all.Load() {
		if m.Role != role || m.State != Alive || m.Name == n.name {
			continue
		}
		host, port, err := net.SplitHostPort(m.ServiceAddr)
		if err != nil {
			continue
		}
		if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
			gh, _, err := net.SplitHostPort(m.GossipAddr)
			if err != nil {
				continue
			}
			m.ServiceAddr = net.JoinHostPort(gh, port)
		}
		out = append(out, m)
	}
	return out
}

// Suspected reports whether gossip holds the peer serving at serviceAddr
// dead (it missed probes and did not refute) or gone. An address no peer
// advertises is not suspected: gossip knows nothing about it.
func (n *Node) Suspected(serviceAddr string) bool {
	m, ok := (*n.view.Load())[serviceAddr]
	return ok && m.State != Alive
}

// Close leaves the cluster (so peers learn at once instead of suspecting)
// and stops the node.
func (n *Node) Close() error {
	var err error
	n.once.Do(func() {
		close(n.stop)
		n.wg.Wait()
		if lerr := n.list.Leave(time.Second); lerr != nil {
			err = fmt.Errorf("gossip: leaving: %w", lerr)
		}
		if serr := n.list.Shutdown(); serr != nil && err == nil {
			err = fmt.Errorf("gossip: shutting down: %w", serr)
		}
	})
	return err
}

// Kill stops the node without telling peers, as a crash would (tests).
func (n *Node) Kill() {
	n.once.Do(func() {
		close(n.stop)
		n.wg.Wait()
		_ = n.list.Shutdown()
	})
}

// watch owns the view: it folds memberlist's events into it, and joins the
// seeds while the node is alone.
func (n *Node) watch() {
	defer n.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		n.apply()
		if len(n.cfg.Seeds) > 0 && n.list.NumMembers() <= 1 {
			if _, err := n.list.Join(n.cfg.Seeds); err != nil {
				n.log.Debug("gossip: joining seeds failed; retrying", "seeds", n.cfg.Seeds, "err", err)
			}
		}
		select {
		case <-n.stop:
			return
		case <-n.events:
		case <-tick.C:
		}
	}
}

// event is one membership change as memberlist reported it, copied.
type event struct {
	name, gossipAddr string
	meta             []byte
	alive            bool // joined or updated; false: dead or left
}

// apply folds the pending events into a new view. A restarted daemon is a
// new member under the same service address: the live one wins.
func (n *Node) apply() {
	n.mu.Lock()
	evs := n.pending
	n.pending = nil
	n.mu.Unlock()
	if len(evs) == 0 {
		return
	}
	now := time.Now()
	for _, ev := range evs {
		var md meta
		if err := json.Unmarshal(ev.meta, &md); err != nil || md.Service == "" {
			if m, ok := n.members[ev.name]; ok && !ev.alive {
				md = meta{Role: m.Role, Service: m.ServiceAddr} // a leave carries no metadata
			} else {
				continue
			}
		}
		st := Alive
		if !ev.alive {
			st = Dead
		}
		m := Member{Name: ev.name, Role: md.Role, ServiceAddr: md.Service, GossipAddr: ev.gossipAddr, State: st, Since: now}
		if prev, ok := n.members[ev.name]; ok && prev.State == st {
			m.Since = prev.Since
		}
		if prev, ok := n.members[ev.name]; (!ok || prev.State != st) && md.Service != n.cfg.ServiceAddr {
			n.log.Info("gossip: peer state", "peer", ev.name, "service", md.Service, "state", st.String())
		}
		n.members[ev.name] = m
	}
	all := make([]Member, 0, len(n.members))
	for _, m := range n.members {
		all = append(all, m)
	}
	n.all.Store(&all)
	view := make(map[string]Member, len(n.members))
	for _, m := range n.members {
		if cur, dup := view[m.ServiceAddr]; dup && (cur.State < m.State || (cur.State == m.State && cur.Since.After(m.Since))) {
			continue
		}
		view[m.ServiceAddr] = m
	}
	n.view.Store(&view)
}

// eventSink copies memberlist's events for the owner. Memberlist holds
// its node lock while calling it: copy, queue, wake, never block.
type eventSink struct{ n *Node }

func (e *eventSink) push(nd *memberlist.Node, alive bool) {
	ev := event{name: nd.Name, gossipAddr: nd.Address(), meta: append([]byte(nil), nd.Meta...), alive: alive}
	e.n.mu.Lock()
	e.n.pending = append(e.n.pending, ev)
	e.n.mu.Unlock()
	select {
	case e.n.events <- struct{}{}:
	default:
	}
}
func (e *eventSink) NotifyJoin(nd *memberlist.Node)   { e.push(nd, true) }
func (e *eventSink) NotifyLeave(nd *memberlist.Node)  { e.push(nd, false) }
func (e *eventSink) NotifyUpdate(nd *memberlist.Node) { e.push(nd, true) }

// delegate advertises the node's metadata; it carries no user messages.
type delegate struct{ meta []byte }

func (d *delegate) NodeMeta(limit int) []byte {
	if len(d.meta) > limit {
		return nil
	}
	return d.meta
}
func (d *delegate) NotifyMsg([]byte)                           {}
func (d *delegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (d *delegate) LocalState(join bool) []byte                { return nil }
func (d *delegate) MergeRemoteState(buf []byte, join bool)     {}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a struct of two strings always marshals
	}
	return b
}

func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return "", 0, fmt.Errorf("port %q: %w", p, err)
	}
	return host, port, nil
}

// bindHost is the IP memberlist binds for the host of a --gossip-addr:
// memberlist takes IP addresses only (it would bind a name's host on all
// interfaces and then advertise the unspecified address), so a name, as
// the other --addr flags accept, is resolved to its address (the first
// IPv4 one, if any), and an empty host means all interfaces, "0.0.0.0"
// (memberlist then advertises a private IP of the host).
func bindHost(host string) (string, error) {
	if host == "" {
		return "0.0.0.0", nil
	}
	if net.ParseIP(host) != nil {
		return host, nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(context.Background(), host)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", host, err)
	}
	if len(ips) == 0 {
		return "", fmt.Errorf("resolving %s: no address", host)
	}
	for _, a := range ips {
		if a.IP.To4() != nil {
			return a.IP.String(), nil
		}
	}
	return ips[0].IP.String(), nil
}

// ParseSeeds splits a comma-separated seed list, dropping blanks.
func ParseSeeds(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
