package e2e

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestStringColumnsForOlderReaders: a reader that does not ask for packed
// strings (packed_strings: a graphd or client from before the packing, in
// a rolling upgrade) gets COL_STR columns with one strs entry per row,
// from graphd's results and from storaged's packed edges and $$ blocks;
// one that asks gets them packed. Both read the same strings.
func TestStringColumnsForOlderReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, `CREATE SPACE pstr(partition_num=1, replica_factor=1, vid_type=INT64)`)
	exec(t, s, `USE pstr`)
	exec(t, s, `CREATE TAG t(name string)`)
	exec(t, s, `CREATE EDGE e(note string)`)
	exec(t, s, `INSERT VERTEX t(name) VALUES 2:("two"), 3:("three")`)
	exec(t, s, `INSERT EDGE e(note) VALUES 1->2:("a"), 1->3:("bc")`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	meta := metaclient.New(c.MetaAddrs(), slog.New(slog.DiscardHandler))
	defer meta.Close()
	// The client's catalog catches up with the schema just created.
	var space *metapb.SpaceDesc
	var tag *metapb.TagDesc
	var edge *metapb.EdgeDesc
	for {
		snap := meta.Catalog()
		sp, ok1 := snap.SpaceByName("pstr")
		if ok1 {
			tg, ok2 := snap.TagByName(sp.GetSpaceId(), "t")
			ed, ok3 := snap.EdgeByName(sp.GetSpaceId(), "e")
			if ok2 && ok3 {
				space, tag, edge = sp, tg, ed
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatal("the catalog never showed space pstr with tag t and edge e")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// form reports how a string column came, and its strings.
	form := func(what string, col *commonpb.Column) (packed bool, strs []string) {
		t.Helper()
		if col.GetKind() != commonpb.ColumnKind_COL_STR {
			t.Fatalf("%s: a %s column, want COL_STR", what, col.GetKind())
		}
		if err := col.Check(col.Len()); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i := range col.Len() {
			strs = append(strs, string(col.Str(i)))
		}
		return len(col.Strs) == 0, strs
	}
	check := func(what string, asked, packed bool, strs []string, want ...string) {
		t.Helper()
		if packed != asked || len(strs) != len(want) {
			t.Fatalf("%s: packed %v (asked %v), strings %q; want %q", what, packed, asked, strs, want)
		}
		for i := range want {
			if strs[i] != want[i] {
				t.Fatalf("%s: strings %q, want %q", what, strs, want)
			}
		}
	}

	graphConn, err := grpc.NewClient(c.Graph.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer graphConn.Close()
	storeConn, err := grpc.NewClient(c.Stores[0].Server.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer storeConn.Close()
	graph, store := graphpb.NewGraphServiceClient(graphConn), storagepb.NewStorageServiceClient(storeConn)
	one, two, three := partition.EncodeInt64Vid(1), partition.EncodeInt64Vid(2), partition.EncodeInt64Vid(3)
	for _, asked := range []bool{false, true} {
		resp, err := graph.Execute(ctx, &graphpb.ExecuteReq{SessionId: s.ID(), Columnar: true, PackedStrings: asked,
			Stmt: `GO FROM 1 OVER e YIELD e.note AS n, $$.t.name AS m`})
		if err != nil || resp.Code != graphpb.QueryErrorCode_OK || len(resp.Data.GetColumns()) != 2 {
			t.Fatalf("GO: %v, %v", resp, err)
		}
		packed, notes := form("graphd's result", resp.Data.Columns[0])
		check("graphd's result", asked, packed, notes, "a", "bc")
		packed, names := form("graphd's result", resp.Data.Columns[1])
		check("graphd's result", asked, packed, names, "two", "three")

		stream, err := store.GetNeighbors(ctx, &storagepb.GetNeighborsReq{SpaceId: space.GetSpaceId(), EdgeTypes: []int32{edge.GetEdgeType()},
			PackedEdges: true, PackedStrings: asked, Parts: map[int32]*storagepb.VidList{1: {Vids: [][]byte{one}}},
			EdgeProps: []*storagepb.PropRef{{SchemaId: edge.GetEdgeType(), Name: "note"}}})
		if err != nil {
			t.Fatal(err)
		}
		var cols []*commonpb.Column
		for {
			r, err := stream.Recv()
			if err != nil {
				break
			}
			for _, vn := range r.Vertices {
				cols = append(cols, vn.EdgeColumns...)
			}
		}
		if len(cols) != 1 {
			t.Fatalf("GetNeighbors: %d edge columns, want 1", len(cols))
		}
		packed, notes = form("storaged's packed edges", cols[0])
		check("storaged's packed edges", asked, packed, notes, "a", "bc")

		props, err := store.GetProps(ctx, &storagepb.GetPropsReq{SpaceId: space.GetSpaceId(), Columns: true, PackedStrings: asked,
			VertexParts: map[int32]*storagepb.VidList{1: {Vids: [][]byte{two, three}}},
			Props:       []*storagepb.PropRef{{SchemaId: tag.GetTagId(), Name: "name"}}})
		if err != nil || len(props.Blocks) != 1 || len(props.Blocks[0].Columns) != 1 {
			t.Fatalf("GetProps: %v, %v", props, err)
		}
		packed, names = form("storaged's $$ block", props.Blocks[0].Columns[0])
		check("storaged's $$ block", asked, packed, names, "two", "three")
	}
}
