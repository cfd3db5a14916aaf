// Package raftgroup is novagraph's multi-Raft engine: every partition replica
// hosted by one storaged is a member of its own Raft group, and all the
// groups of that storaged share one Engine.
//
// # The round
//
// One goroutine (Engine.run) owns every RawNode. Other goroutines never touch
// a RawNode; they leave work in a group's mailbox (proposals, read requests,
// inbound messages, unreachable reports) and wake the engine. The engine then
// runs a round:
//
//  1. Drain the mailboxes of the groups that were woken, and tick every group
//     if the tick interval elapsed.
//  2. Collect a Ready from each group that has one.
//  3. Write, per RocksDB instance, ONE WriteBatch holding for every ready
//     group: the new log entries (and the deletion of any conflicting tail),
//     the hard state, the data of the committed entries as the state machine
//     applies them, and the applied index. One write, one fsync for the whole
//     round, however many groups took part.
//  4. Only then send the round's messages (so a follower's vote or append
//     acknowledgement never precedes its durable record), complete the
//     proposals and reads the applied entries satisfy, and Advance.
//
// Because the applied index is in the same atomic batch as the data it
// applied, a crash can neither replay an entry (its effects and the index
// that covers it land together) nor skip one.
//
// # Bootstrap and the log
//
// A new replica starts from a synthetic truncated state at index 5, term 5,
// whose ConfState lists the initial voters (every replica of a partition is
// created with the same list by the catalog), as TiKV does. Every replica
// therefore starts identical, and no replica ever needs the entries below
// index 6. The log of each group is kept in RocksDB under the partition's
// raft-log keys and mirrored in a raft.MemoryStorage that the raft package
// reads; the mirror is rebuilt from RocksDB on restart.
//
// # Invariants
//
//   - Only the engine goroutine calls into a RawNode or its MemoryStorage
//     mutators.
//   - Messages of a round are handed to the Transport only after that round's
//     batch is durable.
//   - group.applied is advanced only after the batch that contains the
//     applied data is written; reads that wait for an applied index read
//     RocksDB after that write, so they observe it.
//   - A proposal is acknowledged only when its entry is applied on this
//     replica.
package raftgroup
