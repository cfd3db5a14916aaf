package storaged

import (
	"errors"
	"fmt"
	"time"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// A raft entry of a partition carries one storagepb.Command, encoded as
//
//	byte 0   command format version (commandFormat)
//	1..      the Command, protobuf
//
// A command is logical (put this vertex, delete that edge, update this row
// WHEN ...): every replica reads its own state while applying it, to keep
// indexes and degrees right and to evaluate updates atomically. That is
// deterministic because replicas apply the same entries to the same state,
// and because the command carries everything else the apply depends on
// (schemas, indexes, the space's layout, the clock), as the leader saw them.
const commandFormat byte = 2

var errCorruptCommand = errors.New("corrupt write command")

func encodeCommand(c *storagepb.Command) ([]byte, error) {
	b, err := appendCommand([]byte{commandFormat}, c) // protobuf, by hand where it is hot (wire.go)
	if err != nil {
		return nil, fmt.Errorf("encoding write command: %w", err)
	}
	return b, nil
}

func decodeCommand(b []byte) (*storagepb.Command, error) {
	if len(b) == 0 || b[0] != commandFormat {
		return nil, fmt.Errorf("%w: unknown format version", errCorruptCommand)
	}
	c, err := unmarshalCommand(b[1:])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errCorruptCommand, err)
	}
	if c.Space == nil || c.Space.GetVidLen() <= 0 || c.Space.GetPartitionNum() <= 0 {
		return nil, fmt.Errorf("%w: no space layout", errCorruptCommand)
	}
	return c, nil
}

// applier is the partition state machine.
type applier struct {
	store uint64 // this store's id, for errors
	// fetchStaged copies a staged SST file this replica lacks from
	// another replica of the partition (stagedfetch.go); nil: there is
	// none to ask (state machine tests).
	fetchStaged stagedFetcher
}

// stagedFetcher starts fetching (or joins the fetch already running of)
// the staged file name of g from one of the stores peers (this store is
// skipped) into dir; if sum is set, only a copy with that checksum will do.
// The function it returns waits up to a given time for the outcome: nil
// once the file is in place, else why not (yet).
type stagedFetcher func(g raftgroup.GroupID, name string, sum []byte, peers []uint64, dir string) (wait func(time.Duration) error)

// Apply implements raftgroup.Applier. A command applies whole or not at
// all: if any mutation fails (a corrupt row, a NOT NULL violated by an
// UPDATE, ...), none of its writes stay, on every replica alike.
func (a applier) Apply(b *raftgroup.ApplyBatch, g raftgroup.GroupID, index uint64, data []byte) ([]byte, error) {
	cmd, err := decodeCommand(data)
	if err != nil {
		return nil, fmt.Errorf("%s entry %d: %w", g, index, err)
	}
	if cmd.Space.GetSpaceId() != g.Space {
		return nil, fmt.Errorf("%s entry %d: %w: command for space %d", g, index, errCorruptCommand, cmd.Space.GetSpaceId())
	}
	st := newApplyState(b, g, index, cmd)
	st.store, st.fetch = a.store, a.fetchStaged
	if err := st.loadVersionBase(); err != nil {
		return nil, fmt.Errorf("%s entry %d: %w", g, index, err)
	}
	if len(cmd.Mutations) == 1 && cmd.Mutations[0].GetIngestSst() != nil {
		// Not inside Atomically: an ingest writes the round so far first.
		return nil, st.ingestSST(cmd.Mutations[0].GetIngestSst())
	}
	if len(cmd.Mutations) == 1 && cmd.Mutations[0].GetClearPart() != nil {
		return nil, st.clearPart() // as an ingest: writes the round so far
	}
	var result []byte
	err = b.Atomically(func() error {
		for i, m := range cmd.Mutations {
			r, err := st.mutate(m)
			if err != nil {
				if len(cmd.Mutations) > 1 {
					return fmt.Errorf("mutation %d of %d: %w", i+1, len(cmd.Mutations), err)
				}
				return err
			}
			if r != nil {
				result = r
			}
		}
		return st.writeMirrorIntents()
	})
	return result, err
}

// indexInfo is one index with the layout of its entries.
type indexInfo = schema.IndexLayout

