package metad

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// haMember is one metad of an in-process metad cluster: its addresses and
// data stay across a stop, so it restarts as the same etcd member.
type haMember struct {
	cfg Config
	srv *Server // nil while stopped
}

func (m *haMember) stop() {
	if m.srv != nil {
		m.srv.Stop()
		m.srv = nil
	}
}

// freeLoopbackAddrs returns n distinct loopback addresses nothing listens on.
func freeLoopbackAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		out = append(out, ln.Addr().String())
	}
	return out
}

// startHA starts n metad that form one etcd cluster through --meta-peers
// (ParseMetaPeers), all at once, as a new etcd cluster needs.
func startHA(t *testing.T, n int) []*haMember {
	t.Helper()
	level := slog.LevelError
	if testing.Verbose() {
		level = slog.LevelInfo
	}
	addrs := freeLoopbackAddrs(t, 3*n)
	var peers []string
	for i := range n {
		peers = append(peers, addrs[3*i+2])
	}
	dir := t.TempDir()
	var ms []*haMember
	for i := range n {
		mp, err := ParseMetaPeers(strings.Join(peers, ","), addrs[3*i+2])
		if err != nil {
			t.Fatal(err)
		}
		if mp.Size != n {
			t.Fatalf("ParseMetaPeers: %d members, want %d", mp.Size, n)
		}
		ms = append(ms, &haMember{cfg: Config{
			ListenAddr: addrs[3*i], HTTPAddr: "127.0.0.1:0", DataPath: filepath.Join(dir, fmt.Sprint(i)),
			EtcdClientAddr: addrs[3*i+1], EtcdPeerAddr: addrs[3*i+2],
			EtcdName: mp.Name, EtcdInitialCluster: mp.InitialCluster,
			// 50 ms ticks: 10 ms elections flap among three members on
			// two busy cores under -race.
			EtcdTickMs: 50, BcryptCost: bcrypt.MinCost,
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("metad", i),
		}})
	}
	t.Cleanup(func() {
		for _, m := range ms {
			m.stop()
		}
	})
	restartHA(t, ms...)
	return ms
}

// restartHA starts the given (stopped) members together.
func restartHA(t *testing.T, ms ...*haMember) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			srv := New(m.cfg)
			if errs[i] = srv.Start(ctx); errs[i] == nil {
				m.srv = srv
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("starting metad %s: %v", ms[i].cfg.ListenAddr, err)
		}
	}
}

func haAddrs(ms []*haMember) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.cfg.ListenAddr)
	}
	return out
}

// etcdLeader is the member whose etcd is the leader, or nil.
func etcdLeader(ms []*haMember) *haMember {
	for _, m := range ms {
		if m.srv != nil && m.srv.etcd.Server.Leader() == m.srv.etcd.Server.MemberID() {
			return m
		}
	}
	return nil
}

