package importer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// SST mode.
//
// Rows are mapped exactly as in online mode, but instead of being sent,
// each write becomes the keys the write path would have stored — the tag
// row; the out-edge in the source's partition and the in-edge in the
// destination's — and goes into an external sort per partition (sort.go).
// Once every source is read, each partition's keys are merged in order
// (the last write of a key wins, as it would online) and written with
// RocksDB's SstFileWriter, opened with storaged's own options so the files
// carry the same filters and compression. The same pass derives what the
// write path maintains from the final rows: index entries (sorted again,
// since they order by value) and degrees (counted from the sorted edges,
// which come in degree-key order). Each partition gets up to three files,
// data, index and degree, whose key ranges never overlap.
//
// The files are uploaded to every replica of their partition and ingested
// through the partition's raft log (storaged/ingest.go), into a live space:
// what was there stays, a key in the files replaces it, and storaged
// recounts a partition's degrees when it held edges before.
//
// --shard i/n makes this process import only rows whose index in their
// source is i modulo n, so n machines (or Spark tasks) can each build and
// ingest their share; ingests of different shards commute.

// sstBuilder holds the sort of every partition of one import.
type sstBuilder struct {
	space       *metapb.SpaceDesc
	dir         string // working folder, removed at the end unless a rerun can resume from it
	id          string // names this import's files and folder
	budget      int64  // bytes the sorts may hold before spilling
	compression string // of the SST files (Manager.SSTCompression)
	log         *slog.Logger
	tagIdx      map[int32]*indexedSchema
	edgeIdx     map[int32]*indexedSchema

	mu    sync.Mutex
	parts map[int32]*sorter
	held  int64

	stats sstStats
	radix sortScratch // the sorts' buffers, reused from partition to partition

	// manifest records what is built and shipped (sstresume.go);
	// resumed says it came from an earlier run that built everything.
	manifestMu sync.Mutex
	manifest   *sstManifest
	resumed    bool

	// afterUpload, if set (tests), runs between a partition's upload and
	// its ingest; an error fails that partition's ship.
	afterUpload func(part int32) error
}

// GoMemoryLimit is the Go soft memory limit an importer process running
// cfg should set, 0 for none. In SST mode the sort holds up to
// manager.sstMemoryMB; the sort's buffers (68 bytes an entry of each
// partition being built) add about a quarter, the rest 128 MiB. Without
// a limit the collector lets the heap grow to twice what is live: an SF10
// import with the default 1 GiB budget took 1.7–1.8 GB of RSS, and 1.36 GB
// under this limit, at the same speed (docs/benchmarks.md).
func GoMemoryLimit(cfg *Config) int64 {
	if cfg.Manager.Mode != "sst" {
		return 0
	}
	b := int64(cfg.Manager.SSTMemoryMB) << 20
	return b + b/4 + 128<<20
}

// indexedSchema is a tag or edge type with indexes: its rows are decoded
// to build their entries.
type indexedSchema struct {
	versions *schema.Versions
	indexes  []*schema.IndexLayout
}

type sstStats struct {
	keys, bytes, files atomic.Int64
	// runs and runBytes are the sort runs spilled to the working folder
	// (compressed), all partitions together.
	runs, runBytes atomic.Int64
}

// newSSTBuilder prepares the working folder of the import named key (see
// sstresume.go): if an earlier run of it built every partition, the
// builder resumes from there (b.resumed) unless restart is set.
func newSSTBuilder(snap *catalog.Snapshot, space *metapb.SpaceDesc, dir, key string, restart bool, budget int64, compression string, log *slog.Logger) (*sstBuilder, error) {
	h := sha256.Sum256([]byte(key))
	b := &sstBuilder{space: space, id: hex.EncodeToString(h[:6]), budget: budget, compression: compression, log: log,
		parts: map[int32]*sorter{}, tagIdx: map[int32]*indexedSchema{}, edgeIdx: map[int32]*indexedSchema{}}
	b.dir = filepath.Join(dir, "nova-sst-"+b.id)
	if m := loadManifest(b.dir, key); m != nil && !restart {
		b.manifest, b.resumed = m, true
		return b, nil
	}
	if err := os.RemoveAll(b.dir); err != nil {
		return nil, fmt.Errorf("sst working folder: %w", err)
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, fmt.Errorf("sst working folder: %w", err)
	}
	b.manifest = &sstManifest{Key: key, Parts: map[int32]*manifestPart{}}
	sid := space.GetSpaceId()
	for _, t := range snap.Tags(sid) {
		if ixs := snap.IndexesOn(sid, false, t.GetTagId()); len(ixs) > 0 {
			b.tagIdx[t.GetTagId()] = newIndexedSchema(t.GetVersions(), ixs)
		}
	}
	for _, e := range snap.Edges(sid) {
		if ixs := snap.IndexesOn(sid, true, e.GetEdgeType()); len(ixs) > 0 {
			b.edgeIdx[e.GetEdgeType()] = newIndexedSchema(e.GetVersions(), ixs)
		}
	}
	return b, nil
}

