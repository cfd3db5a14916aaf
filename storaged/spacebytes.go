package storaged

import (
	"strconv"

	"github.com/linxGnu/grocksdb"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/raftgroup"
)

// Disk bytes per space (issue 23: "disk bytes per space" next to a load
// test's QPS). RocksDB estimates, from its SST files' index blocks, the
// bytes a key range takes on disk (GetApproximateSizes, compressed, the
// memtables left out); a partition's data is one key range,
// partition.DataRange (tags through degrees). The raft log and state,
// under the same partition prefix, are past that range and not counted.

// spaceBytesCollector is novagraph_storaged_space_bytes{space}: the SST
// bytes of every replica of the space this storaged hosts, computed on
// scrape.
type spaceBytesCollector struct {
	s    *Server
	desc *prometheus.Desc
}

func newSpaceBytesCollector(s *Server) spaceBytesCollector {
	return spaceBytesCollector{s: s, desc: prometheus.NewDesc("novagraph_storaged_space_bytes",
		"Bytes of SST files (compressed, as RocksDB estimates from their indexes) the replicas of each graph space take on this storaged's disks; memtables not counted.",
		[]string{"space"}, nil)}
}

func (c spaceBytesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c spaceBytesCollector) Collect(ch chan<- prometheus.Metric) {
	bytes := c.s.SpaceBytes()
	if len(bytes) == 0 {
		return
	}
	var names func(int32) string
	if c.s.meta != nil {
		snap := c.s.meta.Catalog()
		names = func(id int32) string {
			if d, ok := snap.SpaceByID(id); ok {
				return d.GetName()
			}
			return "id:" + strconv.Itoa(int(id)) // not a name a space could have
		}
	} else {
		names = func(id int32) string { return "id:" + strconv.Itoa(int(id)) }
	}
	for space, n := range bytes {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), names(space))
	}
}

// SpaceBytes returns, by space id, the estimated SST bytes of the replicas
// this storaged hosts; nil once its RocksDB instances are closed.
func (s *Server) SpaceBytes() map[int32]uint64 {
	s.mu.Lock()
	byDB := map[*grocksdb.DB][]raftgroup.GroupID{}
	for g, db := range s.groupDB {
		byDB[db] = append(byDB[db], g)
	}
	s.mu.Unlock()
	s.dbLife.RLock() // closeDBs waits for the estimates
	defer s.dbLife.RUnlock()
	if s.dbsClosed {
		return nil
	}
	out := map[int32]uint64{}
	for db, groups := range byDB {
		ranges := make([]grocksdb.Range, len(groups))
		for i, g := range groups {
			ranges[i] = dataRange(g)
		}
		sizes, err := db.GetApproximateSizes(ranges)
		if err != nil {
			s.log.Warn("estimating partition sizes", "err", err)
			continue
		}
		for i, g := range groups {
			out[g.Space] += sizes[i]
		}
	}
	return out
}

// dataRange is g's data keys (partition.DataRange) as a range for
// RocksDB's size estimates.
func dataRange(g raftgroup.GroupID) grocksdb.Range {
	start, end := partition.DataRange(g.Space, g.Part)
	return grocksdb.Range{Start: start, Limit: end}
}
