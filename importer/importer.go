// Package importer is novagraph's bulk loader (bin/nova-importer): it reads
// CSV, TSV, SNAP edge lists, Parquet, Spark output directories and GraphAr
// chunk folders (importer/source), maps each row to vertices and edges as a
// nebula-importer v4 YAML config says (or as the --ldbc and --snap presets
// do), and writes them straight to the partition leaders.
//
// # Online mode
//
// The importer signs in to a graphd only to run the config's DDL hooks and
// to learn where metad is (SHOW HOSTS META). From then on it follows the
// catalog itself and writes through storaged/client, exactly as graphd's
// INSERT does but without statement text: rows are read in rounds of
// manager.batch, each round's writes are grouped by partition and sent as
// one AddVertices / AddEdges request per partition, to its leader, and
// manager.importerConcurrency rounds are in flight at once. Edges are sent
// as out-edges to their source's partition; storaged writes the in-edge
// into the destination's partition itself (storaged/pair.go), so an edge
// the importer saw acknowledged is readable from both ends.
//
// # Failures
//
// A row that cannot be mapped (a bad number, a missing column) or that
// storaged refuses is written to the source's failed-rows file with its
// file, line and reason, and the import goes on. A request refused for
// its data is halved until the refused rows stand alone, so one bad row
// does not fail its batch; a request that fails for any other reason (no
// leader, a dead host) is retried with backoff manager.retry times, then
// its rows are failed with the error. Nothing is dropped silently: every
// row read is either applied, filtered out by the config, or in the
// failed-rows file.
//
// # Resume
//
// The checkpoint file records per source how many rows are done; started
// again with the same config, the importer skips them (--restart ignores
// the checkpoint).
package importer

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/importer/source"
	"github.com/novagraph/novagraph/metad/catalog"
	metaclient "github.com/novagraph/novagraph/metad/client"
	"github.com/novagraph/novagraph/proto/metapb"
	storageclient "github.com/novagraph/novagraph/storaged/client"
)

// Options of one run besides the config.
type Options struct {
	Log *slog.Logger
	// Progress, if set, gets a progress bar (rows/s, rows, ETA when the
	// input size is known).
	Progress io.Writer
	// RetryFailed reads each source's failed-rows file instead of the
	// source: a second run after fixing what the first refused.
	RetryFailed bool
	// Restart ignores the checkpoint.
	Restart bool

	// afterRound, in tests, runs after each round is recorded.
	afterRound func()
	// afterUpload, in tests, runs in SST mode between a partition's
	// upload and its ingest.
	afterUpload func(part int32) error
}

// Stats are the counts of a run so far.
type Stats struct {
	Rows, Filtered, Failed, OtherShards        atomic.Int64
	Vertices, Edges, DeletedTags, DeletedEdges atomic.Int64
	Requests, Retries                          atomic.Int64
}

func (s *Stats) count(k writeKind, n int) {
	switch k {
	case kindAddVertex:
		s.Vertices.Add(int64(n))
	case kindAddEdge:
		s.Edges.Add(int64(n))
	case kindDeleteTag:
		s.DeletedTags.Add(int64(n))
	default:
		s.DeletedEdges.Add(int64(n))
	}
}

// Summary is the outcome of a run.
type Summary struct {
	Rows, Failed, Vertices, Edges, DeletedTags, DeletedEdges int64
	Filtered                                                 int64 // rows the config's filters dropped whole
	Requests, Retries                                        int64
	Elapsed                                                  time.Duration
	FailedFiles                                              []string // failed-rows files written
	Skipped                                                  int64    // rows a checkpoint said were done
	OtherShards                                              int64    // rows left to the other shards
	Phases                                                   string   // SST mode: time per phase, files
}