func newIndexedSchema(versions []*metapb.Schema, ixs []*metapb.IndexDesc) *indexedSchema {
	is := &indexedSchema{versions: schema.NewVersions(versions)}
	for _, ix := range ixs {
		is.indexes = append(is.indexes, schema.NewIndexLayout(ix, is.versions.Latest()))
	}
	return is
}

// close removes the working folder, unless keep is set and a rerun can
// resume from it (every partition built, some not shipped).
func (b *sstBuilder) close(keep bool) {
	b.manifestMu.Lock()
	resumable := b.manifest != nil && b.manifest.Complete
	b.manifestMu.Unlock()
	if keep && resumable {
		return
	}
	os.RemoveAll(b.dir)
}

func (b *sstBuilder) partOf(vid []byte) int32 {
	return partition.PartOf(vid, partition.VidType(b.space.GetVidType()), b.space.GetPartitionNum())
}

// add sorts the keys of a round's writes in.
func (b *sstBuilder) add(ws []write) error {
	sp := b.space.GetSpaceId()
	b.mu.Lock()
	defer b.mu.Unlock()
	sorterOf := func(part int32) *sorter {
		s := b.parts[part]
		if s == nil {
			s = &sorter{dir: b.dir, name: fmt.Sprintf("p%d", part), scratch: &b.radix, stats: &b.stats}
			b.parts[part] = s
		}
		return s
	}
	put := func(part int32, k, v []byte) {
		s := sorterOf(part)
		before := s.held()
		s.add(k, v)
		b.held += s.held() - before
	}
	for i := range ws {
		w := &ws[i]
		switch {
		case w.delete:
			return fmt.Errorf("SST mode writes only: DELETE mode needs online mode")
		case w.vertex != nil:
			for _, t := range w.vertex.Tags {
				if err := checkSortRow(len(t.Row)); err != nil {
					return err
				}
				put(w.part, partition.TagKey(sp, w.part, w.vertex.Vid, t.TagId), t.Row)
			}
		default:
			e := w.edge
			if err := checkSortRow(len(e.Row)); err != nil {
				return err
			}
			out := sorterOf(w.part)
			h := out.held()
			out.addEdge(sp, w.part, e.Src, e.EdgeType, e.Rank, e.Dst, false, e.Row)
			b.held += out.held() - h
			dp := b.partOf(e.Dst)
			in := sorterOf(dp)
			h = in.held()
			in.addEdge(sp, dp, e.Dst, -e.EdgeType, e.Rank, e.Src, true, e.Row)
			b.held += in.held() - h
		}
	}
	for b.held > b.budget {
		var big *sorter
		for _, s := range b.parts {
			if big == nil || s.held() > big.held() {
				big = s
			}
		}
		before := big.held()
		if err := big.spill(); err != nil {
			return err
		}
		b.held -= before - big.held()
	}
	return nil
}

// maxSortRow is the largest row SST mode sorts: the sort keeps lengths in
// 31 bits, with room for an in-edge's version and a key.
const maxSortRow = 1<<30 - 1

// checkSortRow refuses a row the sort cannot hold, instead of the panic
// of the sorter's own check.
func checkSortRow(n int) error {
	if n > maxSortRow {
		return fmt.Errorf("SST mode: a row of %d bytes is larger than the sort's limit of %d bytes: import it in online mode", n, maxSortRow)
	}
	return nil
}

// partFiles are the SST files built for one partition.
type partFiles struct {
	part  int32
	files []*storagepb.SSTFile
	paths []string
}