// applyState is the apply of one command.
type applyState struct {
	b      *raftgroup.ApplyBatch
	g      raftgroup.GroupID
	index  uint64
	now    int64
	space  *metapb.SpaceDesc
	vidLen int
	tags   map[int32]*rowread.Schema
	edges  map[int32]*rowread.Schema
	seq    uint32 // next intent sequence number in this entry
	// base is the partition's version base (partition.VersionBaseKey),
	// read before the entry applies (loadVersionBase).
	base uint64
	// mirrors are the in-edge changes of this entry by target partition,
	// written as one intent per target when the command's mutations are
	// done (writeMirrorIntents).
	mirrors map[int32]*storagepb.Intent
	store   uint64 // this store, for errors
	fetch   stagedFetcher
}

func newApplyState(b *raftgroup.ApplyBatch, g raftgroup.GroupID, index uint64, cmd *storagepb.Command) *applyState {
	st := &applyState{
		b: b, g: g, index: index, now: cmd.Now, space: cmd.Space, vidLen: int(cmd.Space.GetVidLen()),
		tags: map[int32]*rowread.Schema{}, edges: map[int32]*rowread.Schema{},
	}
	for _, t := range cmd.Tags {
		st.tags[t.GetTagId()] = rowread.NewSchema(t.GetTagId(), t.GetName(), t.GetVersions())
	}
	for _, e := range cmd.Edges {
		st.edges[e.GetEdgeType()] = rowread.NewSchema(e.GetEdgeType(), e.GetName(), e.GetVersions())
	}
	for _, ix := range cmd.Indexes {
		m := st.tags
		if ix.GetIsEdge() {
			m = st.edges
		}
		if si := m[ix.GetSchemaId()]; si != nil && si.Versions.Latest() != nil {
			si.Indexes = append(si.Indexes, schema.NewIndexLayout(ix, si.Versions.Latest()))
		}
	}
	return st
}

func (st *applyState) tag(id int32) (*rowread.Schema, error) {
	if si := st.tags[id]; si != nil && si.Versions.Latest() != nil {
		return si, nil
	}
	return nil, fmt.Errorf("%w: tag %d is not in the command", errCorruptCommand, id)
}

func (st *applyState) edge(edgeType int32) (*rowread.Schema, error) {
	if edgeType < 0 {
		edgeType = -edgeType
	}
	if si := st.edges[edgeType]; si != nil && si.Versions.Latest() != nil {
		return si, nil
	}
	return nil, fmt.Errorf("%w: edge type %d is not in the command", errCorruptCommand, edgeType)
}

// checkOwn verifies that a vid is the space's length and lives in this
// partition: a command must only touch its own partition's keys, or a
// replica filled by snapshot would differ from the others.
func (st *applyState) checkOwn(vid []byte) error {
	if len(vid) != st.vidLen {
		return invalid("vid %x has %d bytes, the space needs %d", vid, len(vid), st.vidLen)
	}
	if p := st.partOf(vid); p != st.g.Part {
		return invalid("vid %x belongs to partition %d, not %d", vid, p, st.g.Part)
	}
	return nil
}

func (st *applyState) partOf(vid []byte) int32 {
	return partition.PartOf(vid, partition.VidType(st.space.GetVidType()), st.space.GetPartitionNum())
}

