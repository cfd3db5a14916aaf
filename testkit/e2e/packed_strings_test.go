package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/graphpb"
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
	_, _, snap := storageClients(t, c, "pstr", "e")
	space, _ := snap.SpaceByName("pstr")
	tag, _ := snap.TagByName(space.GetSpaceId(), "t") // created before e
	edge, _ := snap.EdgeByName(space.GetSpaceId(), "e")
	if tag == nil {
		t.Fatal("the catalog shows edge e but not tag t")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
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

	graph := graphpb.NewGraphServiceClient(rawConn(t, c.Graph.Addr()))
	store := storagepb.NewStorageServiceClient(rawConn(t, c.Stores[0].Server.Addr()))
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
