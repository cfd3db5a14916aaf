package partition

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/novagraph/novagraph/temporal"
)

// IntentKey returns the key of one intent: a change a partition promised,
// in the same raft entry as its own change, to make in another partition
// (the in-edge half of an edge it owns, for example). The value is a
// storagepb.Intent.
//
//	offset size field
//	0      8    space | part (the partition that owns the intent)
//	8      1    KindIntent (0x05)
//	9      8    raft index of the entry that wrote it, big-endian
//	17     4    sequence number within that entry, big-endian (an intent
//	            carrying several mirrors takes its first mirror's number)
//
// Index then sequence orders intents by when they were written, so the
// resolver (storaged/pair.go) replays them in order with one prefix scan.
// Intents are data keys: a snapshot carries them, so a new leader resolves
// what the old one left.
func IntentKey(space, part int32, index uint64, seq uint32) []byte {
	b := newKey(space, part, KindIntent, 12)
	b = binary.BigEndian.AppendUint64(b, index)
	return binary.BigEndian.AppendUint32(b, seq)
}

// ParseIntentKey returns the raft index and sequence number of an intent key.
func ParseIntentKey(key []byte) (index uint64, seq uint32, err error) {
	if len(key) != KeyPrefixLen+12 || key[8] != KindIntent {
		return 0, 0, fmt.Errorf("intent key %x: %w", key, ErrMalformedKey)
	}
	return binary.BigEndian.Uint64(key[KeyPrefixLen:]), binary.BigEndian.Uint32(key[KeyPrefixLen+8:]), nil
}

// DegreeKey returns the key of the stored degree of one vertex for one edge
// type and direction; the value is the count, 8 bytes big-endian
// (EncodeDegree). With N the vid length:
//
//	offset size field
//	0      8    space | part (the vertex's partition)
//	8      1    KindDegree (0x06)
//	9      N    vid
//	9+N    4    edge type, big-endian, sign bit flipped (< 0: in-edges)
//
// The owner of the vertex keeps both directions: out-degree changes with the
// out-edges it owns, in-degree with the in-edges mirrored into it.
func DegreeKey(space, part int32, vid []byte, edgeType int32) []byte {
	b := newKey(space, part, KindDegree, len(vid)+4)
	b = append(b, vid...)
	return appendInt32(b, edgeType)
}

// IsDegreeKey reports whether key is a DegreeKey (by its kind byte; the
// key is not checked further).
func IsDegreeKey(key []byte) bool {
	return len(key) > KeyPrefixLen && key[KeyPrefixLen-1] == KindDegree
}

