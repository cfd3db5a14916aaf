package metad

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// startServer runs a metad on loopback ports with a fresh data dir and a
// fast etcd tick, stopped when the test ends.
func startServer(t *testing.T, hostTTL time.Duration) (*Server, metapb.MetaServiceClient) {
	t.Helper()
	level := slog.LevelWarn
	if testing.Verbose() {
		level = slog.LevelInfo
	}
	srv := New(Config{
		ListenAddr:     "127.0.0.1:0",
		HTTPAddr:       "127.0.0.1:0",
		DataPath:       t.TempDir(),
		EtcdClientAddr: "127.0.0.1:0",
		EtcdPeerAddr:   "127.0.0.1:0",
		EtcdTickMs:     10,
		HostTTL:        hostTTL,
		BcryptCost:     bcrypt.MinCost,
		Logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
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
	return srv, metapb.NewMetaServiceClient(conn)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func wantCode(t *testing.T, what string, st *metapb.Status, code commonpb.ErrorCode, msgParts ...string) {
	t.Helper()
	if st.GetCode() != code {
		t.Fatalf("%s: got %s %q, want %s", what, st.GetCode(), st.GetMessage(), code)
	}
	for _, p := range msgParts {
		if !strings.Contains(st.GetMessage(), p) {
			t.Fatalf("%s: message %q does not mention %q", what, st.GetMessage(), p)
		}
	}
}

// addHosts registers n hosts and heartbeats each once, so they are online.
func addHosts(t *testing.T, rpc metapb.MetaServiceClient, n int) []uint64 {
	t.Helper()
	var ids []uint64
	for i := range n {
		addr := &commonpb.HostAddr{Host: "127.0.0.1", Port: int32(9779 + i)}
		r, err := rpc.RegisterHost(ctxT(t), &metapb.RegisterHostReq{Addr: addr})
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, "RegisterHost", r.Status, commonpb.ErrorCode_SUCCEEDED)
		hb, err := rpc.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: r.StoreId, Addr: addr})
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, "Heartbeat", hb.Status, commonpb.ErrorCode_SUCCEEDED)
		ids = append(ids, r.StoreId)
	}
	return ids
}

func getCatalog(t *testing.T, rpc metapb.MetaServiceClient) *metapb.Catalog {
	t.Helper()
	r, err := rpc.GetCatalog(ctxT(t), &metapb.GetCatalogReq{})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "GetCatalog", r.Status, commonpb.ErrorCode_SUCCEEDED)
	return r.Catalog
}

