package storaged

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
)

// randBytes is nil, empty or up to 20 random bytes.
func randBytes(r *rand.Rand) []byte {
	switch r.IntN(6) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	b := make([]byte, r.IntN(20)+1)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// randInt64 favours the values whose encodings differ: zero, small,
// negative, extremes.
func randInt64(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return -1
	case 2:
		return math.MinInt64
	case 3:
		return math.MaxInt64
	case 4:
		return int64(r.IntN(300))
	}
	return int64(r.Uint64())
}

func randEdgeKey(r *rand.Rand) *storagepb.EdgeKey {
	return &storagepb.EdgeKey{Src: randBytes(r), EdgeType: int32(randInt64(r)), Rank: randInt64(r), Dst: randBytes(r)}
}

func randMirror(r *rand.Rand) *storagepb.MirrorEdge {
	m := &storagepb.MirrorEdge{Row: randBytes(r), Deleted: r.IntN(2) == 0, Version: uint64(randInt64(r)),
		OwnerPart: int32(randInt64(r)), VersionSeq: uint32(randInt64(r))}
	if r.IntN(8) != 0 {
		m.Key = randEdgeKey(r)
	}
	return m
}

// randCommand mixes the mutations wire.go encodes with ones it leaves to
// proto.
func randCommand(r *rand.Rand) *storagepb.Command {
	c := &storagepb.Command{Now: randInt64(r), Space: &metapb.SpaceDesc{SpaceId: 3, VidLen: 8, PartitionNum: 10}}
	if r.IntN(2) == 0 {
		c.Edges = []*metapb.EdgeDesc{{EdgeType: 7, Name: "knows"}}
	}
	for range r.IntN(40) {
		m := &storagepb.Mutation{IfNotExists: r.IntN(3) == 0}
		switch r.IntN(6) {
		case 0, 1:
			m.Op = &storagepb.Mutation_PutEdge{PutEdge: &storagepb.NewEdge{Src: randBytes(r), EdgeType: int32(randInt64(r)),
				Rank: randInt64(r), Dst: randBytes(r), Row: randBytes(r)}}
		case 2, 3:
			m.Op = &storagepb.Mutation_MirrorEdge{MirrorEdge: randMirror(r)}
		case 4:
			m.Op = &storagepb.Mutation_DeleteEdge{DeleteEdge: randEdgeKey(r)}
		case 5:
			m.Op = &storagepb.Mutation_ResolveIntents{ResolveIntents: &storagepb.IntentKeys{Keys: [][]byte{randBytes(r), randBytes(r)}}}
		}
		c.Mutations = append(c.Mutations, m)
	}
	return c
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkCommandWire checks that c survives every pairing of the two
// encoders and the two decoders.
func checkCommandWire(t *testing.T, c *storagepb.Command) {
	t.Helper()
	ours, err := appendCommand(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	viaProto := &storagepb.Command{}
	if err := proto.Unmarshal(ours, viaProto); err != nil {
		t.Fatalf("proto cannot read appendCommand's bytes: %v", err)
	}
	if !proto.Equal(viaProto, c) {
		t.Fatalf("appendCommand, read by proto:\n got %v\nwant %v", viaProto, c)
	}
	for name, b := range map[string][]byte{"appendCommand": ours, "proto.Marshal": mustMarshal(t, c)} {
		got, err := unmarshalCommand(b)
		if err != nil {
			t.Fatalf("unmarshalCommand of %s's bytes: %v", name, err)
		}
		if !proto.Equal(got, c) {
			t.Fatalf("unmarshalCommand of %s's bytes:\n got %v\nwant %v", name, got, c)
		}
	}
}

func checkIntentWire(t *testing.T, in *storagepb.Intent) {
	t.Helper()
	ours, err := marshalIntent(in)
	if err != nil {
		t.Fatal(err)
	}
	// Byte for byte: replicas of two versions write the same intents.
	if want := mustMarshal(t, in); !bytes.Equal(ours, want) {
		t.Fatalf("marshalIntent(%v) = %x, proto writes %x", in, ours, want)
	}
	got, err := unmarshalIntent(ours)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, in) {
		t.Fatalf("unmarshalIntent:\n got %v\nwant %v", got, in)
	}
}

// The hand-written codec and proto read each other's bytes as the same
// messages, on seeded random commands and intents.
func TestWireMatchesProto(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	for i := range 2000 {
		t.Run("", func(t *testing.T) {
			checkCommandWire(t, randCommand(r))
			in := &storagepb.Intent{TargetPart: int32(randInt64(r))}
			for range r.IntN(6) {
				in.Mirrors = append(in.Mirrors, randMirror(r))
			}
			if i%10 == 0 {
				in.ForwardDelete = randEdgeKey(r) // left to proto
			}
			checkIntentWire(t, in)
		})
	}
}

// fillEveryField sets every field of m outside a oneof to a value that is
// not its zero value, recursing into messages, so that a field the
// hand-written encoder does not write makes a round trip differ.
func fillEveryField(m protoreflect.Message, depth int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !fd.HasOptionalKeyword() {
			continue
		}
		switch {
		case fd.IsMap():
			if depth > 0 {
				mp := m.Mutable(fd).Map()
				k := scalarValue(fd.MapKey(), 1)
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					v := mp.NewValue()
					fillEveryField(v.Message(), depth-1)
					mp.Set(k.MapKey(), v)
				} else {
					mp.Set(k.MapKey(), scalarValue(fd.MapValue(), 2))
				}
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for j := range 2 {
				if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
					if depth == 0 {
						break
					}
					v := l.NewElement()
					fillEveryField(v.Message(), depth-1)
					l.Append(v)
				} else {
					l.Append(scalarValue(fd, j+1))
				}
			}
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			if depth > 0 {
				fillEveryField(m.Mutable(fd).Message(), depth-1)
			}
		default:
			m.Set(fd, scalarValue(fd, 1))
		}
	}
}

