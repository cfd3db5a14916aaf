package storaged

import (
	"context"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/novagraph/novagraph/proto/storagepb"

	"github.com/novagraph/novagraph/raftgroup"
)

// metrics are storaged's Prometheus series.
type metrics struct {
	rpcs        *prometheus.CounterVec // by method
	failedParts *prometheus.CounterVec // by method and code
	latency     *prometheus.HistogramVec
	diskFree    *prometheus.GaugeVec // by data path (diskguard.go)
	diskFull    *prometheus.GaugeVec // by data path: 1 while writes are refused
}

func newMetrics() *metrics {
	return &metrics{
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "novagraph_storaged_rpcs_total", Help: "StorageService calls, by method.",
		}, []string{"method"}),
		failedParts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "novagraph_storaged_failed_parts_total", Help: "Partitions that failed in a StorageService call, by method and code.",
		}, []string{"method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "novagraph_storaged_rpc_duration_seconds", Help: "StorageService call latency, by method.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"method"}),
		diskFree: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "novagraph_storaged_disk_free_bytes", Help: "Free bytes on each data path's disk, as the disk guard last measured (the reserve file not counted as free).",
		}, []string{"path"}),
		diskFull: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "novagraph_storaged_disk_full", Help: "1 while a data path's disk is full: writes to the partitions on it are refused (E_DISK_FULL) and their leadership moves away.",
		}, []string{"path"}),
	}
}

// register adds the service metrics and the raft engine's counters to reg.
func (m *metrics) register(reg prometheus.Registerer, engine func() *raftgroup.Engine) {
	reg.MustRegister(m.rpcs, m.failedParts, m.latency, m.diskFree, m.diskFull)
	counter := func(name, help string, get func(raftgroup.Stats) uint64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 {
			if e := engine(); e != nil {
				return float64(get(e.Stats()))
			}
			return 0
		}))
	}
	counter("novagraph_storaged_raft_rounds_total", "Engine rounds that wrote at least one group.", func(s raftgroup.Stats) uint64 { return s.Rounds })
	counter("novagraph_storaged_raft_batch_writes_total", "RocksDB write batches written by the raft engine.", func(s raftgroup.Stats) uint64 { return s.BatchWrites })
	counter("novagraph_storaged_raft_syncs_total", "Synced raft batch writes.", func(s raftgroup.Stats) uint64 { return s.Syncs })
	counter("novagraph_storaged_raft_group_readies_total", "Group Readies handled; divided by rounds, the groups sharing one write.", func(s raftgroup.Stats) uint64 { return s.GroupsReady })
	counter("novagraph_storaged_raft_entries_appended_total", "Raft log entries appended.", func(s raftgroup.Stats) uint64 { return s.EntriesAppended })
	counter("novagraph_storaged_raft_entries_applied_total", "Raft log entries applied.", func(s raftgroup.Stats) uint64 { return s.EntriesApplied })
	counter("novagraph_storaged_raft_messages_sent_total", "Raft messages handed to the transport.", func(s raftgroup.Stats) uint64 { return s.MessagesSent })
	counter("novagraph_storaged_raft_messages_refused_total", "Raft messages from other stores dropped before raft stepped them: ones raft would have panicked on (raftgroup/screen.go); each is logged.", func(s raftgroup.Stats) uint64 { return s.MessagesRefused })
	counter("novagraph_storaged_raft_entry_cache_hits_total", "Raft log reads (replication, apply) answered from the entry cache.", func(s raftgroup.Stats) uint64 { return s.EntryCache.Hits })
	counter("novagraph_storaged_raft_entry_cache_misses_total", "Raft log reads that went to RocksDB: entries older than the cache holds (a lagging follower) or evicted.", func(s raftgroup.Stats) uint64 { return s.EntryCache.Misses })
	counter("novagraph_storaged_raft_proposals_total", "Commands proposed to raft groups led here (writes, index rebuild chunks, ingests, clears).", func(s raftgroup.Stats) uint64 { return s.Proposals })
	counter("novagraph_storaged_raft_snapshots_sent_total", "Raft snapshots sent to followers too far behind for the log (a new or long-down replica).", func(s raftgroup.Stats) uint64 { return s.SnapshotsSent })
	counter("novagraph_storaged_raft_entry_cache_evicted_total", "Raft log entries dropped from the entry cache to stay within --raft-entry-cache-size.", func(s raftgroup.Stats) uint64 { return s.EntryCache.Evicted })
	gauge := func(name, help string, get func(raftgroup.Stats) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			if e := engine(); e != nil {
				return get(e.Stats())
			}
			return 0
		}))
	}
	gauge("novagraph_storaged_raft_entry_cache_bytes", "Memory held by the raft entry cache (payloads plus an estimated 128 bytes per entry).", func(s raftgroup.Stats) float64 { return float64(s.EntryCache.Bytes) })
	gauge("novagraph_storaged_raft_entry_cache_high_water_bytes", "The most the raft entry cache has held since start.", func(s raftgroup.Stats) float64 { return float64(s.EntryCache.HighWater) })
	gauge("novagraph_storaged_raft_entry_cache_limit_bytes", "The raft entry cache's budget (--raft-entry-cache-size).", func(s raftgroup.Stats) float64 { return float64(s.EntryCache.Limit) })
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "novagraph_storaged_raft_log_bytes",
		Help: "Payload bytes of the raft log entries not yet truncated, all partitions: on disk beside the data (--raft-max-log-bytes, --raft-log-idle-truncate bound it).",
	}, func() float64 {
		if e := engine(); e != nil {
			_, b := e.LogSize()
			return float64(b)
		}
		return 0
	}))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "novagraph_storaged_raft_leaders", Help: "Raft groups (partitions) this store leads."}, func() float64 {
		if e := engine(); e != nil {
			return float64(len(e.Leading()))
		}
		return 0
	}))
	lag := func(name, help string, pick func(largest, total uint64) uint64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			if e := engine(); e != nil {
				return float64(pick(e.ApplyLag()))
			}
			return 0
		}))
	}
	lag("novagraph_storaged_raft_apply_lag_entries", "Committed raft entries not yet applied, summed over this store's replicas.",
		func(_, total uint64) uint64 { return total })
	lag("novagraph_storaged_raft_apply_lag_max_entries", "The largest gap between a replica's commit and applied index on this store.",
		func(largest, _ uint64) uint64 { return largest })
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "novagraph_storaged_raft_groups", Help: "Raft groups (partition replicas) hosted."}, func() float64 {
		if e := engine(); e != nil {
			return float64(e.Stats().Groups)
		}
		return 0
	}))
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "novagraph_storaged_raft_groups_halted",
		Help: "Partition replicas stopped at a committed entry they cannot apply on this store (an SST ingest whose file no replica could supply); /parts says which and why.",
	}, func() float64 {
		if e := engine(); e != nil {
			return float64(e.Stats().HaltedGroups)
		}
		return 0
	}))
}

