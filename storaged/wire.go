package storaged

import (
	"bytes"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/storagepb"
)

// Hand-written protobuf for the messages every edge write carries through
// raft: the put_edge and mirror_edge mutations of a Command and the mirror
// lists of an Intent. proto.Marshal and proto.Unmarshal walk a message by
// reflection and allocate each nested message and bytes field on its own;
// for a Command of a few thousand edges that was 15 % of storaged's CPU in
// an online import (docs/benchmarks.md, "Issue 7, fifth session").
//
// The format is protobuf's, both ways: what this writes proto.Unmarshal
// reads as the same message, and this reads whatever proto.Marshal writes.
// Nothing is lost to it: a mutation of another kind, a message holding a
// field this code does not know (one added to storage.proto later, say,
// or an unknown field kept from a newer peer's bytes), and malformed input
// are encoded or decoded by proto itself. TestWireEveryField sets every field
// of the messages handled here, by reflection, so a field added to them
// fails it until the encoder below writes it.

// Field numbers, from proto/novagraph/storage.proto.
const (
	fieldCommandMutations = 5

	fieldMutationPutEdge     = 4
	fieldMutationMirrorEdge  = 6
	fieldMutationIfNotExists = 10

	// NewEdge and EdgeKey number their key fields alike; NewEdge adds
	// the row.
	fieldEdgeSrc      = 1
	fieldEdgeEdgeType = 2
	fieldEdgeRank     = 3
	fieldEdgeDst      = 4
	fieldNewEdgeRow   = 5

	fieldMirrorKey        = 1
	fieldMirrorRow        = 2
	fieldMirrorDeleted    = 3
	fieldMirrorVersion    = 4
	fieldMirrorOwnerPart  = 5
	fieldMirrorVersionSeq = 6

	fieldIntentTargetPart = 1
	fieldIntentMirrors    = 4
)

// appendCommand appends c to b as proto.Marshal would encode it, its fast
// mutations by hand.
func appendCommand(b []byte, c *storagepb.Command) ([]byte, error) {
	if len(c.ProtoReflect().GetUnknown()) > 0 {
		return proto.MarshalOptions{}.MarshalAppend(b, c)
	}
	// Every field but the mutations, through proto. (A field added to
	// Command must be added here: TestWireEveryField fails until it is.)
	rest, err := proto.Marshal(&storagepb.Command{Tags: c.Tags, Edges: c.Edges, Indexes: c.Indexes, Now: c.Now, Space: c.Space})
	if err != nil {
		return nil, err
	}
	// Sized once: which mutations are fast, and their sizes (-1: proto's).
	muts := c.Mutations
	sizes := make([]int, len(muts))
	total := len(rest)
	for i, m := range muts {
		n, ok := fastMutationSize(m)
		if !ok {
			n, total = -1, total+64 // a guess: proto sizes it below
		} else {
			total += 1 + protowire.SizeBytes(n)
		}
		sizes[i] = n
	}
	// The rest first, then the mutations: fields may come in any order,
	// and the mutations keep theirs.
	b = append(slices.Grow(b, total), rest...)
	for i, m := range muts {
		if n := sizes[i]; n >= 0 {
			b = protowire.AppendTag(b, fieldCommandMutations, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(n))
			start := len(b)
			b = appendFastMutation(b, m)
			if len(b)-start != n {
				// A length prefix that lies would make every replica
				// refuse the entry for good: better no entry.
				return nil, fmt.Errorf("mutation %d: %d bytes written for a size of %d", i, len(b)-start, n)
			}
			continue
		}
		mb, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, fieldCommandMutations, protowire.BytesType)
		b = protowire.AppendBytes(b, mb)
	}
	return b, nil
}

