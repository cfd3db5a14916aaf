package partition

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// Sentinel errors. Every error returned by this package wraps one of them, with
// context naming the offending key, row, column or value.
var (
	// ErrMalformedKey: a key is not a valid key of the kind it was parsed as
	// (wrong length, wrong kind byte, ...).
	ErrMalformedKey = errors.New("malformed key")
	// ErrMalformedRow: a property row is truncated, corrupt, or of an unknown
	// format or schema version.
	ErrMalformedRow = errors.New("malformed row")
	// ErrInvalidValue: a value (vid, property, schema) cannot be encoded.
	ErrInvalidValue = errors.New("invalid value")
)

// VidType is the vid type of a graph space. The numbers are those of
// metapb.VidType.
type VidType uint8

const (
	VidInt64       VidType = 1 // 8-byte signed integer
	VidFixedString VidType = 2 // byte string of at most N bytes, padded to N
)

func (t VidType) String() string {
	switch t {
	case VidInt64:
		return "INT64"
	case VidFixedString:
		return "FIXED_STRING"
	}
	return fmt.Sprintf("VidType(%d)", uint8(t))
}

// Int64VidLen is the encoded length of an INT64 vid.
const Int64VidLen = 8

// signBit64 / signBit32 flip the sign bit of a two's complement integer, which
// maps math.MinInt64..math.MaxInt64 monotonically onto 0..math.MaxUint64: after
// the flip, big-endian byte order equals numeric order.
const (
	signBit64 = uint64(1) << 63
	signBit32 = uint32(1) << 31
)

// EncodeInt64Vid encodes an INT64 vid for use in keys:
//
//	offset size field
//	0      8    uint64(v) ^ 1<<63, big-endian
//
// so that bytes.Compare(EncodeInt64Vid(a), EncodeInt64Vid(b)) == cmp(a, b), and
// a scan over a partition's vertices visits them in numeric order.
func EncodeInt64Vid(v int64) []byte {
	return appendInt64(make([]byte, 0, Int64VidLen), v)
}

// DecodeInt64Vid decodes a vid encoded by EncodeInt64Vid.
func DecodeInt64Vid(b []byte) (int64, error) {
	if len(b) != Int64VidLen {
		return 0, fmt.Errorf("int64 vid %x is %d bytes, want %d: %w", b, len(b), Int64VidLen, ErrMalformedKey)
	}
	return getInt64(b), nil
}

// EncodeStringVid encodes a FIXED_STRING(n) vid for use in keys: the bytes of s
// followed by n-len(s) bytes of 0x00.
//
// Padding with 0x00 keeps string order: a shorter vid that is a prefix of a
// longer one sorts first, as it does in Go. Because padding is trimmed on
// decode, a vid that itself ends in 0x00 could not round trip (and would
// collide with its trimmed form while hashing to a different partition), so it
// is rejected.
func EncodeStringVid(s string, n int) ([]byte, error) {
	if n <= 0 {
		return nil, fmt.Errorf("vid %q: fixed string vid length %d, want > 0: %w", s, n, ErrInvalidValue)
	}
	if len(s) > n {
		return nil, fmt.Errorf("vid %q is %d bytes, longer than the space's FIXED_STRING(%d): %w", s, len(s), n, ErrInvalidValue)
	}
	if len(s) > 0 && s[len(s)-1] == 0 {
		return nil, fmt.Errorf("vid %q ends in a 0x00 byte, which is reserved for padding: %w", s, ErrInvalidValue)
	}
	b := make([]byte, n)
	copy(b, s)
	return b, nil
}

// DecodeStringVid decodes a vid encoded by EncodeStringVid: it trims the
// trailing 0x00 padding. It cannot fail: every byte string is a valid padded
// vid.
func DecodeStringVid(b []byte) string {
	end := len(b)
	for end > 0 && b[end-1] == 0 {
		end--
	}
	return string(b[:end])
}

// PartOfInt64 returns the partition (1..parts) of an INT64 vid:
// uint64(vid) % parts + 1. Negative vids are taken as their two's complement
// bit pattern, as NebulaGraph does. parts must be positive; it panics
// otherwise, as the partition count of a space is never <= 0.
func PartOfInt64(vid int64, parts int32) int32 {
	checkParts(parts)
	return int32(uint64(vid)%uint64(parts)) + 1
}

// PartOfString returns the partition (1..parts) of a FIXED_STRING vid:
// xxhash64(s) % parts + 1, where s is the vid without its padding. parts must
// be positive; it panics otherwise.
func PartOfString(s string, parts int32) int32 {
	checkParts(parts)
	return int32(xxhash.Sum64String(s)%uint64(parts)) + 1
}

// PartOf returns the partition of an encoded vid (as found in keys) of type t.
// It returns 0, which is never a partition id, if encodedVid is not a valid
// vid of type t: callers that received the vid from outside must validate it
// first. parts must be positive; it panics otherwise.
func PartOf(encodedVid []byte, t VidType, parts int32) int32 {
	switch t {
	case VidInt64:
		v, err := DecodeInt64Vid(encodedVid)
		if err != nil {
			return 0
		}
		return PartOfInt64(v, parts)
	case VidFixedString:
		return PartOfString(DecodeStringVid(encodedVid), parts)
	}
	return 0
}

func checkParts(parts int32) {
	if parts <= 0 {
		panic(fmt.Sprintf("partition: partition count %d, want > 0", parts))
	}
}

// Sign-flipped big-endian integers, the encoding of every signed integer in a
// key (see EncodeInt64Vid for why).

func appendInt64(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^signBit64)
}

func getInt64(b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b) ^ signBit64)
}

func appendInt32(b []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(b, uint32(v)^signBit32)
}

func getInt32(b []byte) int32 {
	return int32(binary.BigEndian.Uint32(b) ^ signBit32)
}
