package floor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/partition"
)

// Ids of the floor's keys. metad assigns real ones; their values only
// change bytes of the key prefix, never its length or order.
const (
	DefaultSpaceID  int32 = 1
	DefaultTagID    int32 = 1
	DefaultEdgeType int32 = 1
)

// DefaultPartitions is the partition count when Options leaves it 0.
const DefaultPartitions = 10

// Options configure a floor store.
type Options struct {
	// Dir is the RocksDB directory; empty means a new temporary directory
	// that Close removes.
	Dir string
	// Partitions is the space's partition_num: a vertex's keys go to
	// partition.PartOfInt64(vid, Partitions), as in storaged.
	Partitions int32
	// SpaceID, TagID and EdgeType default to 1.
	SpaceID, TagID, EdgeType int32
	// RocksDB tunes the instance as storaged's are tuned (zero fields take
	// rocksopts.Default, as storaged does); RateLimitMB is
	// ignored, and the block cache is this instance's own.
	RocksDB rocksopts.Options
	// NoCompact leaves the loaded data in the memtable and L0 instead of
	// compacting it into SST files (storaged's data after a bulk load is
	// usually compacted: SUBMIT JOB COMPACT, or the importer's SST mode).
	NoCompact bool
}

// Floor is an in-process RocksDB holding the keys novagraph stores for a
// graph, and the k-hop reads GO does on them. See the package doc.
type Floor struct {
	db    *grocksdb.DB
	cache *grocksdb.Cache
	opts  Options
	tmp   string // a temporary Dir to remove on Close
	// Edges and Vertices loaded.
	Edges, Vertices int64
}

// Open creates (or opens) the store.
func Open(opts Options) (*Floor, error) {
	if opts.Partitions == 0 {
		opts.Partitions = DefaultPartitions
	}
	if opts.Partitions < 0 {
		return nil, fmt.Errorf("floor: %d partitions, want > 0", opts.Partitions)
	}
	if opts.SpaceID == 0 {
		opts.SpaceID = DefaultSpaceID
	}
	if opts.TagID == 0 {
		opts.TagID = DefaultTagID
	}
	if opts.EdgeType == 0 {
		opts.EdgeType = DefaultEdgeType
	}
	if opts.EdgeType < 0 {
		return nil, fmt.Errorf("floor: edge type %d, want > 0 (the out-edge's)", opts.EdgeType)
	}
	ro, err := opts.RocksDB.WithDefaults()
	if err != nil {
		return nil, err
	}
	opts.RocksDB = ro
	f := &Floor{opts: opts}
	if opts.Dir == "" {
		dir, err := os.MkdirTemp("", "nova-floor-")
		if err != nil {
			return nil, err
		}
		f.tmp, f.opts.Dir = dir, dir
	}
	f.cache = grocksdb.NewLRUCache(uint64(ro.BlockCacheMB) << 20)
	dbOpts, bbto, err := rocksopts.New(ro, f.cache)
	if err != nil {
		f.Close()
		return nil, err
	}
	db, err := grocksdb.OpenDb(dbOpts, f.opts.Dir)
	dbOpts.Destroy()
	bbto.Destroy()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("floor: opening RocksDB in %s: %w", f.opts.Dir, err)
	}
	f.db = db
	return f, nil
}

// Options returns the options in effect.
func (f *Floor) Options() Options { return f.opts }

// DB is the RocksDB instance (tests, diagnostics).
func (f *Floor) DB() *grocksdb.DB { return f.db }

// Close closes the store and removes a temporary directory.
func (f *Floor) Close() error {
	if f.db != nil {
		f.db.Close()
		f.db = nil
	}
	if f.cache != nil {
		f.cache.Destroy()
		f.cache = nil
	}
	if f.tmp != "" {
		err := os.RemoveAll(f.tmp)
		f.tmp = ""
		return err
	}
	return nil
}

