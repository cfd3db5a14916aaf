// Package rocksopts builds the RocksDB options of a storaged data path, so
// that every program that writes or reads storaged's files (storaged, the
// importer's SST writer, the benchmark floor) opens RocksDB the same way:
// the same prefix extractor, bloom filters and compression per level.
package rocksopts

import (
	"fmt"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/novagraph/novagraph/partition"
)

// Options tunes the RocksDB instance of each data path. A zero field
// takes its default (Default); docs/architecture.md ("RocksDB
// options") gives the reasons for the defaults.
type Options struct {
	// BlockCacheMB is the LRU cache of uncompressed data blocks, one per
	// process, shared by the RocksDB instances of all data paths.
	BlockCacheMB int
	// WriteBufferMB is the size of one memtable of one data path;
	// MaxWriteBufferNumber memtables (the active one and those waiting to
	// be flushed) may exist at once before writes stall.
	WriteBufferMB        int
	MaxWriteBufferNumber int
	// CompressionPerLevel names the compression of each LSM level, L0
	// first: no, snappy, lz4, lz4hc, zstd, zlib or bzip2. Levels past the
	// end of the list use its last entry.
	CompressionPerLevel []string
	// BloomBitsPerKey sizes the SST bloom filters (whole keys and, unless
	// NoPrefixBloom, vertex prefixes); -1 builds no filters.
	BloomBitsPerKey int
	// NoPrefixBloom turns off the vertex-prefix extractor and with it the
	// prefix blooms in SST files and memtables.
	NoPrefixBloom bool
	// RateLimitMB caps the disk writes of flushes and compactions of each
	// data path, in MiB/s (flushes go first); -1 means no limit.
	RateLimitMB int
	// MaxBackgroundJobs bounds the concurrent flushes and compactions of each
	// data path.
	MaxBackgroundJobs int
	// WholeIndexAndFilter writes each SST file's index and filter as one
	// block each (RocksDB's default) and keeps them in the open file's
	// table reader, outside the block cache, as storaged did before
	// partitioned index and filters became the default: about 1.7 bytes
	// per key of memory that no setting bounds.
	WholeIndexAndFilter bool
	// NoStatistics turns off RocksDB's statistics object, whose tickers
	// (block cache hits and misses, stall time, bytes read and written)
	// storaged exports as metrics. Its cost on reads was within this
	// machine's noise (docs/benchmarks.md, "RocksDB statistics").
	NoStatistics bool
}

// Default is the defaults, sized for a host of about 24 GiB
// that also runs graphd and metad: RocksDB takes at most about 1 GiB of
// block cache per process plus 256 MiB of memtables per data path, and the
// rest is left to the page cache, which holds the compressed SST blocks.
func Default() Options {
	return Options{
		BlockCacheMB:         1024,
		WriteBufferMB:        64,
		MaxWriteBufferNumber: 4,
		CompressionPerLevel:  []string{"no", "no", "lz4", "lz4", "lz4", "zstd", "zstd"},
		BloomBitsPerKey:      10,
		RateLimitMB:          256,
		MaxBackgroundJobs:    4,
	}
}

// VertexPrefixLen is the length of the prefix extractor:
// space(4) | part(4) | kind(1) | 8 bytes, the whole vertex prefix of an INT64
// vid and the first 8 bytes of a FIXED_STRING vid. The prefix blooms answer
// "does this file hold anything of this vertex?", which is the question of
// every per-vertex seek (GetNeighbors' EdgePrefix). Keys shorter than this
// (partition metadata, raft state) are outside the extractor's domain: they
// are found by whole-key blooms only.
const VertexPrefixLen = partition.KeyPrefixLen + 8

// memtablePrefixBloomRatio is the share of a memtable given to its bloom of
// prefixes and whole keys: 3.2 MiB for a 64 MiB memtable, about 20 bits per
// entry for entries of 100 bytes (a key and its prefix each), so well under
// 1% false positives. It is allocated with the memtable, written or not.
const memtablePrefixBloomRatio = 0.05

// compressions are the names CompressionPerLevel accepts.
var compressions = map[string]grocksdb.CompressionType{
	"no":     grocksdb.NoCompression,
	"none":   grocksdb.NoCompression,
	"snappy": grocksdb.SnappyCompression,
	"lz4":    grocksdb.LZ4Compression,
	"lz4hc":  grocksdb.LZ4HCCompression,
	"zstd":   grocksdb.ZSTDCompression,
	"zlib":   grocksdb.ZLibCompression,
	"bzip2":  grocksdb.Bz2Compression,
}

