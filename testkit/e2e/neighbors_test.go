package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// TestGetNeighborsPushDown checks each GetNeighbors option on storaged
// against what the request asks for: filter, per-vertex limit, uniform
// sample, dedup, count-only, stored degrees and dst-only, on a hub vertex
// whose edges span partitions, in both directions.
func TestGetNeighborsPushDown(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	s := c.Session()
	defer s.Close()
	exec(t, s, "CREATE SPACE nb(partition_num=4, replica_factor=1, vid_type=INT64)")
	exec(t, s, "USE nb")
	exec(t, s, "CREATE TAG p(age int)")
	exec(t, s, "CREATE EDGE e(w int)")
	exec(t, s, "INSERT VERTEX p(age) VALUES 1:(33)")
	// Hub 1 → 100..149 with w = i%10, plus 1 → 100@1 (a second rank to the
	// same destination); 200..209 → 1.
	for i := 100; i < 150; i++ {
		exec(t, s, fmt.Sprintf("INSERT EDGE e(w) VALUES 1->%d:(%d)", i, i%10))
	}
	exec(t, s, "INSERT EDGE e(w) VALUES 1->100@1:(0)")
	for i := 200; i < 210; i++ {
		exec(t, s, fmt.Sprintf("INSERT EDGE e(w) VALUES %d->1:(%d)", i, i%10))
	}
	_, sc, snap := storageClients(t, c, "nb", "e")
	space, _ := snap.SpaceByName("nb")
	sid := space.GetSpaceId()
	et, _ := snap.EdgeByName(sid, "e")
	tag, _ := snap.TagByName(sid, "p")
	typ := et.GetEdgeType()
	hub := partition.EncodeInt64Vid(1)
	parts := map[int32]*storagepb.VidList{partition.PartOfInt64(1, space.GetPartitionNum()): {Vids: [][]byte{hub}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	get := func(req *storagepb.GetNeighborsReq) *storagepb.VertexNeighbors {
		t.Helper()
		req.SpaceId, req.CatalogVersion = sid, snap.Version()
		if req.EdgeTypes == nil {
			req.EdgeTypes = []int32{typ}
		}
		vs, err := sc.GetNeighbors(ctx, req, parts)
		if err != nil {
			t.Fatalf("GetNeighbors %v: %v", req, err)
		}
		if len(vs) != 1 {
			t.Fatalf("%d vertices, want 1", len(vs))
		}
		return vs[0]
	}
	dsts := func(vn *storagepb.VertexNeighbors) []int64 {
		var out []int64
		for _, dst := range vn.DstList(8) {
			d, err := partition.DecodeInt64Vid(dst)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
		slices.Sort(out)
		return out
	}

	all := get(&storagepb.GetNeighborsReq{DstOnly: true})
	if len(all.Edges) != 0 || len(all.PackedDsts) != 51*8 {
		t.Fatalf("dst-only: %d edge messages and %d packed bytes, want none and 51 vids", len(all.Edges), len(all.PackedDsts))
	}

	// The filter reads an edge property, the source's tag and a key field;
	// w < 3 keeps i%10 in {0,1,2}: 15 edges plus the rank-1 edge.
	f := get(&storagepb.GetNeighborsReq{Filter: "e.w < 3 AND $^.p.age == 33 AND rank(EDGE) >= 0", EdgeProps: []*storagepb.PropRef{{SchemaId: typ, Name: "w"}}})
	if len(f.Edges) != 16 {
		t.Fatalf("filter kept %d edges, want 16", len(f.Edges))
	}
	for _, e := range f.Edges {
		if w := e.Props[0].GetIntVal(); w >= 3 {
			t.Fatalf("filter let w=%d through", w)
		}
	}
	if n := len(get(&storagepb.GetNeighborsReq{Filter: "$^.p.age > 40"}).Edges); n != 0 {
		t.Fatalf("a filter false for the source kept %d edges", n)
	}

	lim := get(&storagepb.GetNeighborsReq{DstOnly: true, LimitPerVertex: 7})
	// Edges are stored in (rank, dst) order: the limit keeps the first,
	// all of rank 0.
	if got, want := dsts(lim), []int64{100, 101, 102, 103, 104, 105, 106}; !slices.Equal(got, want) {
		t.Fatalf("limit 7: %v, want %v", got, want)
	}

	// A sample is 10 distinct edges of the 51, and not always the first 10.
	firstTen := []int64{100, 101, 102, 103, 104, 105, 106, 107, 108, 109}
	differs := false
	for range 5 {
		smp := get(&storagepb.GetNeighborsReq{DstOnly: true, SamplePerVertex: 10})
		got := dsts(smp)
		if len(got) != 10 {
			t.Fatalf("sample: %d edges, want 10", len(got))
		}
		for _, d := range got {
			if !slices.Contains(dsts(all), d) {
				t.Fatalf("sample returned %d, which is not a neighbour", d)
			}
		}
		if !slices.Equal(got, firstTen) {
			differs = true
		}
	}
	if !differs {
		t.Fatal("5 samples of 10 out of 51 were all the first 10 edges")
	}

	if n := len(dsts(get(&storagepb.GetNeighborsReq{DstOnly: true, DedupDst: true}))); n != 50 {
		t.Fatalf("dedup: %d edges, want 50 (two ranks to 100)", n)
	}
	cnt := get(&storagepb.GetNeighborsReq{CountOnly: true, Filter: "e.w < 3"})
	if cnt.Count != 16 || len(cnt.Edges) != 0 {
		t.Fatalf("count-only: count %d with %d edges, want 16 and none", cnt.Count, len(cnt.Edges))
	}

	deg := get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{typ, -typ}, WithDegree: true, CountOnly: true, VertexProps: []*storagepb.PropRef{{SchemaId: tag.GetTagId(), Name: "age"}}})
	if !slices.Equal(deg.Degrees, []int64{51, 10}) {
		t.Fatalf("stored degrees (out, in) = %v, want [51 10]", deg.Degrees)
	}
	if deg.Props[0].GetIntVal() != 33 {
		t.Fatalf("vertex prop = %v, want 33", deg.Props[0])
	}
	in := get(&storagepb.GetNeighborsReq{EdgeTypes: []int32{-typ}, DstOnly: true})
	if got := dsts(in); len(got) != 10 || got[0] != 200 || got[9] != 209 {
		t.Fatalf("in-edges reach %v, want 200..209", got)
	}

	// Degrees follow deletes, and the in-degree of the other end too.
	exec(t, s, "DELETE EDGE e 1->100@1, 1->101")
	if d := get(&storagepb.GetNeighborsReq{WithDegree: true, CountOnly: true}).Degrees; !slices.Equal(d, []int64{49}) {
		t.Fatalf("out-degree after deleting 2 edges = %v, want [49]", d)
	}
	if n := len(dsts(get(&storagepb.GetNeighborsReq{DstOnly: true, MaxEdgesPerBatch: 5}))); n != 49 {
		t.Fatalf("small batches: %d edges, want 49", n)
	}
}