// edgeSchema is the row schema of the floor's edges: knows(creationDate
// int), so that a value has the size of a real knows row.
var edgeSchema = &partition.Schema{Columns: []partition.Column{{Name: "creationDate", Type: partition.PropInt64, Nullable: true}}}

// tagSchema is a property-less tag row (TAG node()).
var tagSchema = &partition.Schema{}

// loadBatch is the number of keys per WriteBatch.
const loadBatch = 20000

// Load writes g as storaged stores it: per vertex a tag row (TagKey) and
// its stored degrees (DegreeKey, out and in), per edge the out-edge in its
// source's partition (EdgeKey, edgeType, value = the row) and the in-edge
// in its destination's (EdgeKey, -edgeType, src and dst swapped, value =
// version and row, EncodeInEdge), rank 0. Then, unless NoCompact, it
// flushes and compacts so that reads see settled SST files.
func (f *Floor) Load(g *driver.Graph) error {
	if g.Summary() {
		return fmt.Errorf("floor: %s was loaded as a summary (a sample of its edges): the floor needs every edge", g.Source)
	}
	sp, parts, et := f.opts.SpaceID, f.opts.Partitions, f.opts.EdgeType
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	wo.DisableWAL(true) // a bench load: Flush below makes it durable
	b := grocksdb.NewWriteBatch()
	defer b.Destroy()
	flush := func(force bool) error {
		if b.Count() == 0 || !force && b.Count() < loadBatch {
			return nil
		}
		if err := f.db.Write(wo, b); err != nil {
			return fmt.Errorf("floor: load: %w", err)
		}
		b.Clear()
		return nil
	}
	tagRow, err := partition.EncodeRow(tagSchema, nil)
	if err != nil {
		return err
	}
	deg := g.OutDegree()
	in := make(map[int64]uint64, len(g.Vertices))
	for _, e := range g.Edges {
		in[e.Dst]++
	}
	for i, v := range g.Vertices {
		vid := partition.EncodeInt64Vid(v)
		p := partition.PartOfInt64(v, parts)
		b.Put(partition.TagKey(sp, p, vid, f.opts.TagID), tagRow)
		if deg[i] > 0 {
			b.Put(partition.DegreeKey(sp, p, vid, et), partition.EncodeDegree(uint64(deg[i])))
		}
		if in[v] > 0 {
			b.Put(partition.DegreeKey(sp, p, vid, -et), partition.EncodeDegree(in[v]))
		}
		if err := flush(false); err != nil {
			return err
		}
	}
	for i, e := range g.Edges {
		row, err := partition.EncodeRow(edgeSchema, []any{int64(1262304000000 + i)})
		if err != nil {
			return err
		}
		src, dst := partition.EncodeInt64Vid(e.Src), partition.EncodeInt64Vid(e.Dst)
		b.Put(partition.EdgeKey(sp, partition.PartOfInt64(e.Src, parts), src, et, 0, dst), row)
		b.Put(partition.EdgeKey(sp, partition.PartOfInt64(e.Dst, parts), dst, -et, 0, src),
			partition.EncodeInEdge(partition.InEdgeVersion{Index: uint64(i + 1)}, row))
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	f.Vertices += int64(len(g.Vertices))
	f.Edges += int64(len(g.Edges))
	if f.opts.NoCompact {
		return nil
	}
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	if err := f.db.Flush(fo); err != nil {
		return fmt.Errorf("floor: flush: %w", err)
	}
	f.db.CompactRange(grocksdb.Range{})
	return nil
}

// Reader runs k-hop reads. It holds one RocksDB iterator and the frontier
// buffers; it is not safe for concurrent use (one per worker).
type Reader struct {
	f        *Floor
	ro       *grocksdb.ReadOptions
	it       *grocksdb.Iterator
	frontier []int64
	next     []int64
	seen     map[int64]struct{}
	dsts     []byte // the last step's dsts, copied out as GetNeighbors does
}

// NewReader returns a reader. Its iterator reads in prefix mode (default
// ReadOptions, no total order), as storaged's edge scans do (rocksopts.SetEdgeScan):
// each Seek to a vertex's EdgePrefix skips the SST files and memtables
// whose prefix bloom lacks the vertex.
func (f *Floor) NewReader() *Reader {
	ro := grocksdb.NewDefaultReadOptions()
	return &Reader{f: f, ro: ro, it: f.db.NewIterator(ro), seen: map[int64]struct{}{}}
}

// Close releases the iterator.
func (r *Reader) Close() {
	r.it.Close()
	r.ro.Destroy()
}

// errMalformed reports an edge key of the wrong length.
var errMalformed = errors.New("floor: malformed edge key")

// scan visits the out-edges of v (one prefix scan of its EdgePrefix) and
// calls fn with each destination's encoded vid.
func (r *Reader) scan(v int64, fn func(dst []byte)) error {
	o := r.f.opts
	prefix := partition.EdgePrefix(o.SpaceID, partition.PartOfInt64(v, o.Partitions), partition.EncodeInt64Vid(v), o.EdgeType)
	keyLen := partition.EdgeKeyLen(partition.Int64VidLen)
	it := r.it
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		key := it.Key().Data()
		if len(key) != keyLen { // EdgeKeyDst's precondition
			return fmt.Errorf("%w: %x", errMalformed, key)
		}
		fn(partition.EdgeKeyDst(key, partition.Int64VidLen))
	}
	return it.Err()
}

