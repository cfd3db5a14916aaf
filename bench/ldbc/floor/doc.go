// Package floor is the storage floor of the LDBC load driver: the same
// k-hop reads GO does, as raw RocksDB prefix scans of the same keys, in
// process, with no RPC, planning, serialisation or result building. A
// driver report shows novagraph's throughput as a ratio of this floor
// ("of floor"), as testkit/e2e's BenchmarkGetNeighbors does for a single
// GetNeighbors call.
//
// # How the floor maps to storaged's keys
//
// Load writes, into one RocksDB instance (storaged keeps every partition
// of a data path in one instance too), exactly the keys storaged writes
// for the graph in a space with vid_type=INT64 and Options.Partitions
// partitions, each vertex in partition.PartOfInt64(vid, partitions):
//
//   - per vertex, its tag row: partition.TagKey(space, part(v), v, tag),
//     value a property-less row (TAG node());
//   - per vertex, its stored out- and in-degree: partition.DegreeKey with
//     +edgeType and -edgeType;
//   - per edge src->dst, the out-edge partition.EdgeKey(space, part(src),
//     src, +edgeType, 0, dst) whose value is a one-column row (the size of
//     a knows(creationDate int) row), and its mirrored in-edge
//     partition.EdgeKey(space, part(dst), dst, -edgeType, 0, src) whose
//     value is partition.EncodeInEdge(version, row).
//
// Vids are partition.EncodeInt64Vid; the space id, tag id and edge type
// are 1 (metad assigns the real ones; only key bytes differ). The RocksDB
// options are storaged's (block cache, full bloom filters with whole keys,
// the 17-byte prefix extractor and memtable prefix bloom, compression per
// level; built by rocksopts.New). After the load the
// data is flushed and compacted, so reads see settled SST files as after
// a bulk import and a compaction.
//
// # The reads
//
// Reader.Go(steps, start) is GO steps STEPS FROM start OVER e YIELD
// dst(edge): each step scans the EdgePrefix(space, part(v), v, +edgeType)
// of every vertex of the frontier, with an iterator in prefix mode as
// storaged's GetNeighbors uses (each Seek consults the prefix blooms);
// the frontier of step k+1 is the distinct destinations of step k (no
// visited set, as in nGQL), and the result is every edge of the last step,
// duplicates included, whose destinations are copied out. The row count
// therefore equals the row count of the nGQL statement, which the driver's
// integration test checks per start vertex. A query runs on one goroutine
// (storaged fans a step out over partitions, the floor does not); the
// driver's concurrency gives parallelism across queries.
package floor
