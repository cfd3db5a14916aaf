// Command storaged runs a novagraph storage daemon.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/novagraph/novagraph/gossip"
	"github.com/novagraph/novagraph/internal/bytesize"
	"github.com/novagraph/novagraph/internal/daemon"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/storaged"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		var logged loggedError
		if !errors.As(err, &logged) {
			fmt.Fprintln(os.Stderr, "storaged:", err)
		}
		os.Exit(1)
	}
}

// loggedError is a failure already logged (as one structured line): main
// exits 1 without printing it again.
type loggedError struct{ error }

func run(args []string) error {
	fs := flag.NewFlagSet("storaged", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: storaged [flags]\n\nHosts partition replicas of novagraph spaces (raft groups on RocksDB).\nThe --rocksdb-* flags tune the RocksDB of each data path (docs/architecture.md, \"RocksDB options\").\n\nFlags:\n")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:9779", "gRPC listen address for storage and raft traffic (also the address registered in metad, which identifies this host: a host name is registered as written, so give a stable name or IP)")
	httpAddr := fs.String("http-addr", "127.0.0.1:19779", "HTTP address for /healthz and /metrics")
	dataPaths := fs.String("data-path", "data/storage", "comma-separated data paths, one RocksDB instance each (one per disk)")
	metaAddrs := fs.String("meta-addrs", "127.0.0.1:9559", "comma-separated metad addresses")
	gossipAddr := fs.String("gossip-addr", "", "host:port to gossip on (memberlist, UDP and TCP) with the other storaged and graphd, which then route around this host within a second of a crash; empty: no gossip")
	gossipSeeds := fs.String("gossip-seeds", "", "comma-separated gossip addresses of peers to join (any live one suffices)")
	zone := fs.String("zone", "", "zone label of this host (rack, room, availability zone): BALANCE DATA spreads a partition's replicas over zones; empty: the host is a zone of its own")
	raftTick := fs.Duration("raft-tick", 100*time.Millisecond, "raft tick interval (election timeout is 10 ticks)")
	maxLog := fs.Int("raft-max-log-entries", 10000, "truncate a partition's raft log once it holds this many applied entries (-1: never)")
	catchUp := fs.Int("raft-log-catchup-entries", 2000, "entries kept behind the applied index when truncating, so slightly lagging followers catch up without a snapshot")
	partWorkers := fs.Int("request-part-workers", storaged.DefaultRequestPartWorkers, "how many partitions of one storage request run at once (each waits on its raft commit and edge mirrors) — docs/storage.md")
	mirrorWait := fs.Duration("mirror-wait", 10*time.Second, "how long an edge write waits for the in-edge halves in other partitions before it is acknowledged anyway (it is durable; they follow) — docs/storage.md")
	maxLogBytes := fs.Int64("raft-max-log-bytes", 64<<20, "also truncate once the entries applied since the last truncation reach this many bytes (-1: never)")
	idleTruncate := fs.Duration("raft-log-idle-truncate", 30*time.Second, "cut a partition's raft log back to the catch-up entries once nothing was applied to it for this long, as after a bulk load (0: never)")
	degreeCache := fs.Int("degree-cache-entries", 1<<20, "vertex degrees kept in memory for edge writes, all partitions together (about 100 bytes each; 0: none) — docs/storage.md")
	rdb := rocksopts.Default()
	blockCache := fs.Int("rocksdb-block-cache-mb", rdb.BlockCacheMB, "RocksDB block cache in MiB, one LRU cache shared by all data paths of this storaged")
	writeBuffer := fs.Int("rocksdb-write-buffer-mb", rdb.WriteBufferMB, "RocksDB memtable size in MiB, per data path")
	writeBuffers := fs.Int("rocksdb-max-write-buffer-number", rdb.MaxWriteBufferNumber, "memtables per data path (active + being flushed) before writes stall; at least 2")
	compression := fs.String("rocksdb-compression-per-level", strings.Join(rdb.CompressionPerLevel, ":"), "compression of each LSM level from L0, colon-separated: no, snappy, lz4, lz4hc, zstd, zlib, bzip2; deeper levels use the last entry")
	bloomBits := fs.Int("rocksdb-bloom-bits-per-key", rdb.BloomBitsPerKey, "bloom filter bits per key in SST files, whole keys and vertex prefixes (0: no filters)")
	prefixBloom := fs.Bool("rocksdb-prefix-bloom", true, "prefix blooms on the 17-byte vertex prefix (space, part, kind, first 8 vid bytes) in SST files and memtables, so a GetNeighbors seek skips files without the vertex")
	partitioned := fs.Bool("rocksdb-partitioned-index-filter", true, "write SST files with partitioned index and filters and keep them in the block cache (top level pinned), so that their memory is bounded by the cache; false: whole index and filter per file, held outside the cache (about 1.7 bytes per key) — docs/architecture.md")
	rateLimit := fs.Int("rocksdb-rate-limit-mb", rdb.RateLimitMB, "cap on flush and compaction disk writes in MiB/s, per data path (0: no limit)")
	bgJobs := fs.Int("rocksdb-max-background-jobs", rdb.MaxBackgroundJobs, "concurrent flushes and compactions per data path")
	statistics := fs.Bool("rocksdb-statistics", true, "keep RocksDB's statistics (block cache hits and misses, stall time, bytes read and written), exported as novagraph_storaged_rocksdb_* metrics")
	diskReserve := sizeFlag(storaged.DefaultDiskReserve)
	fs.Var(&diskReserve, "disk-reserve", "free space to keep on each data path's disk, in bytes or with a unit (64MiB): storaged holds it in a file <data-path>/RESERVED and, once less than this is free, releases it, refuses writes to the partitions it leads there (E_DISK_FULL) and moves their leadership away, until twice this is free; it also waits for this much before it starts (0: no guard) — docs/deploy.md")
	adjacencySize := sizeFlag(storaged.DefaultAdjacencyCacheBytes())
	fs.Var(&adjacencySize, "adjacency-cache-size", "memory for the edges and tag rows of partitions that are read and not written, all partitions together, in bytes or with a unit: GetNeighbors and GetProps (GO, FETCH of vertices) read them there instead of RocksDB (0: no cache). Default: a quarter of the memory this storaged may use (its cgroup's limit, else the machine's); give several storaged on one host a share each — docs/storage.md")
	var goMemory daemon.GoMemoryFlag
	fs.Var(&goMemory, "go-memory-limit", "Go soft memory limit storaged sets (runtime/debug.SetMemoryLimit), a size, so that the collector runs before the heap passes it rather than at twice the live heap; it wins over GOMEMLIMIT. Default: the adjacency, raft entry and degree caches plus 1 GiB, unless GOMEMLIMIT is set; 0 or off: storaged sets none")
	entryCacheSize := sizeFlag(storaged.DefaultRaftEntryCacheBytes)
	fs.Var(&entryCacheSize, "raft-entry-cache-size", "memory for raft log entries, all partitions together, in bytes or with a unit: the newest ones, which replication and apply read; older ones are read from RocksDB (0: none) — docs/storage.md")
	adjacencyQuiet := fs.Duration("adjacency-quiet", storaged.DefaultAdjacencyQuiet, "how long a partition must go unwritten before it is cached")
	diskPoll := fs.Duration("disk-poll-interval", storaged.DefaultDiskPollInterval, "how often free space on the data paths is measured")
	tlsFlags := nodetls.RegisterFlags(fs, "storaged")
	gossipKeyFile := gossip.RegisterKeyFileFlag(fs)
	debugPages := daemon.DebugPagesFlag(fs)
	log, err := daemon.ParseFlags(fs, args, "storaged")
	if err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return err
	}
	tlsConfig, err := tlsFlags.LoadDaemon(nodetls.RoleStoraged)
	if err != nil {
		return err
	}
	gossipKeys, err := gossip.LoadKeys(*gossipKeyFile)
	if err != nil {
		return err
	}
	// In storaged.Config and rocksopts.Options zero means the default and -1
	// off; on the command line, where every default is spelled out, 0 is off.
	offIfZero := func(v int) int {
		if v == 0 {
			return -1
		}
		return v
	}
	levels, err := rocksopts.ParseCompressionPerLevel(*compression)
	if err != nil {
		return fmt.Errorf("--rocksdb-compression-per-level: %w", err)
	}
	if diskReserve < 0 {
		return fmt.Errorf("--disk-reserve must not be negative")
	}
	if *partWorkers < 1 {
		return fmt.Errorf("--request-part-workers must be at least 1, got %d", *partWorkers)
	}
	if *adjacencyQuiet <= 0 {
		return fmt.Errorf("--adjacency-quiet must be positive, got %s", *adjacencyQuiet)
	}
	if entryCacheSize == 0 {
		entryCacheSize = -1 // off; in storaged.Config 0 is the default
	}
	if adjacencySize == 0 {
		adjacencySize = -1 // off; in storaged.Config 0 is the default
	}
	ctx, stop := daemon.SignalContext()
	defer stop()

	reg := daemon.NewRegistry()
	cfg := storaged.Config{
		ListenAddr:    *addr,
		DataPaths:     daemon.SplitList(*dataPaths),
		MetaAddrs:     daemon.SplitList(*metaAddrs),
		Zone:          *zone,
		GossipAddr:    *gossipAddr,
		GossipSeeds:   daemon.SplitList(*gossipSeeds),
		GossipKeys:    gossipKeys,
		RaftTick:      *raftTick,
		MaxLogEntries: *maxLog, LogCatchUpEntries: *catchUp, MaxLogBytes: *maxLogBytes, MirrorWait: *mirrorWait, RequestPartWorkers: *partWorkers,
		LogIdleTruncateAfter: orNever(*idleTruncate),
		DegreeCacheEntries:   offIfZero(*degreeCache),
		RaftEntryCacheBytes:  int64(entryCacheSize),
		RocksDB: rocksopts.Options{
			BlockCacheMB: *blockCache, WriteBufferMB: *writeBuffer, MaxWriteBufferNumber: *writeBuffers,
			CompressionPerLevel: levels, BloomBitsPerKey: offIfZero(*bloomBits), NoPrefixBloom: !*prefixBloom,
			WholeIndexAndFilter: !*partitioned, RateLimitMB: offIfZero(*rateLimit), MaxBackgroundJobs: *bgJobs,
			NoStatistics: !*statistics,
		},
		DiskReserve: int64(diskReserve), DiskPollInterval: *diskPoll,
		AdjacencyCacheBytes: int64(adjacencySize), AdjacencyQuiet: *adjacencyQuiet,
		TLS:      tlsConfig,
		Logger:   log,
		Registry: reg,
	}
	daemon.SetGoMemoryLimit(log, goMemory, cfg.GoMemoryLimit(), "the caches",
		"adjacency_cache", bytesize.Format(max(cfg.AdjacencyCacheBytes, 0)),
		"raft_entry_cache", bytesize.Format(max(cfg.RaftEntryCacheBytes, 0)), "degree_cache_entries", max(cfg.DegreeCacheEntries, 0))
	srv := storaged.New(cfg)
	// /healthz answers (503, with the reason) from the start: while
	// storaged waits for disk space it is alive but not ready.
	status, err := daemon.StartStatusServer(*httpAddr, reg, srv.Healthy, *debugPages, log)
	if err != nil {
		return err
	}
	defer func() { _ = status.Close() }()
	status.Handle("/parts", srv.PartsHandler(*debugPages))
	// A data disk with less than --disk-reserve free (a full disk stopped
	// the previous run): wait for space before opening RocksDB rather than
	// crash-loop. No deadline: freeing space takes a human.
	if err := srv.WaitForDiskSpace(ctx); err != nil {
		if ctx.Err() != nil {
			log.Info("shutting down")
			return nil
		}
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := srv.Start(startCtx); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down")
		srv.Stop()
		return nil
	case err := <-srv.Fatal():
		// The raft engine halted on a failed disk write (a full disk:
		// "data disk /data is full"): every partition here fails from now
		// on, so exit 1 and let the supervisor (systemd, docker's restart
		// policy, Kubernetes) restart storaged, which then waits for
		// space. Nothing acknowledged is lost: a write is acknowledged
		// only after its raft entry was synced to a quorum's disks and
		// applied, and the restart replays the synced log.
		log.Error("storaged exits: " + err.Error())
		stopped := make(chan struct{})
		go func() {
			srv.Abort() // not Stop: RocksDB must not be written again
			close(stopped)
		}()
		select { // exit even if a stuck handler holds Abort up
		case <-stopped:
		case <-time.After(30 * time.Second):
		}
		return loggedError{err}
	}
}

// sizeFlag is a byte size flag: bytes, or a number with a unit (64MiB).
type sizeFlag int64

func (f *sizeFlag) String() string {
	n := int64(*f)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return fmt.Sprint(n)
}

func (f *sizeFlag) Set(s string) error {
	n, err := bytesize.Parse(s)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

// orNever maps a duration flag's 0 ("never") to raftgroup's negative (0
// there is the default).
func orNever(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}
