package memgraph_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/memgraph"
)

// memgraph is the executor's catalog and storage.
var (
	_ exec.Catalog = (*memgraph.Meta)(nil)
	_ exec.Storage = (*memgraph.Storage)(nil)
)

// graph builds a one-partition space: a->b@0, a->b@1, a->c, b->c over e.
func graph(t *testing.T) (*memgraph.Graph, int32, int32) {
	t.Helper()
	g := memgraph.New(memgraph.Options{})
	x := exec.New(g.Meta(), g.Storage(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	_, err := x.Execute(context.Background(), &exec.SessionState{User: "root"}, `CREATE SPACE s(partition_num=1, replica_factor=1, vid_type=FIXED_STRING(2));
USE s; CREATE EDGE e(w int);
INSERT EDGE e(w) VALUES "a"->"b":(1), "a"->"b"@1:(2), "a"->"c":(3), "b"->"c":(4)`)
	if err != nil {
		t.Fatal(err)
	}
	snap := g.Meta().Catalog()
	sp, _ := snap.SpaceByName("s")
	e, _ := snap.EdgeByName(sp.GetSpaceId(), "e")
	return g, sp.GetSpaceId(), e.GetEdgeType()
}

func vids(ss ...string) *storagepb.VidList {
	l := &storagepb.VidList{}
	for _, s := range ss {
		b, _ := partition.EncodeStringVid(s, 2)
		l.Vids = append(l.Vids, b)
	}
	return l
}

func dsts(vn *storagepb.VertexNeighbors) []string {
	var out []string
	for _, d := range vn.DstList(2) {
		out = append(out, partition.DecodeStringVid(d))
	}
	return out
}

// TestNeighborsOptions checks GetNeighbors' options by hand on a small
// graph (testkit/e2e checks them against storaged).
func TestNeighborsOptions(t *testing.T) {
	g, space, e := graph(t)
	ctx := context.Background()
	get := func(req *storagepb.GetNeighborsReq) []*storagepb.VertexNeighbors {
		t.Helper()
		req.SpaceId = space
		vns, err := g.Storage().GetNeighbors(ctx, req, map[int32]*storagepb.VidList{1: vids("a", "b", "c")})
		if err != nil {
			t.Fatal(err)
		}
		return vns
	}
	// Key order: rank, then destination; in-edges after out-edges as asked.
	vns := get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e}})
	if got := dsts(vns[0]); !slices.Equal(got, []string{"b", "c", "b"}) {
		t.Errorf("a's edges: %v", got)
	}
	if got := dsts(vns[2]); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("c's edges: %v", got)
	}
	vns = get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, CountOnly: true, Filter: "e.w > 1"})
	if vns[0].Count != 2 || vns[1].Count != 1 || vns[2].Count != 0 || len(vns[0].Edges) != 0 {
		t.Errorf("count_only: %v", vns)
	}
	// dedup_dst: each destination once per partition, over its vertices.
	vns = get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, DedupDst: true})
	if a, b := dsts(vns[0]), dsts(vns[1]); !slices.Equal(a, []string{"b", "c"}) || len(b) != 0 {
		t.Errorf("dedup_dst: a %v, b %v", a, b)
	}
	vns = get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e}, WithDegree: true, LimitPerVertex: 1})
	if !slices.Equal(vns[0].Degrees, []int64{3, 0}) || !slices.Equal(vns[2].Degrees, []int64{0, 2}) || !slices.Equal(dsts(vns[0]), []string{"b"}) {
		t.Errorf("with_degree and limit: %v", vns)
	}
	vns = get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, SamplePerVertex: 2})
	if len(vns[0].Edges) != 2 || len(vns[1].Edges) != 1 {
		t.Errorf("sample: %v", vns)
	}
}

