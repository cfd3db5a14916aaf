package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/novagraph/novagraph/metad"
	"github.com/novagraph/novagraph/metad/catalog"
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
		BcryptCost:     bcrypt.MinCost,
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

func TestSchemaChangesAndIndexes(t *testing.T) {
	srv := startMetad(t, "127.0.0.1:0", t.TempDir())
	writer := client.New([]string{srv.Addr()}, testLogger())
	defer writer.Close()
	reader := client.New([]string{srv.Addr()}, testLogger())
	defer reader.Close()

	addHosts(t, writer, 1)
	space := must[int32](t)(writer.CreateSpace(ctxT(t), &metapb.SpaceDesc{
		Name: "g", PartitionNum: 2, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
	}, false))
	person := must[int32](t)(writer.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "person",
		Columns: []*metapb.ColumnDef{{Name: "name", Type: metapb.PropType_STRING}, {Name: "born", Type: metapb.PropType_TIMESTAMP}},
		TtlCol:  "born", TtlDuration: 3600}))
	knows := must[int32](t)(writer.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "knows", IsEdge: true,
		Columns: []*metapb.ColumnDef{{Name: "since", Type: metapb.PropType_INT64}}}))

	// Created out of id order per schema, to check IndexesOn's order.
	pAll := must[int32](t)(writer.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: "p_all", SchemaName: "person"}))
	kSince := must[int32](t)(writer.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: "k_since", IsEdge: true, SchemaName: "knows",
		Fields: []*metapb.IndexField{{Name: "since"}}}))
	pName, ver, err := writer.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: "p_name", SchemaName: "person",
		Fields: []*metapb.IndexField{{Name: "name", PrefixLen: 12}}})
	if err != nil {
		t.Fatal(err)
	}
	if pAll != 1 || kSince != 2 || pName != 3 {
		t.Fatalf("index ids %d %d %d, want 1 2 3", pAll, kSince, pName)
	}
	// The writer's cache has the index as soon as CreateIndex returns.
	if d, ok := writer.Catalog().IndexByID(space, pName); !ok || d.Name != "p_name" {
		t.Fatalf("writer cache after CreateIndex: IndexByID(%d) = %v, %v", pName, d, ok)
	}
	// IF NOT EXISTS returns the existing index.
	if id, _, err := writer.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: "p_name", SchemaName: "person", IfNotExists: true}); err != nil || id != pName {
		t.Fatalf("CreateIndex p_name if not exists: %d, %v", id, err)
	}
	_, _, err = writer.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: "k_since", SchemaName: "person"})
	if client.CodeOf(err) != commonpb.ErrorCode_E_EXISTED {
		t.Fatalf("tag index named like an edge index: %v", err)
	}

	// The other client gets the indexes through its watch.
	if err := reader.WaitVersion(ctxT(t), ver); err != nil {
		t.Fatal(err)
	}
	s := reader.Catalog()
	names := func(ds []*metapb.IndexDesc) string {
		var out []string
		for _, d := range ds {
			out = append(out, fmt.Sprintf("%s:%d", d.Name, d.IndexId))
		}
		return strings.Join(out, " ")
	}
	if got := names(s.Indexes(space)); got != "p_all:1 k_since:2 p_name:3" {
		t.Fatalf("Indexes = %s", got)
	}
	if got := names(s.IndexesOn(space, false, person)); got != "p_all:1 p_name:3" {
		t.Fatalf("IndexesOn(person) = %s", got)
	}
	if got := names(s.IndexesOn(space, true, -knows)); got != "k_since:2" {
		t.Fatalf("IndexesOn(-knows) = %s", got)
	}
	if got := s.IndexesOn(space, false, knows); len(got) != 0 {
		t.Fatalf("IndexesOn(tag %d), which is an edge type's id: %v", knows, got)
	}
	d, ok := s.IndexByName(space, "p_name")
	if !ok || d.IndexId != pName || d.IsEdge || d.SchemaId != person || len(d.Fields) != 1 || d.Fields[0].Name != "name" || d.Fields[0].PrefixLen != 12 {
		t.Fatalf("IndexByName(p_name) = %v, %v", d, ok)
	}
	if d, ok := s.IndexByID(space, kSince); !ok || d.Name != "k_since" || !d.IsEdge || d.SchemaId != knows {
		t.Fatalf("IndexByID(%d) = %v, %v", kSince, d, ok)
	}
	if _, ok := s.IndexByName(space+1, "p_name"); ok {
		t.Fatal("an index found in another space")
	}
	if _, ok := s.IndexByID(space, 99); ok {
		t.Fatal("IndexByID(99) found something")
	}
	if td, _ := s.TagByID(space, person); td.GetVersions()[0].GetTtlCol() != "born" || td.GetVersions()[0].GetTtlDuration() != 3600 {
		t.Fatalf("person's TTL in the cache: %v", td)
	}

	// ALTER: the cache has the new version, the old one unchanged.
	if _, err := writer.AlterSchema(ctxT(t), &metapb.AlterSchemaReq{SpaceId: space, Name: "person", Ops: []*metapb.AlterSchemaOp{
		{Kind: metapb.AlterSchemaOp_ADD, Columns: []*metapb.ColumnDef{{Name: "age", Type: metapb.PropType_INT64, Nullable: true}}},
	}}); err != nil {
		t.Fatal(err)
	}
	td, _ := writer.Catalog().TagByName(space, "person")
	if len(td.GetVersions()) != 2 || len(td.Versions[0].Columns) != 2 || len(td.Versions[1].Columns) != 3 ||
		td.Versions[1].Version != 1 || td.Versions[1].Columns[2].Name != "age" || td.Versions[1].TtlCol != "born" {
		t.Fatalf("person after ALTER ADD age: %v", td)
	}
	_, err = writer.AlterSchema(ctxT(t), &metapb.AlterSchemaReq{SpaceId: space, Name: "person", Ops: []*metapb.AlterSchemaOp{
		{Kind: metapb.AlterSchemaOp_DROP, Names: []string{"name"}},
	}})
	if client.CodeOf(err) != commonpb.ErrorCode_E_INVALID_ARGUMENT || !strings.Contains(err.Error(), `index "p_name" uses it`) {
		t.Fatalf("dropping an indexed column: %v", err)
	}
	_, err = writer.AlterSchema(ctxT(t), &metapb.AlterSchemaReq{SpaceId: space, Name: "nope", IsEdge: true, SetTtl: true})
	if client.CodeOf(err) != commonpb.ErrorCode_E_EDGE_NOT_FOUND {
		t.Fatalf("altering a missing edge type: %v", err)
	}

	// DROP: refused while indexed; the cache loses the schema and the
	// indexes once they are dropped.
	if _, err := writer.DropSchema(ctxT(t), &metapb.DropSchemaReq{SpaceId: space, Name: "knows", IsEdge: true}); client.CodeOf(err) != commonpb.ErrorCode_E_INVALID_ARGUMENT {
		t.Fatalf("dropping an indexed edge type: %v", err)
	}
	if _, err := writer.DropIndex(ctxT(t), &metapb.DropIndexReq{SpaceId: space, Name: "k_since"}); client.CodeOf(err) != commonpb.ErrorCode_E_NOT_FOUND {
		t.Fatalf("dropping an edge index as a tag index: %v", err)
	}
	if _, err := writer.DropIndex(ctxT(t), &metapb.DropIndexReq{SpaceId: space, Name: "k_since", IsEdge: true}); err != nil {
		t.Fatal(err)
	}
	if _, ok := writer.Catalog().IndexByName(space, "k_since"); ok {
		t.Fatal("dropped index still in the writer's cache")
	}
	if ver, err = writer.DropSchema(ctxT(t), &metapb.DropSchemaReq{SpaceId: space, Name: "knows", IsEdge: true}); err != nil {
		t.Fatal(err)
	}
	if _, ok := writer.Catalog().EdgeByName(space, "knows"); ok {
		t.Fatal("dropped edge type still in the writer's cache")
	}
	if v, err := writer.DropSchema(ctxT(t), &metapb.DropSchemaReq{SpaceId: space, Name: "knows", IsEdge: true, IfExists: true}); err != nil || v < ver {
		t.Fatalf("DropSchema if exists of a dropped edge type: %d, %v", v, err)
	}
	if err := reader.WaitVersion(ctxT(t), ver); err != nil {
		t.Fatal(err)
	}
	s = reader.Catalog()
	if _, ok := s.EdgeByType(space, knows); ok || names(s.Indexes(space)) != "p_all:1 p_name:3" || len(s.IndexesOn(space, true, knows)) != 0 {
		t.Fatalf("reader after dropping knows: edges %v, indexes %s", s.Edges(space), names(s.Indexes(space)))
	}

	// DropSpace takes the space's indexes with it.
	if ver, err = writer.DropSpace(ctxT(t), "g", false); err != nil {
		t.Fatal(err)
	}
	if err := reader.WaitVersion(ctxT(t), ver); err != nil {
		t.Fatal(err)
	}
	s = reader.Catalog()
	if len(s.Indexes(space)) != 0 || len(s.IndexesOn(space, false, person)) != 0 || len(s.Catalog().Indexes) != 0 {
		t.Fatalf("indexes after DropSpace: %v", s.Catalog().Indexes)
	}
	if _, ok := s.IndexByName(space, "p_name"); ok {
		t.Fatal("IndexByName finds an index of a dropped space")
	}
}

