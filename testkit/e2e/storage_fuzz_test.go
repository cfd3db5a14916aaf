package e2e

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/internal/grpcdial"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// storageFuzzMethods are the storaged handlers FuzzStorageRequests
// reaches, by the method byte of its input.
var storageFuzzMethods = []string{"GetNeighbors", "GetProps", "ScanVertex", "ScanEdge", "LookupIndex", "Update"}

// FuzzStorageRequests sends arbitrary requests, as a hostile client could,
// to the storaged handlers that take the most from their caller: GetNeighbors
// with filters, limits and samples, GetProps, scans with cursors, index
// lookups with ranges and filters, and UPDATE with its expressions. Every
// request must be answered: a result or an error, never a panic (the
// recovery interceptor turns one into "internal error in <method>", which
// fails the target) and never a hang past the call's deadline. The seeds
// are valid requests against a small graph, so the fuzzer starts from
// inputs that get past decoding. The graph is shared: UPDATE inputs change
// it for the ones after, so a failure found by -fuzz may need the inputs
// before it to reproduce (strings stay within query/value's 16 MiB cap). A
// catalog version beyond the store's would make each call wait out the
// catalog for seconds; such inputs are sent with the current one.
//
//	go test ./testkit/e2e -run '^$' -fuzz FuzzStorageRequests -fuzztime 60s
func FuzzStorageRequests(f *testing.F) {
	if testing.Short() {
		f.Skip("in-process cluster test")
	}
	c := testcluster.Start(f, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(f, s, "CREATE SPACE fz(partition_num=2, replica_factor=1, vid_type=INT64)")
	exec(f, s, "USE fz")
	exec(f, s, "CREATE TAG p(age int, name string)")
	exec(f, s, "CREATE EDGE e(w int)")
	exec(f, s, "CREATE TAG INDEX p_age ON p(age)")
	exec(f, s, `INSERT VERTEX p(age, name) VALUES 1:(30, "a"), 2:(40, "b"), 3:(50, "c")`)
	exec(f, s, "INSERT EDGE e(w) VALUES 1->2:(1), 1->3:(2), 2->3@1:(3)")
	_, _, snap := storageClients(f, c, "fz", "e")
	space, _ := snap.SpaceByName("fz")
	sid, ver, parts := space.GetSpaceId(), snap.Version(), space.GetPartitionNum()
	tag, _ := snap.TagByName(sid, "p")
	edge, _ := snap.EdgeByName(sid, "e")
	var indexID int32
	for _, ix := range snap.Indexes(sid) {
		indexID = ix.GetIndexId()
	}
	typ, tagID := edge.GetEdgeType(), tag.GetTagId()
	vid := partition.EncodeInt64Vid
	partOf := func(v int64) int32 { return partition.PartOfInt64(v, parts) }
	props := []*storagepb.PropRef{{SchemaId: tagID, Name: "age"}, {SchemaId: tagID, Name: "name"}}

	seed := func(method int, m proto.Message) {
		data, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(method), data)
	}
	seed(0, &storagepb.GetNeighborsReq{SpaceId: sid, CatalogVersion: ver, EdgeTypes: []int32{typ, -typ},
		Parts:       map[int32]*storagepb.VidList{partOf(1): {Vids: [][]byte{vid(1)}}},
		VertexProps: props, EdgeProps: []*storagepb.PropRef{{SchemaId: typ, Name: "w"}},
		Filter: "e.w > 1 AND $^.p.age < 40", LimitPerVertex: 1, SamplePerVertex: 1, WithDegree: true})
	seed(0, &storagepb.GetNeighborsReq{SpaceId: sid, CatalogVersion: ver, EdgeTypes: []int32{typ},
		Parts:   map[int32]*storagepb.VidList{partOf(2): {Vids: [][]byte{vid(2)}}},
		DstOnly: true, DedupDst: true, PackedEdges: true, MaxEdgesPerBatch: 1})
	seed(0, &storagepb.GetNeighborsReq{SpaceId: sid, CatalogVersion: ver, EdgeTypes: []int32{typ},
		Parts: map[int32]*storagepb.VidList{partOf(1): {Vids: [][]byte{vid(1)}}}, CountOnly: true})
	seed(1, &storagepb.GetPropsReq{SpaceId: sid, CatalogVersion: ver, Props: props, Columns: true, PackedStrings: true,
		VertexParts: map[int32]*storagepb.VidList{partOf(3): {Vids: [][]byte{vid(3)}}}})
	seed(1, &storagepb.GetPropsReq{SpaceId: sid, CatalogVersion: ver, Props: []*storagepb.PropRef{{SchemaId: typ, Name: "w"}},
		EdgeParts: map[int32]*storagepb.EdgeKeyList{partOf(1): {Keys: []*storagepb.EdgeKey{{Src: vid(1), EdgeType: typ, Dst: vid(2)}}}}})
	seed(2, &storagepb.ScanReq{SpaceId: sid, CatalogVersion: ver, PartId: partOf(1), Limit: 1, Props: props, SchemaIds: []int32{tagID}})
	seed(2, &storagepb.ScanReq{SpaceId: sid, CatalogVersion: ver, PartId: partOf(1), Cursor: []byte("\x01\x00\x00\x00garbage")})
	seed(3, &storagepb.ScanReq{SpaceId: sid, CatalogVersion: ver, PartId: partOf(1), Limit: 2, Props: []*storagepb.PropRef{{SchemaId: typ, Name: "w"}}})
	seed(4, &storagepb.LookupIndexReq{SpaceId: sid, CatalogVersion: ver, Parts: []int32{1, 2}, IndexId: indexID, Props: props, Limit: 2,
		Filter: `p.name != "b"`,
		Hints: []*storagepb.IndexColumnHint{{Column: "age",
			Begin: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 30}}, BeginIncl: true,
			End: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 50}}}}})
	seed(4, &storagepb.LookupIndexReq{SpaceId: sid, CatalogVersion: ver, Parts: []int32{1}, IndexId: indexID,
		Hints: []*storagepb.IndexColumnHint{{Column: "age", Eq: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 40}}}}})
	seed(5, &storagepb.UpdateReq{SpaceId: sid, CatalogVersion: ver, PartId: partOf(2), Vid: vid(2), TagId: tagID,
		Set:  []*storagepb.UpdatedProp{{Name: "age", Expr: "$^.p.age + 1"}, {Name: "name", Expr: `"x" + $^.p.name`}},
		When: "$^.p.age < 1000", Yield: []string{"$^.p.age"}, Insertable: true})
	seed(5, &storagepb.UpdateReq{SpaceId: sid, CatalogVersion: ver, PartId: partOf(1),
		Edge: &storagepb.EdgeKey{Src: vid(1), EdgeType: typ, Dst: vid(2)},
		Set:  []*storagepb.UpdatedProp{{Name: "w", Expr: "e.w * 2"}}, Yield: []string{"e.w"}})

	conn, err := grpcdial.NewClient(c.Stores[0].Server.Addr(), nil, time.Second, backoff.DefaultConfig)
	if err != nil {
		f.Fatal(err)
	}
	defer conn.Close()
	cli := storagepb.NewStorageServiceClient(conn)

	f.Fuzz(func(t *testing.T, method uint8, data []byte) {
		name := storageFuzzMethods[int(method)%len(storageFuzzMethods)]
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var err error
		// fresh bounds a request's catalog version by the store's.
		fresh := func(v *int64) {
			if *v > ver {
				*v = ver
			}
		}
		switch name {
		case "GetNeighbors":
			req := &storagepb.GetNeighborsReq{}
			if proto.Unmarshal(data, req) != nil {
				return
			}
			fresh(&req.CatalogVersion)
			var stream storagepb.StorageService_GetNeighborsClient
			if stream, err = cli.GetNeighbors(ctx, req); err == nil {
				for err == nil {
					_, err = stream.Recv()
				}
				if errors.Is(err, io.EOF) {
					err = nil
				}
			}
		case "GetProps":
			req := &storagepb.GetPropsReq{}
			if proto.Unmarshal(data, req) != nil {
				return
			}
			fresh(&req.CatalogVersion)
			_, err = cli.GetProps(ctx, req)
		case "ScanVertex", "ScanEdge":
			req := &storagepb.ScanReq{}
			if proto.Unmarshal(data, req) != nil {
				return
			}
			fresh(&req.CatalogVersion)
			if name == "ScanVertex" {
				_, err = cli.ScanVertex(ctx, req)
			} else {
				_, err = cli.ScanEdge(ctx, req)
			}
		case "LookupIndex":
			req := &storagepb.LookupIndexReq{}
			if proto.Unmarshal(data, req) != nil {
				return
			}
			fresh(&req.CatalogVersion)
			_, err = cli.LookupIndex(ctx, req)
		case "Update":
			req := &storagepb.UpdateReq{}
			if proto.Unmarshal(data, req) != nil {
				return
			}
			fresh(&req.CatalogVersion)
			_, err = cli.Update(ctx, req)
		}
		switch {
		case err == nil:
		case status.Code(err) == codes.Internal && strings.Contains(err.Error(), "internal error in"):
			t.Fatalf("%s panicked on %x: %v", name, data, err)
		case status.Code(err) == codes.DeadlineExceeded:
			t.Fatalf("%s did not answer within 20s on %x: %v", name, data, err)
		}
	})
}