func (st *applyState) mutate(m *storagepb.Mutation) ([]byte, error) {
	if m == nil || !hasBody(m) {
		return nil, fmt.Errorf("%w: empty mutation", errCorruptCommand)
	}
	switch op := m.Op.(type) {
	case *storagepb.Mutation_PutVertex:
		return nil, st.putVertex(op.PutVertex, m.IfNotExists)
	case *storagepb.Mutation_DeleteVertex:
		return nil, st.deleteVertex(op.DeleteVertex)
	case *storagepb.Mutation_DeleteTags:
		return nil, st.deleteTags(op.DeleteTags)
	case *storagepb.Mutation_PutEdge:
		return nil, st.putEdge(op.PutEdge, m.IfNotExists)
	case *storagepb.Mutation_DeleteEdge:
		return nil, st.deleteEdge(op.DeleteEdge)
	case *storagepb.Mutation_MirrorEdge:
		return nil, st.mirrorEdge(op.MirrorEdge)
	case *storagepb.Mutation_Update:
		return st.update(op.Update)
	case *storagepb.Mutation_ResolveIntents:
		for _, k := range op.ResolveIntents.GetKeys() {
			if _, _, err := partition.ParseIntentKey(k); err != nil {
				return nil, err
			}
			if err := st.checkKeyInPart(k); err != nil {
				return nil, err
			}
			st.b.Delete(k)
		}
		return nil, nil
	case *storagepb.Mutation_RebuildIndex:
		return st.rebuildIndex(op.RebuildIndex)
	case *storagepb.Mutation_PurgeTombstonesBefore:
		return st.purgeTombstones(op.PurgeTombstonesBefore)
	case *storagepb.Mutation_FinishRestore:
		key := partition.RestoreHoldKey(st.g.Space, st.g.Part)
		held, err := st.b.Get(key)
		if err != nil {
			return nil, err
		}
		if held != nil && string(held) == op.FinishRestore {
			st.b.Delete(key)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%w: empty or unknown mutation", errCorruptCommand)
}

// hasBody reports whether a mutation's operation carries its message: a
// oneof may hold a nil one, which no handler expects.
func hasBody(m *storagepb.Mutation) bool {
	switch op := m.Op.(type) {
	case *storagepb.Mutation_PutVertex:
		return op.PutVertex != nil
	case *storagepb.Mutation_DeleteTags:
		return op.DeleteTags != nil
	case *storagepb.Mutation_PutEdge:
		return op.PutEdge != nil
	case *storagepb.Mutation_DeleteEdge:
		return op.DeleteEdge != nil
	case *storagepb.Mutation_MirrorEdge:
		return op.MirrorEdge != nil
	case *storagepb.Mutation_Update:
		return op.Update != nil
	case *storagepb.Mutation_ResolveIntents:
		return op.ResolveIntents != nil
	case *storagepb.Mutation_RebuildIndex:
		return op.RebuildIndex != nil
	case *storagepb.Mutation_ClearPart:
		return op.ClearPart != nil
	case *storagepb.Mutation_DeleteVertex, *storagepb.Mutation_PurgeTombstonesBefore, *storagepb.Mutation_FinishRestore:
		return true
	}
	return false
}

func (st *applyState) checkKeyInPart(k []byte) error {
	lo, hi := partition.DataRange(st.g.Space, st.g.Part)
	if string(k) < string(lo) || string(k) >= string(hi) {
		return fmt.Errorf("%w: key %x is not a data key of %s", errCorruptCommand, k, st.g)
	}
	return nil
}

// ---- vertices ----

// putTagRow writes one tag row of a vertex and moves its index entries
// from the old row's values to the new one's.
func (st *applyState) putTagRow(si *rowread.Schema, vid []byte, old, row []byte) error {
	if err := rowread.TagIndexes(st.b, st.g.Space, st.g.Part, si, si.Indexes, vid, old, row); err != nil {
		return err
	}
	st.b.Put(partition.TagKey(st.g.Space, st.g.Part, vid, si.ID), row)
	return nil
}

func (st *applyState) putVertex(v *storagepb.NewVertex, ifNotExists bool) error {
	if err := st.checkOwn(v.Vid); err != nil {
		return err
	}
	for _, t := range v.Tags {
		si, err := st.tag(t.GetTagId())
		if err != nil {
			return err
		}
		if _, err := si.Decode(t.GetRow()); err != nil {
			return invalid("vertex %x: %v", v.Vid, err)
		}
		old, err := st.b.Get(partition.TagKey(st.g.Space, st.g.Part, v.Vid, t.GetTagId()))
		if err != nil {
			return err
		}
		if old != nil && ifNotExists {
			if exp, err := si.RowExpired(old, st.now); err != nil || !exp {
				continue
			}
		}
		if err := st.putTagRow(si, v.Vid, old, t.GetRow()); err != nil {
			return err
		}
	}
	return nil
}

// deleteTagRows removes tags of a vertex (all if ids is empty) with their
// index entries. Tags the command carries no schema for (a dropped tag)
// lose their rows but can have no index.
func (st *applyState) deleteTagRows(vid []byte, ids []int32) error {
	return rowread.DeleteTags(st.b, st.space, st.g.Part, vid, ids, func(id int32) *rowread.Schema { return st.tags[id] })
}

func (st *applyState) deleteTags(op *storagepb.DeleteTagsOp) error {
	if err := st.checkOwn(op.Vid); err != nil {
		return err
	}
	return st.deleteTagRows(op.Vid, op.TagIds)
}

// deleteVertex removes a vertex's tags and every edge stored under it.
// Out-edges are this partition's own: they go now, with intents to delete
// their in-edges. In-edges belong to their sources' partitions: an intent
// asks each owner to delete the edge, and the owner's mirror then removes
// the in-edge here, so the pair rule holds whichever side a deletion starts
// from.
func (st *applyState) deleteVertex(vid []byte) error {
	if err := st.checkOwn(vid); err != nil {
		return err
	}
	if err := st.deleteTagRows(vid, nil); err != nil {
		return err
	}
	type edgeRef struct {
		edgeType int32
		rank     int64
		other    []byte
	}
	var outs, ins []edgeRef
	err := st.b.Scan(partition.VertexEdgePrefix(st.g.Space, st.g.Part, vid), nil, func(k, v []byte) (bool, error) {
		_, _, _, et, rank, other, err := partition.ParseEdgeKey(k, st.vidLen)
		if err != nil {
			return false, err
		}
		if et > 0 {
			outs = append(outs, edgeRef{et, rank, other})
			return true, nil
		}
		if _, live, err := partition.EdgeRow(et, v); err != nil || !live {
			return err == nil, err
		}
		ins = append(ins, edgeRef{et, rank, other})
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, e := range outs {
		if err := st.deleteEdge(&storagepb.EdgeKey{Src: vid, EdgeType: e.edgeType, Rank: e.rank, Dst: e.other}); err != nil {
			return err
		}
	}
	for _, e := range ins {
		owner := &storagepb.EdgeKey{Src: e.other, EdgeType: -e.edgeType, Rank: e.rank, Dst: vid}
		if err := st.putIntent(&storagepb.Intent{TargetPart: st.partOf(e.other), ForwardDelete: owner}); err != nil {
			return err
		}
	}
	return nil
}

// ---- edges ----

// degree adds delta to the stored degree of vid for a signed edge type.
func (st *applyState) degree(vid []byte, edgeType int32, delta int64) error {
	k := partition.DegreeKey(st.g.Space, st.g.Part, vid, edgeType)
	cur, err := st.b.Get(k)
	if err != nil {
		return err
	}
	n, err := partition.DecodeDegree(cur)
	if err != nil {
		return err
	}
	switch {
	case delta < 0 && n < uint64(-delta):
		n = 0 // never below zero, even over data written before degrees
	default:
		n = uint64(int64(n) + delta)
	}
	if n == 0 {
		st.b.Delete(k)
	} else {
		st.b.Put(k, partition.EncodeDegree(n))
	}
	return nil
}

func (st *applyState) checkEdgeKey(src []byte, edgeType int32, dst []byte) error {
	if err := st.checkOwn(src); err != nil {
		return err
	}
	if len(dst) != st.vidLen {
		return invalid("dst vid %x has %d bytes, the space needs %d", dst, len(dst), st.vidLen)
	}
	if edgeType <= 0 {
		return invalid("edge type %d: only out-edges (type > 0) are written directly", edgeType)
	}
	return nil
}

// putOutEdge writes an out-edge this partition owns, with its indexes and
// degree, and the intent that mirrors it into the destination's partition.
func (st *applyState) putOutEdge(si *rowread.Schema, k *storagepb.EdgeKey, old, row []byte) error {
	if err := rowread.EdgeIndexes(st.b, st.g.Space, st.g.Part, si, si.Indexes, k, old, row); err != nil {
		return err
	}
	if old == nil {
		if err := st.degree(k.Src, k.EdgeType, 1); err != nil {
			return err
		}
	}
	st.b.Put(partition.EdgeKey(st.g.Space, st.g.Part, k.Src, k.EdgeType, k.Rank, k.Dst), row)
	st.addMirror(k, row, false)
	return nil
}

// addMirror records the in-edge change that matches an out-edge change
// made by this entry. Each mirror takes the next sequence number of the
// entry as its version, so the mirrors of one entry are ordered too.
func (st *applyState) addMirror(k *storagepb.EdgeKey, row []byte, deleted bool) {
	target := st.partOf(k.Dst)
	in := st.mirrors[target]
	if in == nil {
		if st.mirrors == nil {
			st.mirrors = map[int32]*storagepb.Intent{}
		}
		in = &storagepb.Intent{TargetPart: target}
		st.mirrors[target] = in
	}
	in.Mirrors = append(in.Mirrors, &storagepb.MirrorEdge{
		Key:        &storagepb.EdgeKey{Src: k.Dst, EdgeType: -k.EdgeType, Rank: k.Rank, Dst: k.Src},
		Row:        row,
		Deleted:    deleted,
		Version:    st.version(),
		VersionSeq: st.seq,
		OwnerPart:  st.g.Part,
	})
	st.seq++
}

// writeMirrorIntents writes the mirrors the command recorded, one intent
// per target partition, keyed by the sequence number of its first mirror
// (unique in the entry, as every sequence number is; so the keys, unlike
// the map's order, are the same on every replica). One intent per target
// instead of one per edge: a bulk write of N edges marshals, writes,
// reads and resolves a handful of intents instead of N.
func (st *applyState) writeMirrorIntents() error {
	for _, in := range st.mirrors {
		b, err := marshalIntent(in)
		if err != nil {
			return fmt.Errorf("encoding intent: %w", err)
		}
		st.b.Put(partition.IntentKey(st.g.Space, st.g.Part, st.version(), in.Mirrors[0].VersionSeq), b)
	}
	st.mirrors = nil
	return nil
}

// intentMirrors returns the in-edge changes an intent carries, in order:
// the single mirror of an intent written before the lists, or its list.
func intentMirrors(in *storagepb.Intent) []*storagepb.MirrorEdge {
	if in.Mirror != nil {
		return append([]*storagepb.MirrorEdge{in.Mirror}, in.Mirrors...)
	}
	return in.Mirrors
}

func (st *applyState) putEdge(e *storagepb.NewEdge, ifNotExists bool) error {
	if err := st.checkEdgeKey(e.Src, e.EdgeType, e.Dst); err != nil {
		return err
	}
	si, err := st.edge(e.EdgeType)
	if err != nil {
		return err
	}
	if _, err := si.Decode(e.Row); err != nil {
		return invalid("edge %x->%x: %v", e.Src, e.Dst, err)
	}
	k := &storagepb.EdgeKey{Src: e.Src, EdgeType: e.EdgeType, Rank: e.Rank, Dst: e.Dst}
	old, err := st.b.Get(partition.EdgeKey(st.g.Space, st.g.Part, e.Src, e.EdgeType, e.Rank, e.Dst))
	if err != nil {
		return err
	}
	if old != nil && ifNotExists {
		if exp, err := si.RowExpired(old, st.now); err != nil || !exp {
			return err
		}
	}
	return st.putOutEdge(si, k, old, e.Row)
}

// deleteEdge removes an out-edge this partition owns. The in-edge is always
// told to go, even if the out-edge is already gone, so a half left by
// anything else is cleaned up too.
func (st *applyState) deleteEdge(k *storagepb.EdgeKey) error {
	if err := st.checkEdgeKey(k.Src, k.EdgeType, k.Dst); err != nil {
		return err
	}
	key := partition.EdgeKey(st.g.Space, st.g.Part, k.Src, k.EdgeType, k.Rank, k.Dst)
	old, err := st.b.Get(key)
	if err != nil {
		return err
	}
	if old != nil {
		if si := st.edges[k.EdgeType]; si != nil {
			if err := rowread.EdgeIndexes(st.b, st.g.Space, st.g.Part, si, si.Indexes, k, old, nil); err != nil {
				return err
			}
		}
		if err := st.degree(k.Src, k.EdgeType, -1); err != nil {
			return err
		}
		st.b.Delete(key)
	}
	st.addMirror(k, nil, true)
	return nil
}

// mirrorEdge sets an in-edge to the state its owner had at m.Version,
// unless the in-edge already reflects a newer one. Deleted in-edges stay as
// tombstones (with a TombstoneKey to purge them by age), so that a late
// mirror of an older version cannot bring them back.
func (st *applyState) mirrorEdge(m *storagepb.MirrorEdge) error {
	k := m.Key
	if k == nil || k.EdgeType >= 0 {
		return invalid("mirror of a non-in-edge")
	}
	if err := st.checkOwn(k.Src); err != nil {
		return err
	}
	if len(k.Dst) != st.vidLen {
		return invalid("mirror source vid %x has %d bytes, the space needs %d", k.Dst, len(k.Dst), st.vidLen)
	}
	key := partition.EdgeKey(st.g.Space, st.g.Part, k.Src, k.EdgeType, k.Rank, k.Dst)
	version := partition.InEdgeVersion{Index: m.Version, Seq: m.VersionSeq}
	cur, err := st.b.Get(key)
	if err != nil {
		return err
	}
	live := false
	if cur != nil {
		ver, _, l, err := partition.DecodeInEdge(cur)
		if err != nil {
			return err
		}
		if !ver.Less(version) {
			return nil // already as new or newer
		}
		live = l
	}
	if m.Deleted {
		if live {
			if err := st.degree(k.Src, k.EdgeType, -1); err != nil {
				return err
			}
		}
		// A tombstone also when nothing was there: the put this delete
		// follows may arrive later, and must find it.
		st.b.Put(key, partition.EncodeInEdgeTombstone(version))
		st.b.Put(partition.TombstoneKey(st.g.Space, st.g.Part, st.now, key), nil)
		return nil
	}
	if len(m.Row) == 0 {
		return invalid("mirror of edge %x<-%x without a row", k.Src, k.Dst)
	}
	if !live {
		if err := st.degree(k.Src, k.EdgeType, 1); err != nil {
			return err
		}
	}
	st.b.Put(key, partition.EncodeInEdge(version, m.Row))
	return nil
}

// purgeMax bounds the tombstones one purge command removes, so the entry
// and its write batch stay small; the resolver proposes another if needed.
const purgeMax = 10000

// purgeTombstones removes in-edge tombstones recorded before a time. It
// returns "more" (one byte, 1) if it stopped at purgeMax.
func (st *applyState) purgeTombstones(before int64) ([]byte, error) {
	var keys [][]byte
	n := 0
	more := false
	err := st.b.Scan(partition.TombstonePrefix(st.g.Space, st.g.Part), nil, func(k, _ []byte) (bool, error) {
		at, _, err := partition.ParseTombstoneKey(k)
		if err != nil {
			return false, err
		}
		if at >= before {
			return false, nil
		}
		if n == purgeMax {
			more = true
			return false, nil
		}
		keys = append(keys, append([]byte(nil), k...))
		n++
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	for _, tk := range keys {
		_, edgeKey, _ := partition.ParseTombstoneKey(tk)
		v, err := st.b.Get(edgeKey)
		if err != nil {
			return nil, err
		}
		// A mirror may have brought the edge back since; only a
		// tombstone goes.
		if v != nil {
			if _, _, live, err := partition.DecodeInEdge(v); err == nil && !live {
				st.b.Delete(edgeKey)
			}
		}
		st.b.Delete(tk)
	}
	if more {
		return []byte{1}, nil
	}
	return []byte{0}, nil
}

// putIntent records a change this entry promises to make in another
// partition; the resolver (pair.go) carries it out and resolves it.
func (st *applyState) putIntent(in *storagepb.Intent) error {
	b, err := marshalIntent(in)
	if err != nil {
		return fmt.Errorf("encoding intent: %w", err)
	}
	st.b.Put(partition.IntentKey(st.g.Space, st.g.Part, st.version(), st.seq), b)
	st.seq++
	return nil
}

// version is the version this entry gives its in-edge changes and the
// order of its intents: the partition's version base plus the entry's
// raft index (partition.VersionBaseKey).
func (st *applyState) version() uint64 { return st.base + st.index }

// loadVersionBase reads the partition's version base, once per entry; the
// apply cache holds it after the first (storaged sets ApplyCacheKey).
func (st *applyState) loadVersionBase() error {
	v, err := st.b.Get(partition.VersionBaseKey(st.g.Space, st.g.Part))
	if err != nil {
		return err
	}
	st.base, err = partition.DecodeVersionBase(v)
	return err
}