// TestPackedEdges: an answer in columns (packed_edges) holds, edge for
// edge, what the answer with a NeighborEdge per edge holds, out-edges and
// in-edges, with key fields, a stored property and a filter; a request
// that cannot be packed is refused.
func TestPackedEdges(t *testing.T) {
	g, space, e := graph(t)
	ctx := context.Background()
	get := func(req *storagepb.GetNeighborsReq) ([]*storagepb.VertexNeighbors, error) {
		req.SpaceId = space
		return g.Storage().GetNeighbors(ctx, req, map[int32]*storagepb.VidList{1: vids("a", "b", "c")})
	}
	props := []*storagepb.PropRef{{SchemaId: e, Name: "w"}, {SchemaId: e, Name: "_dst"}, {SchemaId: e, Name: "_rank"}, {SchemaId: e, Name: "_src"}, {SchemaId: e + 1, Name: "x"}}
	for _, tc := range []struct {
		name   string
		et     int32
		filter string
	}{{"out", e, ""}, {"in", -e, ""}, {"out, filtered", e, "e.w > 1"}} {
		rows, err := get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{tc.et}, EdgeProps: props, Filter: tc.filter})
		if err != nil {
			t.Fatal(err)
		}
		packed, err := get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{tc.et}, EdgeProps: props, Filter: tc.filter, PackedEdges: true})
		if err != nil {
			t.Fatal(err)
		}
		edges := 0
		for v, vn := range rows {
			pv := packed[v]
			if len(pv.Edges) != 0 || len(pv.PackedRanks) != len(vn.Edges) || len(pv.PackedDsts) != 2*len(vn.Edges) {
				t.Fatalf("%s: vertex %d: %d edges in rows, packed %v", tc.name, v, len(vn.Edges), pv)
			}
			if len(vn.Edges) > 0 && len(pv.EdgeColumns) != len(props) {
				t.Fatalf("%s: vertex %d: %d edge columns for %d props", tc.name, v, len(pv.EdgeColumns), len(props))
			}
			for i, ne := range vn.Edges {
				edges++
				if string(pv.PackedDsts[2*i:2*i+2]) != string(ne.Dst) || pv.PackedRanks[i] != ne.Rank {
					t.Errorf("%s: vertex %d edge %d: packed %x@%d, rows %x@%d", tc.name, v, i, pv.PackedDsts[2*i:2*i+2], pv.PackedRanks[i], ne.Dst, ne.Rank)
				}
				for j := range props {
					if got, want := pv.EdgeColumns[j].Cell(i), ne.Props[j]; !proto.Equal(got, want) {
						t.Errorf("%s: vertex %d edge %d %s: packed %v, rows %v", tc.name, v, i, props[j].Name, got, want)
					}
				}
			}
		}
		if edges == 0 {
			t.Fatalf("%s: no edges", tc.name)
		}
	}
	for _, req := range []*storagepb.GetNeighborsReq{
		{EdgeTypes: []int32{e, -e}, PackedEdges: true},
		{EdgeTypes: []int32{e}, PackedEdges: true, SamplePerVertex: 1},
		{EdgeTypes: []int32{e}, PackedEdges: true, DstOnly: true},
	} {
		var pe *storageclient.PartError
		if _, err := get(req); !errors.As(err, &pe) || pe.Code != commonpb.ErrorCode_E_INVALID_ARGUMENT {
			t.Errorf("%v: got %v, want E_INVALID_ARGUMENT", req, err)
		}
	}
}

// TestPartitionErrors: a vid sent to the wrong partition fails that
// partition with storaged's code, as the storage client reports it.
func TestPartitionErrors(t *testing.T) {
	g, space, e := graph(t)
	_, err := g.Storage().GetNeighbors(context.Background(), &storagepb.GetNeighborsReq{SpaceId: space, EdgeTypes: []int32{e}},
		map[int32]*storagepb.VidList{2: vids("a")})
	var pe *storageclient.PartError
	if !errors.As(err, &pe) || pe.Part != 2 || pe.Code != commonpb.ErrorCode_E_INVALID_ARGUMENT {
		t.Fatalf("got %v, want partition 2 failing with E_INVALID_ARGUMENT", err)
	}
}

// TestWritesAtomicPerPartition: a partition's writes apply whole or not at
// all, as one raft entry does.
func TestWritesAtomicPerPartition(t *testing.T) {
	g, space, e := graph(t)
	ctx := context.Background()
	desc, _ := g.Meta().Catalog().EdgeByType(space, e)
	row, err := partition.EncodeRow(schema.FromProto(desc.GetVersions()[0]), []any{int64(9)})
	if err != nil {
		t.Fatal(err)
	}
	a, c := vids("a").Vids[0], vids("c").Vids[0]
	err = g.Storage().AddEdges(ctx, &storagepb.AddEdgesReq{SpaceId: space, Parts: map[int32]*storagepb.EdgeList{1: {Edges: []*storagepb.NewEdge{
		{Src: c, EdgeType: e, Dst: a, Row: row},
		{Src: c, EdgeType: e, Rank: 1, Dst: a, Row: []byte{}}, // no valid row: the partition fails
	}}}})
	if err == nil {
		t.Fatal("an edge without a row was accepted")
	}
	vns, err := g.Storage().GetNeighbors(ctx, &storagepb.GetNeighborsReq{SpaceId: space, EdgeTypes: []int32{e, -e}}, map[int32]*storagepb.VidList{1: vids("a", "c")})
	if err != nil || len(dsts(vns[1])) != 2 || !slices.Equal(dsts(vns[0]), []string{"b", "c", "b"}) {
		t.Fatalf("edges after a failed write: %v, %v", vns, err)
	}
}
