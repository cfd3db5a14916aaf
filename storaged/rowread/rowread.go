// Package rowread is what storaged makes of stored rows and keys, without
// the storage: reading properties under a tag's or edge type's schema
// versions and TTL, the pushed-down filters of GetNeighbors and
// LookupIndex, the answers of GetNeighbors, GetProps and LookupIndex, the
// evaluation of UPDATE, and the index entries writes maintain. It does no
// I/O of its own: its callers read and write the keys (storaged over
// RocksDB and its raft apply, testkit/memgraph over an in-memory map),
// handing it what they read or the functions and the Store to read and
// write with, so that both answer the storage contract with one piece of
// code.
package rowread

import (
	"fmt"
	"strconv"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/value"
)

// Error is a failure of one partition's request with the code storaged
// answers it with (an unknown tag, a vid of another partition, ...); any
// other error is E_STORAGE. Its text is the message alone.
type Error struct {
	Code commonpb.ErrorCode
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Invalid is an Error with E_INVALID_ARGUMENT: the request is wrong.
func Invalid(format string, args ...any) error {
	return &Error{Code: commonpb.ErrorCode_E_INVALID_ARGUMENT, Msg: fmt.Sprintf(format, args...)}
}

// CheckVid verifies that an encoded vid has the space's length and belongs
// to the partition it was sent to: a misrouted write would be invisible to
// every read.
func CheckVid(space *metapb.SpaceDesc, part int32, vid []byte) error {
	if len(vid) != int(space.GetVidLen()) {
		return Invalid("vid %x has %d bytes, space %q needs %d", vid, len(vid), space.GetName(), space.GetVidLen())
	}
	if got := partition.PartOf(vid, partition.VidType(space.GetVidType()), space.GetPartitionNum()); got != part {
		return Invalid("vid %x belongs to partition %d, not %d", vid, got, part)
	}
	return nil
}

// CheckEdge verifies the key of an out-edge sent to part: its source is
// the partition's (CheckVid), its destination a vid of the space, and its
// type positive (in-edges are never written directly).
func CheckEdge(space *metapb.SpaceDesc, part int32, src []byte, edgeType int32, dst []byte) error {
	if err := CheckVid(space, part, src); err != nil {
		return err
	}
	if len(dst) != int(space.GetVidLen()) {
		return Invalid("dst vid %x has %d bytes, space %q needs %d", dst, len(dst), space.GetName(), space.GetVidLen())
	}
	if edgeType <= 0 {
		return Invalid("edge type %d: edges are written as out-edges (type > 0) at their source's partition", edgeType)
	}
	return nil
}

// vidValue is an encoded vid as nGQL sees it: INT64 or a string without
// its padding.
func vidValue(space *metapb.SpaceDesc, vid []byte) value.Value {
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		if i, err := partition.DecodeInt64Vid(vid); err == nil {
			return value.Int(i)
		}
	}
	return value.Str(partition.DecodeStringVid(vid))
}

// showVid writes a stored vid as the user wrote it, for errors: "name" or
// 42, not its padded key bytes.
func showVid(space *metapb.SpaceDesc, vid []byte) string {
	if space.GetVidType() == metapb.VidType_VID_INT64 {
		if i, err := partition.DecodeInt64Vid(vid); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return fmt.Sprintf("%x", vid)
	}
	return strconv.Quote(partition.DecodeStringVid(vid))
}
