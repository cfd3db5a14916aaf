package partition

import (
	"encoding/binary"
	"fmt"
)

// Every key starts with a 9-byte prefix:
//
//	offset size field
//	0      4    space id, big-endian
//	4      4    partition id, big-endian
//	8      1    kind, one of the Kind constants
//
// Space and partition ids are assigned by metad and always positive, so they
// are stored as plain big-endian integers: keys group by space, then by
// partition, and a partition is one contiguous range. The kind byte comes next
// so that the data of a partition (what a snapshot streams) and its Raft
// bookkeeping (never streamed) are two contiguous sub-ranges.
const (
	// PartPrefixLen is the length of PartPrefix.
	PartPrefixLen = 8
	// KeyPrefixLen is the length of the prefix every key starts with.
	KeyPrefixLen = 9
)

// Key kinds: byte 8 of every key.
//
// Data kinds are 0x01..0x06 and are what a partition snapshot streams (see
// DataRange). Raft kinds start at 0x10, past the data kinds, and hold one
// replica's own Raft state: they never leave the replica, and a snapshot being
// installed must not overwrite them. New data kinds take 0x07..0x0f so that the
// data range stays contiguous.
const (
	KindTag    byte = 0x01 // vertex properties: TagKey
	KindEdge   byte = 0x02 // edge properties, out- and in-edges: EdgeKey
	KindIndex  byte = 0x03 // secondary indexes: IndexPrefix
	KindSystem byte = 0x04 // per-partition metadata: DataVersionKey, TombstoneKey
	KindIntent byte = 0x05 // changes promised to another partition: IntentKey
	KindDegree byte = 0x06 // stored degree per vertex, edge type, direction: DegreeKey

	KindRaftLog   byte = 0x10 // Raft log entries: RaftLogKey
	KindRaftState byte = 0x11 // Raft hard state, applied index, conf state

	// kindDataEnd is one past the last data kind; DataRange ends there.
	kindDataEnd byte = KindDegree + 1
)

// appendPrefix appends the 9-byte key prefix space | part | kind to b.
func appendPrefix(b []byte, space, part int32, kind byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(space))
	b = binary.BigEndian.AppendUint32(b, uint32(part))
	return append(b, kind)
}

func newKey(space, part int32, kind byte, extra int) []byte {
	return appendPrefix(make([]byte, 0, KeyPrefixLen+extra), space, part, kind)
}

// PartPrefix returns the 8-byte prefix shared by every key of one partition:
// space(4 BE) | part(4 BE). [PartPrefix, PrefixEnd(PartPrefix)) is the whole
// partition, data and Raft state; dropping a partition deletes that range.
func PartPrefix(space, part int32) []byte {
	b := make([]byte, 0, PartPrefixLen)
	b = binary.BigEndian.AppendUint32(b, uint32(space))
	return binary.BigEndian.AppendUint32(b, uint32(part))
}

// KindPrefix returns the 9-byte prefix of every key of one kind in one
// partition: space(4 BE) | part(4 BE) | kind(1).
func KindPrefix(space, part int32, kind byte) []byte {
	return newKey(space, part, kind, 0)
}

// DataRange returns [start, end) covering every data key of a partition
// (KindTag through KindDegree) and no Raft key: the range a snapshot streams,
// and the range a follower clears before installing one.
func DataRange(space, part int32) (start, end []byte) {
	return KindPrefix(space, part, KindTag), KindPrefix(space, part, kindDataEnd)
}

// TagKey returns the key of one tag of one vertex, whose value is the tag's
// property row (EncodeRow). With N = len(vid), the space's vid length:
//
//	offset size field
//	0      4    space id, big-endian
//	4      4    partition id, big-endian
//	8      1    KindTag (0x01)
//	9      N    vid, encoded (EncodeInt64Vid / EncodeStringVid)
//	9+N    4    tag id, big-endian, sign bit flipped
//
// The vid precedes the tag id so that all tags of a vertex are adjacent
// (TagPrefix) and a FETCH of several tags of one vertex is one short scan.
func TagKey(space, part int32, vid []byte, tagID int32) []byte {
	return AppendTagKey(make([]byte, 0, KeyPrefixLen+len(vid)+4), space, part, vid, tagID)
}

// AppendTagKey appends TagKey(space, part, vid, tagID) to b, for a loop
// that builds one key after another in one buffer.
func AppendTagKey(b []byte, space, part int32, vid []byte, tagID int32) []byte {
	b = appendPrefix(b, space, part, KindTag)
	b = append(b, vid...)
	return appendInt32(b, tagID)
}

// TagPrefix returns the prefix of the keys of every tag of one vertex:
// space | part | KindTag | vid.
func TagPrefix(space, part int32, vid []byte) []byte {
	return append(newKey(space, part, KindTag, len(vid)), vid...)
}

