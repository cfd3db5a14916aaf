package source

import (
	"context"
	"os"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// maxBatchBytes flushes a batch early when its text gets that large (keeps
// arena offsets far below 2 GiB and memory bounded for wide records).
const maxBatchBytes = 32 << 20

// DefaultBatch is the batch size Read uses when given batch <= 0.
const DefaultBatch = 1024

// Read streams the records of all files of the source, in order, to fn in
// batches of up to batch records (DefaultBatch if batch <= 0). The first
// skip records (by Index) are read but not delivered: an importer resuming
// after a stop passes the number of records it has finished.
//
// The slice fn gets, and each record's Fields and Nulls, are reused once fn
// returns: copy what you keep (see Record). Malformed rows are records with
// Err set and do not stop the stream. Read stops at the first error fn
// returns (and returns it), at an I/O error (returned naming the file and
// the line or row reached, after the records completed before it were
// delivered) and when ctx is done (ctx.Err()).
//
// Read is sequential; run several sources in parallel, one Read each.
func (s *Source) Read(ctx context.Context, skip int64, batch int, fn func([]Record) error) error {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if skip < 0 {
		skip = 0
	}
	b := newBatcher(ctx, batch, fn, s.opts.RowIndexColumn)
	for _, path := range s.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.partValues = s.partValues[path]
		format, err := s.formatOf(path)
		if err == nil {
			if format == FormatParquet {
				err = s.readParquet(b, path, skip)
				if st, serr := os.Stat(path); serr == nil && err == nil {
					s.done.Add(st.Size())
				}
			} else {
				err = s.readText(b, path, format, skip)
			}
		}
		if err != nil {
			if b.fnErr != nil || b.ctx.Err() != nil {
				return err
			}
			// Hand over what was complete; fn's own error wins if it fails.
			if ferr := b.flush(); ferr != nil {
				return ferr
			}
			return err
		}
	}
	return b.flush()
}

// batcher collects the records of one batch. Field bytes of the whole batch
// go into one arena that becomes one string at flush, so a batch costs a
// handful of allocations whatever its size.
type batcher struct {
	ctx      context.Context
	fn       func([]Record) error
	fnErr    error
	n        int
	rowIndex bool
	// partValues are appended to every well-formed record of the file
	// being read: its partition columns.
	partValues []partValue

	recs  []Record
	nf    []int32 // fields per record
	arena []byte
	ends  []int32 // end offset in arena of each field
	nulls []int32 // indexes (in ends) of NULL fields, ascending

	start int // len(ends) when the current record began

	strs     []string // backing store of Fields
	nullBack []bool   // backing store of Nulls

	next int64 // Index of the next record

	lineBuf []byte        // text line buffer, reused from file to file
	pqRows  []parquet.Row // parquet row buffer, reused from file to file
}

func newBatcher(ctx context.Context, n int, fn func([]Record) error, rowIndex bool) *batcher {
	return &batcher{
		ctx:      ctx,
		fn:       fn,
		n:        n,
		rowIndex: rowIndex,
		recs:     make([]Record, 0, n),
		nf:       make([]int32, 0, n),
		arena:    make([]byte, 0, 64*1024),
		ends:     make([]int32, 0, 4*n),
	}
}

// field appends one complete field to the current record.
func (b *batcher) field(p []byte) {
	b.arena = append(b.arena, p...)
	b.ends = append(b.ends, int32(len(b.arena)))
}

// put appends bytes to the field under construction; end completes it.
func (b *batcher) put(p []byte) { b.arena = append(b.arena, p...) }
func (b *batcher) putByte(c byte) {
	b.arena = append(b.arena, c)
}
func (b *batcher) end() { b.ends = append(b.ends, int32(len(b.arena))) }

// null appends a NULL field.
func (b *batcher) null() {
	b.nulls = append(b.nulls, int32(len(b.ends)))
	b.ends = append(b.ends, int32(len(b.arena)))
}

// fields is the number of fields of the current record so far.
func (b *batcher) fields() int { return len(b.ends) - b.start }

// fieldBytes returns field i of the current record (valid until the next
// append).
func (b *batcher) fieldBytes(i int) []byte {
	k := b.start + i
	lo := int32(0)
	if k > 0 {
		lo = b.ends[k-1]
	}
	return b.arena[lo:b.ends[k]]
}

// drop discards the fields of the current record.
func (b *batcher) drop() {
	if b.start > 0 {
		b.arena = b.arena[:b.ends[b.start-1]]
	} else {
		b.arena = b.arena[:0]
	}
	b.ends = b.ends[:b.start]
	for len(b.nulls) > 0 && int(b.nulls[len(b.nulls)-1]) >= b.start {
		b.nulls = b.nulls[:len(b.nulls)-1]
	}
}

// commit makes the current record's fields one record, with the next Index.
// It flushes a full batch; the error is fn's (or ctx's).
func (b *batcher) commit(file string, line int64, err error) error {
	if err == nil {
		for _, v := range b.partValues {
			if v.null {
				b.null()
			} else {
				b.arena = append(b.arena, v.text...)
				b.end()
			}
		}
	}
	if b.rowIndex && err == nil {
		b.arena = strconv.AppendInt(b.arena, b.next, 10)
		b.end()
	}
	b.recs = append(b.recs, Record{File: file, Line: line, Index: b.next, Err: err})
	b.nf = append(b.nf, int32(len(b.ends)-b.start))
	b.start = len(b.ends)
	b.next++
	if len(b.recs) >= b.n || len(b.arena) >= maxBatchBytes {
		return b.flush()
	}
	return nil
}

// skipped discards the current record's fields and counts it as read.
func (b *batcher) skipped() {
	b.drop()
	b.next++
}

// flush hands the batch to fn.
func (b *batcher) flush() error {
	if len(b.recs) == 0 {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	s := string(b.arena)
	if cap(b.strs) < len(b.ends) {
		b.strs = make([]string, len(b.ends), len(b.ends)+len(b.ends)/4)
	}
	strs := b.strs[:len(b.ends)]
	lo := int32(0)
	for i, hi := range b.ends {
		strs[i] = s[lo:hi]
		lo = hi
	}
	var nullBack []bool
	if len(b.nulls) > 0 {
		if cap(b.nullBack) < len(b.ends) {
			b.nullBack = make([]bool, len(b.ends))
		}
		nullBack = b.nullBack[:len(b.ends)]
		clear(nullBack)
		for _, k := range b.nulls {
			nullBack[k] = true
		}
	}
	f, ni := 0, 0
	for i := range b.recs {
		r := &b.recs[i]
		k := int(b.nf[i])
		r.Fields = strs[f : f+k : f+k]
		r.Nulls = nil
		for ni < len(b.nulls) && int(b.nulls[ni]) < f+k {
			r.Nulls = nullBack[f : f+k : f+k]
			ni++
		}
		f += k
	}
	err := b.fn(b.recs)
	clear(b.recs) // drop references to the batch's strings and errors
	b.recs = b.recs[:0]
	b.nf = b.nf[:0]
	b.arena = b.arena[:0]
	b.ends = b.ends[:0]
	b.nulls = b.nulls[:0]
	b.start = 0
	if err != nil {
		b.fnErr = err
	}
	return err
}
