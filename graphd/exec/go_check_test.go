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
		err := d.place([]*storagepb.PropColumns{tc.block}, 1)
		if tc.want == "" && (err != nil || d.found != 1) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("$$ %s: %v (found %d), want %q", tc.name, err, d.found, tc.want)
		}
	}
}
