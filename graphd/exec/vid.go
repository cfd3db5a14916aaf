package exec

import (
	"fmt"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/query/value"
)

// vidCodec converts vertex ids between query values and their key encoding
// for one space.
type vidCodec struct {
	space *metapb.SpaceDesc
}

func (c vidCodec) isInt() bool { return c.space.GetVidType() == metapb.VidType_VID_INT64 }

// encode checks v against the space's vid type and returns its key form.
func (c vidCodec) encode(v value.Value) ([]byte, error) {
	if c.isInt() {
		i, ok := v.IntVal()
		if !ok || v.Kind() != value.KindInt {
			return nil, fmt.Errorf("vid %s is a %s, but space %q has vid_type INT64", v, v.Kind(), c.space.GetName())
		}
		return partition.EncodeInt64Vid(i), nil
	}
	s, ok := v.StrVal()
	if !ok {
		return nil, fmt.Errorf("vid %s is a %s, but space %q has vid_type FIXED_STRING(%d)", v, v.Kind(), c.space.GetName(), c.space.GetVidLen())
	}
	b, err := partition.EncodeStringVid(s, int(c.space.GetVidLen()))
	if err != nil {
		return nil, err // it quotes the vid
	}
	return b, nil
}

func (c vidCodec) decode(b []byte) value.Value {
	if c.isInt() {
		i, err := partition.DecodeInt64Vid(b)
		if err != nil {
			return value.Null()
		}
		return value.Int(i)
	}
	return value.Str(partition.DecodeStringVid(b))
}

func (c vidCodec) part(vid []byte) int32 {
	return partition.PartOf(vid, partition.VidType(c.space.GetVidType()), c.space.GetPartitionNum())
}
