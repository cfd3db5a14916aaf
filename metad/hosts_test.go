package metad

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// startHostsServer runs a metad with RequireAddHosts as given.
func startHostsServer(t *testing.T, requireAdd bool) metapb.MetaServiceClient {
	t.Helper()
	srv := New(Config{
		ListenAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataPath: t.TempDir(),
		EtcdClientAddr: "127.0.0.1:0", EtcdPeerAddr: "127.0.0.1:0", EtcdTickMs: 10,
		HostTTL: 10 * time.Second, BcryptCost: bcrypt.MinCost, RequireAddHosts: requireAdd,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("starting metad: %v", err)
	}
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(srv.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return metapb.NewMetaServiceClient(conn)
}

func hostAddr(port int32) *commonpb.HostAddr {
	return &commonpb.HostAddr{Host: "127.0.0.1", Port: port}
}

func addHostsRPC(t *testing.T, rpc metapb.MetaServiceClient, ports ...int32) *metapb.AddHostsResp {
	t.Helper()
	req := &metapb.AddHostsReq{}
	for _, p := range ports {
		req.Hosts = append(req.Hosts, hostAddr(p))
	}
	r, err := rpc.AddHosts(ctxT(t), req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func dropHostsRPC(t *testing.T, rpc metapb.MetaServiceClient, ports ...int32) *metapb.DropHostsResp {
	t.Helper()
	req := &metapb.DropHostsReq{}
	for _, p := range ports {
		req.Hosts = append(req.Hosts, hostAddr(p))
	}
	r, err := rpc.DropHosts(ctxT(t), req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func register(t *testing.T, rpc metapb.MetaServiceClient, port int32) uint64 {
	t.Helper()
	r, err := rpc.RegisterHost(ctxT(t), &metapb.RegisterHostReq{Addr: hostAddr(port)})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "RegisterHost", r.Status, commonpb.ErrorCode_SUCCEEDED)
	return r.StoreId
}

func heartbeatAt(t *testing.T, rpc metapb.MetaServiceClient, store uint64, port int32) *metapb.Status {
	t.Helper()
	r, err := rpc.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: store, Addr: hostAddr(port)})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status
}

// catalogHosts maps the catalog's hosts' ports to their store id and
// whether they are online.
func catalogHosts(t *testing.T, rpc metapb.MetaServiceClient) map[int32]*metapb.HostInfo {
	t.Helper()
	out := map[int32]*metapb.HostInfo{}
	for _, h := range getCatalog(t, rpc).Hosts {
		out[h.Addr.Port] = h
	}
	return out
}

// TestAddAndDropHosts: hosts that register are added; ADD HOSTS adds a host
// before it runs (OFFLINE) and refuses one already added; DROP HOSTS
// refuses a host that holds replicas and an unknown one, drops an offline
// host without replicas, and a dropped host keeps its store id.
func TestAddAndDropHosts(t *testing.T) {
	rpc := startHostsServer(t, false)
	a := register(t, rpc, 9779)
	wantCode(t, "heartbeat a", heartbeatAt(t, rpc, a, 9779), commonpb.ErrorCode_SUCCEEDED)
	if h := catalogHosts(t, rpc)[9779]; h == nil || h.StoreId != a || !h.Online {
		t.Fatalf("registered host: %v", h)
	}

	wantCode(t, "ADD an added host", addHostsRPC(t, rpc, 9779).Status, commonpb.ErrorCode_E_EXISTED, "127.0.0.1:9779 is already added")
	// All or nothing: the new host of a failing request is not added.
	wantCode(t, "ADD new + added", addHostsRPC(t, rpc, 9780, 9779).Status, commonpb.ErrorCode_E_EXISTED)
	if h := catalogHosts(t, rpc)[9780]; h != nil {
		t.Fatalf("host 9780 added by a failed ADD HOSTS: %v", h)
	}
	wantCode(t, "ADD a host twice", addHostsRPC(t, rpc, 9780, 9780).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "twice")
	wantCode(t, "ADD port 0", addHostsRPC(t, rpc, 0).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "[1, 65535]")

	r := addHostsRPC(t, rpc, 9780, 9781)
	wantCode(t, "ADD two", r.Status, commonpb.ErrorCode_SUCCEEDED)
	hosts := catalogHosts(t, rpc)
	b, c := hosts[9780], hosts[9781]
	if b == nil || c == nil || b.Online || c.Online || b.StoreId == c.StoreId || b.StoreId == a || c.StoreId == a {
		t.Fatalf("added hosts: %v %v (a is %d)", b, c, a)
	}
	// The storaged started later registers and gets the id ADD HOSTS gave.
	if id := register(t, rpc, 9780); id != b.StoreId {
		t.Fatalf("host 9780 registers as store %d, was added as %d", id, b.StoreId)
	}
	wantCode(t, "heartbeat b", heartbeatAt(t, rpc, b.StoreId, 9780), commonpb.ErrorCode_SUCCEEDED)

	// A space on the two online hosts: c, offline, gets nothing.
	sp := createSpace(t, rpc, "g", 4, 1)
	wantCode(t, "create space", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	cat := getCatalog(t, rpc)
	for _, p := range cat.Parts[sp.SpaceId].Parts {
		if slices.Contains(p.Replicas, c.StoreId) {
			t.Fatalf("offline host got part %d", p.PartId)
		}
	}

	wantCode(t, "DROP a host with replicas", dropHostsRPC(t, rpc, 9779).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT,
		"127.0.0.1:9779 still holds partition replicas", "space g: part 1, 3")
	// All or nothing again: c is droppable, a is not.
	wantCode(t, "DROP droppable + holding", dropHostsRPC(t, rpc, 9781, 9779).Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "9779")
	wantCode(t, "DROP unknown", dropHostsRPC(t, rpc, 9999).Status, commonpb.ErrorCode_E_NOT_FOUND, "127.0.0.1:9999 is not added")
	if h := catalogHosts(t, rpc)[9781]; h == nil {
		t.Fatal("a failed DROP HOSTS dropped host 9781")
	}

	// c: offline, no replicas.
	d := dropHostsRPC(t, rpc, 9781)
	wantCode(t, "DROP an offline host without replicas", d.Status, commonpb.ErrorCode_SUCCEEDED)
	if h := catalogHosts(t, rpc)[9781]; h != nil {
		t.Fatalf("dropped host still listed: %v", h)
	}
	wantCode(t, "DROP it again", dropHostsRPC(t, rpc, 9781).Status, commonpb.ErrorCode_E_NOT_FOUND)
	// Placement may not use it any more.
	up, err := rpc.UpdatePartReplicas(ctxT(t), &metapb.UpdatePartReplicasReq{
		SpaceId: sp.SpaceId, PartId: 1, ExpectedReplicas: []uint64{a}, Replicas: []uint64{a}, Learners: []uint64{c.StoreId},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "learner on a dropped host", up.Status, commonpb.ErrorCode_E_NO_HOSTS, "not an added host")

	// Added again, it keeps its store id.
	wantCode(t, "re-ADD", addHostsRPC(t, rpc, 9781).Status, commonpb.ErrorCode_SUCCEEDED)
	if h := catalogHosts(t, rpc)[9781]; h == nil || h.StoreId != c.StoreId {
		t.Fatalf("re-added host: %v, want store %d", h, c.StoreId)
	}

	// An online host without replicas can be dropped too; its heartbeats
	// are refused from then on, and registering adds it again (hosts
	// register only when storaged starts).
	sp2 := createSpace(t, rpc, "h", 1, 1)
	wantCode(t, "space h", sp2.Status, commonpb.ErrorCode_SUCCEEDED)
	ds, err := rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "DROP SPACE g", ds.Status, commonpb.ErrorCode_SUCCEEDED)
	holder := getCatalog(t, rpc).Parts[sp2.SpaceId].Parts[0].Replicas[0]
	free, freePort := b.StoreId, int32(9780)
	if holder == b.StoreId {
		free, freePort = a, 9779
	}
	wantCode(t, "DROP an online host without replicas", dropHostsRPC(t, rpc, freePort).Status, commonpb.ErrorCode_SUCCEEDED)
	wantCode(t, "heartbeat of a dropped host", heartbeatAt(t, rpc, free, freePort), commonpb.ErrorCode_E_NOT_FOUND, "is not added to the cluster", `ADD HOSTS "127.0.0.1":`)
	if id := register(t, rpc, freePort); id != free {
		t.Fatalf("re-registered as %d, was %d", id, free)
	}
	wantCode(t, "heartbeat after re-registering", heartbeatAt(t, rpc, free, freePort), commonpb.ErrorCode_SUCCEEDED)
	if h := catalogHosts(t, rpc)[freePort]; h == nil || !h.Online {
		t.Fatalf("re-registered host: %v", h)
	}
}

// TestRequireAddHosts: with RequireAddHosts a host that registers gets a
// store id but is not in the cluster until ADD HOSTS: not listed, its
// heartbeats refused, and no space placed on it.
func TestRequireAddHosts(t *testing.T) {
	rpc := startHostsServer(t, true)
	a := register(t, rpc, 9779)
	if len(getCatalog(t, rpc).Hosts) != 0 {
		t.Fatal("a registered host that was not added is listed")
	}
	wantCode(t, "heartbeat before ADD HOSTS", heartbeatAt(t, rpc, a, 9779), commonpb.ErrorCode_E_NOT_FOUND,
		`host 127.0.0.1:9779 (store 1) is not added to the cluster; run ADD HOSTS "127.0.0.1":9779`)
	wantCode(t, "space without added hosts", createSpace(t, rpc, "g", 1, 1).Status, commonpb.ErrorCode_E_NO_HOSTS, "0 of 0 added hosts")

	wantCode(t, "ADD HOSTS", addHostsRPC(t, rpc, 9779).Status, commonpb.ErrorCode_SUCCEEDED)
	if h := catalogHosts(t, rpc)[9779]; h == nil || h.StoreId != a || h.Online {
		t.Fatalf("added host: %v (want store %d, offline)", h, a)
	}
	if id := register(t, rpc, 9779); id != a {
		t.Fatalf("registering again: store %d, want %d", id, a)
	}
	wantCode(t, "heartbeat after ADD HOSTS", heartbeatAt(t, rpc, a, 9779), commonpb.ErrorCode_SUCCEEDED)
	if h := catalogHosts(t, rpc)[9779]; !h.GetOnline() {
		t.Fatalf("added host after a heartbeat: %v", h)
	}
	wantCode(t, "space", createSpace(t, rpc, "g", 1, 1).Status, commonpb.ErrorCode_SUCCEEDED)
}
