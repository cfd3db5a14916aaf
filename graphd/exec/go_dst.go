package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// GO's $$ properties: each distinct vertex the result edges reach is read
// once (GetPropColumns, one block of columns per partition), and each
// result row finds its destination's cells by an ordinal the edge was
// given when the destinations were deduplicated (goRun.dstOrds), so the
// projection does no lookup by vid: a GO 3 + props on soc-Slashdot0902
// has 75,000 rows but about a third as many distinct destinations, and
// the per-row map lookup was a quarter of the projection's time
// (docs/benchmarks.md, issue 22).

// dstProps are the $$ properties a GO fetched for its destinations.
type dstProps struct {
	vidLen int
	// ord8 (8-byte vids: INT64, FIXED_STRING(8)) or ordStr (any other
	// length) number the distinct destinations in the order first seen;
	// an 8-byte vid is a uint64 key, which hashes and compares faster
	// than a string.
	ord8   map[uint64]int32
	ordStr map[string]int32
	// entries are where each ordinal's properties are in the answer.
	entries []dstEntry
	found   int // destinations with vertex data
	// cols are the properties gathered by ordinal, one column per $$
	// property the plan fetched (goPlan.dstProps): cell o of column j is
	// property j of destination o, NULL when it has no vertex data. A row
	// reads its cell from one typed array instead of following its entry
	// into a block's column: two dependent cache misses become one.
	cols []*commonpb.Column
}

// dstEntry is where a destination's properties are: cell i of each of
// block's columns; block is nil when the vertex has no data.
type dstEntry struct {
	block *storagepb.PropColumns
	i     int
}

// newDstProps numbers destinations of vidLen bytes. The map grows as it
// fills: sized ahead for every edge's destination (a GO 3 has about three
// edges per distinct destination), its lookups were slower, in a table
// three times the size, than the growth they saved.
func newDstProps(vidLen int) *dstProps {
	d := &dstProps{vidLen: vidLen}
	if vidLen == 8 {
		d.ord8 = map[uint64]int32{}
	} else {
		d.ordStr = map[string]int32{}
	}
	return d
}

// ordinal numbers vid, the next ordinal if it is new (added).
func (d *dstProps) ordinal(vid []byte) (ord int32, added bool) {
	next := int32(len(d.entries))
	if d.ord8 != nil {
		k := binary.BigEndian.Uint64(vid)
		if o, ok := d.ord8[k]; ok {
			return o, false
		}
		d.ord8[k] = next
	} else {
		if o, ok := d.ordStr[string(vid)]; ok {
			return o, false
		}
		d.ordStr[string(vid)] = next
	}
	d.entries = append(d.entries, dstEntry{})
	return next, true
}

// lookup is vid's ordinal, or -1 for a vid that was not numbered.
func (d *dstProps) lookup(vid []byte) int32 {
	if len(vid) != d.vidLen {
		return -1
	}
	var o int32
	var ok bool
	if d.ord8 != nil {
		o, ok = d.ord8[binary.BigEndian.Uint64(vid)]
	} else {
		o, ok = d.ordStr[string(vid)]
	}
	if !ok {
		return -1
	}
	return o
}

// place records the answer: each block's vertices at their ordinals,
// once the block is checked to hold a column of n cells for each of the
// n properties asked. A vertex the request did not ask for is an error of
// storaged's, ignored.
//
// A block answers one partition's list of vids, in the list's order and
// without the vertices that have no data, so its vids are matched to the
// list (lists[part], whose ordinals are ords[part]) by walking both: no
// map lookup per vertex. A vid out of that order (an answer of another
// shape, or a vid never asked) ends the walk: it and the block's vids
// after it are looked up by map.
func (d *dstProps) place(blocks []*storagepb.PropColumns, props int, part func([]byte) int32, lists []*storagepb.VidList, ords [][]int32) error {
	for bi, b := range blocks {
		if len(b.PackedVids)%d.vidLen != 0 || len(b.Columns) != props {
			return fmt.Errorf("$$ property block %d: %d bytes of vids (%d-byte vids) and %d columns for %d properties",
				bi, len(b.PackedVids), d.vidLen, len(b.Columns), props)
		}
		for j, c := range b.Columns {
			if err := c.Check(len(b.PackedVids) / d.vidLen); err != nil {
				return fmt.Errorf("$$ property block %d, column %d: %w", bi, j, err)
			}
		}
	}
	for _, b := range blocks {
		n := len(b.PackedVids) / d.vidLen
		if n == 0 {
			continue
		}
		var list [][]byte
		var listOrds []int32
		if pt := part(b.PackedVids[:d.vidLen]); pt >= 0 && int(pt) < len(lists) && lists[pt] != nil {
			list, listOrds = lists[pt].Vids, ords[pt]
		}
		k := 0 // the list's next vid
		for i := range n {
			vid := b.PackedVids[i*d.vidLen : (i+1)*d.vidLen]
			for k < len(list) && !bytes.Equal(list[k], vid) {
				k++
			}
			o := int32(-1)
			if k < len(list) {
				o = listOrds[k]
				k++
			} else {
				o = d.lookup(vid)
			}
			if o >= 0 {
				d.entries[o] = dstEntry{b, i}
				d.found++
			}
		}
	}
	return nil
}