// buildAndShip merges each partition's keys into SST files, concurrency
// partitions at a time, and hands each partition to ship as soon as its
// files are written, so that uploads and ingests (network and the
// servers' disks) overlap the building of the other partitions (CPU).
// A partition that fails to ship does not stop the others' builds: once
// all are built (noteComplete, with stats), a rerun ships what is left.
// It returns when every partition is built and shipped, with the time the
// last build finished.
func (b *sstBuilder) buildAndShip(ctx context.Context, concurrency int, ship func(context.Context, *partFiles) error, stats *Stats) (time.Time, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	b.mu.Lock()
	sorters := maps.Clone(b.parts)
	b.mu.Unlock()
	parts := slices.Sorted(maps.Keys(sorters))
	sem := make(chan struct{}, max(concurrency, 1))
	var building, shipping sync.WaitGroup
	fail := func(err error) { cancel(err) }
	var shipMu sync.Mutex
	var shipErrs []error
	for _, p := range parts {
		building.Add(1)
		go func() {
			defer building.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			pf, err := b.buildPart(p, sorters[p]) // the merge frees the sorter's memory
			<-sem
			if err == nil {
				err = b.noteBuilt(pf)
			}
			if err != nil {
				fail(err)
				return
			}
			if len(pf.files) == 0 {
				return
			}
			shipping.Add(1)
			go func() {
				defer shipping.Done()
				err := ship(ctx, pf)
				if err == nil {
					err = b.noteShipped(pf.part)
				}
				if err != nil {
					shipMu.Lock()
					shipErrs = append(shipErrs, err)
					shipMu.Unlock()
				}
			}()
		}()
	}
	building.Wait()
	built := time.Now()
	if context.Cause(ctx) == nil {
		if err := b.noteComplete(stats); err != nil {
			fail(err)
		}
	}
	shipping.Wait()
	if err := context.Cause(ctx); err != nil {
		return built, err
	}
	if len(shipErrs) > 0 {
		return built, b.shipFailed(shipErrs)
	}
	return built, nil
}

// shipRemaining ships the partitions a resumed import left unshipped.
func (b *sstBuilder) shipRemaining(ctx context.Context, ship func(context.Context, *partFiles) error) (int, error) {
	parts, err := b.unshipped()
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, pf := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := ship(ctx, pf)
			if err == nil {
				err = b.noteShipped(pf.part)
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return len(parts), b.shipFailed(errs)
	}
	return len(parts), nil
}

// shipFailed is the error of an import some of whose partitions were not
// ingested: it says how to finish it.
func (b *sstBuilder) shipFailed(errs []error) error {
	b.manifestMu.Lock()
	complete := b.manifest.Complete
	b.manifestMu.Unlock()
	first := errors.Join(errs...)
	if !complete {
		return first
	}
	return fmt.Errorf("%d partition(s) not ingested (the others are): run the same import again to upload and ingest only those, from the files kept in %s (--restart builds everything again): %w",
		len(errs), b.dir, first)
}

// sstWriter writes one SST file, keeping its key range.
type sstWriter struct {
	b       *sstBuilder
	path    string
	name    string
	w       *grocksdb.SSTFileWriter
	batch   *sstBatch // w's pairs, put many at a time
	n       int64
	s, l    []byte
	envOpts *grocksdb.EnvOptions
	opts    *grocksdb.Options
}

func (b *sstBuilder) newWriter(part int32, what string) (*sstWriter, error) {
	ro, err := rocksopts.Options{}.WithDefaults()
	if err != nil {
		return nil, err
	}
	// SstFileWriter compresses with the last level's compression: make
	// that the import's.
	ro.CompressionPerLevel = []string{b.compression}
	opts, bbto, err := rocksopts.New(ro, nil)
	if err != nil {
		return nil, err
	}
	bbto.Destroy()
	name := fmt.Sprintf("%s-s%d-p%d-%s.sst", b.id, b.space.GetSpaceId(), part, what)
	w := &sstWriter{b: b, name: name, path: filepath.Join(b.dir, name), envOpts: grocksdb.NewDefaultEnvOptions(), opts: opts}
	w.w = grocksdb.NewSSTFileWriter(w.envOpts, opts)
	if err := w.w.Open(w.path); err != nil {
		w.destroy()
		return nil, fmt.Errorf("creating %s: %w", w.path, err)
	}
	w.batch = newSSTBatch(w.w)
	return w, nil
}

