package rowread

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/query/eval"
)

// Neighbors answers GetNeighbors on one partition, vertex by vertex
// (Vertex), from what its caller reads: the vertex's tag rows, its
// degrees, and its edges of each type in storage order, which the caller
// hands to AddEdge, or to AddKey when NeedRow says the rows are not
// needed (AddTailRow and AddTail take the same from a caller that holds
// the keys' tails: storaged's adjacency cache). Each edge goes through
// the TTL, the filter, dedup_dst, the limit or sample and the answer's
// shape, in that order. The shapes: a NeighborEdge per edge, destinations
// only (dst_only: packed_dsts), or columns (packed_edges: packed_dsts,
// packed_ranks and edge_columns, for one edge type).
type Neighbors struct {
	req    *storagepb.GetNeighborsReq
	space  *metapb.SpaceDesc
	part   int32
	vidLen int
	keyLen int
	r      *Reader
	filter *pushedFilter
	rng    *rand.Rand
	seen   map[string]bool // dedup_dst

	// The vertex and edge type being scanned.
	vid     []byte
	vn      *storagepb.VertexNeighbors
	et      int32
	sv      *Schema
	fr      *filterRow // the filter's context, reused edge after edge
	needRow bool
	limited bool
	kept    int64
	sample  []*storagepb.NeighborEdge
	cols    []commonpb.ColumnBuilder // packed_edges: the vertex's edge_columns

	// AddColumnSpan's columns of req.EdgeProps (nil: a NULL cell), looked
	// up on its first call; spanOK false: the edges are read one at a
	// time.
	spanCols []*commonpb.Column
	spanOK   bool
}

// NewNeighbors checks req for the vids it sends to part, as storaged
// checks it before it answers any vertex: the filter, then the vids, then
// the edge types. now is the clock of TTLs (seconds since the epoch), seed
// that of sample_per_vertex.
func NewNeighbors(snap *catalog.Snapshot, space *metapb.SpaceDesc, part int32, req *storagepb.GetNeighborsReq,
	vids [][]byte, now int64, seed uint64) (*Neighbors, error) {
	if req.PackedEdges && (len(req.EdgeTypes) != 1 || req.DstOnly || req.CountOnly || req.SamplePerVertex > 0) {
		return nil, Invalid("packed_edges needs exactly one edge type (got %d), and no dst_only, count_only or sample_per_vertex", len(req.EdgeTypes))
	}
	filter, err := parseFilter(snap, req.SpaceId, req.Filter)
	if err != nil {
		return nil, err
	}
	vidLen := int(space.GetVidLen())
	n := &Neighbors{req: req, space: space, part: part, vidLen: vidLen, keyLen: partition.EdgeKeyLen(vidLen),
		r: NewReader(snap, req.SpaceId, now), filter: filter}
	if len(vids) == 0 {
		return n, nil
	}
	for _, vid := range vids {
		if err := CheckVid(space, part, vid); err != nil {
			return nil, err
		}
	}
	for _, et := range req.EdgeTypes {
		if _, err := n.r.Edge(et); err != nil {
			return nil, err
		}
	}
	if req.SamplePerVertex > 0 {
		n.rng = rand.New(rand.NewPCG(seed, uint64(part)))
	}
	if req.DedupDst {
		n.seen = map[string]bool{}
	}
	if filter != nil {
		n.fr = &filterRow{r: n.r, space: space}
	}
	return n, nil
}

// Vertex answers one vertex: the properties of its tags, read with get (a
// nil row: no such key), then for each edge type of the request its
// degree, from degree (called only with with_degree), and its edges,
// which edges(et) must scan and hand to AddEdge or AddKey, stopping once
// Full.
func (n *Neighbors) Vertex(vid []byte, get func(key []byte) ([]byte, error),
	degree func(et int32) (int64, error), edges func(et int32) error) (*storagepb.VertexNeighbors, error) {
	req := n.req
	vn := &storagepb.VertexNeighbors{Vid: vid}
	tagIDs := tagIDsOf(req.VertexProps)
	if n.filter != nil {
		tagIDs = append(tagIDs, n.filter.srcTags...)
	}
	var rows VertexRows
	if len(tagIDs) > 0 {
		var err error
		if rows, err = n.r.readTags(get, n.part, vid, tagIDs); err != nil {
			return nil, err
		}
	}
	if len(req.VertexProps) > 0 {
		props, _, err := n.r.TagProps(rows, req.VertexProps)
		if err != nil {
			return nil, err
		}
		vn.Props = props
	}
	if req.PackedEdges {
		n.cols = make([]commonpb.ColumnBuilder, len(req.EdgeProps))
	}
	for _, et := range req.EdgeTypes {
		if req.WithDegree {
			d, err := degree(et)
			if err != nil {
				return nil, err
			}
			vn.Degrees = append(vn.Degrees, d)
		}
		if err := n.startEdges(vid, et, rows, vn); err != nil {
			return nil, err
		}
		if err := edges(et); err != nil {
			return nil, err
		}
		n.finishEdges()
	}
	if req.PackedEdges && len(n.cols) > 0 {
		vn.EdgeColumns = make([]*commonpb.Column, len(n.cols))
		for i := range n.cols {
			vn.EdgeColumns[i] = n.cols[i].Finish()
			if !req.PackedStrings {
				vn.EdgeColumns[i].UnpackStrings() // a reader from before the packing
			}
		}
	}
	return vn, nil
}

