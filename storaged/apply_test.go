package storaged

import (
	"bytes"
	"slices"
	"testing"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/raftgroup"
)

// applyFixture drives the partition state machine directly on one RocksDB:
// space 1 with 2 partitions and INT64 vids, so vid v lives in partition
// v%2+1.
type applyFixture struct {
	t     *testing.T
	db    *grocksdb.DB
	index uint64
	space *metapb.SpaceDesc
	tag   *metapb.TagDesc
	edge  *metapb.EdgeDesc
	ix    []*metapb.IndexDesc
}

const testSpace = 1

func newApplyFixture(t *testing.T) *applyFixture {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	defer opts.Destroy()
	db, err := grocksdb.OpenDb(opts, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	f := fixtureSchemas()
	f.t, f.db = t, db
	return f
}

// fixtureSchemas is the fixture's space and schemas, without a database.
func fixtureSchemas() *applyFixture {
	cols := []*metapb.ColumnDef{
		{Name: "name", Type: metapb.PropType_STRING, Nullable: true},
		{Name: "age", Type: metapb.PropType_INT64, Nullable: false, DefaultValue: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 18}}},
	}
	return &applyFixture{
		index: 10,
		space: &metapb.SpaceDesc{SpaceId: testSpace, Name: "s", PartitionNum: 2, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64, VidLen: 8},
		tag:   &metapb.TagDesc{SpaceId: testSpace, TagId: 3, Name: "person", Versions: []*metapb.Schema{{Version: 0, Columns: cols}}},
		edge: &metapb.EdgeDesc{SpaceId: testSpace, EdgeType: 4, Name: "knows", Versions: []*metapb.Schema{{Version: 0, Columns: []*metapb.ColumnDef{
			{Name: "w", Type: metapb.PropType_INT64, Nullable: true},
		}}}},
	}
}

func vid(v int64) []byte { return partition.EncodeInt64Vid(v) }

func partOf(v int64) int32 { return partition.PartOfInt64(v, 2) }

func (f *applyFixture) personRow(name string, age int64) []byte {
	f.t.Helper()
	row, err := partition.EncodeRow(&partition.Schema{Columns: []partition.Column{
		{Name: "name", Type: partition.PropString, Nullable: true},
		{Name: "age", Type: partition.PropInt64},
	}}, []any{name, age})
	if err != nil {
		f.t.Fatal(err)
	}
	return row
}

func (f *applyFixture) knowsRow(w int64) []byte {
	f.t.Helper()
	row, err := partition.EncodeRow(&partition.Schema{Columns: []partition.Column{{Name: "w", Type: partition.PropInt64, Nullable: true}}}, []any{w})
	if err != nil {
		f.t.Fatal(err)
	}
	return row
}

// apply applies one command with the given mutations as the next raft
// entry of part, and commits it.
func (f *applyFixture) apply(part int32, muts ...*storagepb.Mutation) ([]byte, error) {
	f.t.Helper()
	f.index++
	cmd := &storagepb.Command{Space: f.space, Now: 1000, Tags: []*metapb.TagDesc{f.tag}, Edges: []*metapb.EdgeDesc{f.edge}, Indexes: f.ix, Mutations: muts}
	data, err := encodeCommand(cmd)
	if err != nil {
		f.t.Fatal(err)
	}
	b := raftgroup.NewApplyBatch(f.db)
	defer b.Destroy()
	res, err := applier{}.Apply(b, raftgroup.GroupID{Space: testSpace, Part: part}, f.index, data)
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if werr := b.Write(wo); werr != nil {
		f.t.Fatal(werr)
	}
	return res, err
}

func (f *applyFixture) mustApply(part int32, muts ...*storagepb.Mutation) []byte {
	f.t.Helper()
	res, err := f.apply(part, muts...)
	if err != nil {
		f.t.Fatalf("apply: %v", err)
	}
	return res
}

