package value

import (
	"encoding/binary"
	"math"
)

// AppendKey appends an encoding of v that is equal for two values exactly
// when they are identical (same kind and payload), for hashing rows in
// DISTINCT and joins. It is not an ordering. 0.0 and -0.0 encode alike, as do
// all NaNs; INT 1 and FLOAT 1.0 do not.
func (v Value) AppendKey(buf []byte) []byte {
	buf = append(buf, byte(v.kind))
	switch v.kind {
	case KindBool, KindInt, KindTimestamp, KindDate, KindTime, KindDateTime:
		buf = binary.BigEndian.AppendUint64(buf, uint64(v.i))
	case KindDuration:
		buf = binary.BigEndian.AppendUint32(buf, uint32(v.m))
		buf = binary.BigEndian.AppendUint64(buf, uint64(v.i))
	case KindFloat:
		f := v.f
		switch {
		case f == 0:
			f = 0
		case math.IsNaN(f):
			f = math.NaN()
		}
		buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(f))
	case KindString, KindVertex, KindEdge, KindPath:
		buf = binary.AppendUvarint(buf, uint64(len(v.s)))
		buf = append(buf, v.s...)
	case KindList:
		buf = binary.AppendUvarint(buf, uint64(len(v.l)))
		for _, item := range v.l {
			buf = item.AppendKey(buf)
		}
	case KindMap:
		props, _ := v.MapVal()
		buf = binary.AppendUvarint(buf, uint64(len(props)))
		for _, p := range props {
			buf = binary.AppendUvarint(buf, uint64(len(p.Name)))
			buf = append(buf, p.Name...)
			buf = p.Value.AppendKey(buf)
		}
	}
	return buf
}
