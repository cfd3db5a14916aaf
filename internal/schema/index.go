package schema

import (
	"fmt"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
)

// IndexLayout is one index with the layout of its entries' values: the
// bytes between the index id and the vid in partition.TagIndexKey and
// EdgeIndexKey. storaged's write path and the importer's SST writer both
// build entries with it, so they cannot disagree.
type IndexLayout struct {
	Desc      *metapb.IndexDesc
	Cols      []int // column of each field in the latest schema, -1 if gone
	Types     []partition.PropType
	Widths    []int
	ValuesLen int
}

// NewIndexLayout lays out desc's fields over the latest schema.
func NewIndexLayout(desc *metapb.IndexDesc, latest *partition.Schema) *IndexLayout {
	ix := &IndexLayout{Desc: desc}
	for _, f := range desc.GetFields() {
		col := latest.Index(f.GetName())
		t, fixed := partition.PropInt64, 0
		if col >= 0 {
			t, fixed = latest.Columns[col].Type, latest.Columns[col].FixedLen
		}
		w := partition.IndexValueWidth(t, fixed, int(f.GetPrefixLen()))
		ix.Cols = append(ix.Cols, col)
		ix.Types = append(ix.Types, t)
		ix.Widths = append(ix.Widths, w)
		ix.ValuesLen += 1 + w
	}
	return ix
}

// Values encodes the indexed fields of a row laid out as the latest schema.
func (ix *IndexLayout) Values(vals []any) ([]byte, error) {
	b := make([]byte, 0, ix.ValuesLen)
	for i, col := range ix.Cols {
		var v any
		if col >= 0 && col < len(vals) {
			v = vals[col]
		}
		var err error
		if b, err = partition.AppendIndexValue(b, ix.Types[i], ix.Widths[i], v); err != nil {
			return nil, fmt.Errorf("index %q: %w", ix.Desc.GetName(), err)
		}
	}
	return b, nil
}