// ParseCompressionPerLevel splits a compression list such as
// "no:no:lz4:lz4:lz4:zstd:zstd" (NebulaGraph's rocksdb_compression_per_level
// syntax; commas also separate, as in a YAML list) and checks every name.
func ParseCompressionPerLevel(s string) ([]string, error) {
	levels := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' || r == ' ' })
	for i, name := range levels {
		levels[i] = strings.ToLower(name)
		if _, ok := compressions[levels[i]]; !ok {
			return nil, fmt.Errorf("unknown compression %q for level %d (want no, snappy, lz4, lz4hc, zstd, zlib or bzip2)", name, i)
		}
	}
	return levels, nil
}

// WithDefaults fills o's zero fields from Default and checks the rest.
func (o Options) WithDefaults() (Options, error) {
	d := Default()
	fill := func(v *int, def int, name string, minusOneOK bool) error {
		switch {
		case *v == 0:
			*v = def
		case *v == -1 && minusOneOK:
		case *v < 0:
			return fmt.Errorf("rocksdb %s %d is negative", name, *v)
		}
		return nil
	}
	for _, f := range []struct {
		v          *int
		def        int
		name       string
		minusOneOK bool
	}{
		{&o.BlockCacheMB, d.BlockCacheMB, "block cache MB", false},
		{&o.WriteBufferMB, d.WriteBufferMB, "write buffer MB", false},
		{&o.MaxWriteBufferNumber, d.MaxWriteBufferNumber, "max write buffer number", false},
		{&o.BloomBitsPerKey, d.BloomBitsPerKey, "bloom bits per key", true},
		{&o.RateLimitMB, d.RateLimitMB, "rate limit MB/s", true},
		{&o.MaxBackgroundJobs, d.MaxBackgroundJobs, "max background jobs", false},
	} {
		if err := fill(f.v, f.def, f.name, f.minusOneOK); err != nil {
			return o, err
		}
	}
	if o.MaxWriteBufferNumber < 2 {
		// One memtable would stall every write for the length of a flush.
		return o, fmt.Errorf("rocksdb max write buffer number %d: at least 2 are needed", o.MaxWriteBufferNumber)
	}
	if len(o.CompressionPerLevel) == 0 {
		o.CompressionPerLevel = d.CompressionPerLevel
	}
	if _, err := ParseCompressionPerLevel(strings.Join(o.CompressionPerLevel, ":")); err != nil {
		return o, fmt.Errorf("rocksdb compression: %w", err)
	}
	return o, nil
}

// NewBlockCache returns the block cache shared by the data paths of one
// storaged. The caller destroys it once every instance is open: each
// instance holds its own reference, so the cache lives until the last one
// closes.
func NewBlockCache(o Options) *grocksdb.Cache {
	return grocksdb.NewLRUCache(uint64(o.BlockCacheMB) << 20)
}

// New builds the options of one data path's RocksDB from o (already
// WithDefaults); cache is the process's block cache, nil for an SST writer.
// The caller destroys both results after opening.
func New(o Options, cache *grocksdb.Cache) (*grocksdb.Options, *grocksdb.BlockBasedTableOptions, error) {
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	if !o.NoStatistics {
		// Read back through the DB property rocksdb.options-statistics
		// (storaged/rocksstats.go); it survives GetOptionsFromString below.
		opts.EnableStatistics()
	}

	bbto := grocksdb.NewDefaultBlockBasedTableOptions()
	if cache != nil { // nil: an SST writer, which reads no blocks
		bbto.SetBlockCache(cache)
	}
	if o.BloomBitsPerKey > 0 {
		bbto.SetFilterPolicy(grocksdb.NewBloomFilterFull(float64(o.BloomBitsPerKey)))
		// Whole keys stay in the filters next to the prefixes: tag rows,
		// degrees and raft state are read by point lookups.
		bbto.SetWholeKeyFiltering(true)
	}
	if !o.WholeIndexAndFilter {
		partitionIndexAndFilter(bbto, o.BloomBitsPerKey > 0)
	}
	opts.SetBlockBasedTableFactory(bbto)
	if !o.NoPrefixBloom {
		opts.SetMemTablePrefixBloomSizeRatio(memtablePrefixBloomRatio)
		opts.SetMemtableWholeKeyFiltering(true)
	}

	opts.SetWriteBufferSize(uint64(o.WriteBufferMB) << 20)
	opts.SetMaxWriteBufferNumber(o.MaxWriteBufferNumber)
	levels := make([]grocksdb.CompressionType, len(o.CompressionPerLevel))
	for i, name := range o.CompressionPerLevel {
		levels[i] = compressions[strings.ToLower(name)]
	}
	opts.SetCompressionPerLevel(levels)
	opts.SetMaxBackgroundJobs(o.MaxBackgroundJobs)
	if o.RateLimitMB > 0 {
		// 100 ms refill, fairness 10: RocksDB's defaults. SetRateLimiter
		// takes the limiter over.
		opts.SetRateLimiter(grocksdb.NewRateLimiter(int64(o.RateLimitMB)<<20, 100_000, 10))
	}
	// Sync SST and WAL files in 1 MiB steps instead of one burst at the end.
	opts.SetBytesPerSync(1 << 20)
	if o.NoPrefixBloom {
		return opts, bbto, nil
	}

	// With a prefix extractor, an iterator whose ReadOptions leave
	// total_order_seek off is only defined within the prefix of the key it
	// was positioned with: files whose bloom lacks that prefix are skipped.
	// Seeking a short key (a kind prefix) does not make a scan safe: after
	// stepping over more than 8 versions of one key the iterator re-seeks
	// to that key, whose vertex prefix the blooms then judge, and files
	// after it drop out (storaged TestReseekAcrossPrefixesLosesKeys; the
	// adjacency cache lost tag rows so). Every iterator that crosses
	// vertex prefixes must set SetTotalOrderSeek (SetEdgeScan, within one
	// vertex's prefix, is the one that does not).
	//
	// The extractor is set through an option string, not SetPrefixExtractor:
	// grocksdb's Options.Destroy frees a transform given to
	// SetPrefixExtractor although RocksDB's options (and the DB opened with
	// them) own it too, a double free (facebook/rocksdb#1095). Parsed from
	// the string, it is owned by RocksDB alone.
	withPrefix, err := grocksdb.GetOptionsFromString(opts, fmt.Sprintf("prefix_extractor=rocksdb.FixedPrefix.%d", VertexPrefixLen))
	opts.Destroy()
	if err != nil {
		bbto.Destroy()
		return nil, nil, fmt.Errorf("rocksdb prefix extractor: %w", err)
	}
	return withPrefix, bbto, nil
}