// registerAdjacency adds the adjacency cache's series (adjacency.go).
func (m *metrics) registerAdjacency(reg prometheus.Registerer, cache func() *adjacencyCache) {
	gauge := func(name, help string, get func(*adjacencyCache) float64) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			if c := cache(); c != nil {
				return get(c)
			}
			return 0
		}))
	}
	counter := func(name, help string, get func(*adjacencyCache) uint64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 {
			if c := cache(); c != nil {
				return float64(get(c))
			}
			return 0
		}))
	}
	gauge("novagraph_storaged_adjacency_bytes", "Memory held by the adjacency cache: the edges and tag rows of partitions not being written, for GetNeighbors and GetProps.",
		func(c *adjacencyCache) float64 { b, _ := c.stats(); return float64(b) })
	gauge("novagraph_storaged_adjacency_partitions", "Partitions the adjacency cache holds.",
		func(c *adjacencyCache) float64 { _, n := c.stats(); return float64(n) })
	counter("novagraph_storaged_adjacency_hits_total", "Partition reads of GetNeighbors and GetProps that found the partition's adjacency current.",
		func(c *adjacencyCache) uint64 { return c.hits.Load() })
	counter("novagraph_storaged_adjacency_misses_total", "Partition reads of GetNeighbors and GetProps that read RocksDB: no adjacency, or one the partition's writes made stale.",
		func(c *adjacencyCache) uint64 { return c.misses.Load() })
	counter("novagraph_storaged_adjacency_builds_total", "Adjacencies built and installed.",
		func(c *adjacencyCache) uint64 { return c.builds.Load() })
	counter("novagraph_storaged_adjacency_abandoned_total", "Adjacency builds given up: over the budget (estimated from the partition's SST bytes before a scan, or found during one), or a failed scan.",
		func(c *adjacencyCache) uint64 { return c.abandoned.Load() })
	counter("novagraph_storaged_adjacency_columns_total", "Property columns the adjacency cache decoded and kept, one per partition, edge or tag property and schema version.",
		func(c *adjacencyCache) uint64 { return c.columns.Load() })
}

// registerResolver adds the edge-pair resolver's series (pair.go): after
// a bulk load they say whether the in-edges have caught up.
func (m *metrics) registerResolver(reg prometheus.Registerer, res func() *resolver) {
	counter := func(name, help string, get func(*resolverStats) *atomic.Uint64) {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 {
			if r := res(); r != nil {
				return float64(get(&r.stats).Load())
			}
			return 0
		}))
	}
	counter("novagraph_storaged_intents_resolved_total", "Intents (in-edges to mirror, edges to delete at their owner) carried out and deleted by the partitions this store led.",
		func(s *resolverStats) *atomic.Uint64 { return &s.resolved })
	counter("novagraph_storaged_mirror_requests_total", "MirrorEdges requests the resolver sent, one per target partition and batch.",
		func(s *resolverStats) *atomic.Uint64 { return &s.mirrorRequests })
	counter("novagraph_storaged_intent_target_failures_total", "Target partitions a resolver batch could not reach or write (no leader, a timeout): their intents wait for a later pass, the others go on.",
		func(s *resolverStats) *atomic.Uint64 { return &s.failedTargets })
	counter("novagraph_storaged_intent_passes_failed_total", "Resolver passes that ended with intents left.",
		func(s *resolverStats) *atomic.Uint64 { return &s.failedPasses })
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "novagraph_storaged_partitions_with_pending_intents",
		Help: "Partitions led here whose last resolver pass left intents (GO REVERSELY misses their in-edges until a pass gets through); 0 once writes stop on a healthy cluster.",
	}, func() float64 {
		if r := res(); r != nil {
			return float64(r.behind())
		}
		return 0
	}))
}

// interceptor counts StorageService calls and the partitions that failed in
// them (a call succeeds at the RPC level even when some partitions fail).
func (m *metrics) interceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if !strings.HasPrefix(info.FullMethod, "/novagraph.") {
		return handler(ctx, req) // health checks and reflection are not storage requests
	}
	method := path.Base(info.FullMethod)
	start := time.Now()
	resp, err := handler(ctx, req)
	m.rpcs.WithLabelValues(method).Inc()
	m.latency.WithLabelValues(method).Observe(time.Since(start).Seconds())
	if r, ok := resp.(interface {
		GetFailedParts() []*storagepb.PartResult
	}); ok {
		for _, f := range r.GetFailedParts() {
			m.failedParts.WithLabelValues(method, f.GetCode().String()).Inc()
		}
	}
	return resp, err
}