// gather builds cols from the entries, n columns, and returns their
// memory (strings are copied in, from the answer's blocks).
func (d *dstProps) gather(n int, vids vidCodec) int64 {
	d.cols = make([]*commonpb.Column, n)
	var size int64
	for j := range n {
		var b commonpb.ColumnBuilder
		b.Reserve(len(d.entries), commonpb.ColumnKind_COL_ANY)
		for _, e := range d.entries {
			if e.block == nil || j >= len(e.block.Columns) {
				b.AddNull()
				continue
			}
			columnCell(e.block.Columns[j], e.i).appendTo(&b, vids)
		}
		size += b.Bytes()
		d.cols[j] = b.Finish()
	}
	return size
}

// cell is property j of the destination of the row rc is on, as goRowContext.cell
// reads it.
func (d *dstProps) cell(rc *goRowContext, j int) goCell {
	if d == nil || rc.run == nil || rc.edge >= len(rc.run.dstOrds) || j >= len(d.cols) {
		return goCell{}
	}
	return columnCell(d.cols[j], int(rc.run.dstOrds[rc.edge]))
}

// len is how many destinations have data.
func (d *dstProps) len() int {
	if d == nil {
		return 0
	}
	return d.found
}

// fetchDst reads the $$ properties of every distinct destination and gives
// each run's edges their destinations' ordinals (goRun.dstOrds).
//
// Memory: the ordinals, the dedup map and the per-partition vid lists are
// charged as they grow (a GO whose rows reach half a million distinct
// vertices holds tens of MB in them), and storaged's answer per host as it
// arrives, so that the limit stops the fetch on the way instead of after
// every host answered.
func (p *goPlan) fetchDst(ctx context.Context, runs []goRun) (*dstProps, error) {
	mem := BudgetOf(ctx)
	const what = "fetching $$ properties for GO"
	vidLen := int(p.space.GetVidLen())
	d := newDstProps(vidLen)
	// Each partition's vids and their ordinals, by partition id (1 to
	// partition_num).
	lists := make([]*storagepb.VidList, p.space.GetPartitionNum()+1)
	ords := make([][]int32, len(lists))
	var listed int64 // bytes of the ordinals, map and lists charged and not yet checked
	for ri := range runs {
		if listed > 64<<10 {
			if err := mem.Grow(listed, what); err != nil {
				return nil, err
			}
			listed = 0
		}
		run := &runs[ri]
		n := run.edges(vidLen)
		run.dstOrds = make([]int32, n)
		listed += sliceBytes + 4*int64(n)
		for i := range n {
			v := run.dst(i, vidLen)
			ord, added := d.ordinal(v)
			run.dstOrds[i] = ord
			if !added {
				continue
			}
			pt := p.vids.part(v)
			if lists[pt] == nil {
				lists[pt] = &storagepb.VidList{}
			}
			lists[pt].Vids = append(lists[pt].Vids, v)
			ords[pt] = append(ords[pt], ord)
			// A map entry with its key, an entry, an ordinal and a slice
			// header in the list (the vid itself aliases the storage
			// response, charged already).
			listed += mapEntryBytes + stringBytes + int64(len(v)) + dstEntryBytes + 4 + sliceBytes
		}
	}
	if err := mem.Grow(listed, what); err != nil {
		return nil, err
	}
	parts := map[int32]*storagepb.VidList{}
	for pt, l := range lists {
		if l != nil {
			parts[int32(pt)] = l
		}
	}
	req := &storagepb.GetPropsReq{SpaceId: p.space.GetSpaceId(), CatalogVersion: p.version, Props: p.dstProps, PackedStrings: true}
	var onBlocks func([]*storagepb.PropColumns) error
	if mem != nil {
		onBlocks = func(blocks []*storagepb.PropColumns) error {
			return mem.Grow(propColumnsSize(blocks), what)
		}
	}
	blocks, err := p.r.x.storage.GetPropColumns(ctx, req, parts, onBlocks)
	if err != nil {
		if e, ok := isLimitError(err); ok {
			return nil, e
		}
		return nil, storageError("GO fetching $$ properties", err)
	}
	if err := d.place(blocks, len(p.dstProps), p.vids.part, lists, ords); err != nil {
		return nil, storageError("GO fetching $$ properties", err)
	}
	if err := mem.Grow(d.gather(len(p.dstProps), p.vids), what); err != nil {
		return nil, err
	}
	return d, nil
}

// dstEntryBytes is the memory of one dstEntry.
const dstEntryBytes = pointerBytes + 8

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

// dstEntry is the fetched $$ properties' entry of the row's destination.
func (c *goRowContext) dstEntry() dstEntry {
	if c.dst == nil || c.run == nil || c.edge >= len(c.run.dstOrds) {
		return dstEntry{}
	}
	return c.dst.entries[c.run.dstOrds[c.edge]]
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
