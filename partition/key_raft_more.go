package partition

// Raft state items beyond those documented at raftStateKey:
//
//	0x04 truncated state
//	0x05 snapshot ingest pending
const (
	raftTruncated     byte = 0x04
	raftSnapshotApply byte = 0x05
)

// RaftTruncatedKey returns the key of a replica's truncated log state:
// index (8 bytes, big-endian) | term (8 bytes, big-endian) of the last entry
// removed from the log. The log holds the entries after it; a new replica
// starts with a synthetic truncated state shared by all its peers.
func RaftTruncatedKey(space, part int32) []byte { return raftStateKey(space, part, raftTruncated) }

// RaftSnapshotApplyKey marks a snapshot whose raft state is written but
// whose data file may not be ingested yet. Its value is the path of the SST
// file (empty for a snapshot with no data). On restart a replica that finds
// it clears its data range and ingests the file again, which is idempotent,
// before it serves anything.
func RaftSnapshotApplyKey(space, part int32) []byte {
	return raftStateKey(space, part, raftSnapshotApply)
}