// Go answers GO steps STEPS FROM start OVER the edge type YIELD dst(edge)
// and returns its row count: the frontier of step 1 is {start}; the
// destinations of step k, deduplicated, are the frontier of step k+1 (no
// visited set: a vertex may come back); the result is every edge leaving
// the last frontier, duplicates included. The destinations of the last
// step are copied out, as a result would be.
func (r *Reader) Go(steps int, start int64) (int64, error) {
	if steps < 1 {
		return 0, fmt.Errorf("floor: %d steps, want >= 1", steps)
	}
	r.frontier = append(r.frontier[:0], start)
	var rows int64
	for step := 1; step <= steps; step++ {
		last := step == steps
		r.next = r.next[:0]
		r.dsts = r.dsts[:0]
		clear(r.seen)
		for _, v := range r.frontier {
			err := r.scan(v, func(dst []byte) {
				if last {
					r.dsts = append(r.dsts, dst...)
					rows++
					return
				}
				d, _ := partition.DecodeInt64Vid(dst) // length checked in scan
				if _, dup := r.seen[d]; !dup {
					r.seen[d] = struct{}{}
					r.next = append(r.next, d)
				}
			})
			if err != nil {
				return 0, err
			}
		}
		r.frontier, r.next = r.next, r.frontier
		if len(r.frontier) == 0 && !last {
			return 0, nil
		}
	}
	return rows, nil
}

// Scenarios are what the floor can run: the plain k-hop GO scenarios of
// driver.Scenarios (those with Steps > 0), under the same names.
func Scenarios() []driver.Scenario {
	var out []driver.Scenario
	for _, s := range driver.Scenarios {
		if s.Steps > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Steps returns the GO steps of a floor scenario by name.
func Steps(name string) (int, error) {
	for _, s := range Scenarios() {
		if strings.EqualFold(s.Name, name) {
			return s.Steps, nil
		}
	}
	return 0, fmt.Errorf("the floor has no scenario %q (valid: %s)", name, strings.Join(driver.ScenarioNames(Scenarios()), ", "))
}

// Target returns a driver.Target running GO steps STEPS from each input's
// ID on f, one Reader per worker.
func (f *Floor) Target(steps int) driver.Target { return &target{f: f, steps: steps} }

type target struct {
	f     *Floor
	steps int
}

func (t *target) Open(_ context.Context, _ int) (driver.Op, func(), error) {
	r := t.f.NewReader()
	op := func(_ context.Context, in driver.Input) driver.Outcome {
		n, err := r.Go(t.steps, in.ID)
		return driver.Outcome{Rows: n, Err: err}
	}
	return op, r.Close, nil
}