func (s *Summary) String() string {
	secs := max(s.Elapsed.Seconds(), 1e-9)
	var b strings.Builder
	fmt.Fprintf(&b, "rows %d (%.0f/s), vertices %d, edges %d (%.0f/s)", s.Rows, float64(s.Rows)/secs, s.Vertices, s.Edges, float64(s.Edges)/secs)
	if s.DeletedTags+s.DeletedEdges > 0 {
		fmt.Fprintf(&b, ", deleted tags %d, deleted edges %d", s.DeletedTags, s.DeletedEdges)
	}
	if s.Filtered > 0 {
		fmt.Fprintf(&b, ", filtered out %d", s.Filtered)
	}
	fmt.Fprintf(&b, ", failed rows %d, requests %d, retries %d, in %v", s.Failed, s.Requests, s.Retries, s.Elapsed.Round(time.Millisecond))
	if s.Skipped > 0 {
		fmt.Fprintf(&b, " (resumed: %d rows were done before)", s.Skipped)
	}
	if s.OtherShards > 0 {
		fmt.Fprintf(&b, " (%d rows left to other shards)", s.OtherShards)
	}
	if s.Phases != "" {
		fmt.Fprintf(&b, "\nsst: %s", s.Phases)
	}
	for _, f := range s.FailedFiles {
		fmt.Fprintf(&b, "\nfailed rows in %s", f)
	}
	return b.String()
}