// TestUsersThroughClient: the user and role writes return once the cache
// has them, so the next statement's permission check sees them.
func TestUsersThroughClient(t *testing.T) {
	srv := startMetad(t, "127.0.0.1:0", t.TempDir())
	c := client.New([]string{srv.Addr()}, testLogger())
	defer c.Close()
	addHosts(t, c, 1)
	space := must[int32](t)(c.CreateSpace(ctxT(t), &metapb.SpaceDesc{
		Name: "g", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
	}, false))

	rootIn, err := c.VerifyUser(ctxT(t), catalog.RootUser, metad.DefaultRootPassword)
	if err != nil || !rootIn.OK {
		t.Fatalf("root with the default password: %v %v", rootIn, err)
	}
	// The users and roles calls carry root's credential; without it metad
	// refuses them.
	asRoot := func() context.Context { return client.WithCredential(ctxT(t), rootIn.Credential) }
	if _, err := c.CreateUser(ctxT(t), "bob", "pw", false); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("CreateUser without a credential: %v", err)
	}
	if _, err := c.CreateUser(asRoot(), "bob", "pw", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Catalog().User("bob"); !ok {
		t.Fatal("the cache lacks bob after CreateUser returned")
	}
	if _, err := c.CreateUser(asRoot(), "bob", "pw", false); client.CodeOf(err) != commonpb.ErrorCode_E_EXISTED {
		t.Fatalf("CreateUser bob again: %v", err)
	}
	if _, err := c.GrantRole(asRoot(), "bob", space, metapb.RoleType_USER); err != nil {
		t.Fatal(err)
	}
	if got := c.Catalog().RoleOf("bob", space); got != metapb.RoleType_USER {
		t.Fatalf("RoleOf(bob) after GrantRole returned: %s", got)
	}
	// The version is the user record's: one the cache already holds (a
	// sign-in waits for it), not beyond.
	v, err := c.VerifyUser(ctxT(t), "bob", "pw")
	if err != nil || !v.OK || v.Version == 0 || v.Version > c.Catalog().Version() || v.Created == 0 || len(v.Credential) == 0 {
		t.Fatalf("VerifyUser(bob, pw) = %+v %v", v, err)
	}
	if u, _ := c.Catalog().User("bob"); u.CreateVersion != v.Created {
		t.Fatalf("create version %d in the catalog, %d from VerifyUser", u.CreateVersion, v.Created)
	}
	if v, err := c.VerifyUser(ctxT(t), "bob", "wrong"); err != nil || v.OK || v.Credential != nil {
		t.Fatalf("VerifyUser(bob, wrong) = %+v %v", v, err)
	}
	if _, err := c.ChangePassword(ctxT(t), "bob", "wrong", "x"); client.CodeOf(err) != commonpb.ErrorCode_E_INVALID_ARGUMENT {
		t.Fatalf("ChangePassword with a wrong old password: %v", err)
	}
	if _, err := c.ChangePassword(ctxT(t), "bob", "pw", "pw2"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AlterUser(asRoot(), "bob", "pw3"); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.VerifyUser(ctxT(t), "bob", "pw3"); !v.OK {
		t.Fatal("bob cannot sign in with the password ALTER USER set")
	}
	if _, err := c.RevokeRole(asRoot(), "bob", space, metapb.RoleType_USER); err != nil {
		t.Fatal(err)
	}
	if got := c.Catalog().RoleOf("bob", space); got != metapb.RoleType_ROLE_TYPE_UNSPECIFIED {
		t.Fatalf("RoleOf(bob) after RevokeRole returned: %s", got)
	}
	if _, err := c.DropUser(asRoot(), "bob", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Catalog().User("bob"); ok {
		t.Fatal("the cache still has bob after DropUser returned")
	}
	if _, err := c.DropUser(asRoot(), "root", true); client.CodeOf(err) != commonpb.ErrorCode_E_INVALID_ARGUMENT {
		t.Fatalf("DropUser root: %v", err)
	}
}

// silentMetad accepts a catalog watch and never sends on it, like a metad
// whose etcd member lags or that hangs; it answers GetCatalog with an empty
// catalog.
type silentMetad struct {
	metapb.UnimplementedMetaServiceServer
}

func (silentMetad) WatchCatalog(_ *metapb.WatchCatalogReq, stream grpc.ServerStreamingServer[metapb.Catalog]) error {
	<-stream.Context().Done()
	return stream.Context().Err()
}

func (silentMetad) GetCatalog(context.Context, *metapb.GetCatalogReq) (*metapb.GetCatalogResp, error) {
	return &metapb.GetCatalogResp{Status: &metapb.Status{Code: commonpb.ErrorCode_SUCCEEDED}, Catalog: &metapb.Catalog{}}, nil
}

// TestWaitVersionOutlivesAStuckStream: the client's watch stream is attached
// to a metad that never sends, so the stream alone would never bring the
// catalog a write returned. WaitVersion, and so every write that waits for
// its own version, must get it from the healthy metad anyway.
func TestWaitVersionOutlivesAStuckStream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	silent := grpc.NewServer()
	metapb.RegisterMetaServiceServer(silent, silentMetad{})
	go func() { _ = silent.Serve(ln) }()
	defer silent.Stop()
	healthy := startMetad(t, "127.0.0.1:0", t.TempDir())

	// Another client writes; this one is told the versions only through
	// requests, as storaged is by graphd.
	other := client.New([]string{healthy.Addr()}, testLogger())
	defer other.Close()
	addHosts(t, other, 1)
	space := must[int32](t)(other.CreateSpace(ctxT(t), &metapb.SpaceDesc{
		Name: "g", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
	}, false))
	must[int32](t)(other.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: "person"}))
	want := other.Catalog().Version()

	// This client's stream goes to the first address, the silent one, and
	// stays there.
	c := client.New([]string{ln.Addr().String(), healthy.Addr()}, testLogger())
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.WaitVersion(ctx, want); err != nil {
		t.Fatalf("WaitVersion(%d) with the stream stuck on a silent metad: %v", want, err)
	}
	if _, ok := c.Catalog().TagByName(space, "person"); !ok {
		t.Fatal("the tag another client created is not in the cache")
	}
}