func createSpace(t *testing.T, rpc metapb.MetaServiceClient, name string, parts, rf int32) *metapb.CreateSpaceResp {
	t.Helper()
	r, err := rpc.CreateSpace(ctxT(t), &metapb.CreateSpaceReq{Space: &metapb.SpaceDesc{
		Name: name, PartitionNum: parts, ReplicaFactor: rf, VidType: metapb.VidType_VID_INT64,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCreateSpaceNeedsEnoughOnlineHosts(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	r := createSpace(t, rpc, "g", 10, 1)
	wantCode(t, "no hosts at all", r.Status, commonpb.ErrorCode_E_NO_HOSTS, `"g"`, "needs 1 online", "0 of 0")

	addHosts(t, rpc, 2)
	// A registered host that never heartbeats is not online.
	reg, err := rpc.RegisterHost(ctxT(t), &metapb.RegisterHostReq{Addr: &commonpb.HostAddr{Host: "10.0.0.9", Port: 9779}})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "RegisterHost", reg.Status, commonpb.ErrorCode_SUCCEEDED)
	r = createSpace(t, rpc, "g", 10, 3)
	wantCode(t, "rf 3 on 2 online hosts", r.Status, commonpb.ErrorCode_E_NO_HOSTS, "needs 3 online", "2 of 3")
	if cat := getCatalog(t, rpc); len(cat.Spaces) != 0 {
		t.Fatalf("failed CreateSpace left spaces behind: %v", cat.Spaces)
	}
}

func TestPlacementSpreadsReplicas(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	hosts := addHosts(t, rpc, 3)

	for _, tc := range []struct {
		name      string
		parts, rf int32
	}{{"rf3", 10, 3}, {"rf2", 10, 2}, {"rf1", 7, 1}} {
		r := createSpace(t, rpc, tc.name, tc.parts, tc.rf)
		wantCode(t, "CreateSpace "+tc.name, r.Status, commonpb.ErrorCode_SUCCEEDED)
		cat := getCatalog(t, rpc)
		if cat.Version < r.Version {
			t.Fatalf("GetCatalog after CreateSpace: version %d < %d", cat.Version, r.Version)
		}
		sp := cat.Parts[r.SpaceId]
		if len(sp.GetParts()) != int(tc.parts) {
			t.Fatalf("%s: %d partitions, want %d", tc.name, len(sp.GetParts()), tc.parts)
		}
		replicas := map[uint64]int{}
		firsts := map[uint64]int{}
		for i, p := range sp.Parts {
			if p.PartId != int32(i+1) {
				t.Fatalf("%s: partition %d has id %d", tc.name, i+1, p.PartId)
			}
			if len(p.Replicas) != int(tc.rf) {
				t.Fatalf("%s: part %d has %d replicas, want %d", tc.name, p.PartId, len(p.Replicas), tc.rf)
			}
			seen := map[uint64]bool{}
			for _, s := range p.Replicas {
				if seen[s] {
					t.Fatalf("%s: part %d has store %d twice: %v", tc.name, p.PartId, s, p.Replicas)
				}
				seen[s] = true
				replicas[s]++
			}
			firsts[p.Replicas[0]]++
		}
		// Every host carries parts*rf/n replicas, ±1; first replicas too.
		checkEven := func(what string, counts map[uint64]int, total int) {
			lo, hi := total/len(hosts), (total+len(hosts)-1)/len(hosts)
			for _, h := range hosts {
				if counts[h] < lo || counts[h] > hi {
					t.Fatalf("%s: %s per host %v, want each in [%d, %d]", tc.name, what, counts, lo, hi)
				}
			}
		}
		checkEven("replicas", replicas, int(tc.parts*tc.rf))
		checkEven("first replicas", firsts, int(tc.parts))
	}
}

func TestNamesAndIDs(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	hosts := addHosts(t, rpc, 1)

	// Store ids are stable per address.
	again, err := rpc.RegisterHost(ctxT(t), &metapb.RegisterHostReq{Addr: &commonpb.HostAddr{Host: "127.0.0.1", Port: 9779}})
	if err != nil {
		t.Fatal(err)
	}
	if again.StoreId != hosts[0] || hosts[0] != 1 {
		t.Fatalf("re-registering returned store %d, first registration %d (want 1 both times)", again.StoreId, hosts[0])
	}
	bad, _ := rpc.RegisterHost(ctxT(t), &metapb.RegisterHostReq{Addr: &commonpb.HostAddr{Host: "h", Port: 0}})
	wantCode(t, "RegisterHost port 0", bad.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT)

	a := createSpace(t, rpc, "a", 3, 1)
	wantCode(t, "create a", a.Status, commonpb.ErrorCode_SUCCEEDED)
	b := createSpace(t, rpc, "b", 3, 1)
	wantCode(t, "create b", b.Status, commonpb.ErrorCode_SUCCEEDED)
	if a.SpaceId != 1 || b.SpaceId != 2 || b.Version <= a.Version {
		t.Fatalf("space ids %d, %d (versions %d, %d); want 1, 2, increasing", a.SpaceId, b.SpaceId, a.Version, b.Version)
	}
	dup := createSpace(t, rpc, "a", 3, 1)
	wantCode(t, "duplicate space", dup.Status, commonpb.ErrorCode_E_EXISTED, `space "a" already exists`)
	ine, err := rpc.CreateSpace(ctxT(t), &metapb.CreateSpaceReq{IfNotExists: true, Space: &metapb.SpaceDesc{
		Name: "a", PartitionNum: 3, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "if_not_exists", ine.Status, commonpb.ErrorCode_SUCCEEDED)
	if ine.SpaceId != a.SpaceId || ine.Version < a.Version {
		t.Fatalf("if_not_exists: id %d version %d, want id %d and version >= %d", ine.SpaceId, ine.Version, a.SpaceId, a.Version)
	}

	drop, _ := rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "a"})
	wantCode(t, "drop a", drop.Status, commonpb.ErrorCode_SUCCEEDED)
	drop, _ = rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "a"})
	wantCode(t, "drop a again", drop.Status, commonpb.ErrorCode_E_SPACE_NOT_FOUND, `space "a" not found`)
	drop, _ = rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "a", IfExists: true})
	wantCode(t, "drop a if exists", drop.Status, commonpb.ErrorCode_SUCCEEDED)

	// Ids are never reused: a re-created "a" is space 3.
	a2 := createSpace(t, rpc, "a", 3, 1)
	wantCode(t, "re-create a", a2.Status, commonpb.ErrorCode_SUCCEEDED)
	if a2.SpaceId != 3 {
		t.Fatalf("re-created space has id %d, want 3", a2.SpaceId)
	}
	cat := getCatalog(t, rpc)
	if len(cat.Spaces) != 2 || cat.Parts[a.SpaceId] != nil {
		t.Fatalf("after drop: spaces %v, parts of dropped space %v", cat.Spaces, cat.Parts[a.SpaceId])
	}
}