// Run imports everything cfg describes.
func Run(ctx context.Context, cfg *Config, opts Options) (*Summary, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	metaAddrs, err := prepare(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	meta := metaclient.New(metaAddrs, log, metaclient.WithTLS(cfg.Client.TLS))
	defer meta.Close()
	space, err := awaitSchema(ctx, meta, cfg)
	if err != nil {
		return nil, err
	}
	storage := storageclient.New(meta, log)
	defer storage.Close()

	failedDir := cfg.Manager.FailedRowsDir
	if failedDir == "" {
		failedDir = "."
	}
	cpPath := cfg.Manager.Checkpoint
	if cpPath == "" {
		cpPath = filepath.Join(failedDir, "checkpoint"+shardSuffix(cfg.Manager.Shard)+".json")
	}
	hash := configHash(cfg)
	rowHash := rowCheckpointHash(cfg, hash, space.GetSpaceId(), failedDir, opts.RetryFailed)
	if opts.RetryFailed {
		hash += "-retry"
		cpPath += ".retry"
	}
	var sst *sstBuilder
	keepSST := true // the SST working folder, if a rerun can resume from it; false once done
	if cfg.Manager.Mode == "sst" {
		if err := checkSSTTarget(ctx, cfg, meta.Catalog(), space); err != nil {
			return nil, err
		}
		dir := cfg.Manager.SSTDir
		if dir == "" {
			dir = os.TempDir()
		}
		key := fmt.Sprintf("%s space %d shard %q compression %s", hash, space.GetSpaceId(), cfg.Manager.Shard, cfg.Manager.SSTCompression)
		sst, err = newSSTBuilder(meta.Catalog(), space, dir, key, opts.Restart, int64(cfg.Manager.SSTMemoryMB)<<20, cfg.Manager.SSTCompression, log)
		if err != nil {
			return nil, err
		}
		sst.afterUpload = opts.afterUpload
		defer func() { sst.close(keepSST) }()
		// The row checkpoint is online mode's: an SST import resumes
		// only once everything is built (sstresume.go).
		cpPath, opts.Restart = "", true
	}
	shard, shards, _ := ParseShard(cfg.Manager.Shard)
	if opts.RetryFailed {
		// A shard's failed-rows file holds that shard's rows only (its
		// name says which shard): taking every n-th of its lines again
		// would leave the others to no one.
		shard, shards = 0, 1
	}
	cp, err := loadCheckpoint(cpPath, rowHash, opts.Restart)
	if err != nil {
		return nil, err
	}

	run := &run{
		cfg: cfg, log: log, meta: meta, space: space, cp: cp, failedDir: failedDir, retryFailed: opts.RetryFailed,
		slots: make(chan struct{}, cfg.Manager.ImporterConcurrency), afterRound: opts.afterRound,
		sst: sst, shard: int64(shard), shards: int64(shards),
	}
	run.sender = &sender{
		storage: storage, space: space.GetSpaceId(), retries: cfg.Manager.Retry, backoff: cmp.Or(cfg.Client.RetryInitialInterval, time.Second), stats: &run.stats,
		version: func() int64 { return meta.Catalog().Version() },
	}
	if opts.Progress != nil {
		// The bar counts the input's bytes, the one total known before
		// reading, so it can give an ETA; its description gives rows.
		run.bar = progressbar.NewOptions64(inputSize(cfg, opts.RetryFailed),
			progressbar.OptionSetWriter(opts.Progress),
			progressbar.OptionSetDescription("importing"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(250*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(opts.Progress) }),
		)
		_ = run.bar.RenderBlank()
	}
	stopSaver := run.saveEvery(ctx, time.Second)
	var phases string
	if sst != nil && sst.resumed {
		// An earlier run read every row and built every partition: ship
		// what it left. Its rows count as done before, as in online mode.
		m := sst.manifest
		run.skipped.Store(m.Rows)
		log.Info("resuming an SST import whose files are all built", "folder", sst.dir)
		n, serr := sst.shipRemaining(ctx, sst.shipper(storage, meta, cfg.Manager.ImporterConcurrency, cfg.Manager.Retry))
		err = serr
		phases = fmt.Sprintf("resumed: %d partition(s) left by an earlier run (which read %d rows: %d vertices, %d edges, %d failed) uploaded and ingested from %s",
			n, m.Rows, m.Vertices, m.Edges, m.Failed, sst.dir)
	} else {
		err = run.sources(ctx)
	}
	readDone := time.Now()
	switch {
	case err != nil:
	case sst != nil && sst.resumed:
	case sst != nil:
		ship := sst.shipper(storage, meta, cfg.Manager.ImporterConcurrency, cfg.Manager.Retry)
		var built time.Time
		if built, err = sst.buildAndShip(ctx, max(runtime.GOMAXPROCS(0), 1), ship, &run.stats); err == nil {
			// Uploads overlap the writing: the last figure is only what
			// was left to ship once every file was written.
			phases = fmt.Sprintf("read+sort %v, write SST %v, upload+ingest after that %v; %d files, %d keys, %.1f MB; sort runs spilled: %d, %.1f MB",
				readDone.Sub(start).Round(time.Millisecond), built.Sub(readDone).Round(time.Millisecond),
				time.Since(built).Round(time.Millisecond), sst.stats.files.Load(), sst.stats.keys.Load(), float64(sst.stats.bytes.Load())/1e6,
				sst.stats.runs.Load(), float64(sst.stats.runBytes.Load())/1e6)
		}
	default:
		log.Info("every row is written; waiting for storaged to finish the in-edges", "up to", flushMirrorsTimeout)
		err = flushMirrors(ctx, storage, meta, space.GetSpaceId())
	}
	stopSaver()
	if run.bar != nil {
		run.updateBar()
		_ = run.bar.Finish()
	}
	if serr := cp.save(); err == nil {
		err = serr
	}
	sum := &Summary{
		Rows: run.stats.Rows.Load(), Failed: run.stats.Failed.Load(), Filtered: run.stats.Filtered.Load(), Vertices: run.stats.Vertices.Load(),
		Edges: run.stats.Edges.Load(), DeletedTags: run.stats.DeletedTags.Load(), DeletedEdges: run.stats.DeletedEdges.Load(),
		Requests: run.stats.Requests.Load(), Retries: run.stats.Retries.Load() + storage.Retries(),
		Elapsed: time.Since(start), FailedFiles: run.failedFiles, Skipped: run.skipped.Load(),
		OtherShards: run.stats.OtherShards.Load(), Phases: phases,
	}
	if err != nil {
		return sum, err
	}
	keepSST = false
	if err := runHooks(ctx, cfg, cfg.Manager.Hooks.After, log); err != nil {
		return sum, err
	}
	return sum, nil
}

// flushMirrors returns once every in-edge of the edges written is in
// place: the writes did not wait for them (AddEdgesReq.no_mirror_wait).
func flushMirrors(ctx context.Context, storage *storageclient.Client, meta *metaclient.Client, space int32) error {
	var parts []int32
	for p := range meta.Catalog().Parts(space) {
		parts = append(parts, p)
	}
	ctx, cancel := context.WithTimeout(ctx, flushMirrorsTimeout)
	defer cancel()
	// A flush is idempotent: it waits for what is there to mirror. One
	// that failed on a leader lost, a call timed out on a saturated host
	// (a CI run under the race detector saw both) or a pass that left
	// intents for a partition without a leader is asked again, until
	// flushMirrorsTimeout, rather than failing an import whose every row
	// was written.
	var err error
	tries := 0
	for ctx.Err() == nil {
		if tries > 0 {
			select {
			case <-ctx.Done():
				continue // the loop ends; the last error is reported
			case <-time.After(min(time.Duration(tries)*time.Second, flushRetryMax)):
			}
		}
		tries++
		if err = storage.FlushIntents(ctx, space, parts); err == nil {
			return nil
		}
	}
	if err == nil {
		err = ctx.Err() // out of time before a first try
	}
	return fmt.Errorf("every edge was written, but the in-edges of some are not yet (storaged mirrors them on its own; %d flush attempts): %w", tries, err)
}

// flushMirrorsTimeout bounds how long the importer waits at its end for
// the in-edges. Online writes do not wait for them, so storaged's resolver
// may still be behind when the last row is written: 21 minutes behind
// after an SF100 import with rf 3 on a two-core machine (10 minutes, the
// bound before, ended that import with exit status 1 although every edge
// landed on its own). A destination that never comes back still ends the
// wait with the error that says so.
const flushMirrorsTimeout = time.Hour

// flushRetryMax caps the pause between flushMirrors' tries (1 s, 2 s, …).
const flushRetryMax = 10 * time.Second

// run is the state of one Run.
type run struct {
	cfg         *Config
	log         *slog.Logger
	meta        *metaclient.Client
	space       *metapb.SpaceDesc
	cp          *checkpoint
	sender      *sender
	failedDir   string
	retryFailed bool
	slots       chan struct{} // one per round in flight
	afterRound  func()
	sst         *sstBuilder // SST mode: rounds go here instead of to storage
	shard       int64       // rows with index%shards == shard are this run's
	shards      int64
	bar         *progressbar.ProgressBar
	stats       Stats
	skipped     atomic.Int64

	mu          sync.Mutex
	failedFiles []string
	open        []*source.Source // sources read so far, for progress
}

func (r *run) updateBar() {
	r.bar.Describe(fmt.Sprintf("%d rows, %d edges", r.stats.Rows.Load(), r.stats.Edges.Load()))
	_ = r.bar.Set64(r.bytesRead())
}

// bytesRead is how much of the input the sources went through.
func (r *run) bytesRead() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, s := range r.open {
		n += s.BytesRead()
	}
	return n
}