// startEdges readies the scan of vid's edges of type et.
func (n *Neighbors) startEdges(vid []byte, et int32, rows VertexRows, vn *storagepb.VertexNeighbors) error {
	req := n.req
	sv, err := n.r.Edge(et)
	if err != nil {
		return err
	}
	n.vid, n.et, n.vn, n.sv = vid, et, vn, sv
	n.kept, n.sample = 0, nil
	n.limited = req.LimitPerVertex > 0 && req.SamplePerVertex <= 0
	// The row is read only when something needs it: in-edges (tombstones
	// are skipped), a TTL, the filter, or edge properties.
	n.needRow = n.filter != nil || (!req.DstOnly && !req.CountOnly && len(req.EdgeProps) > 0) || sv.ttlCol != "" || et < 0
	if n.fr != nil {
		n.fr.vid, n.fr.tags, n.fr.edgeType, n.fr.edgeName = vid, rows, et, sv.Name
	}
	return nil
}

// NeedRow says whether the edges being scanned need their stored values
// (AddEdge); if not, their keys are enough (AddKey).
func (n *Neighbors) NeedRow() bool { return n.needRow }

// Full says whether the edges being scanned reached limit_per_vertex:
// the scan stops.
func (n *Neighbors) Full() bool { return n.limited && n.kept >= n.req.LimitPerVertex }

// maxExpectedEdges bounds what Expect reserves for one vertex and type.
const maxExpectedEdges = 1 << 16

// Expect says that up to edges more edges of the open vertex and type are
// coming (storaged's adjacency cache knows how many it holds), so that
// the packed arrays of the answer grow once, not by doubling; a limit
// bounds what is reserved.
func (n *Neighbors) Expect(edges int) {
	req := n.req
	if n.vn == nil || req.CountOnly || !(req.PackedEdges || req.DstOnly && req.SamplePerVertex <= 0) ||
		n.fr != nil || n.seen != nil {
		return // a filter or dedup may keep few of them
	}
	edges = min(n.Want(edges), maxExpectedEdges)
	n.vn.PackedDsts = slices.Grow(n.vn.PackedDsts, edges*n.vidLen)
	if req.PackedEdges {
		n.vn.PackedRanks = slices.Grow(n.vn.PackedRanks, edges)
	}
}

// Want bounds a batch of up to max keys to what the limit can still keep.
func (n *Neighbors) Want(max int) int {
	if n.limited {
		return int(min(int64(max), n.req.LimitPerVertex-n.kept))
	}
	return max
}

// MalformedKey is the error of a key under the scanned edges' prefix that
// is not an edge key of the space's vid length.
func (n *Neighbors) MalformedKey(key []byte) error {
	return fmt.Errorf("vertex %x: edge key %x has %d bytes, want %d: %w", n.vid, key, len(key), n.keyLen, partition.ErrMalformedKey)
}

// AddEdge takes the next stored edge of the scan, its key and its value:
// in-edge tombstones and expired rows are skipped.
func (n *Neighbors) AddEdge(key, value []byte) error {
	// The length check is the precondition of the partition.EdgeKey*
	// accessors in add (the prefix fixes the kind, src and type).
	if len(key) != n.keyLen {
		return n.MalformedKey(key)
	}
	return n.addStored(partition.EdgeKeyRank(key, n.vidLen), partition.EdgeKeyDst(key, n.vidLen), value)
}