// scalarValue is a non-zero value of fd's kind, varied by n.
func scalarValue(fd protoreflect.FieldDescriptor, n int) protoreflect.Value {
	v := int64(n) + int64(fd.Number())
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(1))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(-v))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(-v << 40)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(v))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(v) << 40)
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(v))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(v))
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprintf("s%d", v))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{0xab, byte(v)})
	}
	panic(fmt.Sprintf("no value for %v", fd.Kind()))
}

func filled[M proto.Message](m M) M {
	fillEveryField(m.ProtoReflect(), 3)
	return m
}

// Every field of the messages wire.go writes by hand survives it: a field
// added to storage.proto (or to Command) fails here until wire.go writes
// it.
func TestWireEveryField(t *testing.T) {
	// fillEveryField leaves oneofs alone, and wire.go handles none but
	// Mutation's op (whose other cases go to proto): a oneof added to one
	// of these must be filled below and written by wire.go.
	for m, oneofs := range map[proto.Message]int{&storagepb.Command{}: 0, &storagepb.Mutation{}: 1, &storagepb.NewEdge{}: 0,
		&storagepb.MirrorEdge{}: 0, &storagepb.EdgeKey{}: 0, &storagepb.Intent{}: 0} {
		md := m.ProtoReflect().Descriptor()
		n := 0
		for i := range md.Oneofs().Len() {
			if !md.Oneofs().Get(i).IsSynthetic() {
				n++
			}
		}
		if n != oneofs {
			t.Errorf("%s has %d oneofs, wire.go and this test know of %d", md.FullName(), n, oneofs)
		}
	}
	put := filled(&storagepb.Mutation{})
	put.Op = &storagepb.Mutation_PutEdge{PutEdge: filled(&storagepb.NewEdge{})}
	mirror := filled(&storagepb.Mutation{})
	mirror.Op = &storagepb.Mutation_MirrorEdge{MirrorEdge: filled(&storagepb.MirrorEdge{})}
	c := filled(&storagepb.Command{})
	c.Mutations = append(c.Mutations, put, mirror)
	checkCommandWire(t, c)

	in := &storagepb.Intent{}
	fillEveryField(in.ProtoReflect(), 3) // mirrors and every other field: proto's path
	checkIntentWire(t, in)
	in.Mirror, in.ForwardDelete = nil, nil // the form wire.go writes itself
	checkIntentWire(t, in)
	if in.TargetPart == 0 || len(in.Mirrors) == 0 || in.Mirrors[0].Key == nil {
		t.Fatalf("the intent was not filled: %v", in)
	}
}