// metadataBlockSize is the size of one partition of an SST file's index
// or filter: what a read brings into the block cache besides its data
// block when the partition is not there.
const metadataBlockSize = 4 << 10

// partitionIndexAndFilter makes an SST file's index and filter a two-level
// structure (RocksDB's kTwoLevelIndexSearch and partition_filters) held in
// the block cache, so that the memory they take is bounded by the cache.
//
// Why: with whole blocks, every open SST file holds its index and filter
// in its table reader, outside the block cache, about 1.7 bytes per key:
// 1.65 GB of storaged's memory at LDBC SF1000 (992 M keys), more than the
// block cache itself and growing with the data. Putting whole blocks into
// the cache instead (cache_index_and_filter_blocks alone) made GO and
// FETCH 6–14× slower at SF1000: each miss brought a multi-megabyte filter
// into a cache too small for all of them (docs/benchmarks.md, "Index and
// filter blocks in the block cache"). Partitioned, a read brings only the
// 4 KiB partitions its key falls in; the top level (one entry per
// partition, about 1/100 of the whole) stays pinned in the cache for as
// long as the file is open, and index and filter blocks enter the cache's
// high-priority pool, so a scan's data blocks do not push them out.
//
// The format is chosen when a file is written: the importer's SST files
// and storaged's flushes and compactions write the same (both come
// through New). Files written with whole blocks stay readable; with this
// on, their whole blocks go through the block cache as well, until a
// compaction rewrites them (SUBMIT JOB COMPACT).
func partitionIndexAndFilter(bbto *grocksdb.BlockBasedTableOptions, filters bool) {
	bbto.SetIndexType(grocksdb.KTwoLevelIndexSearchIndexType)
	if filters {
		bbto.SetPartitionFilters(true)
	}
	bbto.SetMetadataBlockSize(metadataBlockSize)
	bbto.SetCacheIndexAndFilterBlocks(true)
	bbto.SetCacheIndexAndFilterBlocksWithHighPriority(true)
	bbto.SetPinTopLevelIndexAndFilter(true)
	// Not pin_l0_filter_and_index_blocks_in_cache: an SST ingest may put
	// gigabytes of files in L0, and their pinned partitions would be
	// outside the bound again.
}

// SetEdgeScan sets up ro for an iterator that, after each Seek to a prefix
// of seekLen bytes, reads only keys with that prefix and stops at its end
// itself (GetNeighbors: one EdgePrefix per vertex and edge type, checked with
// ValidForPrefix). When the prefix covers the extractor's, ro stays in
// prefix mode: each Seek skips every SST file and memtable whose prefix bloom
// says the vertex is absent, and results are exact up to the end of the
// prefix (what lies beyond is undefined, and never read). When it is shorter
// (FIXED_STRING vids of under 4 bytes) the extractor's prefix would cut into
// the rank, so the scan is total order.
//
// Not prefix_same_as_start: with it RocksDB takes the prefix of every key
// the iterator steps on, including the first key past a vertex's edges,
// which may be shorter than the extractor (DataVersionKey), and Debian's
// librocksdb is built with assertions: Transform's InDomain assert aborts
// the process.
func SetEdgeScan(ro *grocksdb.ReadOptions, seekLen int) {
	if seekLen < VertexPrefixLen {
		ro.SetTotalOrderSeek(true)
	}
}