// ParseTagKey splits a key built by TagKey in a space whose vids are vidLen
// bytes long. The returned vid is a copy: keys read from an iterator are often
// only valid until it moves.
func ParseTagKey(key []byte, vidLen int) (space, part int32, vid []byte, tagID int32, err error) {
	if err = checkKey(key, KindTag, "tag", vidLen, KeyPrefixLen+vidLen+4); err != nil {
		return 0, 0, nil, 0, err
	}
	space, part = parsePrefix(key)
	vid = append([]byte(nil), key[KeyPrefixLen:KeyPrefixLen+vidLen]...)
	tagID = getInt32(key[KeyPrefixLen+vidLen:])
	return space, part, vid, tagID, nil
}

// EdgeKey returns the key of one edge, whose value is the edge's property row
// (EncodeRow). Every edge is stored twice: as an out-edge in src's partition
// with edgeType > 0, and as an in-edge in dst's partition with -edgeType and
// src and dst swapped, so that both directions are a prefix scan of the
// partition that owns the vertex. With N the space's vid length:
//
//	offset  size field
//	0       4    space id, big-endian
//	4       4    partition id, big-endian
//	8       1    KindEdge (0x02)
//	9       N    src vid, encoded (the vertex this partition owns)
//	9+N     4    edge type, big-endian, sign bit flipped (< 0: in-edge)
//	13+N    8    rank, big-endian, sign bit flipped
//	21+N    N    dst vid, encoded
//
// The order src, type, rank, dst makes the edges of one vertex contiguous
// (VertexEdgePrefix), then the edges of one type (EdgePrefix, what GO scans),
// sorted by rank and then dst. The sign flip sorts in-edge types (negative)
// before out-edge types.
func EdgeKey(space, part int32, src []byte, edgeType int32, rank int64, dst []byte) []byte {
	return AppendEdgeKey(make([]byte, 0, KeyPrefixLen+len(src)+12+len(dst)), space, part, src, edgeType, rank, dst)
}

// AppendEdgeKey appends EdgeKey(space, part, src, edgeType, rank, dst) to b
// (bulk writers building keys in one buffer).
func AppendEdgeKey(b []byte, space, part int32, src []byte, edgeType int32, rank int64, dst []byte) []byte {
	b = appendPrefix(b, space, part, KindEdge)
	b = append(b, src...)
	b = appendInt32(b, edgeType)
	b = appendInt64(b, rank)
	return append(b, dst...)
}

// EdgePrefix returns the prefix of the keys of every edge of one type leaving
// (edgeType > 0) or entering (edgeType < 0) src: space | part | KindEdge | src |
// edgeType.
func EdgePrefix(space, part int32, src []byte, edgeType int32) []byte {
	b := newKey(space, part, KindEdge, len(src)+4)
	b = append(b, src...)
	return appendInt32(b, edgeType)
}

// VertexEdgePrefix returns the prefix of the keys of every edge of src, of
// every type and both directions: space | part | KindEdge | src.
func VertexEdgePrefix(space, part int32, src []byte) []byte {
	return append(newKey(space, part, KindEdge, len(src)), src...)
}

// ParseEdgeKey splits a key built by EdgeKey in a space whose vids are vidLen
// bytes long. src and dst are copies, as in ParseTagKey.
func ParseEdgeKey(key []byte, vidLen int) (space, part int32, src []byte, edgeType int32, rank int64, dst []byte, err error) {
	if err = checkKey(key, KindEdge, "edge", vidLen, EdgeKeyLen(vidLen)); err != nil {
		return 0, 0, nil, 0, 0, nil, err
	}
	space, part = parsePrefix(key)
	src = append([]byte(nil), key[KeyPrefixLen:KeyPrefixLen+vidLen]...)
	dst = append([]byte(nil), EdgeKeyDst(key, vidLen)...)
	return space, part, src, EdgeKeyType(key, vidLen), EdgeKeyRank(key, vidLen), dst, nil
}

// EdgeKeySource returns an edge key's source vid and edge type without
// copying: src aliases key. For a hot loop over many keys (the importer's
// degree count) where ParseEdgeKey's two copies would dominate.
func EdgeKeySource(key []byte, vidLen int) (src []byte, edgeType int32, err error) {
	if err = checkKey(key, KindEdge, "edge", vidLen, EdgeKeyLen(vidLen)); err != nil {
		return nil, 0, err
	}
	return key[KeyPrefixLen : KeyPrefixLen+vidLen], EdgeKeyType(key, vidLen), nil
}