// EncodeDegree and DecodeDegree encode a stored degree. A missing key is 0.
func EncodeDegree(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// DecodeDegree decodes a value written by EncodeDegree; nil decodes to 0.
func DecodeDegree(b []byte) (uint64, error) {
	if b == nil {
		return 0, nil
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("degree value %x is %d bytes, want 8: %w", b, len(b), ErrMalformedRow)
	}
	return binary.BigEndian.Uint64(b), nil
}

// System item 0x02: in-edge tombstones, by time.
const sysTombstone byte = 0x02

// System item 0x03: the version base of a partition.
const sysVersionBase byte = 0x03

// VersionBaseKey returns the key holding the partition's version base
// (value: 8 bytes, big-endian):
//
//	offset size field
//	0      8    space | part
//	8      1    KindSystem (0x04)
//	9      1    0x03
//
// The versions a partition gives its in-edge changes (MirrorEdge.version)
// and the order of its intents (IntentKey) are base + raft index. The base
// is 0 (no key) for a partition born in this cluster; a partition restored
// from a backup (nova-br) starts its raft log anew, so its base is set past
// every version the backup's data holds, and later changes still compare
// newer than the restored ones.
func VersionBaseKey(space, part int32) []byte {
	return append(newKey(space, part, KindSystem, 1), sysVersionBase)
}

// System item 0x04: a partition being restored from a backup.
const sysRestoreHold byte = 0x04

// RestoreHoldKey returns the key that holds a restored partition's intents
// back (value: the snapshot's name) until every partition of the space is
// restored (nova-br; storaged/ingest.go):
//
//	offset size field
//	0      8    space | part
//	8      1    KindSystem (0x04)
//	9      1    0x04
func RestoreHoldKey(space, part int32) []byte {
	return append(newKey(space, part, KindSystem, 1), sysRestoreHold)
}

// IsVersionBaseKey reports whether key is a VersionBaseKey.
func IsVersionBaseKey(key []byte) bool {
	return len(key) == KeyPrefixLen+1 && key[KeyPrefixLen-1] == KindSystem && key[KeyPrefixLen] == sysVersionBase
}

// DecodeVersionBase decodes a VersionBaseKey's value; nil (no key) is 0.
func DecodeVersionBase(b []byte) (uint64, error) {
	if b == nil {
		return 0, nil
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("version base value %x is %d bytes, want 8: %w", b, len(b), ErrMalformedRow)
	}
	return binary.BigEndian.Uint64(b), nil
}

// TombstoneKey returns the key recording that an in-edge was deleted at a
// time (seconds, from the deleting entry), so that tombstones can be purged
// in time order without scanning every edge. The value is empty.
//
//	offset size field
//	0      8    space | part
//	8      1    KindSystem (0x04)
//	9      1    0x02
//	10     8    time, seconds since the epoch, big-endian, sign bit flipped
//	18     ...  the in-edge's key (EdgeKey), whole
func TombstoneKey(space, part int32, at int64, edgeKey []byte) []byte {
	b := append(newKey(space, part, KindSystem, 9+len(edgeKey)), sysTombstone)
	b = appendInt64(b, at)
	return append(b, edgeKey...)
}

// TombstonePrefix is the prefix of every TombstoneKey of a partition.
func TombstonePrefix(space, part int32) []byte {
	return append(newKey(space, part, KindSystem, 1), sysTombstone)
}

// ParseTombstoneKey returns the time and in-edge key of a TombstoneKey. The
// edge key aliases key.
func ParseTombstoneKey(key []byte) (at int64, edgeKey []byte, err error) {
	if len(key) < KeyPrefixLen+9 || key[8] != KindSystem || key[9] != sysTombstone {
		return 0, nil, fmt.Errorf("tombstone key %x: %w", key, ErrMalformedKey)
	}
	return getInt64(key[KeyPrefixLen+1:]), key[KeyPrefixLen+9:], nil
}

// In-edge values. An out-edge's value is its property row. An in-edge is a
// mirror its destination's partition keeps of the out-edge, so it carries the
// version of the out-edge it copies, and survives its deletion as a tombstone
// for a while, so that a late mirror of an older version cannot bring it back:
//
//	offset size field
//	0      8    version: raft index of the owning partition's entry, big-endian
//	8      4    version: the intent's sequence number in that entry, big-endian
//	12     1    0x00: tombstone, followed by nothing
//	            anything else: the first byte of the property row (its
//	            format version, never 0x00), and the rest of the row
const inEdgeTombstone byte = 0x00

// InEdgeVersion orders the changes of one edge: its owner's raft index,
// then the intent's sequence number within that entry (one entry may change
// an edge twice).
type InEdgeVersion struct {
	Index uint64
	Seq   uint32
}

// Less reports whether v is older than w.
func (v InEdgeVersion) Less(w InEdgeVersion) bool {
	return v.Index < w.Index || (v.Index == w.Index && v.Seq < w.Seq)
}

func appendInEdgeVersion(b []byte, v InEdgeVersion) []byte {
	b = binary.BigEndian.AppendUint64(b, v.Index)
	return binary.BigEndian.AppendUint32(b, v.Seq)
}

// EncodeInEdge returns the value of a live in-edge.
func EncodeInEdge(version InEdgeVersion, row []byte) []byte {
	return AppendInEdge(make([]byte, 0, 12+len(row)), version, row)
}

// AppendInEdge appends EncodeInEdge(version, row) to b.
func AppendInEdge(b []byte, version InEdgeVersion, row []byte) []byte {
	return append(appendInEdgeVersion(b, version), row...)
}

// EncodeInEdgeTombstone returns the value of a deleted in-edge.
func EncodeInEdgeTombstone(version InEdgeVersion) []byte {
	return append(appendInEdgeVersion(make([]byte, 0, 13), version), inEdgeTombstone)
}

// DecodeInEdge splits an in-edge value; row is nil for a tombstone and
// aliases value otherwise.
func DecodeInEdge(value []byte) (version InEdgeVersion, row []byte, live bool, err error) {
	if len(value) < 13 {
		return InEdgeVersion{}, nil, false, fmt.Errorf("in-edge value %x is %d bytes, want at least 13: %w", value, len(value), ErrMalformedRow)
	}
	version = InEdgeVersion{Index: binary.BigEndian.Uint64(value), Seq: binary.BigEndian.Uint32(value[8:])}
	if value[12] == inEdgeTombstone {
		return version, nil, false, nil
	}
	return version, value[12:], true, nil
}

// EdgeRow returns the property row of a stored edge value, whichever half
// it is; live is false for an in-edge tombstone, which readers skip.
func EdgeRow(edgeType int32, value []byte) (row []byte, live bool, err error) {
	if edgeType > 0 {
		return value, true, nil
	}
	_, row, live, err = DecodeInEdge(value)
	return row, live, err
}

// Index entries. An index key is IndexPrefix followed by the encoded values
// of the indexed properties, then what the entry points at:
//
//	offset  size  field
//	0       13    IndexPrefix: space | part | KindIndex | index id
//	13      ...   per indexed property, in index order, IndexValue:
//	              1 byte 0x00 NULL (then width zero bytes) or 0x01, then the
//	              value in its column's fixed width (IndexValueWidth)
//	...     N     tag index: the vid
//	              edge index: src (N) | rank (8, sign flipped) | dst (N)
//
// The value is empty. Every value encoding has a fixed width for its column
// (STRING values are cut or padded to the field's prefix length), so an
// entry's fields and target can be found without delimiters, and byte order
// equals value order within a column: an equality on the first k fields is a
// prefix scan and a range on field k+1 is a range scan.

// IndexValueWidth is the encoded width of one indexed property, without the
// NULL byte: 8 for INT64, TIMESTAMP, DOUBLE, TIME and DATETIME, 4 for DATE,
// 1 for BOOL, the length for FIXED_STRING, prefixLen for STRING. DURATION,
// which has no order, is not indexable (AppendIndexValue rejects it).
func IndexValueWidth(t PropType, fixedLen, prefixLen int) int {
	switch t {
	case PropInt64, PropTimestamp, PropDouble, PropTime, PropDateTime:
		return 8
	case PropDate:
		return 4
	case PropDuration:
		return 12
	case PropBool:
		return 1
	case PropFixedString:
		if prefixLen > 0 && prefixLen < fixedLen {
			return prefixLen
		}
		return fixedLen
	default:
		return prefixLen
	}
}

// AppendIndexValue appends one indexed property: 0x00 and width zero bytes
// for NULL (v == nil), else 0x01 and the value in width bytes whose byte order is the value's
// order: integers, dates, times and datetimes (in their temporal forms)
// sign-flipped big-endian; doubles with the sign bit flipped
// for positives and all bits flipped for negatives (so -0 sorts before +0
// and NaN after +Inf); booleans 0/1; strings cut or padded with 0x00 to
// width.
func AppendIndexValue(b []byte, t PropType, width int, v any) ([]byte, error) {
	if v == nil {
		b = append(b, 0x00)
		for i := 0; i < width; i++ {
			b = append(b, 0)
		}
		return b, nil
	}
	b = append(b, 0x01)
	switch t {
	case PropInt64, PropTimestamp:
		i, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		return appendInt64(b, i), nil
	case PropDouble:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		default:
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		bits := math.Float64bits(f)
		if bits&(1<<63) != 0 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		return binary.BigEndian.AppendUint64(b, bits), nil
	case PropDate:
		x, ok := v.(temporal.Date)
		if !ok {
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		return appendInt32(b, int32(x)), nil
	case PropTime:
		x, ok := v.(temporal.Time)
		if !ok {
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		return appendInt64(b, int64(x)), nil
	case PropDateTime:
		x, ok := v.(temporal.DateTime)
		if !ok {
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		return appendInt64(b, int64(x)), nil
	case PropBool:
		x, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		if x {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case PropString, PropFixedString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("index value %v (%T) for %s: %w", v, v, t, ErrInvalidValue)
		}
		if len(s) > width {
			s = s[:width]
		}
		b = append(b, s...)
		for i := len(s); i < width; i++ {
			b = append(b, 0)
		}
		return b, nil
	}
	return nil, fmt.Errorf("index value of type %s: %w", t, ErrInvalidValue)
}

// TagIndexKey returns an index entry of a vertex: prefix | values | vid.
func TagIndexKey(space, part, indexID int32, values []byte, vid []byte) []byte {
	b := IndexPrefix(space, part, indexID)
	b = append(b, values...)
	return append(b, vid...)
}

// EdgeIndexKey returns an index entry of an edge (indexed on its owner,
// the source's partition): prefix | values | src | rank | dst.
func EdgeIndexKey(space, part, indexID int32, values []byte, src []byte, rank int64, dst []byte) []byte {
	b := IndexPrefix(space, part, indexID)
	b = append(b, values...)
	b = append(b, src...)
	b = appendInt64(b, rank)
	return append(b, dst...)
}

// ParseIndexTarget returns what an index entry points at, given the width
// of its encoded values: the vid of a tag index, or src, rank, dst of an
// edge index. The slices alias key.
func ParseIndexTarget(key []byte, valuesLen, vidLen int, isEdge bool) (vid []byte, rank int64, dst []byte, err error) {
	start := KeyPrefixLen + 4 + valuesLen
	want := start + vidLen
	if isEdge {
		want = start + 2*vidLen + 8
	}
	if len(key) != want || key[8] != KindIndex {
		return nil, 0, nil, fmt.Errorf("index key %x: want %d bytes: %w", key, want, ErrMalformedKey)
	}
	vid = key[start : start+vidLen]
	if isEdge {
		rank = getInt64(key[start+vidLen:])
		dst = key[start+vidLen+8:]
	}
	return vid, rank, dst, nil
}