func TestSpaceValidation(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	addHosts(t, rpc, 1)
	for _, tc := range []struct {
		desc *metapb.SpaceDesc
		want string
	}{
		{&metapb.SpaceDesc{Name: "", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64}, "name is empty"},
		{&metapb.SpaceDesc{Name: "s", PartitionNum: 0, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64}, "partition_num 0"},
		{&metapb.SpaceDesc{Name: "s", PartitionNum: 1, ReplicaFactor: 0, VidType: metapb.VidType_VID_INT64}, "replica_factor 0"},
		{&metapb.SpaceDesc{Name: "s", PartitionNum: 1, ReplicaFactor: 1}, "vid_type is not set"},
		{&metapb.SpaceDesc{Name: "s", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_FIXED_STRING}, "vid_len 0"},
		{&metapb.SpaceDesc{Name: "s", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_FIXED_STRING, VidLen: 257}, "vid_len 257"},
	} {
		r, err := rpc.CreateSpace(ctxT(t), &metapb.CreateSpaceReq{Space: tc.desc})
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, fmt.Sprint(tc.desc), r.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, tc.want)
	}
	r, _ := rpc.CreateSpace(ctxT(t), &metapb.CreateSpaceReq{Space: &metapb.SpaceDesc{
		Name: "fs", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_FIXED_STRING, VidLen: 32,
	}})
	wantCode(t, "FIXED_STRING(32)", r.Status, commonpb.ErrorCode_SUCCEEDED)
	r, _ = rpc.CreateSpace(ctxT(t), &metapb.CreateSpaceReq{Space: &metapb.SpaceDesc{
		Name: "i", PartitionNum: 1, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64,
	}})
	wantCode(t, "INT64", r.Status, commonpb.ErrorCode_SUCCEEDED)
	for _, sp := range getCatalog(t, rpc).Spaces {
		if want := map[string]int32{"fs": 32, "i": 8}[sp.Name]; sp.VidLen != want {
			t.Fatalf("space %q: vid_len %d, want %d", sp.Name, sp.VidLen, want)
		}
	}
}

func col(name string, typ metapb.PropType) *metapb.ColumnDef {
	return &metapb.ColumnDef{Name: name, Type: typ}
}

