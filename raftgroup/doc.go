// Package raftgroup is novagraph's multi-Raft engine: every partition replica
// hosted by one storaged is a member of its own Raft group, and all the
// groups of that storaged share one Engine.
//
// # Goroutines
//
// A few goroutines own all raft state of a store, however many groups it
// hosts (no goroutine or timer per group):
//
//   - Workers (round.go; Config.Workers, default min(GOMAXPROCS, 8)). Each
//     group is driven by one worker for its lifetime, which owns its
//     RawNode. Other goroutines never touch a RawNode; they leave work in a
//     group's mailbox (proposals, reads, inbound messages, reports) and
//     mark the group active, which wakes its worker. A worker ticks all its
//     groups on its tick and otherwise handles only the active ones.
//   - The append writer (writer.go) owns every write of raft log entries,
//     hard states, truncations and snapshot installs, for all workers.
//
// The RawNodes run with raft's AsyncStorageWrites: a Ready hands log
// writes to the writer as MsgStorageAppend messages, and the writer steps
// the responses back once the write is durable. So an fsync never holds up
// a tick, a heartbeat or a leader's append to its followers.
//
// # The round
//
// Each round (on a tick, or when a mailbox got work) a worker:
//
//  1. drains the woken mailboxes into their RawNodes, and ticks every group
//     if the tick interval elapsed;
//  2. takes each ready group's Ready and sends its network messages at once
//     (raft withholds those that need the local write first: they are
//     responses of the MsgStorageAppend);
//  3. queues the MsgStorageAppends for the writer, which writes everything
//     queued since its last write as ONE WriteBatch per RocksDB instance
//     with ONE fsync, however many groups took part;
//  4. applies the committed entries (MsgStorageApply, durable here by
//     construction) in one batch per RocksDB instance that holds the data
//     and the applied index together, and completes the proposals and
//     reads they satisfy. The Applier's writes collect in the batch's
//     overlay and reach the WriteBatch as the round's final state, one
//     record per key in key order (ApplyBatch.stage: the memtable inserts
//     neighbouring keys far more cheaply than scattered ones).
//
// Because the applied index is in the same atomic batch as the data it
// applied, a crash can neither replay an entry (its effects and the index
// that covers it land together) nor skip one. The apply batch is not
// synced: losing it in a crash loses the applied index with it, and the
// entries, durable in the log, are applied again.
//
// # Bootstrap, the log and snapshots
//
// A new replica starts from a synthetic truncated state at index 5, term 5,
// whose ConfState lists the initial voters (every replica of a partition is
// created with the same list by the catalog), as TiKV does. A replica added
// later starts the same way with no voters and is filled by the leader. The
// log of each group is kept in RocksDB under the partition's raft-log keys;
// the logStore that the raft package reads keeps only the log's bounds,
// terms and entry sizes in memory, and the engine's entry cache the newest
// entries of every group within one byte budget (Config.EntryCacheBytes):
// anything older is read back from RocksDB. The log is truncated behind
// the applied index (Config.MaxLogEntries, MaxLogBytes), and cut back to
// the catch-up window once a group has applied nothing for a while
// (Config.LogIdleTruncateAfter); a follower behind the truncation point
// gets a snapshot (snapshot.go).
//
// # Invariants
//
//   - Only a group's worker calls into its RawNode.
//   - Log and hard-state writes of one group happen in the order raft
//     queued them (the writer is FIFO).
//   - A message that depends on a local write (a vote, a follower's append
//     acknowledgement) leaves only after that write is durable.
//   - Committed entries are applied only once durable locally (raft's rule
//     under AsyncStorageWrites), on the group's worker, so the data in
//     RocksDB always equals the state at g.applied between rounds; a
//     leader's snapshot is taken at exactly that point.
//   - A proposal is acknowledged only when its entry is applied on this
//     replica.
//   - An entry is applied or the group stops before it: an Applier error
//     wrapping ErrApplyHalted (this replica cannot apply it now) keeps the
//     entry and every later one unapplied, their MsgStorageApply held and
//     unacknowledged to raft, and retried every ApplyRetryInterval; the
//     other groups of the round are applied and written as usual.
package raftgroup