func dialMember(t *testing.T, m *haMember) metapb.MetaServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(m.cfg.ListenAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return metapb.NewMetaServiceClient(conn)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestMetaHA runs three metad on one three-member etcd and a client that
// knows all three. With one metad down (the etcd leader) the catalog stays
// writable through the others; restarted, the metad catches up; with two
// down, writes fail with an error naming every metad tried, and the
// client's cached catalog still answers.
func TestMetaHA(t *testing.T) {
	if testing.Short() {
		t.Skip("three embedded etcd members")
	}
	ms := startHA(t, 3)
	c := client.New(haAddrs(ms), slog.New(slog.DiscardHandler))
	defer c.Close()
	if err := c.WaitVersion(ctxFor(t, 10*time.Second), 1); err != nil {
		t.Fatal(err)
	}

	// One storage host, kept online by heartbeats through the client, as
	// a storaged would: they must ride out the failovers below too.
	store, _, err := c.RegisterHost(ctxFor(t, 10*time.Second), &commonpb.HostAddr{Host: "127.0.0.1", Port: 9779})
	if err != nil {
		t.Fatal(err)
	}
	hbCtx, stopHB := context.WithCancel(context.Background())
	var hbDone sync.WaitGroup
	hbDone.Go(func() {
		for hbCtx.Err() == nil {
			ctx, cancel := context.WithTimeout(hbCtx, 2*time.Second)
			_, _ = c.Heartbeat(ctx, &metapb.HeartbeatReq{StoreId: store}) // fails without a quorum
			cancel()
			select {
			case <-hbCtx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	defer func() { stopHB(); hbDone.Wait() }()
	waitOnline := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if h, ok := c.Catalog().Host(store); ok && h.GetOnline() {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("the storage host did not come online")
	}
	waitOnline()

	createSpace := func(name string, d time.Duration) (int32, error) {
		id, _, err := c.CreateSpace(ctxFor(t, d), &metapb.SpaceDesc{
			Name: name, PartitionNum: 2, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
		}, false)
		return id, err
	}
	createTag := func(space int32, name string, d time.Duration) error {
		_, _, err := c.CreateSchema(ctxFor(t, d), &metapb.CreateSchemaReq{SpaceId: space, Name: name})
		return err
	}
	s1, err := createSpace("s1", 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := createTag(s1, "t1", 20*time.Second); err != nil {
		t.Fatal(err)
	}

	// Kill the etcd leader's metad: the other two elect a leader and keep
	// the catalog writable; the client fails over for writes and watch.
	victim := etcdLeader(ms)
	if victim == nil {
		t.Fatal("no etcd leader among the three metad")
	}
	victim.stop()
	s2, err := createSpace("s2", 20*time.Second)
	if err != nil {
		t.Fatalf("CREATE SPACE with one of three metad down: %v", err)
	}
	if err := createTag(s2, "t2", 20*time.Second); err != nil {
		t.Fatalf("CREATE TAG with one of three metad down: %v", err)
	}
	if _, ok := c.Catalog().TagByName(s2, "t2"); !ok {
		t.Fatal("the cache lacks t2 after CreateSchema returned")
	}
	// The watch moved on too: a change made directly on another metad
	// reaches the cache.
	var other *haMember
	for _, m := range ms {
		if m != victim {
			other = m
		}
	}
	r, err := dialMember(t, other).CreateSchema(ctxFor(t, 20*time.Second), &metapb.CreateSchemaReq{SpaceId: s2, Name: "direct"})
	if err != nil || r.Status.GetCode() != commonpb.ErrorCode_SUCCEEDED {
		t.Fatalf("CreateSchema on %s: %v %v", other.cfg.ListenAddr, r.GetStatus(), err)
	}
	if err := c.WaitVersion(ctxFor(t, 10*time.Second), r.Version); err != nil {
		t.Fatalf("the cache does not follow a change made on a live metad: %v", err)
	}

	// Restarted, the victim rejoins and catches up, and serves writes.
	restartHA(t, victim)
	latest := c.Catalog().Version()
	if err := victim.srv.cat.waitVersion(ctxFor(t, 20*time.Second), latest); err != nil {
		t.Fatalf("restarted metad does not catch up: %v", err)
	}
	cat := getCatalog(t, dialMember(t, victim))
	if len(cat.Spaces) != 2 || findTag(cat, s2, "t2") == nil || findTag(cat, s2, "direct") == nil {
		t.Fatalf("restarted metad serves an old catalog (version %d): %v", cat.Version, cat.Spaces)
	}
	r, err = dialMember(t, victim).CreateSchema(ctxFor(t, 20*time.Second), &metapb.CreateSchemaReq{SpaceId: s1, Name: "after_restart"})
	if err != nil || r.Status.GetCode() != commonpb.ErrorCode_SUCCEEDED {
		t.Fatalf("CreateSchema on the restarted metad: %v %v", r.GetStatus(), err)
	}
	if err := c.WaitVersion(ctxFor(t, 10*time.Second), r.Version); err != nil {
		t.Fatal(err)
	}

	// Two of three down: no quorum. A write fails, within the caller's
	// deadline, with an error that names every metad; the survivor itself
	// refuses with Unavailable rather than hang.
	var survivor *haMember
	var down []*haMember
	for _, m := range ms {
		if survivor == nil {
			survivor = m
			continue
		}
		down = append(down, m)
		m.stop()
	}
	before := c.Catalog()
	start := time.Now()
	_, err = createSpace("s3", 4*time.Second)
	var ue *client.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("CREATE SPACE without a quorum: %v, want an UnavailableError", err)
	}
	if took := time.Since(start); took > 8*time.Second {
		t.Fatalf("CREATE SPACE without a quorum took %s despite a 4s deadline", took)
	}
	for _, addr := range haAddrs(ms) {
		if !strings.Contains(err.Error(), addr) {
			t.Fatalf("error %q does not name metad %s", err, addr)
		}
	}
	if !strings.Contains(err.Error(), "no leader") {
		t.Fatalf("error %q does not say the survivor's etcd has no leader", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := dialMember(t, survivor).GetCatalog(ctxFor(t, 5*time.Second), &metapb.GetCatalogReq{})
		if status.Code(err) == codes.Unavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metad without a quorum answers %v, want Unavailable", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Reads of the cache keep working, unchanged.
	if got := c.Catalog(); got.Version() != before.Version() {
		t.Fatalf("cache moved from %d to %d without a quorum", before.Version(), got.Version())
	}
	for _, name := range []string{"s1", "s2"} {
		if _, ok := c.Catalog().SpaceByName(name); !ok {
			t.Fatalf("cached catalog lost space %s", name)
		}
	}
	if _, ok := c.Catalog().TagByName(s1, "after_restart"); !ok {
		t.Fatal("cached catalog lost tag after_restart")
	}

	// Back to three: writes work again, everywhere.
	restartHA(t, down...)
	s3, err := createSpace("s3", 30*time.Second)
	if err != nil {
		t.Fatalf("CREATE SPACE after the quorum is back: %v", err)
	}
	if err := createTag(s3, "t3", 20*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if err := m.srv.cat.waitVersion(ctxFor(t, 20*time.Second), c.Catalog().Version()); err != nil {
			t.Fatalf("metad %s: %v", m.cfg.ListenAddr, err)
		}
	}
	waitOnline()
}

// TestMetaHABootstrapsRootOnce: three metad starting together on a new
// cluster all try to create root; exactly one transaction does, the others
// find it.
func TestMetaHABootstrapsRootOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("three embedded etcd members")
	}
	ms := startHA(t, 3)
	resp, err := ms[0].srv.cli.Get(ctxFor(t, 5*time.Second), userKey(RootUser))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || resp.Kvs[0].Version != 1 {
		t.Fatalf("root key: %v (want one key written exactly once)", resp.Kvs)
	}
	for _, m := range ms {
		r, err := dialMember(t, m).VerifyUser(ctxFor(t, 5*time.Second), &metapb.VerifyUserReq{Name: RootUser, Password: DefaultRootPassword})
		if err != nil || !r.Ok {
			t.Fatalf("root on %s: %v %v", m.cfg.ListenAddr, r, err)
		}
	}
}

func TestParseMetaPeers(t *testing.T) {
	for _, tc := range []struct {
		peers, self   string
		name, cluster string
		err           string
	}{
		{peers: "10.0.0.1:2380,10.0.0.2:2380,10.0.0.3:2380", self: "10.0.0.2:2380", name: "metad-10.0.0.2-2380",
			cluster: "metad-10.0.0.1-2380=http://10.0.0.1:2380,metad-10.0.0.2-2380=http://10.0.0.2:2380,metad-10.0.0.3-2380=http://10.0.0.3:2380"},
		{peers: " m1=http://h1:2380 , m2=h2:2380,,", self: "http://h2:2380", name: "m2", cluster: "m1=http://h1:2380,m2=http://h2:2380"},
		{peers: "h1:2380", self: "h1:2380", name: "metad-h1-2380", cluster: "metad-h1-2380=http://h1:2380"},
		{peers: "h1:2380,h2:2380", self: "h3:2380", err: "not in --meta-peers"},
		{peers: "h1:2380,h1:2380", self: "h1:2380", err: "twice"},
		{peers: "a=h1:2380,a=h2:2380", self: "h1:2380", err: "twice"},
		{peers: "https://h1:2380", self: "h1:2380", name: "metad-h1-2380", cluster: "metad-h1-2380=http://h1:2380"},
		{peers: "ftp://h1:2380", self: "h1:2380", err: "only http:// or https://"},
		{peers: "h1", self: "h1:2380", err: "not host:port"},
		{peers: "h1:0", self: "h1:2380", err: "[1, 65535]"},
		{peers: "=h1:2380", self: "h1:2380", err: "empty member name"},
		{peers: "a b=h1:2380", self: "h1:2380", err: "may not contain"},
		{peers: " , ", self: "h1:2380", err: "no peers"},
	} {
		got, err := ParseMetaPeers(tc.peers, tc.self)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseMetaPeers(%q, %q) = %+v, %v; want an error with %q", tc.peers, tc.self, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.Name != tc.name || got.InitialCluster != tc.cluster {
			t.Errorf("ParseMetaPeers(%q, %q) = %+v, %v; want %s and %s", tc.peers, tc.self, got, err, tc.name, tc.cluster)
		}
	}
}

func TestBindURL(t *testing.T) {
	ctx := context.Background()
	for _, in := range []string{"http://10.1.2.3:2380", "http://[::1]:2380", "http://localhost:2380"} {
		u, _ := url.Parse(in)
		got, err := bindURL(ctx, *u)
		if err != nil || got.String() != in {
			t.Errorf("bindURL(%s) = %s, %v; want it unchanged", in, got.String(), err)
		}
	}
	u, _ := url.Parse("http://no-such-host.invalid:2380")
	if got, err := bindURL(ctx, *u); err == nil || !strings.Contains(err.Error(), "no-such-host.invalid") {
		t.Errorf("bindURL of an unresolvable name = %s, %v; want an error naming it", got.String(), err)
	}
}

// A metad whose etcd peer address is a DNS name (a container's or a
// StatefulSet pod's) starts: etcd listens on the address the name resolves
// to and advertises the name.
func TestMetadPeerAddrIsAName(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 || net.ParseIP(host) != nil {
		t.Skipf("host name %q does not resolve: %v", host, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	peer := net.JoinHostPort(host, port)
	mp, err := ParseMetaPeers(peer, peer)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{
		ListenAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataPath: t.TempDir(),
		EtcdClientAddr: "127.0.0.1:0", EtcdPeerAddr: peer, EtcdName: mp.Name, EtcdInitialCluster: mp.InitialCluster,
		EtcdTickMs: 10, BcryptCost: bcrypt.MinCost,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("metad with --etcd-peer-addr %s: %v", peer, err)
	}
	defer srv.Stop()
	if got := srv.etcd.Config().AdvertisePeerUrls[0].Host; got != peer {
		t.Fatalf("etcd advertises %s, want %s", got, peer)
	}
}