func TestSchemas(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	addHosts(t, rpc, 1)
	sp := createSpace(t, rpc, "g", 2, 1)
	wantCode(t, "create space", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	sp2 := createSpace(t, rpc, "h", 2, 1)
	wantCode(t, "create space", sp2.Status, commonpb.ErrorCode_SUCCEEDED)

	create := func(space int32, name string, edge, ifNotExists bool, cols ...*metapb.ColumnDef) *metapb.CreateSchemaResp {
		t.Helper()
		r, err := rpc.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: name, IsEdge: edge, IfNotExists: ifNotExists, Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	person := create(sp.SpaceId, "person", false, false, col("name", metapb.PropType_STRING),
		&metapb.ColumnDef{Name: "age", Type: metapb.PropType_INT64, Nullable: true, DefaultValue: &commonpb.Value{}},
		&metapb.ColumnDef{Name: "score", Type: metapb.PropType_DOUBLE, DefaultValue: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 3}}},
		&metapb.ColumnDef{Name: "code", Type: metapb.PropType_FIXED_STRING, FixedLen: 4})
	wantCode(t, "tag person", person.Status, commonpb.ErrorCode_SUCCEEDED)
	knows := create(sp.SpaceId, "knows", true, false, col("since", metapb.PropType_TIMESTAMP))
	wantCode(t, "edge knows", knows.Status, commonpb.ErrorCode_SUCCEEDED)
	post := create(sp.SpaceId, "post", false, false)
	wantCode(t, "tag post", post.Status, commonpb.ErrorCode_SUCCEEDED)
	if person.Id != 1 || knows.Id != 2 || post.Id != 3 {
		t.Fatalf("ids person=%d knows=%d post=%d, want 1, 2, 3 (one id space for tags and edges)", person.Id, knows.Id, post.Id)
	}
	other := create(sp2.SpaceId, "person", false, false)
	wantCode(t, "person in space h", other.Status, commonpb.ErrorCode_SUCCEEDED)
	if other.Id != 1 {
		t.Fatalf("first tag of space h has id %d, want 1", other.Id)
	}

	r := create(sp.SpaceId, "person", false, false)
	wantCode(t, "duplicate tag", r.Status, commonpb.ErrorCode_E_EXISTED, `tag "person" already exists in space "g"`)
	r = create(sp.SpaceId, "person", false, true)
	wantCode(t, "duplicate tag, if not exists", r.Status, commonpb.ErrorCode_SUCCEEDED)
	if r.Id != person.Id {
		t.Fatalf("if_not_exists returned id %d, want %d", r.Id, person.Id)
	}
	r = create(sp.SpaceId, "person", true, false)
	wantCode(t, "edge named like a tag", r.Status, commonpb.ErrorCode_E_EXISTED, `edge "person"`, "tag 1", "may not share a name")
	r = create(sp.SpaceId, "knows", false, true)
	wantCode(t, "tag named like an edge, if not exists", r.Status, commonpb.ErrorCode_E_EXISTED, `tag "knows"`, "edge 2")

	for _, tc := range []struct {
		cols []*metapb.ColumnDef
		want string
	}{
		{[]*metapb.ColumnDef{col("a", metapb.PropType_INT64), col("a", metapb.PropType_STRING)}, `column "a" is defined twice`},
		{[]*metapb.ColumnDef{col("a", metapb.PropType_FIXED_STRING)}, "fixed_len 0"},
		{[]*metapb.ColumnDef{col("a", metapb.PropType_PROP_TYPE_UNSPECIFIED)}, "type is not set"},
		{[]*metapb.ColumnDef{col("", metapb.PropType_INT64)}, "name is empty"},
		{[]*metapb.ColumnDef{{Name: "a", Type: metapb.PropType_INT64, DefaultValue: &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte("x")}}}}, "string default"},
		{[]*metapb.ColumnDef{{Name: "a", Type: metapb.PropType_INT64, DefaultValue: &commonpb.Value{}}}, "not nullable"},
	} {
		r := create(sp.SpaceId, "bad", false, false, tc.cols...)
		wantCode(t, fmt.Sprint(tc.cols), r.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, tc.want)
	}
	r = create(99, "x", false, false)
	wantCode(t, "missing space", r.Status, commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space 99 not found")

	cat := getCatalog(t, rpc)
	var tag *metapb.TagDesc
	for _, x := range cat.Tags {
		if x.SpaceId == sp.SpaceId && x.Name == "person" {
			tag = x
		}
	}
	if tag == nil || len(tag.Versions) != 1 || tag.Versions[0].Version != 0 || len(tag.Versions[0].Columns) != 4 {
		t.Fatalf("tag person in catalog: %v", tag)
	}
	cols := tag.Versions[0].Columns
	if _, ok := cols[1].DefaultValue.V.(*commonpb.Value_Null); !ok {
		t.Fatalf("NULL default not normalized: %v", cols[1].DefaultValue)
	}
	if v, ok := cols[2].DefaultValue.V.(*commonpb.Value_FloatVal); !ok || v.FloatVal != 3 {
		t.Fatalf("integer default of a DOUBLE column not converted: %v", cols[2].DefaultValue)
	}
	if len(cat.Edges) != 1 || cat.Edges[0].EdgeType != knows.Id || cat.Edges[0].Name != "knows" {
		t.Fatalf("edges in catalog: %v", cat.Edges)
	}

	// Dropping a space drops its schemas; other spaces keep theirs.
	drop, _ := rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "g"})
	wantCode(t, "drop g", drop.Status, commonpb.ErrorCode_SUCCEEDED)
	cat = getCatalog(t, rpc)
	if len(cat.Tags) != 1 || cat.Tags[0].SpaceId != sp2.SpaceId || len(cat.Edges) != 0 {
		t.Fatalf("after dropping g: tags %v, edges %v", cat.Tags, cat.Edges)
	}
}

