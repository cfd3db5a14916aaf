package storagepb

// Hand-written helpers beside the generated code of storage.proto.

// DstList returns the destinations of the vertex's edges, whichever form
// they came in: packed (dst_only or packed_edges, vidLen bytes each) or
// one NeighborEdge per edge. Packed vids alias the message.
func (vn *VertexNeighbors) DstList(vidLen int) [][]byte {
	if len(vn.PackedDsts) > 0 && vidLen > 0 {
		out := make([][]byte, 0, len(vn.PackedDsts)/vidLen)
		for b := vn.PackedDsts; len(b) >= vidLen; b = b[vidLen:] {
			out = append(out, b[:vidLen:vidLen])
		}
		return out
	}
	out := make([][]byte, len(vn.Edges))
	for i, e := range vn.Edges {
		out[i] = e.Dst
	}
	return out
}
