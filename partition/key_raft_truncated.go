package partition

// raftTruncated extends the raft state items documented at raftStateKey:
// 0x04 is the truncated state.
const raftTruncated byte = 0x04

// RaftTruncatedKey returns the key of a replica's truncated log state:
// index (8 bytes, big-endian) | term (8 bytes, big-endian) of the last entry
// removed from the log. The log holds the entries after it; a new replica
// starts with a synthetic truncated state shared by all its peers.
func RaftTruncatedKey(space, part int32) []byte { return raftStateKey(space, part, raftTruncated) }
