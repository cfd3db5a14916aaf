package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/novagraph/novagraph/metad"
	"github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

func testLogger() *slog.Logger {
	level := slog.LevelError
	if testing.Verbose() {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// startMetad runs a metad on addr (port 0 for any) with data in dir.
func startMetad(t *testing.T, addr, dir string) *metad.Server {
	t.Helper()
	srv := metad.New(metad.Config{
		ListenAddr:     addr,
		HTTPAddr:       "127.0.0.1:0",
		DataPath:       dir,
		EtcdClientAddr: "127.0.0.1:0",
		EtcdPeerAddr:   "127.0.0.1:0",
		EtcdTickMs:     10,
		Logger:         testLogger(),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("starting metad: %v", err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func must[T any](t *testing.T) func(T, int64, error) T {
	return func(v T, _ int64, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// addHosts registers and heartbeats n storage hosts through c.
func addHosts(t *testing.T, c *client.Client, n int) []uint64 {
	t.Helper()
	var ids []uint64
	for i := range n {
		addr := &commonpb.HostAddr{Host: "127.0.0.1", Port: int32(9779 + i)}
		id := must[uint64](t)(c.RegisterHost(ctxT(t), addr))
		if _, err := c.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: id, Addr: addr}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestCacheFollowsCatalog(t *testing.T) {
	srv := startMetad(t, "127.0.0.1:0", t.TempDir())
	writer := client.New([]string{srv.Addr()}, testLogger())
	defer writer.Close()
	reader := client.New([]string{srv.Addr()}, testLogger())
	defer reader.Close()
	if err := reader.WaitVersion(ctxT(t), 1); err != nil {
		t.Fatalf("first catalog: %v", err)
	}

	hosts := addHosts(t, writer, 3)
	space, ver, err := writer.CreateSpace(ctxT(t), &metapb.SpaceDesc{
		Name: "g", PartitionNum: 6, ReplicaFactor: 3, VidType: metapb.VidType_VID_FIXED_STRING, VidLen: 16,
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The writer's cache has the space as soon as CreateSpace returns.
	snap := writer.Catalog()
	if snap.Version() < ver {
		t.Fatalf("writer cache at %d after CreateSpace returned version %d", snap.Version(), ver)
	}
	if sp, ok := snap.SpaceByName("g"); !ok || sp.SpaceId != space || sp.VidLen != 16 {
		t.Fatalf("SpaceByName(g) = %v, %v", sp, ok)
	}
	tag := must[int32](t)(writer.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "person",
		Columns: []*metapb.ColumnDef{{Name: "name", Type: metapb.PropType_STRING}}}))
	edge, ver, err := writer.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "knows", IsEdge: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: hosts[2], Leaders: []*metapb.LeaderInfo{{SpaceId: space, PartId: 5, Term: 3}}}); err != nil {
		t.Fatal(err)
	}
	ver2, err := writer.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: hosts[2], Leaders: []*metapb.LeaderInfo{{SpaceId: space, PartId: 5, Term: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if ver2 <= ver {
		t.Fatalf("heartbeat with new leaders returned version %d, not past %d", ver2, ver)
	}

	// The other client sees every change through its watch.
	if err := reader.WaitVersion(ctxT(t), ver2); err != nil {
		t.Fatal(err)
	}
	s := reader.Catalog()
	if sp, ok := s.SpaceByID(space); !ok || sp.Name != "g" {
		t.Fatalf("SpaceByID(%d) = %v, %v", space, sp, ok)
	}
	if td, ok := s.TagByName(space, "person"); !ok || td.TagId != tag {
		t.Fatalf("TagByName(person) = %v, %v", td, ok)
	}
	if td, ok := s.TagByID(space, tag); !ok || td.Name != "person" {
		t.Fatalf("TagByID(%d) = %v, %v", tag, td, ok)
	}
	if ed, ok := s.EdgeByName(space, "knows"); !ok || ed.EdgeType != edge {
		t.Fatalf("EdgeByName(knows) = %v, %v", ed, ok)
	}
	if ed, ok := s.EdgeByType(space, -edge); !ok || ed.Name != "knows" {
		t.Fatalf("EdgeByType(-%d) = %v, %v", edge, ed, ok)
	}
	if _, ok := s.TagByName(space, "knows"); ok {
		t.Fatal("an edge type was found as a tag")
	}
	parts := s.Parts(space)
	if len(parts) != 6 || len(parts[1]) != 3 {
		t.Fatalf("Parts = %v", parts)
	}
	if onStore := s.PartsOnStore(hosts[0])[space]; len(onStore) != 6 {
		t.Fatalf("PartsOnStore(%d) = %v; with rf 3 on 3 hosts every host has every partition", hosts[0], onStore)
	}
	if l, ok := s.Leader(space, 5); !ok || l != hosts[2] {
		t.Fatalf("Leader(5) = %d, %v; want %d", l, ok, hosts[2])
	}
	if a, ok := s.HostAddr(hosts[1]); !ok || a != "127.0.0.1:9780" {
		t.Fatalf("HostAddr(%d) = %q, %v", hosts[1], a, ok)
	}
	if hs := s.Hosts(); len(hs) != 3 || !hs[0].Online {
		t.Fatalf("Hosts = %v", hs)
	}

	// Errors carry their code.
	_, _, err = writer.CreateSpace(ctxT(t), &metapb.SpaceDesc{Name: "g", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64}, false)
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != commonpb.ErrorCode_E_EXISTED || client.CodeOf(err) != commonpb.ErrorCode_E_EXISTED {
		t.Fatalf("duplicate CreateSpace: %v", err)
	}
	if _, err := writer.DropSpace(ctxT(t), "nope", false); client.CodeOf(err) != commonpb.ErrorCode_E_SPACE_NOT_FOUND {
		t.Fatalf("DropSpace(nope): %v", err)
	}

	// A snapshot is immutable; Changed tells its holder a newer one exists.
	old := reader.Catalog()
	if _, err := writer.DropSpace(ctxT(t), "g", false); err != nil {
		t.Fatal(err)
	}
	select {
	case <-old.Changed():
	case <-ctxT(t).Done():
		t.Fatal("Changed not closed after DropSpace")
	}
	if _, ok := old.SpaceByName("g"); !ok {
		t.Fatal("an old snapshot changed")
	}
	if err := reader.WaitVersion(ctxT(t), writer.Catalog().Version()); err != nil {
		t.Fatal(err)
	}
	if _, ok := reader.Catalog().SpaceByName("g"); ok {
		t.Fatal("dropped space still in the reader's cache")
	}

	// WaitVersion honours its context.
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := reader.WaitVersion(short, 1<<40); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitVersion for a far version: %v", err)
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestCacheSurvivesMetadRestart(t *testing.T) {
	dir := t.TempDir()
	first := startMetad(t, "127.0.0.1:0", dir)
	addr := first.Addr()

	// The first address is dead: the client must fail over to the second.
	c := client.New([]string{freeAddr(t), addr}, testLogger())
	defer c.Close()
	addHosts(t, c, 1)
	space := must[int32](t)(c.CreateSpace(ctxT(t), &metapb.SpaceDesc{
		Name: "g", PartitionNum: 3, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
	}, false))
	before := c.Catalog().Version()

	first.Stop()
	// With no metad, the cache keeps serving the last catalog.
	time.Sleep(200 * time.Millisecond)
	if sp, ok := c.Catalog().SpaceByName("g"); !ok || sp.SpaceId != space {
		t.Fatalf("catalog lost while metad is down: %v, %v", sp, ok)
	}

	// A new metad on the same address and data keeps the catalog, and the
	// client reconnects and sees changes made after the restart.
	second := startMetad(t, addr, dir)
	cat, err := c.GetCatalog(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if cat.Version < before || len(cat.Spaces) != 1 || cat.Spaces[0].Name != "g" || len(cat.Parts[space].GetParts()) != 3 {
		t.Fatalf("catalog after restart (version %d, was %d): %v", cat.Version, before, cat)
	}
	tag := must[int32](t)(c.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "person"}))
	if _, ok := c.Catalog().TagByID(space, tag); !ok {
		t.Fatal("tag created after the restart is not in the cache")
	}
	// The schema id counter survived too: the next id follows on.
	next := must[int32](t)(c.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "knows", IsEdge: true}))
	if next != tag+1 {
		t.Fatalf("edge id %d after tag id %d", next, tag)
	}

	// A client started now, with only the restarted metad, catches up too.
	late := client.New([]string{second.Addr()}, testLogger())
	defer late.Close()
	if err := late.WaitVersion(ctxT(t), c.Catalog().Version()); err != nil {
		t.Fatal(err)
	}
}

func TestClosedClient(t *testing.T) {
	c := client.New([]string{freeAddr(t)}, nil)
	c.Close()
	c.Close() // idempotent
	if err := c.WaitVersion(ctxT(t), 1); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("WaitVersion on a closed client: %v", err)
	}
	if v := c.Catalog().Version(); v != 0 {
		t.Fatalf("empty cache has version %d", v)
	}
}
