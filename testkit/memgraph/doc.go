// Package memgraph is an in-memory graph for tests: a Meta that implements
// graphd/exec.Catalog (what metad is to the executor) and a Storage that
// implements graphd/exec.Storage (what storaged is to it), so the
// executor's GO, FETCH, LOOKUP and pipe semantics are tested in
// milliseconds, without a cluster (graphd/exec's data-driven tests).
//
// It is test kit: no non-test package may import it.
//
// # What it models
//
// The executor's semantics depend on the storagepb contract, so memgraph
// answers it with storaged's own code: storaged/rowread answers
// GetNeighbors, GetProps and LookupIndex from the rows read, evaluates
// UPDATE and keeps index entries, for storaged and memgraph alike, as
// metad/ddlcheck checks DDL for metad and memgraph alike. memgraph's own
// part is the store (an ordered map instead of RocksDB and raft) and the
// bookkeeping around it (partitions, the catalog's counters). It models:
//
//   - Data lives per space in one ordered key-value map whose keys are
//     storaged's RocksDB keys (partition.TagKey, EdgeKey, TagIndexKey,
//     EdgeIndexKey), so every scan visits what storaged's would, in the
//     same order: a vertex's edges by signed edge type, then rank, then
//     destination (INT64 vids sign-flipped big-endian, FIXED_STRING vids
//     padded with 0x00); an index by its encoded values. Rows are encoded
//     and read with partition's row codec and internal/schema's Versions
//     (older schema versions, defaults of columns added later).
//   - Every edge is stored twice, as storaged stores it: the out-edge in
//     its source's partition and the in-edge (negative type, endpoints
//     swapped, partition.EncodeInEdge) in its destination's. Writes keep
//     both halves in step at once, as storaged's AddEdges, DeleteEdges,
//     DeleteVertices and Update do once their mirrors are flushed.
//   - Requests are answered per partition, as storaged answers them:
//     vids are checked against the partition they were sent to (the same
//     E_INVALID_ARGUMENT, from rowread.CheckVid), dedup_dst is per
//     partition, LookupIndex's limit is per partition, and each partition's
//     writes apply atomically (a failed partition leaves nothing; the
//     others stay, as with storaged's one raft entry per partition).
//     Partitions are answered in ascending order and a vertex's answer in
//     the order of the request, so results are deterministic; a cluster
//     interleaves partitions in no fixed order.
//   - GetNeighbors honours edge_types (signed), vertex_props, edge_props
//     with the reserved _src, _dst, _rank and _type, limit_per_vertex,
//     sample_per_vertex (a reservoir sample as storaged's, drawn from a
//     generator seeded per partition, so deterministic), dst_only with
//     packed_dsts, filter (parsed with query/parser and evaluated with
//     query/eval by rowread, as in storaged), count_only, dedup_dst and
//     with_degree (counted: memgraph stores no degrees).
//   - Secondary indexes are index entries written with the data, as
//     storaged writes them: an index sees the rows written after it was
//     created, and REBUILD INDEX clears and rebuilds its entries from the
//     data. LookupIndex scans the entries with storaged's hint ranges.
//   - UPDATE and UPSERT evaluate WHEN, SET and YIELD against the row with
//     rowread.Update, as storaged's apply does.
//   - TTL: expired rows are hidden from reads and treated as absent by
//     INSERT IF NOT EXISTS and UPDATE, against Options.Now.
//   - The catalog is a metapb.Catalog handed out as catalog.Snapshot copies
//     whose version increases with every change. DDL is checked with
//     metad's own checks (metad/ddlcheck: the same codes and messages),
//     and what they leave to the catalog as metad does it (a taken name is
//     E_EXISTED, and so on); refusals are metad/client errors, as the
//     executor gets them from metad; partition failures are
//     storaged/client PartErrors.
//
// # What it does not model
//
// Raft, replication, leaders and their changes, hosts going away, catalog
// versions lagging between daemons, in-edge tombstones and the edge-pair
// resolver (both halves of an edge change together), memory and disk
// limits, ScanVertex/ScanEdge (not part of exec.Storage), and users,
// roles, hosts and jobs: the catalog has user root (GOD, which every test
// session uses) and Options.Hosts storage hosts, all online; the calls
// that would change them fail with E_UNKNOWN saying memgraph does not
// model them.
package memgraph