// EdgeKeyLen is the length of every edge key in a space whose vids are
// vidLen bytes long: 21+2N in EdgeKey's table.
func EdgeKeyLen(vidLen int) int { return KeyPrefixLen + 2*vidLen + 12 }

// EdgePrefixLen is the length of an EdgePrefix in a space whose vids are
// vidLen bytes long: 13+N, where the rank starts in EdgeKey's table.
func EdgePrefixLen(vidLen int) int { return KeyPrefixLen + vidLen + 4 }

// EdgeKeyType, EdgeKeyRank and EdgeKeyDst read one field of an edge key in
// place, at the offsets of EdgeKey's table (N = vidLen): no copy, no
// allocation and no error, for loops over many keys (GetNeighbors' scan of an
// EdgePrefix) where ParseEdgeKey's checks and copies would dominate. They are
// unchecked: the caller guarantees vidLen > 0 and len(key) ==
// EdgeKeyLen(vidLen), and the kind byte is not looked at. See "Unchecked
// accessors" in the package doc for how callers meet that.

// EdgeKeyType returns the edge type of an edge key: bytes [9+N, 13+N),
// big-endian with the sign bit flipped; negative for an in-edge. Unchecked:
// len(key) must be EdgeKeyLen(vidLen); a key that ends before byte 13+N
// panics.
func EdgeKeyType(key []byte, vidLen int) int32 {
	return getInt32(key[KeyPrefixLen+vidLen:])
}

// EdgeKeyRank returns the rank of an edge key: bytes [13+N, 21+N),
// big-endian with the sign bit flipped. Unchecked: len(key) must be
// EdgeKeyLen(vidLen); a key that ends before byte 21+N panics.
func EdgeKeyRank(key []byte, vidLen int) int64 {
	return getInt64(key[KeyPrefixLen+vidLen+4:])
}

// EdgeKeyTail returns bytes [13+N, 21+2N) of an edge key, its rank and
// far-end vid as stored: with the EdgePrefix it is the whole key, so a
// reader holding the tails of one prefix in order (storaged's adjacency
// cache) has the same edges as a scan of the prefix. A sub-slice of key,
// not a copy. Unchecked: len(key) must be EdgeKeyLen(vidLen).
func EdgeKeyTail(key []byte, vidLen int) []byte {
	return key[KeyPrefixLen+vidLen+4:]
}

// EdgeTailLen is the length of an EdgeKeyTail: 8 + vidLen.
func EdgeTailLen(vidLen int) int { return 8 + vidLen }

// EdgeTailRank and EdgeTailDst read the rank and the far-end vid of an
// EdgeKeyTail: EdgeKeyRank and EdgeKeyDst of its key. Unchecked:
// len(tail) must be EdgeTailLen(vidLen).
func EdgeTailRank(tail []byte) int64 { return getInt64(tail) }

func EdgeTailDst(tail []byte, vidLen int) []byte { return tail[8 : 8+vidLen : 8+vidLen] }

// EdgeKeyDst returns the vid at the far end of an edge key: bytes
// [21+N, 21+2N), the edge's destination for an out-edge and its source for
// an in-edge (in-edge keys swap src and dst). It is a sub-slice of key, not a
// copy: valid only as long as key is (an iterator's key is not, once the
// iterator moves), so copy it to keep it. Its capacity ends with it, so
// appending to it copies instead of writing into key's buffer. Unchecked:
// len(key) must be EdgeKeyLen(vidLen); a shorter key panics.
func EdgeKeyDst(key []byte, vidLen int) []byte {
	off := KeyPrefixLen + vidLen + 12
	return key[off : off+vidLen : off+vidLen]
}

// IndexPrefix returns the prefix of the entries of one secondary index in one
// partition:
//
//	offset size field
//	0      4    space id, big-endian
//	4      4    partition id, big-endian
//	8      1    KindIndex (0x03)
//	9      4    index id, big-endian (assigned by metad, always positive)
//	13     ...  reserved: the index key body (encoded indexed values, then the
//	            vid or edge it points to) is defined with secondary indexes
//
// The kind exists from day one so that adding indexes needs no change to the
// layout of the keys already on disk, and index entries are part of DataRange.
func IndexPrefix(space, part int32, indexID int32) []byte {
	return binary.BigEndian.AppendUint32(newKey(space, part, KindIndex, 4), uint32(indexID))
}

// DataFormatVersion is the on-disk data format version written by this code:
// the layout of the keys in this file and of rows (rowFormatV1). It is stored
// per partition under DataVersionKey so that a future format change can detect
// and upgrade, or refuse to open, old data.
const DataFormatVersion uint32 = 1

// System keys (KindSystem), byte 9.
const sysDataVersion byte = 0x01

