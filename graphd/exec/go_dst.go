package exec

import (
	"encoding/binary"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// dstProps are the $$ properties a GO fetched for its destinations, as
// storage answered them in columns (GetPropColumns: a block per
// partition), indexed by vid. An 8-byte vid (INT64, FIXED_STRING(8)) is
// looked up as a uint64, which hashes and compares faster than a string:
// the lookup is once per result row, 75,000 times in a GO 3 + props.
type dstProps struct {
	blocks []*storagepb.PropColumns
	vidLen int
	by8    map[uint64]dstEntry // vidLen 8
	byStr  map[string]dstEntry // any other vid length
}

// dstEntry is where a destination's properties are: cell i of each of
// block's columns; block is nil when the vertex has no data.
type dstEntry struct {
	block *storagepb.PropColumns
	i     int
}

func newDstProps(blocks []*storagepb.PropColumns, vidLen int) *dstProps {
	d := &dstProps{blocks: blocks, vidLen: vidLen}
	n := dstCount(blocks, vidLen)
	if vidLen == 8 {
		d.by8 = make(map[uint64]dstEntry, n)
	} else {
		d.byStr = make(map[string]dstEntry, n)
	}
	for _, b := range blocks {
		for i := 0; (i+1)*vidLen <= len(b.PackedVids); i++ {
			vid := b.PackedVids[i*vidLen : (i+1)*vidLen]
			if d.by8 != nil {
				d.by8[binary.BigEndian.Uint64(vid)] = dstEntry{b, i}
			} else {
				d.byStr[string(vid)] = dstEntry{b, i}
			}
		}
	}
	return d
}

// find returns vid's entry; a zero entry when it has no data.
func (d *dstProps) find(vid []byte) dstEntry {
	if d == nil || len(vid) != d.vidLen {
		return dstEntry{}
	}
	if d.by8 != nil {
		return d.by8[binary.BigEndian.Uint64(vid)]
	}
	return d.byStr[string(vid)]
}

// len is how many destinations have data.
func (d *dstProps) len() int {
	if d == nil {
		return 0
	}
	return len(d.by8) + len(d.byStr)
}

// dstCount is how many vertices the blocks hold.
func dstCount(blocks []*storagepb.PropColumns, vidLen int) int {
	n := 0
	for _, b := range blocks {
		n += len(b.PackedVids) / max(vidLen, 1)
	}
	return n
}

// propColumnsSize estimates the memory of decoded GetPropColumns blocks.
func propColumnsSize(blocks []*storagepb.PropColumns) int64 {
	var n int64
	for _, b := range blocks {
		n += pointerBytes + protoStruct + int64(len(b.PackedVids))
		for _, c := range b.Columns {
			n += pointerBytes + columnSize(c)
		}
	}
	return n
}

// dstEntry is the fetched $$ properties' entry of the row's destination,
// looked up once per row.
func (c *goRowContext) dstEntry() dstEntry {
	if !c.dstKnown {
		c.dstAt, c.dstKnown = c.dst.find(c.row.dst), true
	}
	return c.dstAt
}

// dstValueList is the row's destination's $$ properties as wire values,
// parallel to the plan's dstProps (properties($$), $$ as a vertex); nil
// when it has no data.
func (c *goRowContext) dstValueList() []*commonpb.Value {
	e := c.dstEntry()
	if e.block == nil {
		return nil
	}
	vals := make([]*commonpb.Value, len(e.block.Columns))
	for j, col := range e.block.Columns {
		vals[j] = col.Cell(e.i)
	}
	return vals
}