func (f *applyFixture) get(key []byte) []byte {
	f.t.Helper()
	ro := grocksdb.NewDefaultReadOptions()
	defer ro.Destroy()
	v, err := f.db.GetBytes(ro, key)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

func (f *applyFixture) degree(v int64, edgeType int32) uint64 {
	f.t.Helper()
	n, err := partition.DecodeDegree(f.get(partition.DegreeKey(testSpace, partOf(v), vid(v), edgeType)))
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// intents returns the intents of a partition, in order.
func (f *applyFixture) intents(part int32) ([][]byte, []*storagepb.Intent) {
	f.t.Helper()
	b, err := readIntents(f.db, raftgroup.GroupID{Space: testSpace, Part: part}, nil, 1<<20, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return b.keys, b.intents
}

// resolve carries out every intent of part by applying its mirrors and
// forward deletes to their targets, then resolves them: what the resolver
// does over the network.
func (f *applyFixture) resolve(part int32) {
	f.t.Helper()
	keys, ins := f.intents(part)
	for _, in := range ins {
		switch {
		case in.Mirror != nil || len(in.Mirrors) > 0:
			for _, m := range intentMirrors(in) {
				f.mustApply(in.TargetPart, &storagepb.Mutation{Op: &storagepb.Mutation_MirrorEdge{MirrorEdge: m}})
			}
		case in.ForwardDelete != nil:
			f.mustApply(in.TargetPart, &storagepb.Mutation{Op: &storagepb.Mutation_DeleteEdge{DeleteEdge: in.ForwardDelete}})
		}
	}
	if len(keys) > 0 {
		f.mustApply(part, &storagepb.Mutation{Op: &storagepb.Mutation_ResolveIntents{ResolveIntents: &storagepb.IntentKeys{Keys: keys}}})
	}
}

func putEdge(src, dst int64, rank int64, row []byte) *storagepb.Mutation {
	return &storagepb.Mutation{Op: &storagepb.Mutation_PutEdge{PutEdge: &storagepb.NewEdge{Src: vid(src), EdgeType: 4, Rank: rank, Dst: vid(dst), Row: row}}}
}

func deleteEdge(src, dst int64, rank int64) *storagepb.Mutation {
	return &storagepb.Mutation{Op: &storagepb.Mutation_DeleteEdge{DeleteEdge: &storagepb.EdgeKey{Src: vid(src), EdgeType: 4, Rank: rank, Dst: vid(dst)}}}
}

func (f *applyFixture) outEdge(src, dst, rank int64) []byte {
	return f.get(partition.EdgeKey(testSpace, partOf(src), vid(src), 4, rank, vid(dst)))
}

// inEdge returns the live in-edge's row, nil if absent or a tombstone.
func (f *applyFixture) inEdge(src, dst, rank int64) []byte {
	f.t.Helper()
	v := f.get(partition.EdgeKey(testSpace, partOf(dst), vid(dst), -4, rank, vid(src)))
	if v == nil {
		return nil
	}
	_, row, live, err := partition.DecodeInEdge(v)
	if err != nil {
		f.t.Fatal(err)
	}
	if !live {
		return nil
	}
	return row
}

func TestApplyEdgePairThroughIntents(t *testing.T) {
	f := newApplyFixture(t)
	// 1 → 2 crosses partitions (2 and 1).
	f.mustApply(partOf(1), putEdge(1, 2, 0, f.knowsRow(5)))
	if f.outEdge(1, 2, 0) == nil {
		t.Fatal("out-edge missing after its entry")
	}
	if f.inEdge(1, 2, 0) != nil {
		t.Fatal("in-edge present before the mirror")
	}
	if keys, _ := f.intents(partOf(1)); len(keys) != 1 {
		t.Fatalf("%d intents, want 1", len(keys))
	}
	f.resolve(partOf(1))
	if !bytes.Equal(f.inEdge(1, 2, 0), f.knowsRow(5)) {
		t.Fatal("in-edge does not mirror the out-edge")
	}
	if keys, _ := f.intents(partOf(1)); len(keys) != 0 {
		t.Fatalf("%d intents left after resolving", len(keys))
	}
	if f.degree(1, 4) != 1 || f.degree(2, -4) != 1 {
		t.Fatalf("degrees out(1)=%d in(2)=%d, want 1 and 1", f.degree(1, 4), f.degree(2, -4))
	}

	// Overwrite, then delete, then a stale mirror of the first version
	// arrives late: the in-edge must stay deleted.
	f.mustApply(partOf(1), putEdge(1, 2, 0, f.knowsRow(6)))
	_, ins := f.intents(partOf(1))
	stale := intentMirrors(ins[0])[0]
	f.resolve(partOf(1))
	if f.degree(1, 4) != 1 || f.degree(2, -4) != 1 {
		t.Fatal("overwriting an edge changed its degree")
	}
	f.mustApply(partOf(1), deleteEdge(1, 2, 0))
	f.resolve(partOf(1))
	if f.outEdge(1, 2, 0) != nil || f.inEdge(1, 2, 0) != nil {
		t.Fatal("edge half left after delete")
	}
	f.mustApply(partOf(2), &storagepb.Mutation{Op: &storagepb.Mutation_MirrorEdge{MirrorEdge: stale}})
	if f.inEdge(1, 2, 0) != nil {
		t.Fatal("a late mirror of an older version resurrected a deleted in-edge")
	}
	if f.degree(1, 4) != 0 || f.degree(2, -4) != 0 {
		t.Fatalf("degrees after delete out=%d in=%d, want 0", f.degree(1, 4), f.degree(2, -4))
	}

	// One entry writing the same edge twice: the later write wins on both
	// halves.
	f.mustApply(partOf(1), putEdge(1, 2, 7, f.knowsRow(1)), putEdge(1, 2, 7, f.knowsRow(2)))
	f.resolve(partOf(1))
	if !bytes.Equal(f.outEdge(1, 2, 7), f.knowsRow(2)) || !bytes.Equal(f.inEdge(1, 2, 7), f.knowsRow(2)) {
		t.Fatal("the later of two writes in one entry did not win on both halves")
	}

	// Tombstones go after the retention, through a purge command.
	res := f.mustApply(partOf(2), &storagepb.Mutation{Op: &storagepb.Mutation_PurgeTombstonesBefore{PurgeTombstonesBefore: 2000}})
	if !bytes.Equal(res, []byte{0}) {
		t.Fatalf("purge result %v, want done", res)
	}
	if v := f.get(partition.EdgeKey(testSpace, partOf(2), vid(2), -4, 0, vid(1))); v != nil {
		t.Fatalf("tombstone left after purge: %x", v)
	}
	if f.inEdge(1, 2, 7) == nil {
		t.Fatal("purge removed a live in-edge")
	}
}

// TestApplyOneIntentPerTarget checks that an entry writing many edges
// leaves one intent per destination partition, holding that partition's
// mirrors in the entry's order with distinct versions, that a failed
// command leaves none, and that an intent of the older one-mirror form is
// still carried out.
func TestApplyOneIntentPerTarget(t *testing.T) {
	f := newApplyFixture(t)
	owner := partOf(2)
	f.mustApply(owner, putEdge(2, 4, 0, f.knowsRow(1)), putEdge(2, 3, 0, f.knowsRow(2)),
		putEdge(2, 6, 0, f.knowsRow(3)), putEdge(2, 5, 0, f.knowsRow(4)), deleteEdge(2, 8, 0))
	keys, ins := f.intents(owner)
	if len(keys) != 2 {
		t.Fatalf("%d intents, want one per target partition (2)", len(keys))
	}
	wantDst := map[int32][]int64{partOf(4): {4, 6, 8}, partOf(3): {3, 5}}
	seen := map[uint32]bool{}
	for _, in := range ins {
		var dsts []int64
		for _, m := range intentMirrors(in) {
			d, err := partition.DecodeInt64Vid(m.Key.Src)
			if err != nil {
				t.Fatal(err)
			}
			dsts = append(dsts, d)
			if seen[m.VersionSeq] {
				t.Errorf("version seq %d used twice", m.VersionSeq)
			}
			seen[m.VersionSeq] = true
		}
		if !slices.Equal(dsts, wantDst[in.TargetPart]) {
			t.Errorf("intent for partition %d mirrors in-edges of %v, want %v", in.TargetPart, dsts, wantDst[in.TargetPart])
		}
	}
	f.resolve(owner)
	for dst, w := range map[int64]int64{4: 1, 3: 2, 6: 3, 5: 4} {
		if !bytes.Equal(f.inEdge(2, dst, 0), f.knowsRow(w)) {
			t.Errorf("in-edge 2->%d does not mirror its out-edge", dst)
		}
	}
	if f.degree(2, 4) != 4 || f.degree(3, -4) != 1 {
		t.Errorf("degrees out(2)=%d in(3)=%d, want 4 and 1", f.degree(2, 4), f.degree(3, -4))
	}

	// A command that fails halfway leaves no intent.
	if _, err := f.apply(owner, putEdge(2, 10, 0, f.knowsRow(5)), putEdge(3, 12, 0, f.knowsRow(5))); err == nil {
		t.Fatal("a command with an edge of another partition applied")
	}
	if keys, _ := f.intents(owner); len(keys) != 0 {
		t.Fatalf("a failed command left %d intents", len(keys))
	}

	// The older form: one intent, one mirror.
	old := &storagepb.Intent{TargetPart: partOf(7), Mirror: &storagepb.MirrorEdge{
		Key: &storagepb.EdgeKey{Src: vid(7), EdgeType: -4, Dst: vid(2)}, Row: f.knowsRow(9), Version: 50, OwnerPart: owner}}
	b, err := proto.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	if err := f.db.Put(wo, partition.IntentKey(testSpace, owner, 50, 0), b); err != nil {
		t.Fatal(err)
	}
	f.resolve(owner)
	if !bytes.Equal(f.inEdge(2, 7, 0), f.knowsRow(9)) {
		t.Error("an intent of the one-mirror form was not carried out")
	}
}

func TestApplyDeleteVertexStartsAtOwners(t *testing.T) {
	f := newApplyFixture(t)
	// 2 has an out-edge to 3 and an in-edge from 1 (owned by 1's partition).
	f.mustApply(partOf(2), &storagepb.Mutation{Op: &storagepb.Mutation_PutVertex{PutVertex: &storagepb.NewVertex{Vid: vid(2), Tags: []*storagepb.NewTag{{TagId: 3, Row: f.personRow("b", 30)}}}}})
	f.mustApply(partOf(2), putEdge(2, 3, 0, f.knowsRow(1)))
	f.mustApply(partOf(1), putEdge(1, 2, 0, f.knowsRow(1)))
	f.resolve(partOf(2))
	f.resolve(partOf(1))

	f.mustApply(partOf(2), &storagepb.Mutation{Op: &storagepb.Mutation_DeleteVertex{DeleteVertex: vid(2)}})
	if f.get(partition.TagKey(testSpace, partOf(2), vid(2), 3)) != nil {
		t.Fatal("tag left after DELETE VERTEX")
	}
	if f.outEdge(2, 3, 0) != nil {
		t.Fatal("owned out-edge left after DELETE VERTEX")
	}
	// The in-edge 1→2 is 1's: asked for, not deleted locally yet.
	_, ins := f.intents(partOf(2))
	forwards := 0
	for _, in := range ins {
		if in.ForwardDelete != nil {
			forwards++
		}
	}
	if forwards != 1 {
		t.Fatalf("%d forward deletes, want 1", forwards)
	}
	f.resolve(partOf(2)) // mirror delete of 2→3, forward delete of 1→2 at 1's partition
	f.resolve(partOf(1)) // 1's mirror deletes the in-edge at 2
	for _, e := range [][2]int64{{2, 3}, {1, 2}} {
		if f.outEdge(e[0], e[1], 0) != nil || f.inEdge(e[0], e[1], 0) != nil {
			t.Fatalf("edge %d->%d has a half left after DELETE VERTEX resolved", e[0], e[1])
		}
	}
}

// TestApplyClearPart checks CLEAR SPACE's apply: every data key of the
// partition goes (rows, edges, degrees, intents), its raft keys and the
// other partition stay, a ClearPartOp is refused beside other mutations,
// and writes after it start from nothing (the degree counts from zero).
func TestApplyClearPart(t *testing.T) {
	f := newApplyFixture(t)
	p1, p2 := partOf(1), partOf(2)
	f.mustApply(p2, &storagepb.Mutation{Op: &storagepb.Mutation_PutVertex{PutVertex: &storagepb.NewVertex{Vid: vid(2), Tags: []*storagepb.NewTag{{TagId: 3, Row: f.personRow("b", 30)}}}}})
	f.mustApply(p1, &storagepb.Mutation{Op: &storagepb.Mutation_PutVertex{PutVertex: &storagepb.NewVertex{Vid: vid(1), Tags: []*storagepb.NewTag{{TagId: 3, Row: f.personRow("a", 20)}}}}})
	f.mustApply(p2, putEdge(2, 4, 0, f.knowsRow(1)))
	f.mustApply(p1, putEdge(1, 2, 0, f.knowsRow(1)))
	f.resolve(p1) // 1→2's in-edge lands in p2; p2's own intent stays unresolved
	wo := grocksdb.NewDefaultWriteOptions()
	defer wo.Destroy()
	raftKey := partition.RaftAppliedKey(testSpace, p2)
	if err := f.db.Put(wo, raftKey, []byte("raft state")); err != nil {
		t.Fatal(err)
	}
	countData := func(part int32) int {
		lo, hi := partition.DataRange(testSpace, part)
		ro := grocksdb.NewDefaultReadOptions()
		defer ro.Destroy()
		ro.SetIterateUpperBound(hi)
		it := f.db.NewIterator(ro)
		defer it.Close()
		n := 0
		for it.Seek(lo); it.Valid(); it.Next() {
			n++
		}
		return n
	}
	if countData(p2) == 0 || countData(p1) == 0 {
		t.Fatal("the fixture wrote nothing")
	}
	before1 := countData(p1)

	clear := &storagepb.Mutation{Op: &storagepb.Mutation_ClearPart{ClearPart: &storagepb.ClearPartOp{}}}
	if _, err := f.apply(p2, clear, putEdge(2, 6, 0, nil)); err == nil {
		t.Fatal("a ClearPartOp beside another mutation was applied")
	}
	f.mustApply(p2, clear)
	if n := countData(p2); n != 0 {
		t.Fatalf("%d data keys left in the cleared partition", n)
	}
	if n := countData(p1); n != before1 {
		t.Fatalf("the other partition has %d data keys, had %d", n, before1)
	}
	if string(f.get(raftKey)) != "raft state" {
		t.Fatal("the cleared partition lost its raft state")
	}
	f.mustApply(p2, putEdge(2, 4, 0, f.knowsRow(1)))
	if d := f.degree(2, 4); d != 1 {
		t.Fatalf("degree after clear and one edge = %d, want 1", d)
	}
}

func TestApplyUpdateIsAtomic(t *testing.T) {
	f := newApplyFixture(t)
	f.ix = []*metapb.IndexDesc{{SpaceId: testSpace, IndexId: 9, Name: "by_age", SchemaId: 3, Fields: []*metapb.IndexField{{Name: "age"}}}}
	v := int64(4)
	f.mustApply(partOf(v), &storagepb.Mutation{Op: &storagepb.Mutation_PutVertex{PutVertex: &storagepb.NewVertex{Vid: vid(v), Tags: []*storagepb.NewTag{{TagId: 3, Row: f.personRow("d", 40)}}}}})
	ixKey := func(age int64) []byte {
		enc, _ := partition.AppendIndexValue(nil, partition.PropInt64, 8, age)
		return partition.TagIndexKey(testSpace, partOf(v), 9, enc, vid(v))
	}
	if f.get(ixKey(40)) == nil {
		t.Fatal("index entry missing after insert")
	}
	update := func(set, when string, yield ...string) (*storagepb.UpdateResp, error) {
		res, err := f.apply(partOf(v), &storagepb.Mutation{Op: &storagepb.Mutation_Update{Update: &storagepb.UpdateReq{
			SpaceId: testSpace, PartId: partOf(v), Vid: vid(v), TagId: 3,
			Set: []*storagepb.UpdatedProp{{Name: "age", Expr: set}}, When: when, Yield: yield,
		}}})
		if err != nil {
			return nil, err
		}
		resp := &storagepb.UpdateResp{}
		if err := proto.Unmarshal(res, resp); err != nil {
			t.Fatal(err)
		}
		return resp, nil
	}
	resp, err := update("$^.person.age + 1", "$^.person.age > 100", "$^.person.age")
	if err != nil || resp.Updated || resp.YieldValues[0].GetIntVal() != 40 {
		t.Fatalf("WHEN false: %v %v", resp, err)
	}
	resp, err = update("$^.person.age + 1", "$^.person.age == 40", "$^.person.age", "$^.person.name")
	if err != nil || !resp.Updated || resp.YieldValues[0].GetIntVal() != 41 || string(resp.YieldValues[1].GetStrVal()) != "d" {
		t.Fatalf("update: %v %v", resp, err)
	}
	if f.get(ixKey(40)) != nil || f.get(ixKey(41)) == nil {
		t.Fatal("index entry did not follow the update")
	}
	// A failing SET (NOT NULL) leaves nothing: row and index unchanged.
	if _, err := update("NULL", ""); err == nil {
		t.Fatal("setting a NOT NULL property to NULL succeeded")
	}
	if f.get(ixKey(41)) == nil {
		t.Fatal("a failed update changed the index")
	}
	// UPDATE of a missing row fails; UPSERT creates it from defaults.
	_, err = f.apply(partOf(6), &storagepb.Mutation{Op: &storagepb.Mutation_Update{Update: &storagepb.UpdateReq{
		SpaceId: testSpace, PartId: partOf(6), Vid: vid(6), TagId: 3, Set: []*storagepb.UpdatedProp{{Name: "name", Expr: `"f"`}}}}})
	if err == nil {
		t.Fatal("UPDATE of a missing vertex succeeded")
	}
	res, err := f.apply(partOf(6), &storagepb.Mutation{Op: &storagepb.Mutation_Update{Update: &storagepb.UpdateReq{
		SpaceId: testSpace, PartId: partOf(6), Vid: vid(6), TagId: 3, Insertable: true,
		Set: []*storagepb.UpdatedProp{{Name: "name", Expr: `"f"`}}, Yield: []string{"$^.person.age"}}}})
	up := &storagepb.UpdateResp{}
	if err != nil || proto.Unmarshal(res, up) != nil || !up.Updated || up.YieldValues[0].GetIntVal() != 18 {
		t.Fatalf("UPSERT: %v %v", up, err)
	}

	// Rebuild from scratch finds both vertices, in chunks of one row.
	cursor := []byte(nil)
	for i := 0; ; i++ {
		if i > 20 {
			t.Fatal("rebuild does not finish")
		}
		res, err := f.apply(partOf(v), &storagepb.Mutation{Op: &storagepb.Mutation_RebuildIndex{RebuildIndex: &storagepb.RebuildIndexOp{IndexId: 9, Cursor: cursor, Limit: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 {
			break
		}
		cursor = res
	}
	if f.get(ixKey(41)) == nil {
		t.Fatal("rebuilt index misses a vertex")
	}
}

// FuzzApplyCommand feeds arbitrary entries to the state machine: it must
// reject what it cannot apply with an error, never panic (a panic would
// stop every replica at the same entry).
//
//	go test ./storaged -run '^$' -fuzz FuzzApplyCommand -fuzztime 30s
func FuzzApplyCommand(f *testing.F) {
	fx := fixtureSchemas()
	row, err := partition.EncodeRow(&partition.Schema{Columns: []partition.Column{{Name: "w", Type: partition.PropInt64, Nullable: true}}}, []any{int64(1)})
	if err != nil {
		f.Fatal(err)
	}
	seed := func(muts ...*storagepb.Mutation) {
		data, err := encodeCommand(&storagepb.Command{Space: fx.space, Tags: []*metapb.TagDesc{fx.tag}, Edges: []*metapb.EdgeDesc{fx.edge}, Mutations: muts})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	seed(putEdge(1, 2, 0, row))
	seed(deleteEdge(1, 2, 0))
	seed(&storagepb.Mutation{Op: &storagepb.Mutation_DeleteVertex{DeleteVertex: vid(2)}})
	seed(&storagepb.Mutation{Op: &storagepb.Mutation_Update{Update: &storagepb.UpdateReq{Vid: vid(2), TagId: 3, Insertable: true,
		Set: []*storagepb.UpdatedProp{{Name: "age", Expr: "$^.person.age + 1"}}}}})
	seed(&storagepb.Mutation{Op: &storagepb.Mutation_PutVertex{}}, &storagepb.Mutation{Op: &storagepb.Mutation_MirrorEdge{}},
		&storagepb.Mutation{Op: &storagepb.Mutation_Update{}}, &storagepb.Mutation{Op: &storagepb.Mutation_DeleteTags{}},
		&storagepb.Mutation{Op: &storagepb.Mutation_RebuildIndex{}}, &storagepb.Mutation{Op: &storagepb.Mutation_ResolveIntents{}},
		&storagepb.Mutation{Op: &storagepb.Mutation_PutEdge{}}, &storagepb.Mutation{Op: &storagepb.Mutation_DeleteEdge{}}, &storagepb.Mutation{Op: &storagepb.Mutation_ClearPart{}})
	seed(&storagepb.Mutation{Op: &storagepb.Mutation_ClearPart{ClearPart: &storagepb.ClearPartOp{}}})
	f.Add([]byte{commandFormat})
	opts := grocksdb.NewDefaultOptions()
	opts.SetCreateIfMissing(true)
	defer opts.Destroy()
	db, err := grocksdb.OpenDb(opts, f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		b := raftgroup.NewApplyBatch(db)
		defer b.Destroy()
		_, _ = applier{}.Apply(b, raftgroup.GroupID{Space: testSpace, Part: 1}, 5, data)
	})
}