// fastMutationSize is the encoded size of m if it is one this file
// encodes: a put_edge or a mirror_edge with its message set.
func fastMutationSize(m *storagepb.Mutation) (int, bool) {
	if m == nil || len(m.ProtoReflect().GetUnknown()) > 0 {
		return 0, false
	}
	n := 0
	switch op := m.Op.(type) {
	case *storagepb.Mutation_PutEdge:
		if op.PutEdge == nil || len(op.PutEdge.ProtoReflect().GetUnknown()) > 0 {
			return 0, false
		}
		n = 1 + protowire.SizeBytes(newEdgeSize(op.PutEdge))
	case *storagepb.Mutation_MirrorEdge:
		if !mirrorEncodable(op.MirrorEdge) {
			return 0, false
		}
		n = 1 + protowire.SizeBytes(mirrorSize(op.MirrorEdge))
	default:
		return 0, false
	}
	if m.IfNotExists {
		n += 2
	}
	return n, true
}

// appendFastMutation appends m, which fastMutationSize accepted, in field
// order as proto.Marshal writes it.
func appendFastMutation(b []byte, m *storagepb.Mutation) []byte {
	switch op := m.Op.(type) {
	case *storagepb.Mutation_PutEdge:
		b = protowire.AppendTag(b, fieldMutationPutEdge, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(newEdgeSize(op.PutEdge)))
		b = appendNewEdge(b, op.PutEdge)
	case *storagepb.Mutation_MirrorEdge:
		b = protowire.AppendTag(b, fieldMutationMirrorEdge, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(mirrorSize(op.MirrorEdge)))
		b = appendMirror(b, op.MirrorEdge)
	}
	if m.IfNotExists {
		b = protowire.AppendTag(b, fieldMutationIfNotExists, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return b
}

// Sizes and appends of the edge messages. proto3 writes no field that
// holds its zero value; an int32 is sign-extended to 64 bits.

func bytesFieldSize(v []byte) int {
	if len(v) == 0 {
		return 0
	}
	return 1 + protowire.SizeBytes(len(v))
}

func varintFieldSize(v uint64) int {
	if v == 0 {
		return 0
	}
	return 1 + protowire.SizeVarint(v)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

// edgeFieldsSize and appendEdgeFields are the key fields NewEdge and
// EdgeKey share.
func edgeFieldsSize(src []byte, edgeType int32, rank int64, dst []byte) int {
	return bytesFieldSize(src) + varintFieldSize(uint64(int64(edgeType))) + varintFieldSize(uint64(rank)) + bytesFieldSize(dst)
}

func appendEdgeFields(b []byte, src []byte, edgeType int32, rank int64, dst []byte) []byte {
	b = appendBytesField(b, fieldEdgeSrc, src)
	b = appendVarintField(b, fieldEdgeEdgeType, uint64(int64(edgeType)))
	b = appendVarintField(b, fieldEdgeRank, uint64(rank))
	return appendBytesField(b, fieldEdgeDst, dst)
}

func newEdgeSize(e *storagepb.NewEdge) int {
	return edgeFieldsSize(e.Src, e.EdgeType, e.Rank, e.Dst) + bytesFieldSize(e.Row)
}

func appendNewEdge(b []byte, e *storagepb.NewEdge) []byte {
	b = appendEdgeFields(b, e.Src, e.EdgeType, e.Rank, e.Dst)
	return appendBytesField(b, fieldNewEdgeRow, e.Row)
}

// mirrorEncodable reports whether this file encodes m: it holds no field
// unknown to this version. (A reflection call per message: once per
// mirror, apart from the arithmetic of mirrorSize.)
func mirrorEncodable(m *storagepb.MirrorEdge) bool {
	return m != nil && len(m.ProtoReflect().GetUnknown()) == 0 &&
		(m.Key == nil || len(m.Key.ProtoReflect().GetUnknown()) == 0)
}

// mirrorSize is the encoded size of m, which mirrorEncodable accepted.
func mirrorSize(m *storagepb.MirrorEdge) int {
	n := 0
	if k := m.Key; k != nil {
		n = 1 + protowire.SizeBytes(edgeFieldsSize(k.Src, k.EdgeType, k.Rank, k.Dst))
	}
	n += bytesFieldSize(m.Row)
	if m.Deleted {
		n += 2
	}
	return n + varintFieldSize(m.Version) + varintFieldSize(uint64(int64(m.OwnerPart))) + varintFieldSize(uint64(m.VersionSeq))
}

func appendMirror(b []byte, m *storagepb.MirrorEdge) []byte {
	if k := m.Key; k != nil {
		b = protowire.AppendTag(b, fieldMirrorKey, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(edgeFieldsSize(k.Src, k.EdgeType, k.Rank, k.Dst)))
		b = appendEdgeFields(b, k.Src, k.EdgeType, k.Rank, k.Dst)
	}
	b = appendBytesField(b, fieldMirrorRow, m.Row)
	if m.Deleted {
		b = appendVarintField(b, fieldMirrorDeleted, 1)
	}
	b = appendVarintField(b, fieldMirrorVersion, m.Version)
	b = appendVarintField(b, fieldMirrorOwnerPart, uint64(int64(m.OwnerPart)))
	return appendVarintField(b, fieldMirrorVersionSeq, uint64(m.VersionSeq))
}

// marshalIntent encodes an intent as proto.Marshal does, byte for byte:
// every replica writes its own copy of an entry's intents, and replicas of
// mixed versions write the same bytes.
func marshalIntent(in *storagepb.Intent) ([]byte, error) {
	if in.Mirror != nil || in.ForwardDelete != nil || len(in.ProtoReflect().GetUnknown()) > 0 {
		return proto.Marshal(in)
	}
	n := varintFieldSize(uint64(int64(in.TargetPart)))
	for _, m := range in.Mirrors {
		if !mirrorEncodable(m) {
			return proto.Marshal(in)
		}
		n += 1 + protowire.SizeBytes(mirrorSize(m))
	}
	b := make([]byte, 0, n)
	b = appendVarintField(b, fieldIntentTargetPart, uint64(int64(in.TargetPart)))
	for _, m := range in.Mirrors {
		b = protowire.AppendTag(b, fieldIntentMirrors, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(mirrorSize(m)))
		b = appendMirror(b, m)
	}
	if len(b) != n {
		return nil, fmt.Errorf("intent: %d bytes written for a size of %d", len(b), n)
	}
	return b, nil
}

// unmarshalCommand decodes what appendCommand or proto.Marshal wrote. The
// fast mutations and their messages are allocated together, a slab per
// kind, and their bytes fields share one copy of b (nothing points into
// b itself, which belongs to the raft log). So a decoded message or field
// that is kept keeps the whole command alive: the apply keeps none (the
// write batch copies what it is given).
func unmarshalCommand(b []byte) (*storagepb.Command, error) {
	n := 0
	for rest := b; len(rest) > 0; {
		num, typ, l := protowire.ConsumeField(rest)
		if l < 0 {
			return nil, protowire.ParseError(l)
		}
		if num == fieldCommandMutations && typ == protowire.BytesType {
			n++
		}
		rest = rest[l:]
	}
	own := bytes.Clone(b)
	d := slabs{muts: make([]storagepb.Mutation, n)}
	ptrs := make([]*storagepb.Mutation, 0, n)
	var other []byte // the fields that are not mutations, for proto
	for rest := own; len(rest) > 0; {
		num, typ, l := protowire.ConsumeField(rest)
		field := rest[:l]
		rest = rest[l:]
		if num != fieldCommandMutations || typ != protowire.BytesType {
			other = append(other, field...)
			continue
		}
		_, _, tl := protowire.ConsumeTag(field)
		body, _ := protowire.ConsumeBytes(field[tl:])
		m := &d.muts[len(ptrs)]
		if !d.fastMutation(m, body, n) {
			if err := proto.Unmarshal(body, m); err != nil {
				return nil, err
			}
		}
		ptrs = append(ptrs, m)
	}
	c := &storagepb.Command{}
	if err := proto.Unmarshal(other, c); err != nil {
		return nil, err
	}
	c.Mutations = ptrs
	return c, nil
}

// slabs hold the messages of one command's fast mutations; each slab is
// made with the capacity of every mutation of the command, so appending
// never moves what was handed out.
type slabs struct {
	muts    []storagepb.Mutation
	puts    []storagepb.Mutation_PutEdge
	edges   []storagepb.NewEdge
	mirOps  []storagepb.Mutation_MirrorEdge
	mirrors []storagepb.MirrorEdge
	keys    []storagepb.EdgeKey
}

// fastMutation decodes a put_edge or mirror_edge mutation into m; false
// (m untouched) if body is anything else or malformed, for proto to decode
// or refuse.
func (d *slabs) fastMutation(m *storagepb.Mutation, body []byte, n int) bool {
	var (
		op          protowire.Number
		opBody      []byte
		ifNotExists bool
	)
	for rest := body; len(rest) > 0; {
		num, typ, l := protowire.ConsumeTag(rest)
		if l < 0 {
			return false
		}
		rest = rest[l:]
		switch {
		case (num == fieldMutationPutEdge || num == fieldMutationMirrorEdge) && typ == protowire.BytesType && op == 0:
			v, vl := protowire.ConsumeBytes(rest)
			if vl < 0 {
				return false
			}
			op, opBody, rest = num, v, rest[vl:]
		case num == fieldMutationIfNotExists && typ == protowire.VarintType:
			v, vl := protowire.ConsumeVarint(rest)
			if vl < 0 {
				return false
			}
			ifNotExists, rest = v != 0, rest[vl:]
		default:
			return false
		}
	}
	switch op {
	case fieldMutationPutEdge:
		if d.edges == nil {
			d.edges, d.puts = make([]storagepb.NewEdge, 0, n), make([]storagepb.Mutation_PutEdge, 0, n)
		}
		d.edges = append(d.edges, storagepb.NewEdge{})
		e := &d.edges[len(d.edges)-1]
		if !decodeNewEdge(e, opBody) {
			d.edges = d.edges[:len(d.edges)-1]
			return false
		}
		d.puts = append(d.puts, storagepb.Mutation_PutEdge{PutEdge: e})
		m.Op = &d.puts[len(d.puts)-1]
	case fieldMutationMirrorEdge:
		if d.mirrors == nil {
			d.mirrors, d.mirOps, d.keys = make([]storagepb.MirrorEdge, 0, n), make([]storagepb.Mutation_MirrorEdge, 0, n), make([]storagepb.EdgeKey, 0, n)
		}
		me, ok := d.mirror(opBody)
		if !ok {
			return false
		}
		d.mirOps = append(d.mirOps, storagepb.Mutation_MirrorEdge{MirrorEdge: me})
		m.Op = &d.mirOps[len(d.mirOps)-1]
	default:
		return false
	}
	m.IfNotExists = ifNotExists
	return true
}

// mirror decodes a MirrorEdge into the slabs; false (slabs as they were)
// if it holds a field this file does not know or is malformed.
func (d *slabs) mirror(body []byte) (*storagepb.MirrorEdge, bool) {
	d.mirrors = append(d.mirrors, storagepb.MirrorEdge{})
	m := &d.mirrors[len(d.mirrors)-1]
	var key []byte
	hasKey := false
	ok := decodeFields(body, func(num protowire.Number, typ protowire.Type, v uint64, bv []byte) bool {
		switch {
		case num == fieldMirrorKey && typ == protowire.BytesType && !hasKey:
			key, hasKey = bv, true
		case num == fieldMirrorRow && typ == protowire.BytesType:
			m.Row = bv
		case num == fieldMirrorDeleted && typ == protowire.VarintType:
			m.Deleted = v != 0
		case num == fieldMirrorVersion && typ == protowire.VarintType:
			m.Version = v
		case num == fieldMirrorOwnerPart && typ == protowire.VarintType:
			m.OwnerPart = int32(v)
		case num == fieldMirrorVersionSeq && typ == protowire.VarintType:
			m.VersionSeq = uint32(v)
		default:
			return false
		}
		return true
	})
	if ok && hasKey {
		d.keys = append(d.keys, storagepb.EdgeKey{})
		m.Key = &d.keys[len(d.keys)-1]
		if ok = decodeEdgeKey(m.Key, key); !ok {
			d.keys = d.keys[:len(d.keys)-1]
		}
	}
	if !ok {
		d.mirrors = d.mirrors[:len(d.mirrors)-1]
		return nil, false
	}
	return m, true
}

// decodeFields calls fn with each field of body: its number, wire type,
// and value (varints in v, length-delimited ones in bv). False if body is
// malformed, holds a wire type other than those two, or fn says no.
func decodeFields(body []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, bv []byte) bool) bool {
	for len(body) > 0 {
		num, typ, l := protowire.ConsumeTag(body)
		if l < 0 {
			return false
		}
		body = body[l:]
		var v uint64
		var bv []byte
		switch typ {
		case protowire.VarintType:
			v, l = protowire.ConsumeVarint(body)
		case protowire.BytesType:
			bv, l = protowire.ConsumeBytes(body)
			// Capped: the fields share one buffer, and an append to one
			// must not write over the next.
			bv = bv[:len(bv):len(bv)]
		default:
			return false
		}
		if l < 0 || !fn(num, typ, v, bv) {
			return false
		}
		body = body[l:]
	}
	return true
}

// decodeEdgeField sets the key field NewEdge and EdgeKey share that num
// and typ name; false if they name none.
func decodeEdgeField(num protowire.Number, typ protowire.Type, v uint64, bv []byte, src *[]byte, edgeType *int32, rank *int64, dst *[]byte) bool {
	switch {
	case num == fieldEdgeSrc && typ == protowire.BytesType:
		*src = bv
	case num == fieldEdgeEdgeType && typ == protowire.VarintType:
		*edgeType = int32(v)
	case num == fieldEdgeRank && typ == protowire.VarintType:
		*rank = int64(v)
	case num == fieldEdgeDst && typ == protowire.BytesType:
		*dst = bv
	default:
		return false
	}
	return true
}

func decodeNewEdge(e *storagepb.NewEdge, body []byte) bool {
	return decodeFields(body, func(num protowire.Number, typ protowire.Type, v uint64, bv []byte) bool {
		if num == fieldNewEdgeRow && typ == protowire.BytesType {
			e.Row = bv
			return true
		}
		return decodeEdgeField(num, typ, v, bv, &e.Src, &e.EdgeType, &e.Rank, &e.Dst)
	})
}

func decodeEdgeKey(k *storagepb.EdgeKey, body []byte) bool {
	return decodeFields(body, func(num protowire.Number, typ protowire.Type, v uint64, bv []byte) bool {
		return decodeEdgeField(num, typ, v, bv, &k.Src, &k.EdgeType, &k.Rank, &k.Dst)
	})
}

// unmarshalIntent decodes an intent's value; b may be reused by its owner
// (an iterator's value), so the result shares one copy of it.
func unmarshalIntent(b []byte) (*storagepb.Intent, error) {
	n := 0
	fast := decodeFields(b, func(num protowire.Number, typ protowire.Type, _ uint64, _ []byte) bool {
		switch {
		case num == fieldIntentTargetPart && typ == protowire.VarintType:
		case num == fieldIntentMirrors && typ == protowire.BytesType:
			n++
		default:
			return false
		}
		return true
	})
	in := &storagepb.Intent{}
	if !fast {
		if err := proto.Unmarshal(b, in); err != nil {
			return nil, err
		}
		return in, nil
	}
	own := bytes.Clone(b)
	d := slabs{mirrors: make([]storagepb.MirrorEdge, 0, n), keys: make([]storagepb.EdgeKey, 0, n)}
	in.Mirrors = make([]*storagepb.MirrorEdge, 0, n)
	ok := decodeFields(own, func(num protowire.Number, _ protowire.Type, v uint64, bv []byte) bool {
		if num == fieldIntentTargetPart {
			in.TargetPart = int32(v)
			return true
		}
		m, ok := d.mirror(bv)
		if ok {
			in.Mirrors = append(in.Mirrors, m)
		}
		return ok
	})
	if !ok {
		// A mirror holding a field this file does not know, or
		// malformed: proto decodes the whole intent, or refuses it.
		in = &storagepb.Intent{}
		if err := proto.Unmarshal(b, in); err != nil {
			return nil, err
		}
	}
	return in, nil
}