// DataVersionKey returns the key holding the data format version of a
// partition (value: EncodeDataVersion):
//
//	offset size field
//	0      8    space | part
//	8      1    KindSystem (0x04)
//	9      1    0x01
//
// It is a data key, so a snapshot carries it to a new replica with the data it
// describes.
func DataVersionKey(space, part int32) []byte {
	return append(newKey(space, part, KindSystem, 1), sysDataVersion)
}

// EncodeDataVersion encodes the value stored under DataVersionKey: the version
// as 4 bytes, big-endian.
func EncodeDataVersion(v uint32) []byte {
	return binary.BigEndian.AppendUint32(nil, v)
}

// DecodeDataVersion decodes a value written by EncodeDataVersion.
func DecodeDataVersion(b []byte) (uint32, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("data format version value %x is %d bytes, want 4: %w", b, len(b), ErrMalformedRow)
	}
	return binary.BigEndian.Uint32(b), nil
}

// RaftLogKey returns the key of one Raft log entry of a partition's replica:
//
//	offset size field
//	0      8    space | part
//	8      1    KindRaftLog (0x10)
//	9      8    entry index, big-endian
//
// Unsigned big-endian keeps entries in index order, so truncating the log
// (compaction, or a conflicting leader) is one range delete.
func RaftLogKey(space, part int32, index uint64) []byte {
	return binary.BigEndian.AppendUint64(newKey(space, part, KindRaftLog, 8), index)
}

// ParseRaftLogKey splits a key built by RaftLogKey.
func ParseRaftLogKey(key []byte) (space, part int32, index uint64, err error) {
	if len(key) != KeyPrefixLen+8 || key[8] != KindRaftLog {
		return 0, 0, 0, fmt.Errorf("raft log key %x: want %d bytes with kind 0x%02x: %w", key, KeyPrefixLen+8, KindRaftLog, ErrMalformedKey)
	}
	space, part = parsePrefix(key)
	return space, part, binary.BigEndian.Uint64(key[KeyPrefixLen:]), nil
}

// Raft state keys (KindRaftState): prefix | one byte naming the item.
//
//	offset size field
//	0      8    space | part
//	8      1    KindRaftState (0x11)
//	9      1    0x01 hard state, 0x02 applied index, 0x03 conf state,
//	            0x04 truncated log state (RaftTruncatedKey, key_raft_more.go)
//	            0x05 snapshot ingest pending (RaftSnapshotApplyKey, key_raft_more.go)
//
// The applied index is written in the same WriteBatch as the data it applied,
// so after a crash it says exactly which entries the data reflects.
const (
	raftHardState byte = 0x01
	raftApplied   byte = 0x02
	raftConfState byte = 0x03
)

// RaftHardStateKey returns the key of a replica's raftpb.HardState.
func RaftHardStateKey(space, part int32) []byte { return raftStateKey(space, part, raftHardState) }

// RaftAppliedKey returns the key of a replica's applied index.
func RaftAppliedKey(space, part int32) []byte { return raftStateKey(space, part, raftApplied) }

// RaftConfStateKey returns the key of a replica's raftpb.ConfState.
func RaftConfStateKey(space, part int32) []byte { return raftStateKey(space, part, raftConfState) }

func raftStateKey(space, part int32, item byte) []byte {
	return append(newKey(space, part, KindRaftState, 1), item)
}

// PrefixEnd returns the smallest key greater than every key that starts with
// prefix: prefix with its last byte that is not 0xff incremented and what
// follows dropped. Use it as an iterator upper bound or a range-delete end.
// It returns nil, meaning "no upper bound", when prefix is empty or all 0xff,
// since then no such key exists. prefix is not modified.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xff {
			end := append([]byte(nil), prefix[:i+1]...)
			end[i]++
			return end
		}
	}
	return nil
}

func parsePrefix(key []byte) (space, part int32) {
	return int32(binary.BigEndian.Uint32(key)), int32(binary.BigEndian.Uint32(key[4:]))
}

// checkKey validates the length and kind byte of a key before it is sliced.
func checkKey(key []byte, kind byte, what string, vidLen, want int) error {
	// Bounding vidLen by len(key) first also keeps want from overflowing.
	if vidLen <= 0 || vidLen > len(key) {
		return fmt.Errorf("%s key %x: vid length %d is out of range for a %d-byte key: %w", what, key, vidLen, len(key), ErrMalformedKey)
	}
	if len(key) != want {
		return fmt.Errorf("%s key %x is %d bytes, want %d for vid length %d: %w", what, key, len(key), want, vidLen, ErrMalformedKey)
	}
	if key[8] != kind {
		return fmt.Errorf("%s key %x has kind 0x%02x, want 0x%02x: %w", what, key, key[8], kind, ErrMalformedKey)
	}
	return nil
}