func heartbeat(t *testing.T, rpc metapb.MetaServiceClient, store uint64, leaders ...*metapb.LeaderInfo) int64 {
	t.Helper()
	r, err := rpc.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: store, Leaders: leaders})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "Heartbeat", r.Status, commonpb.ErrorCode_SUCCEEDED)
	return r.Version
}

func leader(space, part int32, term uint64) *metapb.LeaderInfo {
	return &metapb.LeaderInfo{SpaceId: space, PartId: part, Term: term}
}

func leadersOf(cat *metapb.Catalog) map[[2]int32]uint64 {
	m := map[[2]int32]uint64{}
	for _, l := range cat.Leaders {
		m[[2]int32{l.SpaceId, l.PartId}] = l.StoreId
	}
	return m
}

func TestHeartbeatLeaders(t *testing.T) {
	srv, rpc := startServer(t, 10*time.Second)
	hosts := addHosts(t, rpc, 3)
	sp := createSpace(t, rpc, "g", 4, 3)
	wantCode(t, "create space", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	s := sp.SpaceId

	r, _ := rpc.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: 42})
	wantCode(t, "unregistered store", r.Status, commonpb.ErrorCode_E_NOT_FOUND, "store 42 is not registered")
	r, _ = rpc.Heartbeat(ctxT(t), &metapb.HeartbeatReq{StoreId: hosts[0], Addr: &commonpb.HostAddr{Host: "elsewhere", Port: 1}})
	wantCode(t, "wrong address", r.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "registered as 127.0.0.1:9779")

	heartbeat(t, rpc, hosts[0], leader(s, 1, 1), leader(s, 2, 1), leader(77, 1, 1), leader(s, 9, 1))
	v := heartbeat(t, rpc, hosts[1], leader(s, 3, 1))
	cat := getCatalog(t, rpc)
	want := map[[2]int32]uint64{{s, 1}: hosts[0], {s, 2}: hosts[0], {s, 3}: hosts[1]}
	if got := leadersOf(cat); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("leaders %v, want %v (unknown space and partition dropped)", got, want)
	}
	for _, h := range cat.Hosts {
		if !h.Online || h.LastHeartbeatMs == 0 {
			t.Fatalf("host %v: want online with a heartbeat time", h)
		}
	}

	// An unchanged report writes nothing, so the version stays.
	if v2 := heartbeat(t, rpc, hosts[1], leader(s, 3, 1)); v2 != v {
		t.Fatalf("unchanged heartbeat moved the version from %d to %d", v, v2)
	}
	if v2 := heartbeat(t, rpc, hosts[2]); v2 != v {
		t.Fatalf("heartbeat without leaders moved the version from %d to %d", v, v2)
	}

	// Host 2 takes partition 2 in a newer term while host 0 still claims it:
	// the newer term wins, whichever reported last.
	heartbeat(t, rpc, hosts[1], leader(s, 3, 1), leader(s, 2, 2))
	heartbeat(t, rpc, hosts[0], leader(s, 1, 1), leader(s, 2, 1))
	if got := leadersOf(getCatalog(t, rpc))[[2]int32{s, 2}]; got != hosts[1] {
		t.Fatalf("partition 2 led by %d, want %d (term 2 beats term 1)", got, hosts[1])
	}
	// A report replaces the host's previous one.
	heartbeat(t, rpc, hosts[0], leader(s, 1, 1))
	heartbeat(t, rpc, hosts[0], leader(s, 4, 3))
	if got := leadersOf(getCatalog(t, rpc)); got[[2]int32{s, 1}] != 0 || got[[2]int32{s, 4}] != hosts[0] {
		t.Fatalf("leaders after host 0 moved from part 1 to part 4: %v", got)
	}

	// DropSpace removes the space's leader entries from etcd too.
	drop, _ := rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "g"})
	wantCode(t, "drop", drop.Status, commonpb.ErrorCode_SUCCEEDED)
	resp, err := srv.cli.Get(ctxT(t), prefixLeaders, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		var rep metapb.HeartbeatReq
		if err := proto.Unmarshal(kv.Value, &rep); err != nil {
			t.Fatal(err)
		}
		for _, l := range rep.Leaders {
			if l.SpaceId == s {
				t.Fatalf("%s still lists a leader of the dropped space: %v", kv.Key, l)
			}
		}
	}
	if cat := getCatalog(t, rpc); len(cat.Leaders) != 0 {
		t.Fatalf("leaders after drop: %v", cat.Leaders)
	}
}