// AddTailRow is AddEdge for a caller that holds the edges of the scanned
// prefix as their partition.EdgeKeyTail and stored values (storaged's
// adjacency cache); the tail's length the caller checked.
func (n *Neighbors) AddTailRow(tail, value []byte) error {
	return n.addStored(partition.EdgeTailRank(tail), partition.EdgeTailDst(tail, n.vidLen), value)
}

// addStored takes an edge with its stored value: in-edge tombstones and
// expired rows are skipped.
func (n *Neighbors) addStored(rank int64, dst, value []byte) error {
	row, live, err := partition.EdgeRow(n.et, value)
	if err != nil {
		return fmt.Errorf("vertex %x: %w", n.vid, err)
	}
	if !live {
		return nil
	}
	if exp, err := n.r.Expired(row, n.sv); err != nil {
		return err
	} else if exp {
		return nil
	}
	return n.add(rank, dst, row)
}

// AddKey takes the next edge of a scan that needs no rows (NeedRow is
// false), by its key, whose length the caller checked.
func (n *Neighbors) AddKey(key []byte) error {
	return n.add(partition.EdgeKeyRank(key, n.vidLen), partition.EdgeKeyDst(key, n.vidLen), nil)
}

// AddTail is AddKey for a caller that holds the edges of the scanned
// prefix as their partition.EdgeKeyTail (storaged's adjacency cache); its
// length the caller checked.
func (n *Neighbors) AddTail(tail []byte) error {
	return n.add(partition.EdgeTailRank(tail), partition.EdgeTailDst(tail, n.vidLen), nil)
}

// add takes one edge of the scan, by its rank and far-end vid, with row
// its live, unexpired value (nil when not needed): the filter, then
// dedup, then the limit's count, then the shape.
func (n *Neighbors) add(rank int64, dstKey, row []byte) error {
	req := n.req
	if fr := n.fr; fr != nil {
		fr.setEdge(rank, dstKey, row)
		ok, err := eval.Filter(fr, n.filter.expr)
		if err != nil {
			return Invalid("filter on edge %s->%s: %v", showVid(n.space, n.vid), showVid(n.space, dstKey), err)
		}
		if !ok {
			return nil
		}
	}
	if n.seen != nil {
		if n.seen[string(dstKey)] {
			return nil
		}
		n.seen[string(dstKey)] = true
	}
	n.kept++
	if req.CountOnly {
		return nil
	}
	vn := n.vn
	if req.DstOnly && req.SamplePerVertex <= 0 {
		vn.PackedDsts = append(vn.PackedDsts, dstKey...)
		return nil
	}
	if req.PackedEdges {
		vn.PackedDsts = append(vn.PackedDsts, dstKey...)
		vn.PackedRanks = append(vn.PackedRanks, rank)
		if len(n.cols) > 0 {
			// The columns copy what they take (_dst/_src cells too), so
			// the scan's buffer may be passed.
			return n.r.EdgePropColumns(n.cols, req.EdgeProps, row, n.et, rank, n.vid, dstKey)
		}
		return nil
	}
	dst := append([]byte(nil), dstKey...)
	ne := &storagepb.NeighborEdge{EdgeType: n.et, Rank: rank, Dst: dst}
	if !req.DstOnly && len(req.EdgeProps) > 0 {
		var err error
		if ne.Props, err = n.r.EdgeProps(req.EdgeProps, row, n.et, rank, n.vid, dst); err != nil {
			return err
		}
	}
	if req.SamplePerVertex > 0 {
		// Reservoir sampling: every kept edge ends in the sample
		// with the same probability.
		if int64(len(n.sample)) < req.SamplePerVertex {
			n.sample = append(n.sample, ne)
		} else if j := n.rng.Int64N(n.kept); j < req.SamplePerVertex {
			n.sample[j] = ne
		}
		return nil
	}
	vn.Edges = append(vn.Edges, ne)
	return nil
}

// finishEdges completes the answer for the edges scanned: the sample, the
// count.
func (n *Neighbors) finishEdges() {
	req, vn := n.req, n.vn
	if req.DstOnly {
		for _, ne := range n.sample {
			vn.PackedDsts = append(vn.PackedDsts, ne.Dst...)
		}
	} else {
		vn.Edges = append(vn.Edges, n.sample...)
	}
	vn.Count += n.kept
	if req.CountOnly && req.SamplePerVertex > 0 {
		vn.Count = min(vn.Count, req.SamplePerVertex)
	}
	n.sample = nil
}
