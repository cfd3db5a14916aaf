package e2e

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	graphexec "github.com/novagraph/novagraph/graphd/exec"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
	"github.com/novagraph/novagraph/testkit/memgraph"
)

// TestMemgraphStorageMatchesStoraged sends the same storagepb requests to
// testkit/memgraph and to a cluster's storaged, on the same graph, and
// requires the same answers: the parts of the contract graphd's executor
// does not use today (count_only, dedup_dst, with_degree, the reserved
// edge properties, LookupIndex's per-partition limit, partition errors),
// which the data-driven files (TestDataDrivenOnCluster) therefore cannot
// check. Answers are compared per vertex (a cluster interleaves its
// partitions in no fixed order); within a vertex, in order.
func TestMemgraphStorageMatchesStoraged(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	meta, cluster := clusterClients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := memgraph.New(memgraph.Options{})
	mem := g.Storage()

	const setup = `CREATE SPACE mg(partition_num=3, replica_factor=1, vid_type=FIXED_STRING(4));
USE mg;
CREATE TAG p(name string, age int NULL);
CREATE EDGE e(w int);
CREATE EDGE f();
CREATE TAG INDEX p_age ON p(age);
CREATE EDGE INDEX e_w ON e(w);
INSERT VERTEX p(name, age) VALUES "a":("A", 1), "b":("B", 2), "c":("C", NULL), "d":("D", 2), "e":("E", 5);
INSERT EDGE e(w) VALUES "a"->"b":(1), "a"->"b"@2:(2), "a"->"c":(3), "a"->"d":(4), "b"->"c":(5), "b"->"a":(6), "c"->"a":(7), "d"->"a":(8), "d"->"d":(9), "e"->"a":(10), "e"->"b":(11);
INSERT EDGE f() VALUES "a"->"c":(), "b"->"c":(), "c"->"d":()`
	backends := []struct {
		name    string
		catalog graphexec.Catalog
		storage graphexec.Storage
	}{{"memgraph", g.Meta(), mem}, {"cluster", meta, cluster}}
	for _, b := range backends {
		x := graphexec.New(b.catalog, b.storage, slog.New(slog.DiscardHandler))
		if _, err := x.Execute(ctx, &graphexec.SessionState{User: "root"}, setup); err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
	}
	// Both catalogs were built by the same DDL: the same ids.
	space, ok := meta.Catalog().SpaceByName("mg")
	if !ok {
		t.Fatal("no space mg on the cluster")
	}
	if mine, _ := g.Meta().Catalog().SpaceByName("mg"); mine.GetSpaceId() != space.GetSpaceId() {
		t.Fatalf("space ids differ: memgraph %d, cluster %d", mine.GetSpaceId(), space.GetSpaceId())
	}
	snap := meta.Catalog()
	tagP, _ := snap.TagByName(space.GetSpaceId(), "p")
	edgeE, _ := snap.EdgeByName(space.GetSpaceId(), "e")
	edgeF, _ := snap.EdgeByName(space.GetSpaceId(), "f")
	ixAge, _ := snap.IndexByName(space.GetSpaceId(), "p_age")
	ixW, _ := snap.IndexByName(space.GetSpaceId(), "e_w")
	p, e, f := tagP.GetTagId(), edgeE.GetEdgeType(), edgeF.GetEdgeType()
	sid := space.GetSpaceId()

	vid := func(s string) []byte {
		b, err := partition.EncodeStringVid(s, 4)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	partOf := func(v []byte) int32 { return partition.PartOf(v, partition.VidFixedString, 3) }
	byPart := func(vs ...string) map[int32]*storagepb.VidList {
		out := map[int32]*storagepb.VidList{}
		for _, s := range vs {
			v := vid(s)
			if out[partOf(v)] == nil {
				out[partOf(v)] = &storagepb.VidList{}
			}
			out[partOf(v)].Vids = append(out[partOf(v)].Vids, v)
		}
		return out
	}
	all := []string{"a", "b", "c", "d", "e", "z"}

	// compare fails the test unless both answers (or both errors) agree.
	compare := func(what string, run func(s graphexec.Storage) (proto.Message, error)) {
		t.Helper()
		got := make([]string, 2)
		for i, s := range []graphexec.Storage{mem, cluster} {
			m, err := run(s)
			if err != nil {
				var pe *storageclient.PartError
				if !errors.As(err, &pe) {
					t.Fatalf("%s: %s: %v (not a partition error)", what, backends[i].name, err)
				}
				got[i] = "error: " + pe.Error()
				continue
			}
			got[i] = prototext.MarshalOptions{Multiline: true}.Format(m)
		}
		if got[0] != got[1] {
			t.Errorf("%s: memgraph and storaged differ\nmemgraph:\n%s\nstoraged:\n%s", what, got[0], got[1])
		}
	}
	neighbors := func(req *storagepb.GetNeighborsReq, parts map[int32]*storagepb.VidList, clear func(*storagepb.VertexNeighbors)) func(graphexec.Storage) (proto.Message, error) {
		return func(s graphexec.Storage) (proto.Message, error) {
			req.SpaceId = sid
			vns, err := s.GetNeighbors(ctx, req, parts)
			if err != nil {
				return nil, err
			}
			slices.SortFunc(vns, func(a, b *storagepb.VertexNeighbors) int { return cmp.Compare(string(a.Vid), string(b.Vid)) })
			if clear != nil {
				for _, vn := range vns {
					clear(vn)
				}
			}
			return &storagepb.GetNeighborsResp{Vertices: vns}, nil
		}
	}
	props := func(req *storagepb.GetPropsReq, vparts map[int32]*storagepb.VidList, eparts map[int32]*storagepb.EdgeKeyList) func(graphexec.Storage) (proto.Message, error) {
		return func(s graphexec.Storage) (proto.Message, error) {
			req.SpaceId = sid
			rows, err := s.GetProps(ctx, req, vparts, eparts)
			if err != nil {
				return nil, err
			}
			sortRows(rows)
			return &storagepb.GetPropsResp{Rows: rows}, nil
		}
	}
	propColumns := func(req *storagepb.GetPropsReq, vparts map[int32]*storagepb.VidList) func(graphexec.Storage) (proto.Message, error) {
		return func(s graphexec.Storage) (proto.Message, error) {
			req.SpaceId = sid
			blocks, err := s.GetPropColumns(ctx, req, vparts, nil)
			if err != nil {
				return nil, err
			}
			slices.SortFunc(blocks, func(a, b *storagepb.PropColumns) int { return cmp.Compare(string(a.PackedVids), string(b.PackedVids)) })
			return &storagepb.GetPropsResp{Blocks: blocks}, nil
		}
	}
	lookup := func(req *storagepb.LookupIndexReq) func(graphexec.Storage) (proto.Message, error) {
		return func(s graphexec.Storage) (proto.Message, error) {
			req.SpaceId = sid
			rows, err := s.LookupIndex(ctx, req)
			if err != nil {
				return nil, err
			}
			sortRows(rows)
			return &storagepb.LookupIndexResp{Rows: rows}, nil
		}
	}
	ref := func(id int32, name string) *storagepb.PropRef { return &storagepb.PropRef{SchemaId: id, Name: name} }
	edgeProps := []*storagepb.PropRef{ref(e, "w"), ref(e, "_src"), ref(e, "_dst"), ref(e, "_rank"), ref(e, "_type"), ref(f, "_dst")}

	compare("out and in edges with every reserved property", neighbors(&storagepb.GetNeighborsReq{
		EdgeTypes: []int32{e, -e, f, -f}, VertexProps: []*storagepb.PropRef{ref(p, "name"), ref(p, "age"), ref(p, "_tag")}, EdgeProps: edgeProps,
	}, byPart(all...), nil))
	compare("packed_edges with every reserved property and a filter", neighbors(&storagepb.GetNeighborsReq{
		EdgeTypes: []int32{-e}, EdgeProps: edgeProps, PackedEdges: true, Filter: `e.w > 1`,
	}, byPart(all...), nil))
	compare("packed_edges over two edge types", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, f}, PackedEdges: true}, byPart("a"), nil))
	compare("dst_only", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -f}, DstOnly: true}, byPart(all...), nil))
	compare("count_only", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e}, CountOnly: true}, byPart(all...), nil))
	compare("with_degree", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e, f, -f}, WithDegree: true, DstOnly: true}, byPart(all...), nil))
	compare("dedup_dst (per partition)", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e, f}, DedupDst: true}, byPart(all...), nil))
	compare("limit_per_vertex", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e}, LimitPerVertex: 1, EdgeProps: edgeProps}, byPart(all...), nil))
	compare("filter on the edge and $^", neighbors(&storagepb.GetNeighborsReq{
		EdgeTypes: []int32{e, -e}, Filter: `e.w > 3 AND $^.p.age IS NOT NULL AND e._rank == 0`, EdgeProps: []*storagepb.PropRef{ref(e, "w")},
	}, byPart(all...), nil))
	compare("filter on reserved properties", neighbors(&storagepb.GetNeighborsReq{
		EdgeTypes: []int32{e, -e}, Filter: `e._src == "a" OR e._dst == "a" OR e._type == "f" OR src(edge) == "e"`,
	}, byPart(all...), nil))
	compare("filter with count_only and limit", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, Filter: `e.w >= 2`, CountOnly: true, LimitPerVertex: 2}, byPart(all...), nil))
	// A sample is random: its size and counts are not.
	compare("sample_per_vertex, sizes", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e, -e}, SamplePerVertex: 2},
		byPart(all...), func(vn *storagepb.VertexNeighbors) {
			for _, ne := range vn.Edges {
				ne.Dst, ne.Rank = nil, 0
			}
		}))
	compare("sample_per_vertex with count_only", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, SamplePerVertex: 2, CountOnly: true}, byPart(all...), nil))

	compare("vid sent to another partition", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}},
		map[int32]*storagepb.VidList{partOf(vid("a"))%3 + 1: {Vids: [][]byte{vid("a")}}}, nil))
	compare("vid of the wrong length", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}},
		map[int32]*storagepb.VidList{1: {Vids: [][]byte{[]byte("toolong")}}}, nil))
	compare("unknown edge type", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{99}}, byPart("a"), nil))
	compare("filter naming an unknown tag", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, Filter: `$^.nope.x == 1`}, byPart("a"), nil))
	compare("filter reading $$", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, Filter: `$$.p.age == 1`}, byPart("a"), nil))
	compare("filter failing on an edge", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{e}, Filter: `e.w / 0 == 1`}, byPart("a"), nil))

	compare("GetProps of vertices", props(&storagepb.GetPropsReq{Props: []*storagepb.PropRef{ref(p, "name"), ref(p, "age"), ref(p, "_tag")}}, byPart(all...), nil))
	compare("GetProps of vertices in columns", propColumns(&storagepb.GetPropsReq{Props: []*storagepb.PropRef{ref(p, "name"), ref(p, "age"), ref(p, "_tag")}}, byPart(all...)))
	edgeKeys := func(keys ...*storagepb.EdgeKey) map[int32]*storagepb.EdgeKeyList {
		out := map[int32]*storagepb.EdgeKeyList{}
		for _, k := range keys {
			pt := partOf(k.Src)
			if out[pt] == nil {
				out[pt] = &storagepb.EdgeKeyList{}
			}
			out[pt].Keys = append(out[pt].Keys, k)
		}
		return out
	}
	ek := func(src string, typ int32, rank int64, dst string) *storagepb.EdgeKey {
		return &storagepb.EdgeKey{Src: vid(src), EdgeType: typ, Rank: rank, Dst: vid(dst)}
	}
	compare("GetProps of edges, out and in halves", props(&storagepb.GetPropsReq{Props: edgeProps}, nil, edgeKeys(
		ek("a", e, 0, "b"), ek("a", e, 2, "b"), ek("a", e, 1, "b"), ek("b", -e, 0, "a"), ek("b", -e, 2, "a"), ek("c", -f, 0, "a"), ek("d", e, 0, "d"))))

	compare("LookupIndex, every row", lookup(&storagepb.LookupIndexReq{IndexId: ixAge.GetIndexId(), Props: []*storagepb.PropRef{ref(p, "name"), ref(p, "age")}}))
	compare("LookupIndex, range hint", lookup(&storagepb.LookupIndexReq{IndexId: ixAge.GetIndexId(),
		Hints: []*storagepb.IndexColumnHint{{Column: "age", Begin: intValue(2), BeginIncl: true, End: intValue(5)}}}))
	compare("LookupIndex, per-partition limit", lookup(&storagepb.LookupIndexReq{IndexId: ixW.GetIndexId(), Limit: 1,
		Props: []*storagepb.PropRef{ref(e, "w"), ref(e, "_src")}}))
	compare("LookupIndex, filter", lookup(&storagepb.LookupIndexReq{IndexId: ixW.GetIndexId(), Filter: `e.w % 2 == 0 AND e._dst != "a"`,
		Hints: []*storagepb.IndexColumnHint{{Column: "w", Begin: intValue(2)}}, Props: []*storagepb.PropRef{ref(e, "w")}}))
	compare("LookupIndex, unknown index", lookup(&storagepb.LookupIndexReq{IndexId: 99, Parts: []int32{1}}))
	compare("LookupIndex, hint out of order", lookup(&storagepb.LookupIndexReq{IndexId: ixAge.GetIndexId(), Parts: []int32{2},
		Hints: []*storagepb.IndexColumnHint{{Column: "name", Eq: intValue(1)}}}))

	// Writes refused for a misrouted key leave both the same.
	write := func(what string, run func(s graphexec.Storage) error) {
		t.Helper()
		compare(what, func(s graphexec.Storage) (proto.Message, error) { return &storagepb.ExecResp{}, run(s) })
	}
	write("AddVertices to another partition", func(s graphexec.Storage) error {
		return s.AddVertices(ctx, &storagepb.AddVerticesReq{SpaceId: sid, Parts: map[int32]*storagepb.VertexList{
			partOf(vid("a"))%3 + 1: {Vertices: []*storagepb.NewVertex{{Vid: vid("a")}}}}})
	})
	write("AddEdges with an in-edge type", func(s graphexec.Storage) error {
		return s.AddEdges(ctx, &storagepb.AddEdgesReq{SpaceId: sid, Parts: map[int32]*storagepb.EdgeList{
			partOf(vid("a")): {Edges: []*storagepb.NewEdge{{Src: vid("a"), EdgeType: -e, Dst: vid("b")}}}}})
	})
	write("DeleteEdges of an unknown edge type", func(s graphexec.Storage) error {
		return s.DeleteEdges(ctx, &storagepb.DeleteEdgesReq{SpaceId: sid, Parts: edgeKeys(ek("a", 99, 0, "b"))})
	})
	compare("Update of an absent vertex", func(s graphexec.Storage) (proto.Message, error) {
		return s.Update(ctx, &storagepb.UpdateReq{SpaceId: sid, PartId: partOf(vid("z")), Vid: vid("z"), TagId: p,
			Set: []*storagepb.UpdatedProp{{Name: "age", Expr: "1"}}})
	})
	compare("Upsert of an edge, WHEN ignored", func(s graphexec.Storage) (proto.Message, error) {
		return s.Update(ctx, &storagepb.UpdateReq{SpaceId: sid, PartId: partOf(vid("z")), Edge: ek("z", e, 3, "a"), Insertable: true,
			When: "e.w > 100", Set: []*storagepb.UpdatedProp{{Name: "w", Expr: "e.w + 40"}}, Yield: []string{"e.w", "e._src", "e._rank"}})
	})
	compare("Update of an edge, WHEN false", func(s graphexec.Storage) (proto.Message, error) {
		return s.Update(ctx, &storagepb.UpdateReq{SpaceId: sid, PartId: partOf(vid("a")), Edge: ek("a", e, 0, "b"),
			When: "e.w > 100", Set: []*storagepb.UpdatedProp{{Name: "w", Expr: "0"}}, Yield: []string{"e.w"}})
	})
	compare("in-edges after the upsert", neighbors(&storagepb.GetNeighborsReq{EdgeTypes: []int32{-e}, EdgeProps: edgeProps}, byPart("a"), nil))
}

func intValue(i int64) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: i}} }

// sortRows orders PropRows by vid or edge key: a cluster returns its
// partitions' rows in no fixed order.
func sortRows(rows []*storagepb.PropRow) {
	key := func(r *storagepb.PropRow) string {
		if r.Edge == nil {
			return string(r.Vid)
		}
		return string(partition.EdgeKey(0, 0, r.Edge.Src, r.Edge.EdgeType, r.Edge.Rank, r.Edge.Dst))
	}
	slices.SortStableFunc(rows, func(a, b *storagepb.PropRow) int { return cmp.Compare(key(a), key(b)) })
}