func TestHostGoesOfflineAfterTTL(t *testing.T) {
	_, rpc := startServer(t, time.Second)
	hosts := addHosts(t, rpc, 2)
	sp := createSpace(t, rpc, "g", 2, 2)
	wantCode(t, "create space", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	heartbeat(t, rpc, hosts[1], leader(sp.SpaceId, 1, 1))

	online := func(cat *metapb.Catalog) map[uint64]bool {
		m := map[uint64]bool{}
		for _, h := range cat.Hosts {
			m[h.StoreId] = h.Online
		}
		return m
	}
	// Keep host 0 alive, stop host 1, and wait for its lease to run out.
	deadline := time.Now().Add(5 * time.Second)
	for {
		heartbeat(t, rpc, hosts[0])
		cat := getCatalog(t, rpc)
		if !online(cat)[hosts[1]] {
			if !online(cat)[hosts[0]] {
				t.Fatal("the host that kept heartbeating went offline too")
			}
			if len(cat.Leaders) != 0 {
				t.Fatalf("the offline host's leaders are still listed: %v", cat.Leaders)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %d still online 5s after its last heartbeat with a 1s TTL", hosts[1])
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A space now needs more live hosts than there are.
	r := createSpace(t, rpc, "h", 2, 2)
	wantCode(t, "rf 2 with one host online", r.Status, commonpb.ErrorCode_E_NO_HOSTS, "1 of 2")

	// A heartbeat brings the host back, leaders and all.
	heartbeat(t, rpc, hosts[1], leader(sp.SpaceId, 1, 2))
	cat := getCatalog(t, rpc)
	if !online(cat)[hosts[1]] || leadersOf(cat)[[2]int32{sp.SpaceId, 1}] != hosts[1] {
		t.Fatalf("after a new heartbeat: online %v, leaders %v", online(cat), cat.Leaders)
	}
}

func TestWatchCatalog(t *testing.T) {
	_, rpc := startServer(t, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := rpc.WatchCatalog(ctx, &metapb.WatchCatalogReq{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	addHosts(t, rpc, 1) // register + heartbeat: two changes
	for v := first.Version; v < first.Version+2; {
		cat, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if cat.Version <= v {
			t.Fatalf("watch sent version %d after %d", cat.Version, v)
		}
		v = cat.Version
	}

	// A watcher that is up to date gets nothing until the catalog changes.
	cur := getCatalog(t, rpc)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	quiet, err := rpc.WatchCatalog(ctx2, &metapb.WatchCatalogReq{KnownVersion: cur.Version})
	if err != nil {
		t.Fatal(err)
	}
	if cat, err := quiet.Recv(); err == nil {
		t.Fatalf("up-to-date watcher received version %d (known %d)", cat.Version, cur.Version)
	}
}

func TestMetricsAndHealth(t *testing.T) {
	srv, rpc := startServer(t, 10*time.Second)
	createSpace(t, rpc, "g", 1, 1) // E_NO_HOSTS
	if err := srv.Healthy(); err != nil {
		t.Fatalf("Healthy: %v", err)
	}
	mfs, err := srv.cfg.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, mf := range mfs {
		if mf.GetName() != "novagraph_metad_rpcs_total" {
			continue
		}
		for _, m := range mf.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method"] == "CreateSpace" && labels["code"] == "E_NO_HOSTS" && m.Counter.GetValue() == 1 {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("novagraph_metad_rpcs_total{method=CreateSpace,code=E_NO_HOSTS} is not 1")
	}
}

// TestConcurrentWritersOnOneEtcd runs two metad on one etcd (the second as
// an external-etcd metad) and races writes through both: transactions must
// keep ids unique and names single-owner.
func TestConcurrentWritersOnOneEtcd(t *testing.T) {
	a, rpcA := startServer(t, 10*time.Second)
	b := New(Config{
		ListenAddr:    "127.0.0.1:0",
		HTTPAddr:      "127.0.0.1:0",
		EtcdEndpoints: []string{a.etcd.Clients[0].Addr().String()},
	})
	if err := b.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	conn, err := grpc.NewClient(b.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rpcB := metapb.NewMetaServiceClient(conn)
	rpcs := []metapb.MetaServiceClient{rpcA, rpcB}

	addHosts(t, rpcA, 1)
	sp := createSpace(t, rpcB, "g", 1, 1)
	wantCode(t, "create space via b", sp.Status, commonpb.ErrorCode_SUCCEEDED)

	const n = 16
	type result struct {
		name string
		resp *metapb.CreateSchemaResp
		err  error
	}
	results := make(chan result, 2*n)
	for i := range n {
		for _, name := range []string{fmt.Sprintf("t%d", i), "same"} {
			go func() {
				r, err := rpcs[i%2].CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: sp.SpaceId, Name: name, IsEdge: i%3 == 0})
				results <- result{name, r, err}
			}()
		}
	}
	ids := map[int32]string{}
	sameWins := 0
	var maxVersion int64
	for range 2 * n {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		switch code := r.resp.Status.GetCode(); {
		case code == commonpb.ErrorCode_SUCCEEDED:
			if other, dup := ids[r.resp.Id]; dup {
				t.Fatalf("id %d given to both %q and %q", r.resp.Id, other, r.name)
			}
			ids[r.resp.Id] = r.name
			maxVersion = max(maxVersion, r.resp.Version)
			if r.name == "same" {
				sameWins++
			}
		case code == commonpb.ErrorCode_E_EXISTED && r.name == "same":
		default:
			t.Fatalf("CreateSchema %q: %v", r.name, r.resp.Status)
		}
	}
	if sameWins != 1 || len(ids) != n+1 {
		t.Fatalf("%d creations of the same name succeeded (want 1); %d ids assigned (want %d)", sameWins, len(ids), n+1)
	}
	for id := range int32(n + 1) {
		if _, ok := ids[id+1]; !ok {
			t.Fatalf("ids %v are not 1..%d", ids, n+1)
		}
	}
	// Each metad's catalog shows all of it once it has caught up.
	for _, s := range []*Server{a, b} {
		if err := s.cat.waitVersion(ctxT(t), maxVersion); err != nil {
			t.Fatal(err)
		}
		cat := s.cat.current().cat
		if got := len(cat.Tags) + len(cat.Edges); got != n+1 {
			t.Fatalf("metad at %s lists %d schemas, want %d", s.Addr(), got, n+1)
		}
	}
}
