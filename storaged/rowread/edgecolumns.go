package rowread

import (
	"fmt"
	"slices"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
)

// DecodeColumn decodes the stored property name of the rows of sv (an
// edge type's out-edges, or a tag's rows) among n rows of a caller's
// numbering into one column of n cells: rowOf(i), called for i from 0 to
// n-1 in order, is row i's stored value, or ok false for a row of another
// schema (or an in-edge), whose cell is NULL. Each row's cell is what
// EdgePropColumns and GetPropColumns append for the property, so that a
// run of the column taken with ColumnBuilder.AppendRange
// (Neighbors.AddColumnSpan), or cells gathered with AppendAt
// (GetPropColumns with TagColumns), answer as reading the rows one at a
// time does. TTL is not looked at: a caller with a TTL'd schema reads row
// by row. storaged's adjacency cache decodes a column once per partition
// and property, where GO with properties decoded every row on every step
// (issue 22).
func DecodeColumn(sv *Schema, name string, n int, rowOf func(i int) (row []byte, ok bool)) (*commonpb.Column, error) {
	var b commonpb.ColumnBuilder
	var rr partition.RowReader
	latest := sv.Versions.Latest()
	if col := latest.Index(name); col >= 0 {
		b.Reserve(n, columnKindOf(latest.Columns[col].Type))
	}
	for i := 0; i < n; i++ {
		row, ok := rowOf(i)
		if !ok {
			b.AddNull()
			continue
		}
		if err := rr.ResetLayout(row, sv.Versions); err != nil {
			return nil, fmt.Errorf("row %d of %s: %w", i, sv.Name, err)
		}
		if err := appendStored(&b, &rr, sv, name); err != nil {
			return nil, fmt.Errorf("row %d of %s: %w", i, sv.Name, err)
		}
	}
	return b.Finish(), nil
}

// ColumnCellBytes is the least memory one cell of DecodeColumn's column of
// sv's property name takes: 8 for a number, 4 for a string (its end
// offset; its bytes come on top), 1 for a bool; 0 when the latest version
// has no such property or no typed column holds it. storaged's adjacency
// cache checks its budget with it before decoding.
func ColumnCellBytes(sv *Schema, name string) int {
	latest := sv.Versions.Latest()
	col := latest.Index(name)
	if col < 0 {
		return 0
	}
	switch columnKindOf(latest.Columns[col].Type) {
	case commonpb.ColumnKind_COL_INT, commonpb.ColumnKind_COL_FLOAT:
		return 8
	case commonpb.ColumnKind_COL_STR:
		return 4
	case commonpb.ColumnKind_COL_BOOL:
		return 1
	}
	return 0
}

// columnKindOf is the typed column a property of type t fills, COL_ANY
// for a type no typed column holds (a timestamp, a date…).
func columnKindOf(t partition.PropType) commonpb.ColumnKind {
	switch t {
	case partition.PropInt64:
		return commonpb.ColumnKind_COL_INT
	case partition.PropDouble:
		return commonpb.ColumnKind_COL_FLOAT
	case partition.PropBool:
		return commonpb.ColumnKind_COL_BOOL
	case partition.PropString, partition.PropFixedString:
		return commonpb.ColumnKind_COL_STR
	}
	return commonpb.ColumnKind_COL_ANY
}

// EdgeColumns gives Neighbors.AddColumnSpan the decoded column of the
// stored property name of sv's out-edges, over the caller's numbering of
// edges (DecodeColumn): nil with ok true when every cell is NULL, ok
// false when it has none to give (the edges are then read one at a time).
type EdgeColumns func(sv *Schema, name string) (col *commonpb.Column, ok bool)

// AddColumnSpan takes the open vertex's edges of the open type at once,
// their stored properties from columns decoded ahead: tails are the
// edges' partition.EdgeKeyTail back to back, numbered from on in the
// caller's numbering of columns. It reports false, having taken nothing,
// when the edges must be read one at a time (AddTailRow): an answer not in
// packed columns, a filter, dedup_dst, a limit, a TTL, in-edges (a mirror
// value per edge), a key property (_src, _dst, _rank, _type), or no
// column from columns.
func (n *Neighbors) AddColumnSpan(tails []byte, from int, columns EdgeColumns) bool {
	req := n.req
	if !req.PackedEdges || n.fr != nil || n.seen != nil || n.limited || n.et < 0 || n.sv.ttlCol != "" || columns == nil {
		return false
	}
	tailLen := partition.EdgeTailLen(n.vidLen)
	count := len(tails) / tailLen
	if n.spanCols == nil {
		// One edge type per packed request: its columns are looked up
		// once, on its first vertex.
		n.spanCols = make([]*commonpb.Column, len(req.EdgeProps))
		n.spanOK = true
		for i, ref := range req.EdgeProps {
			if ref.SchemaId != n.et {
				continue // NULL cells
			}
			if _, key := edgeKeyProp(ref.Name, n.et, 0, nil, nil); key {
				n.spanOK = false
				break
			}
			col, ok := columns(n.sv, ref.Name)
			if !ok {
				n.spanOK = false
				break
			}
			n.spanCols[i] = col
		}
	}
	if !n.spanOK {
		return false
	}
	vn := n.vn
	if n.vidLen == 8 {
		// 8-byte vids move as one word each, not by a copy call per
		// edge (a tenth of storaged's CPU in GO 3 + props at c=8).
		dsts := slices.Grow(vn.PackedDsts, 8*count)
		for off := 0; off+tailLen <= len(tails); off += tailLen {
			tail := tails[off : off+tailLen]
			o := len(dsts)
			dsts = dsts[:o+8] // within the room grown above
			*(*[8]byte)(dsts[o:]) = [8]byte(partition.EdgeTailDst(tail, 8))
			vn.PackedRanks = append(vn.PackedRanks, partition.EdgeTailRank(tail))
		}
		vn.PackedDsts = dsts
	} else {
		for off := 0; off+tailLen <= len(tails); off += tailLen {
			tail := tails[off : off+tailLen]
			vn.PackedDsts = append(vn.PackedDsts, partition.EdgeTailDst(tail, n.vidLen)...)
			vn.PackedRanks = append(vn.PackedRanks, partition.EdgeTailRank(tail))
		}
	}
	for i, col := range n.spanCols {
		if col == nil {
			for range count {
				n.cols[i].AddNull()
			}
			continue
		}
		n.cols[i].AppendRange(col, from, from+count)
	}
	n.kept += int64(count)
	return true
}
