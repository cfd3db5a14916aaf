package storaged

import (
	"github.com/prometheus/client_golang/prometheus"
)

// rocksMemoryCollector is novagraph_storaged_rocksdb_memory_bytes{kind}:
// where RocksDB's share of storaged's memory is, read from its DB
// properties on scrape (issue 23: the index and filters of open files were
// 1.65 GB at SF1000 that nothing showed). Each kind is summed over the data
// paths, except the block cache, which they share (one per process).
type rocksMemoryCollector struct {
	s    *Server
	desc *prometheus.Desc
}

// rocksMemoryKinds maps each kind label to its RocksDB property.
var rocksMemoryKinds = []struct {
	kind, property string
	shared         bool // one value for the process, not one per data path
}{
	{"block_cache", "rocksdb.block-cache-usage", true},
	{"block_cache_pinned", "rocksdb.block-cache-pinned-usage", true},
	{"block_cache_capacity", "rocksdb.block-cache-capacity", true},
	{"table_readers", "rocksdb.estimate-table-readers-mem", false},
	{"memtables", "rocksdb.cur-size-all-mem-tables", false},
}

func newRocksMemoryCollector(s *Server) rocksMemoryCollector {
	return rocksMemoryCollector{s: s, desc: prometheus.NewDesc("novagraph_storaged_rocksdb_memory_bytes",
		"Memory RocksDB holds, by kind: block_cache (data, index and filter blocks in the LRU cache shared by the data paths; "+
			"block_cache_pinned the part that cannot be evicted, block_cache_capacity its size), "+
			"table_readers (open SST files' index and filter blocks held outside the cache; small with partitioned index and filters) "+
			"and memtables, summed over the data paths.",
		[]string{"kind"}, nil)}
}

func (c rocksMemoryCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c rocksMemoryCollector) Collect(ch chan<- prometheus.Metric) {
	c.s.dbLife.RLock()
	defer c.s.dbLife.RUnlock()
	if c.s.dbsClosed || len(c.s.dbs) == 0 {
		return
	}
	for _, k := range rocksMemoryKinds {
		var sum uint64
		for i, db := range c.s.dbs {
			if k.shared && i > 0 {
				break
			}
			if v, ok := db.GetIntProperty(k.property); ok {
				sum += v
			}
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(sum), k.kind)
	}
}