func (w *sstWriter) put(k, v []byte) error {
	if err := w.batch.put(k, v); err != nil {
		return fmt.Errorf("writing %s: %w", w.path, err)
	}
	if w.n == 0 {
		w.s = append([]byte(nil), k...)
	}
	w.l = append(w.l[:0], k...)
	w.n++
	return nil
}

// finish closes the file; an empty one is removed and yields nil.
func (w *sstWriter) finish(pf *partFiles) error {
	defer w.destroy()
	if w.n == 0 {
		os.Remove(w.path)
		return nil
	}
	if err := w.batch.flush(); err != nil {
		return fmt.Errorf("writing %s: %w", w.path, err)
	}
	if err := w.w.Finish(); err != nil {
		return fmt.Errorf("finishing %s: %w", w.path, err) // a full disk ends here, named
	}
	// The content's checksum, which travels in the ingest entry, is
	// taken by the first upload (shipPart): reading the file back here
	// to hash it was 3.5 % of an import's CPU, the file being far out of
	// the CPU's caches by then.
	st, err := os.Stat(w.path)
	if err != nil {
		return fmt.Errorf("finishing %s: %w", w.path, err)
	}
	w.b.stats.bytes.Add(st.Size())
	w.b.stats.keys.Add(w.n)
	w.b.stats.files.Add(1)
	pf.files = append(pf.files, &storagepb.SSTFile{Name: w.name, Smallest: w.s, Largest: w.l})
	pf.paths = append(pf.paths, w.path)
	return nil
}

func (w *sstWriter) destroy() {
	if w.w != nil {
		w.w.Destroy()
		w.w = nil
	}
	w.envOpts.Destroy()
	w.opts.Destroy()
}

// buildPart writes one partition's data, index and degree files.
func (b *sstBuilder) buildPart(part int32, s *sorter) (*partFiles, error) {
	sp := b.space.GetSpaceId()
	vidLen := int(b.space.GetVidLen())
	pf := &partFiles{part: part}
	data, err := b.newWriter(part, "data")
	if err != nil {
		return nil, err
	}
	deg, err := b.newWriter(part, "degree")
	if err != nil {
		data.destroy()
		return nil, err
	}
	index := &sorter{dir: b.dir, name: fmt.Sprintf("p%d-index", part), scratch: &b.radix, stats: &b.stats}
	defer index.release() // on an error, the merge did not
	var degVid []byte
	var degType int32
	var degN uint64
	flushDegree := func() error {
		if degN == 0 {
			return nil
		}
		err := deg.put(partition.DegreeKey(sp, part, degVid, degType), partition.EncodeDegree(degN))
		degN = 0
		return err
	}
	err = s.merge(func(k, v []byte) error {
		if err := data.put(k, v); err != nil {
			return err
		}
		switch k[partition.KeyPrefixLen-1] {
		case partition.KindTag:
			if len(b.tagIdx) == 0 {
				return nil
			}
			_, _, vid, tag, err := partition.ParseTagKey(k, vidLen)
			if err != nil {
				return err
			}
			if is := b.tagIdx[tag]; is != nil {
				return is.entries(v, func(ix *schema.IndexLayout, enc []byte) {
					index.add(partition.TagIndexKey(sp, part, ix.Desc.GetIndexId(), enc, vid), nil)
				})
			}
		case partition.KindEdge:
			src, et, err := partition.EdgeKeySource(k, vidLen)
			if err != nil {
				return err
			}
			if degN > 0 && (et != degType || !bytes.Equal(src, degVid)) {
				if err := flushDegree(); err != nil {
					return err
				}
			}
			if degN == 0 {
				degVid, degType = append(degVid[:0], src...), et
			}
			degN++
			if is := b.edgeIdx[et]; et > 0 && is != nil {
				_, _, src, _, rank, dst, err := partition.ParseEdgeKey(k, vidLen)
				if err != nil {
					return err
				}
				return is.entries(v, func(ix *schema.IndexLayout, enc []byte) {
					index.add(partition.EdgeIndexKey(sp, part, ix.Desc.GetIndexId(), enc, src, rank, dst), nil)
				})
			}
		}
		return nil
	})
	if err == nil {
		err = flushDegree()
	}
	if err == nil {
		err = data.finish(pf)
	} else {
		data.destroy()
	}
	if err == nil {
		err = deg.finish(pf)
	} else {
		deg.destroy()
	}
	if err != nil {
		return nil, fmt.Errorf("partition %d: %w", part, err)
	}
	if index.n > 0 || len(index.runs) > 0 {
		iw, err := b.newWriter(part, "index")
		if err != nil {
			return nil, err
		}
		err = index.merge(func(k, v []byte) error { return iw.put(k, v) })
		if err == nil {
			err = iw.finish(pf)
		} else {
			iw.destroy()
		}
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", part, err)
		}
	}
	return pf, nil
}