// inputSize is the size of every source's files (0 where one cannot be
// opened: its error comes when it is read).
func inputSize(cfg *Config, retryFailed bool) int64 {
	var n int64
	for i, spec := range cfg.Sources {
		path := spec.Path
		if retryFailed {
			path = failedRowsPath(cfg.Manager.FailedRowsDir, i, spec.Path, cfg.Manager.Shard)
		}
		if s, err := source.Open(path, sourceOptions(&cfg.Sources[i])); err == nil {
			n += s.Size()
		}
	}
	return n
}

// sources reads manager.readerConcurrency sources at a time.
func (r *run) sources(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, r.cfg.Manager.ReaderConcurrency)
	var wg sync.WaitGroup
	for i := range r.cfg.Sources {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := r.source(ctx, i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// sourceRun is one source being imported.
type sourceRun struct {
	key    string // checkpoint key
	failed *failedRows
	prog   *progress
}

func sourceOptions(s *Source) source.Options {
	o := source.Options{Format: s.Format, RowIndexColumn: s.RowIndexColumn}
	if s.CSV != nil {
		o.Delimiter, o.Header, o.LazyQuotes, o.Comment = s.CSV.Delimiter, s.CSV.WithHeader, s.CSV.LazyQuotes, s.CSV.Comment
	}
	return o
}

// delimiterOf is the delimiter the failed-rows file of a source uses.
func delimiterOf(o source.Options) rune {
	if o.Delimiter == `\t` { // as source.Open reads it
		return '\t'
	}
	if o.Delimiter != "" {
		return []rune(o.Delimiter)[0]
	}
	switch strings.ToLower(o.Format) {
	case "tsv", "snap":
		return '\t'
	}
	return ','
}

func (r *run) source(ctx context.Context, i int) error {
	spec := &r.cfg.Sources[i]
	key := fmt.Sprintf("sources[%d]", i)
	m, err := newMapper(r.meta.Catalog(), r.space, key, spec)
	if err != nil {
		return err
	}
	seen := map[int32]*seenSet{} // one per tag, shared by its mappings and mappers
	if spec.dedupeVertices {
		shareSeenSets(m, seen)
	}
	opts := sourceOptions(spec)
	path := spec.Path
	failedPath := failedRowsPath(r.failedDir, i, spec.Path, r.cfg.Manager.Shard)
	if r.retryFailed {
		// The failed-rows file is text in the source's delimiter, with
		// the header if the source had one and comment lines.
		path = failedPath
		opts.Format, opts.Comment, opts.Delimiter = "csv", failedComment, string(delimiterOf(opts))
		failedPath += ".again"
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			// The file is created by a source's first failed row.
			r.log.Info("no failed rows to retry", "source", key, "file", path)
			return nil
		}
	}
	src, err := source.Open(path, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	r.mu.Lock()
	r.open = append(r.open, src)
	r.mu.Unlock()
	var header []string
	if opts.Header {
		if header, err = src.Columns(); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	mark := r.cp.mark(key)
	if mark.Finished {
		r.log.Info("source already imported (checkpoint)", "source", key, "path", path, "rows", mark.Done)
		r.skipped.Add(mark.Done)
		return nil
	}
	r.skipped.Add(mark.Done)
	sr := &sourceRun{key: key, prog: newProgress(mark.Done),
		failed: newFailedRows(failedPath, delimiterOf(opts), header, mark.Done > 0)}
	completed := false
	defer func() {
		n, err := sr.failed.close()
		if err != nil {
			r.log.Error("closing failed-rows file", "err", err)
		}
		listed := sr.failed.path
		if completed && err == nil && r.retryFailed {
			listed = r.retireFailedFile(key, path, sr.failed.path, n)
		}
		if n > 0 {
			r.mu.Lock()
			r.failedFiles = append(r.failedFiles, listed)
			r.mu.Unlock()
		}
	}()

	var wg sync.WaitGroup
	var roundErr atomic.Pointer[error]
	next := mark.Done
	if r.sst != nil {
		next, err = r.readSST(ctx, src, spec, key, sr, m, seen, mark.Done)
	} else {
		err = src.Read(ctx, mark.Done, cmp.Or(spec.Batch, r.cfg.Manager.Batch), func(recs []source.Record) error {
			if p := roundErr.Load(); p != nil {
				return *p
			}
			rd := &round{src: sr, start: next, n: int64(len(recs))}
			next += int64(len(recs))
			r.mapRecords(m, rd, recs, true)
			select {
			case r.slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { <-r.slots }()
				if err := r.finish(ctx, rd); err != nil {
					roundErr.CompareAndSwap(nil, &err)
				}
			}()
			return nil
		})
	}
	wg.Wait()
	if p := roundErr.Load(); p != nil && err == nil {
		err = *p
	}
	if err != nil {
		return fmt.Errorf("%s (%s): %w", key, path, err)
	}
	r.cp.set(key, next, true)
	completed = true
	return nil
}

// retireFailedFile ends a retry of a source's failed rows: the file it
// read is kept as <file>.retried and the rows that failed again, if any,
// become the failed-rows file, so that the file always holds the rows not
// yet imported and another --retry-failed, once they are mended, takes
// exactly those. It returns the path the failed rows are in now.
func (r *run) retireFailedFile(key, read, again string, failedAgain int64) string {
	if err := os.Rename(read, read+".retried"); err != nil {
		r.log.Error("keeping the retried failed-rows file", "source", key, "err", err)
		return again
	}
	if failedAgain == 0 {
		r.log.Info("every failed row imported", "source", key, "kept as", read+".retried")
		return again
	}
	if err := os.Rename(again, read); err != nil {
		r.log.Error("replacing the failed-rows file", "source", key, "err", err)
		return again
	}
	return read
}

// shareSeenSets gives m's tag mappings the set of written vertices of
// their tag from sets, adding the sets that are missing.
func shareSeenSets(m *mapper, sets map[int32]*seenSet) {
	for _, t := range m.tags {
		if sets[t.id] == nil {
			sets[t.id] = newSeenSet()
		}
		t.seen = sets[t.id]
	}
}

// mapRecords maps a batch of records into rd. keepAll keeps a copy of
// every row that produced writes, for the failures the servers report
// later (online mode); otherwise only rows that fail here are kept.
func (r *run) mapRecords(m *mapper, rd *round, recs []source.Record, keepAll bool) {
	if rd.writes == nil {
		// Most rows give one write per mapping: grown by append, the
		// slice was copied a dozen times per round.
		rd.writes = make([]write, 0, len(recs)*max(len(m.tags)+len(m.edges), 1))
	}
	for _, rec := range recs {
		if r.shards > 1 && rec.Index%r.shards != r.shard {
			r.stats.OtherShards.Add(1)
			rd.other++
			continue
		}
		if rec.Err != nil {
			row := keep(rec.File, rec.Line, rec.Fields)
			row.raw = !errors.Is(rec.Err, csv.ErrFieldCount)
			rd.rows = append(rd.rows, row)
			// The failed-rows file says the file and line already.
			rd.fail(int32(len(rd.rows)-1), strings.TrimPrefix(rec.Err.Error(), rec.File+": "))
			continue
		}
		before := len(rd.writes)
		var err error
		rd.writes, err = m.mapRow(rec.Fields, rec.Nulls, rd.writes)
		if err == nil && len(rd.writes) == before {
			r.stats.Filtered.Add(1)
			continue
		}
		if err != nil || keepAll {
			rd.rows = append(rd.rows, keep(rec.File, rec.Line, rec.Fields))
		}
		if err != nil {
			rd.fail(int32(len(rd.rows)-1), err.Error())
			continue
		}
		if keepAll {
			for range len(rd.writes) - before {
				rd.owner = append(rd.owner, int32(len(rd.rows)-1))
			}
		}
	}
}

// readSST reads a source in SST mode. Mapping rows is the costliest part
// of reading, so several goroutines map batches while this one reads; a
// single goroutine then sorts the mapped batches in, strictly in read
// order, because the last write of a key must win as it would online.
// It returns the index of the record after the last one read.
func (r *run) readSST(ctx context.Context, src *source.Source, spec *Source, key string, sr *sourceRun, first *mapper, seen map[int32]*seenSet, start int64) (int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type job struct {
		seq  int64
		recs []source.Record
		rd   *round
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	jobs := make(chan *job, workers)
	mapped := make(chan *job, 2*workers)
	var wg sync.WaitGroup
	for w := range workers {
		m := first
		if w > 0 {
			// A mapper has scratch buffers: one each. The sets of
			// vertices written are shared.
			var err error
			if m, err = newMapper(r.meta.Catalog(), r.space, key, spec); err != nil {
				close(jobs)
				wg.Wait()
				return start, err
			}
			if spec.dedupeVertices {
				shareSeenSets(m, seen)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r.mapRecords(m, j.rd, j.recs, false)
				j.recs = nil
				select {
				case mapped <- j:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	sorted := make(chan struct{})
	go func() {
		defer close(sorted)
		pending := map[int64]*job{}
		want := int64(0)
		for j := range mapped {
			pending[j.seq] = j
			for {
				j, ok := pending[want]
				if !ok {
					break
				}
				delete(pending, want)
				want++
				if ctx.Err() != nil {
					continue
				}
				if err := r.finishSST(j.rd); err != nil {
					cancel(err)
				}
			}
		}
	}()
	var seq int64
	next := start
	err := src.Read(ctx, start, cmp.Or(spec.Batch, r.cfg.Manager.Batch), func(recs []source.Record) error {
		j := &job{seq: seq, recs: ownRecords(recs), rd: &round{src: sr, start: next, n: int64(len(recs))}}
		seq++
		next += int64(len(recs))
		select {
		case jobs <- j:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	close(jobs)
	wg.Wait()
	close(mapped)
	<-sorted
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return next, cause
	}
	return next, err
}

// ownRecords copies a batch's records and their field lists, which the
// source reuses once its callback returns (the field strings themselves
// are not reused), so that another goroutine can map them later.
func ownRecords(recs []source.Record) []source.Record {
	n := 0
	for i := range recs {
		n += len(recs[i].Fields)
	}
	fields := make([]string, 0, n)
	out := make([]source.Record, len(recs))
	for i, rec := range recs {
		k := len(fields)
		fields = append(fields, rec.Fields...)
		rec.Fields = fields[k:len(fields):len(fields)]
		if rec.Nulls != nil {
			rec.Nulls = slices.Clone(rec.Nulls)
		}
		out[i] = rec
	}
	return out
}

// finish sends a round, then records its failed rows and its progress.
func (r *run) finish(ctx context.Context, rd *round) error {
	if err := r.sender.send(ctx, rd); err != nil {
		return err
	}
	for row, reason := range rd.failed {
		if err := rd.src.failed.add(rd.rows[row], reason); err != nil {
			return err
		}
	}
	if len(rd.failed) > 0 {
		if err := rd.src.failed.sync(); err != nil {
			return err
		}
	}
	r.stats.Failed.Add(int64(len(rd.failed)))
	r.stats.Rows.Add(rd.n - rd.other)
	done := rd.src.prog.finish(rd.start, rd.start+rd.n)
	r.cp.set(rd.src.key, done, false)
	if r.afterRound != nil {
		r.afterRound()
	}
	return nil
}

// finishSST sorts a round's writes into the SST build and records its
// failed rows; the rows count as imported once the files are ingested.
func (r *run) finishSST(rd *round) error {
	if err := r.sst.add(rd.writes); err != nil {
		return err
	}
	for i := range rd.writes {
		switch rd.writes[i].kind() {
		case kindAddVertex:
			r.stats.Vertices.Add(1)
		case kindAddEdge:
			r.stats.Edges.Add(1)
		}
	}
	for row, reason := range rd.failed {
		if err := rd.src.failed.add(rd.rows[row], reason); err != nil {
			return err
		}
	}
	r.stats.Failed.Add(int64(len(rd.failed)))
	r.stats.Rows.Add(rd.n - rd.other)
	return nil
}

// checkSSTTarget refuses SST mode where it would leave wrong index
// entries: files replace rows without removing the index entries of the
// rows they replace, so a tag or edge type with indexes must be empty.
func checkSSTTarget(ctx context.Context, cfg *Config, snap *catalog.Snapshot, space *metapb.SpaceDesc) error {
	var stmts []string
	seen := map[string]bool{}
	for _, src := range cfg.Sources {
		for _, t := range src.Tags {
			if tag, ok := snap.TagByName(space.GetSpaceId(), t.Name); ok && !seen["t"+t.Name] &&
				len(snap.IndexesOn(space.GetSpaceId(), false, tag.GetTagId())) > 0 {
				seen["t"+t.Name] = true
				stmts = append(stmts, fmt.Sprintf("LOOKUP ON `%s` YIELD id(vertex) AS v | LIMIT 1", t.Name))
			}
		}
		for _, e := range src.Edges {
			if edge, ok := snap.EdgeByName(space.GetSpaceId(), e.Name); ok && !seen["e"+e.Name] &&
				len(snap.IndexesOn(space.GetSpaceId(), true, edge.GetEdgeType())) > 0 {
				seen["e"+e.Name] = true
				stmts = append(stmts, fmt.Sprintf("LOOKUP ON `%s` YIELD src(edge) AS s | LIMIT 1", e.Name))
			}
		}
	}
	if len(stmts) == 0 {
		return nil
	}
	return withSession(ctx, cfg, func(s *client.Session) error {
		if _, err := s.Execute(ctx, fmt.Sprintf("USE `%s`", space.GetName())); err != nil {
			return err
		}
		for _, st := range stmts {
			rs, err := s.Execute(ctx, st)
			if err != nil {
				return fmt.Errorf("checking the space before an SST import (%s): %w", st, err)
			}
			if rs.Len() > 0 {
				return fmt.Errorf("manager.mode sst: space %q already holds data of an indexed tag or edge type (%s found a row); "+
					"SST files would leave the index entries of the rows they replace: import in online mode, or into an empty space", space.GetName(), st)
			}
		}
		return nil
	})
}

// saveEvery writes the checkpoint periodically until stopped.
func (r *run) saveEvery(ctx context.Context, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := r.cp.save(); err != nil {
				r.log.Warn("saving checkpoint", "err", err)
			}
			if r.bar != nil {
				r.updateBar()
			}
			if time.Since(last) >= r.cfg.Manager.StatsInterval {
				last = time.Now()
				r.log.Info("progress", "rows", r.stats.Rows.Load(), "edges", r.stats.Edges.Load(),
					"vertices", r.stats.Vertices.Load(), "failed", r.stats.Failed.Load())
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// prepare signs in to graphd, runs the before-hooks and returns the
// metad addresses to follow.
func prepare(ctx context.Context, cfg *Config, log *slog.Logger) ([]string, error) {
	if err := runHooks(ctx, cfg, cfg.Manager.Hooks.Before, log); err != nil {
		return nil, err
	}
	if len(cfg.Client.MetaAddr) > 0 {
		return cfg.Client.MetaAddr, nil
	}
	var addrs []string
	err := withSession(ctx, cfg, func(s *client.Session) error {
		rs, err := s.Execute(ctx, "SHOW HOSTS META")
		if err != nil {
			return fmt.Errorf("asking graphd for metad's address (SHOW HOSTS META): %w", err)
		}
		for i := range rs.Len() {
			row := rs.Row(i)
			host, _ := row.Value(0).(string)
			port, _ := row.Value(1).(int64)
			addrs = append(addrs, net.JoinHostPort(host, strconv.FormatInt(port, 10)))
		}
		return nil
	})
	if err == nil && len(addrs) == 0 {
		err = errors.New("graphd knows no metad (SHOW HOSTS META is empty)")
	}
	return addrs, err
}

func withSession(ctx context.Context, cfg *Config, fn func(*client.Session) error) error {
	var addrs []string
	for _, a := range strings.Split(cfg.Client.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	pool, err := client.NewPool(client.Config{Addresses: addrs, TLS: cfg.Client.TLS.ClientTLS()})
	if err != nil {
		return fmt.Errorf("graphd %s: %w", cfg.Client.Address, err)
	}
	defer pool.Close()
	sess, err := pool.Session(ctx, cfg.Client.User, cfg.Client.Password)
	if err != nil {
		return fmt.Errorf("signing in to graphd %s as %s: %w", cfg.Client.Address, cfg.Client.User, err)
	}
	defer sess.Close()
	return fn(sess)
}

func runHooks(ctx context.Context, cfg *Config, hooks []HookStatements, log *slog.Logger) error {
	if len(hooks) == 0 {
		return nil
	}
	return withSession(ctx, cfg, func(s *client.Session) error {
		for _, h := range hooks {
			for _, st := range h.Statements {
				log.Info("hook", "statement", st)
				if _, err := s.Execute(ctx, st); err != nil {
					return fmt.Errorf("hook statement %q: %w", st, err)
				}
			}
			if h.Wait > 0 {
				select {
				case <-time.After(h.Wait):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		return nil
	})
}

// awaitSchema waits until the catalog the importer follows has the space
// and every tag and edge the config names (DDL in the hooks reaches this
// metad client a moment after graphd acknowledged it), and every
// partition has a leader.
func awaitSchema(ctx context.Context, meta *metaclient.Client, cfg *Config) (*metapb.SpaceDesc, error) {
	// Before-hooks may have just created the schema, which takes metad a
	// heartbeat or two to publish; without them the schema is either
	// there or misspelled, and a typo should not cost half a minute.
	wait := 3 * time.Second
	if len(cfg.Manager.Hooks.Before) > 0 {
		wait = 30 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		snap := meta.Catalog()
		missing := ""
		space, ok := snap.SpaceByName(cfg.Manager.SpaceName)
		if !ok {
			missing = fmt.Sprintf("space %q", cfg.Manager.SpaceName)
		} else {
		names:
			for _, s := range cfg.Sources {
				for _, t := range s.Tags {
					if _, ok := snap.TagByName(space.GetSpaceId(), t.Name); !ok {
						missing = fmt.Sprintf("tag %q in space %q", t.Name, space.GetName())
						break names
					}
				}
				for _, e := range s.Edges {
					if _, ok := snap.EdgeByName(space.GetSpaceId(), e.Name); !ok {
						missing = fmt.Sprintf("edge %q in space %q", e.Name, space.GetName())
						break names
					}
				}
			}
		}
		if missing == "" {
			return space, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("manager.spaceName / sources: %s does not exist (waited %v for the catalog)", missing, wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-snap.Changed():
		case <-time.After(200 * time.Millisecond):
		}
	}
}
