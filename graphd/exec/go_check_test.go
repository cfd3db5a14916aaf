package exec

import (
	"strings"
	"testing"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// A packed GetNeighbors answer or a $$ block that does not hold what it
// says (a faulty storaged) is an error naming what is wrong, not a panic
// in the projection.
func TestPackedAnswersAreChecked(t *testing.T) {
	ints := func(n int) *commonpb.Column {
		return &commonpb.Column{Kind: commonpb.ColumnKind_COL_INT, Ints: make([]int64, n)}
	}
	packedReq := &storagepb.GetNeighborsReq{PackedEdges: true, EdgeProps: []*storagepb.PropRef{{SchemaId: 1, Name: "w"}}}
	for _, tc := range []struct {
		name string
		vn   *storagepb.VertexNeighbors
		req  *storagepb.GetNeighborsReq
		want string
	}{
		{"good", &storagepb.VertexNeighbors{PackedDsts: make([]byte, 16), PackedRanks: make([]int64, 2), EdgeColumns: []*commonpb.Column{ints(2)}}, packedReq, ""},
		{"dst only", &storagepb.VertexNeighbors{PackedDsts: make([]byte, 16)}, &storagepb.GetNeighborsReq{DstOnly: true}, ""},
		{"torn vid", &storagepb.VertexNeighbors{PackedDsts: make([]byte, 15)}, &storagepb.GetNeighborsReq{DstOnly: true}, "not a multiple of the 8-byte vid"},
		{"short ranks", &storagepb.VertexNeighbors{PackedDsts: make([]byte, 16), PackedRanks: make([]int64, 1), EdgeColumns: []*commonpb.Column{ints(2)}}, packedReq, "2 edges with 1 ranks"},
		{"missing column", &storagepb.VertexNeighbors{PackedDsts: make([]byte, 16), PackedRanks: make([]int64, 2)}, packedReq, "0 property columns, want 1"},
		{"short column", &storagepb.VertexNeighbors{PackedDsts: make([]byte, 16), PackedRanks: make([]int64, 2), EdgeColumns: []*commonpb.Column{ints(1)}}, packedReq, "edge property column 0"},
		{"edges", &storagepb.VertexNeighbors{Edges: []*storagepb.NeighborEdge{{Dst: make([]byte, 8)}}}, &storagepb.GetNeighborsReq{}, ""},
		{"short edge vid", &storagepb.VertexNeighbors{Edges: []*storagepb.NeighborEdge{{Dst: make([]byte, 8)}, {Dst: make([]byte, 3)}}}, &storagepb.GetNeighborsReq{}, "edge 1 reaches a 3-byte vid"},
	} {
		err := checkNeighbors(tc.vn, tc.req, 8)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}

	for _, tc := range []struct {
		name  string
		block *storagepb.PropColumns
		want  string
	}{
		{"good", &storagepb.PropColumns{PackedVids: append(make([]byte, 15), 1), Columns: []*commonpb.Column{ints(2)}}, ""}, // the second vid was not asked
		{"torn vid", &storagepb.PropColumns{PackedVids: make([]byte, 9), Columns: []*commonpb.Column{ints(1)}}, "9 bytes of vids"},
		{"columns missing", &storagepb.PropColumns{PackedVids: make([]byte, 8)}, "0 columns for 1 properties"},
		{"short column", &storagepb.PropColumns{PackedVids: make([]byte, 16), Columns: []*commonpb.Column{ints(1)}}, "block 0, column 0"},
	} {
		d := newDstProps(8)
		d.ordinal(make([]byte, 8))
		part := func([]byte) int32 { return 1 }
		err := d.place([]*storagepb.PropColumns{tc.block}, 1, part, nil, nil)
		if tc.want == "" && (err != nil || d.found != 1) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("$$ %s: %v (found %d), want %q", tc.name, err, d.found, tc.want)
		}
	}
}

// TestDstPlace: a $$ block's vertices are matched to its partition's list
// by walking both in order, vertices without data skipped; a vertex out of
// the list's order is found by its vid all the same, and one never asked
// for is ignored.
func TestDstPlace(t *testing.T) {
	vid := func(b byte) []byte { return []byte{0, 0, 0, 0, 0, 0, 0, b} }
	d := newDstProps(8)
	for b := byte(1); b <= 6; b++ {
		if o, added := d.ordinal(vid(b)); !added || o != int32(b-1) {
			t.Fatalf("vid %d: ordinal %d, added %v", b, o, added)
		}
	}
	if o, added := d.ordinal(vid(3)); added || o != 2 {
		t.Fatalf("vid 3 again: ordinal %d, added %v", o, added)
	}
	part := func(v []byte) int32 { return int32(v[7]%2) + 1 } // even vids in 1, odd in 2
	lists := []*storagepb.VidList{nil, {Vids: [][]byte{vid(2), vid(4), vid(6)}}, {Vids: [][]byte{vid(1), vid(3), vid(5)}}}
	ords := [][]int32{nil, {1, 3, 5}, {0, 2, 4}}
	ints := func(n int) []*commonpb.Column {
		return []*commonpb.Column{{Kind: commonpb.ColumnKind_COL_INT, Ints: make([]int64, n)}}
	}
	even := &storagepb.PropColumns{PackedVids: append(vid(2), vid(6)...), Columns: ints(2)}                   // 4 has no data
	odd := &storagepb.PropColumns{PackedVids: append(append(vid(5), vid(1)...), vid(9)...), Columns: ints(3)} // out of order, and 9 was not asked
	if err := d.place([]*storagepb.PropColumns{even, odd}, 1, part, lists, ords); err != nil {
		t.Fatal(err)
	}
	want := []dstEntry{{odd, 1}, {even, 0}, {}, {}, {odd, 0}, {even, 1}}
	for o, w := range want {
		if d.entries[o] != w {
			t.Errorf("ordinal %d (vid %d): block %p cell %d, want block %p cell %d", o, o+1, d.entries[o].block, d.entries[o].i, w.block, w.i)
		}
	}
	if d.found != 4 {
		t.Errorf("found %d destinations with data, want 4", d.found)
	}
}