// entries calls fn with the encoded values of every index of a row.
func (is *indexedSchema) entries(row []byte, fn func(*schema.IndexLayout, []byte)) error {
	vals, err := partition.ReadWithSchema(row, is.versions.Source(), is.versions.Latest())
	if err != nil {
		return err
	}
	for _, ix := range is.indexes {
		enc, err := ix.Values(vals)
		if err != nil {
			return err
		}
		fn(ix, enc)
	}
	return nil
}

// shipper uploads a partition's files to every replica and ingests them
// at its leader, concurrency partitions at a time. A failure is retried
// (uploads and ingests are idempotent) before it fails the import.
func (b *sstBuilder) shipper(storage *storageclient.Client, meta *metaclient.Client, concurrency, retries int) func(context.Context, *partFiles) error {
	sem := make(chan struct{}, max(concurrency, 1))
	return func(ctx context.Context, pf *partFiles) error {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		defer func() { <-sem }()
		wait := time.Second
		for attempt := 0; ; attempt++ {
			err := b.shipPart(ctx, storage, meta, pf)
			if err == nil || ctx.Err() != nil || attempt >= retries {
				return err
			}
			b.log.Warn("shipping SST files failed; retrying", "part", pf.part, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(2*wait, 10*time.Second)
		}
	}
}

func (b *sstBuilder) shipPart(ctx context.Context, storage *storageclient.Client, meta *metaclient.Client, pf *partFiles) error {
	snap := meta.Catalog()
	sp := b.space.GetSpaceId()
	stores := append([]uint64(nil), snap.Parts(sp)[pf.part]...)
	stores = append(stores, snap.Learners(sp)[pf.part]...)
	if len(stores) == 0 {
		return fmt.Errorf("partition %d has no replicas in the catalog", pf.part)
	}
	for _, store := range stores {
		for i, f := range pf.files {
			sum, err := storage.UploadSST(ctx, store, sp, pf.part, f.Name, pf.paths[i])
			if err != nil {
				return fmt.Errorf("partition %d: %w", pf.part, err)
			}
			// The ingest entry names each file by its checksum, as
			// the first upload of it computed: every replica checks
			// its staged copy against it (storaged/sstsum.go). A file
			// that reads differently on a later upload (or a resumed
			// run, whose manifest has the checksum) is damaged here.
			// One damaged between its build and its first upload (an
			// importer stopped in between, then resumed) cannot be
			// told from a good one: RocksDB's block checksums report
			// it when the damaged blocks are read.
			switch {
			case len(f.Checksum) == 0:
				f.Checksum = sum
			case !bytes.Equal(f.Checksum, sum) && len(f.Checksum) == len(sum):
				return fmt.Errorf("partition %d: SST file %s changed on disk between uploads (checksum %x, then %x): run with --restart to build it again", pf.part, pf.paths[i], f.Checksum, sum)
			}
		}
	}
	if err := b.noteChecksums(pf); err != nil {
		return fmt.Errorf("partition %d: %w", pf.part, err)
	}
	if b.afterUpload != nil {
		if err := b.afterUpload(pf.part); err != nil {
			return fmt.Errorf("partition %d: %w", pf.part, err)
		}
	}
	err := storage.IngestSST(ctx, &storagepb.IngestSSTReq{SpaceId: sp, PartId: pf.part, Files: pf.files, CatalogVersion: snap.Version(), Stores: stores})
	if err != nil {
		return fmt.Errorf("partition %d: ingesting: %w", pf.part, err)
	}
	return nil
}