// What the hand-written decoder does not know, proto decodes: a field it
// has no case for survives as proto keeps it, and malformed bytes are an
// error, not a partial command.
func TestWireUnknownAndMalformed(t *testing.T) {
	edge := mustMarshal(t, &storagepb.NewEdge{Src: []byte("a"), EdgeType: 1, Dst: []byte("b"), Row: []byte("r")})
	edge = protowire.AppendTag(edge, 99, protowire.VarintType)
	edge = protowire.AppendVarint(edge, 5) // a field from a newer storage.proto
	mut := protowire.AppendTag(nil, fieldMutationPutEdge, protowire.BytesType)
	mut = protowire.AppendBytes(mut, edge)
	twoOps := append(append([]byte(nil), mut...), mut...)                              // a message field twice: proto merges
	twoOps = protowire.AppendTag(twoOps, fieldMutationMirrorEdge, protowire.BytesType) // then a second op: the last wins
	twoOps = protowire.AppendBytes(twoOps, mustMarshal(t, &storagepb.MirrorEdge{Version: 3}))
	for name, m := range map[string][]byte{"unknown field": mut, "two ops": twoOps} {
		cmd := protowire.AppendTag(mustMarshal(t, &storagepb.Command{Now: 9}), fieldCommandMutations, protowire.BytesType)
		cmd = protowire.AppendBytes(cmd, m)
		want := &storagepb.Command{}
		if err := proto.Unmarshal(cmd, want); err != nil {
			t.Fatal(err)
		}
		got, err := unmarshalCommand(cmd)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
	// A command holding a field unknown to this version (kept from a newer
	// peer's bytes) keeps it.
	withUnknown := protowire.AppendTag(mustMarshal(t, benchCommand(3)), 99, protowire.BytesType)
	withUnknown = protowire.AppendBytes(withUnknown, []byte("from a newer version"))
	unknown := &storagepb.Command{}
	if err := proto.Unmarshal(withUnknown, unknown); err != nil {
		t.Fatal(err)
	}
	checkCommandWire(t, unknown)

	good, err := appendCommand(nil, randCommand(rand.New(rand.NewPCG(1, 1))))
	if err != nil {
		t.Fatal(err)
	}
	for cut := 1; cut < len(good); cut += max(1, len(good)/50) {
		var want, gotErr error
		want = proto.Unmarshal(good[:cut], &storagepb.Command{})
		_, gotErr = unmarshalCommand(good[:cut])
		if (want == nil) != (gotErr == nil) {
			t.Fatalf("cut at %d of %d: proto says %v, unmarshalCommand %v", cut, len(good), want, gotErr)
		}
	}
	// The decoded fields share a buffer: appending to one leaves the
	// others as they were.
	c, err := unmarshalCommand(mustMarshal(t, benchCommand(2)))
	if err != nil {
		t.Fatal(err)
	}
	e := c.Mutations[0].GetPutEdge()
	_ = append(e.Src, "overwrite"...)
	_ = append(e.Row, "overwrite"...)
	if next := c.Mutations[1].GetPutEdge(); string(e.Dst) != "00000000" || string(next.Src) != "00000001" {
		t.Fatalf("an append to one field changed another: dst %q, next src %q", e.Dst, next.Src)
	}
	if _, err := unmarshalIntent([]byte{0x22, 0x05, 0x0a}); err == nil {
		t.Fatal("a truncated intent decoded")
	}
}

// benchCommand is an online import's command: n out-edges of 8-byte vids
// with a 10-byte row.
func benchCommand(n int) *storagepb.Command {
	c := &storagepb.Command{Now: 1, Space: &metapb.SpaceDesc{SpaceId: 3, VidLen: 8, PartitionNum: 10},
		Edges: []*metapb.EdgeDesc{{EdgeType: 7, Name: "knows"}}}
	for i := range n {
		c.Mutations = append(c.Mutations, &storagepb.Mutation{Op: &storagepb.Mutation_PutEdge{PutEdge: &storagepb.NewEdge{
			Src: fmt.Appendf(nil, "%08d", i), EdgeType: 7, Dst: fmt.Appendf(nil, "%08d", i*7), Row: []byte("0123456789")}}})
	}
	return c
}

// BenchmarkCommandWire compares the codec with proto on a command of 4096
// edges, encoding and decoding:
//
//	go test ./storaged -run '^$' -bench BenchmarkCommandWire -count 3
func BenchmarkCommandWire(b *testing.B) {
	c := benchCommand(4096)
	enc := mustMarshal(b, c)
	per := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/edge")
	}
	b.Run("encode/proto", func(b *testing.B) {
		for b.Loop() {
			if _, err := proto.Marshal(c); err != nil {
				b.Fatal(err)
			}
		}
		per(b)
	})
	b.Run("encode/wire", func(b *testing.B) {
		for b.Loop() {
			if _, err := appendCommand(nil, c); err != nil {
				b.Fatal(err)
			}
		}
		per(b)
	})
	b.Run("decode/proto", func(b *testing.B) {
		for b.Loop() {
			if err := proto.Unmarshal(enc, &storagepb.Command{}); err != nil {
				b.Fatal(err)
			}
		}
		per(b)
	})
	b.Run("decode/wire", func(b *testing.B) {
		for b.Loop() {
			if _, err := unmarshalCommand(enc); err != nil {
				b.Fatal(err)
			}
		}
		per(b)
	})
}
