package storaged

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// rocksStatsCollector is RocksDB's health on the dashboard, read on each
// scrape and summed over the data paths (a flag such as write_stopped is
// the largest): from DB properties, the SST bytes on disk, the compaction
// debt, running flushes and compactions, whether writes are slowed or
// stopped; from RocksDB's statistics tickers (rocksopts: on unless
// --rocksdb-statistics=false), block cache hits and misses, the time
// writes stalled, and bytes read, written and compacted. Without
// statistics the stall time comes from rocksdb.dbstats and the ticker
// counters are not exported.
type rocksStatsCollector struct {
	s     *Server
	descs map[string]*prometheus.Desc
}

// rocksIntStats maps a metric to its integer RocksDB property.
var rocksIntStats = []struct {
	name, property, help string
	largest              bool // the largest over the data paths, not the sum
	valueType            prometheus.ValueType
}{
	{"novagraph_storaged_rocksdb_sst_bytes", "rocksdb.total-sst-files-size", "Bytes of all SST files of the data paths (every version still referenced).", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_live_sst_bytes", "rocksdb.live-sst-files-size", "Bytes of the SST files of the current version: the data as compaction leaves it.", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_pending_compaction_bytes", "rocksdb.estimate-pending-compaction-bytes", "Bytes RocksDB estimates compaction must rewrite to bring every level under its target; writes slow down, then stop, as it grows.", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_running_compactions", "rocksdb.num-running-compactions", "Compactions running now.", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_running_flushes", "rocksdb.num-running-flushes", "Memtable flushes running now.", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_immutable_memtables", "rocksdb.num-immutable-mem-table", "Full memtables waiting to be flushed.", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_delayed_write_rate_bytes", "rocksdb.actual-delayed-write-rate", "The rate writes are held to while RocksDB slows them (bytes per second; 0: not slowed).", false, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_write_stopped", "rocksdb.is-write-stopped", "1 while RocksDB stops writes on a data path (too many memtables, L0 files or pending compaction bytes).", true, prometheus.GaugeValue},
	{"novagraph_storaged_rocksdb_keys", "rocksdb.estimate-num-keys", "Keys RocksDB estimates it holds, all data paths.", false, prometheus.GaugeValue},
}

const rocksStallName = "novagraph_storaged_rocksdb_stall_seconds_total"

// rocksTickers maps counters to RocksDB statistics tickers (the lines
// "rocksdb.block.cache.hit COUNT : 12" of rocksdb.options-statistics).
var rocksTickers = []struct{ name, ticker, help string }{
	{"novagraph_storaged_rocksdb_block_cache_hits_total", "rocksdb.block.cache.hit", "Block reads answered by the block cache (data, index and filter blocks); with the misses, the cache's hit rate."},
	{"novagraph_storaged_rocksdb_block_cache_misses_total", "rocksdb.block.cache.miss", "Block reads that went to the SST files."},
	{"novagraph_storaged_rocksdb_read_bytes_total", "rocksdb.bytes.read", "Bytes of values returned by point reads."},
	{"novagraph_storaged_rocksdb_written_bytes_total", "rocksdb.bytes.written", "Bytes written to the memtables (keys and values)."},
	{"novagraph_storaged_rocksdb_compaction_read_bytes_total", "rocksdb.compact.read.bytes", "Bytes compactions read."},
	{"novagraph_storaged_rocksdb_compaction_written_bytes_total", "rocksdb.compact.write.bytes", "Bytes compactions wrote."},
}

// stallTicker is the statistics ticker of the time writes stalled.
const stallTicker = "rocksdb.stall.micros"

// cumulativeStall reads "Cumulative stall: 00:00:1.234 H:M:S" from
// rocksdb.dbstats: the time writes have been stalled since the DB opened.
var cumulativeStall = regexp.MustCompile(`Cumulative stall: (\d+):(\d+):([0-9.]+) H:M:S`)

func newRocksStatsCollector(s *Server) rocksStatsCollector {
	c := rocksStatsCollector{s: s, descs: map[string]*prometheus.Desc{}}
	for _, st := range rocksIntStats {
		c.descs[st.name] = prometheus.NewDesc(st.name, st.help, nil, nil)
	}
	c.descs[rocksStallName] = prometheus.NewDesc(rocksStallName, "Seconds RocksDB has stalled writes since storaged opened it, all data paths.", nil, nil)
	for _, t := range rocksTickers {
		c.descs[t.name] = prometheus.NewDesc(t.name, t.help, nil, nil)
	}
	return c
}

func (c rocksStatsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c rocksStatsCollector) Collect(ch chan<- prometheus.Metric) {
	c.s.dbLife.RLock()
	defer c.s.dbLife.RUnlock()
	if c.s.dbsClosed || len(c.s.dbs) == 0 {
		return
	}
	for _, st := range rocksIntStats {
		var v uint64
		for _, db := range c.s.dbs {
			n, ok := db.GetIntProperty(st.property)
			switch {
			case !ok:
			case st.largest:
				v = max(v, n)
			default:
				v += n
			}
		}
		ch <- prometheus.MustNewConstMetric(c.descs[st.name], st.valueType, float64(v))
	}
	var stall float64
	tickers := map[string]uint64{}
	withStats := false
	for _, db := range c.s.dbs {
		if text := db.GetProperty("rocksdb.options-statistics"); text != "" {
			withStats = true
			parseTickers(text, tickers)
			continue
		}
		stall += parseStallSeconds(db.GetProperty("rocksdb.dbstats"))
	}
	if withStats {
		stall += float64(tickers[stallTicker]) / 1e6
		for _, t := range rocksTickers {
			ch <- prometheus.MustNewConstMetric(c.descs[t.name], prometheus.CounterValue, float64(tickers[t.ticker]))
		}
	}
	ch <- prometheus.MustNewConstMetric(c.descs[rocksStallName], prometheus.CounterValue, stall)
}

// parseTickers adds the tickers in the text of rocksdb.options-statistics
// ("rocksdb.block.cache.hit COUNT : 12", one per line; histograms, which
// have no COUNT : field of this form, are skipped) to sums.
func parseTickers(text string, sums map[string]uint64) {
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		name, rest, ok := strings.Cut(line, " COUNT : ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64); err == nil {
			sums[name] += n
		}
	}
}

// parseStallSeconds reads the cumulative stall time from the text of
// rocksdb.dbstats; 0 if it is not there.
func parseStallSeconds(dbstats string) float64 {
	m := cumulativeStall.FindStringSubmatch(dbstats)
	if m == nil {
		return 0
	}
	h, _ := strconv.ParseFloat(m[1], 64)
	mi, _ := strconv.ParseFloat(m[2], 64)
	s, _ := strconv.ParseFloat(m[3], 64)
	return h*3600 + mi*60 + s
}
