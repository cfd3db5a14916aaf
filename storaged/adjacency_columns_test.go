package storaged

import (
	"log/slog"
	"testing"
	"time"

	"github.com/linxGnu/grocksdb"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
	"github.com/novagraph/novagraph/proto/storagepb"
	"github.com/novagraph/novagraph/storaged/rowread"
)

// Schemas of the edge-column fixture: a (weight INT NULL, name STRING
// NULL), then a version 1 that adds level INT DEFAULT 7; b (score
// DOUBLE).
var (
	colSchemaA0 = &metapb.Schema{Version: 0, Columns: []*metapb.ColumnDef{
		{Name: "weight", Type: metapb.PropType_INT64, Nullable: true},
		{Name: "name", Type: metapb.PropType_STRING, Nullable: true},
	}}
	colSchemaA1 = &metapb.Schema{Version: 1, Columns: append(append([]*metapb.ColumnDef(nil), colSchemaA0.Columns...),
		&metapb.ColumnDef{Name: "level", Type: metapb.PropType_INT64, DefaultValue: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 7}}})}
	colSchemaB0 = &metapb.Schema{Version: 0, Columns: []*metapb.ColumnDef{{Name: "score", Type: metapb.PropType_DOUBLE}}}
	// c (ts TIMESTAMP, w INT) with a TTL of 100 s on ts.
	colSchemaC0 = &metapb.Schema{Version: 0, TtlCol: "ts", TtlDuration: 100, Columns: []*metapb.ColumnDef{
		{Name: "ts", Type: metapb.PropType_TIMESTAMP}, {Name: "w", Type: metapb.PropType_INT64}}}
)

// adjTypeC is the fixture's edge type with a TTL.
const adjTypeC = 5

// columnSnapshot is the fixture's catalog with a at the given versions.
func columnSnapshot(f *adjFixture, version int64, a ...*metapb.Schema) *catalog.Snapshot {
	return catalog.NewSnapshot(&metapb.Catalog{Version: version, Spaces: []*metapb.SpaceDesc{f.space},
		Edges: []*metapb.EdgeDesc{
			{SpaceId: adjSpace, EdgeType: adjTypeA, Name: "a", Versions: a},
			{SpaceId: adjSpace, EdgeType: adjTypeB, Name: "b", Versions: []*metapb.Schema{colSchemaB0}},
			{SpaceId: adjSpace, EdgeType: adjTypeC, Name: "c", Versions: []*metapb.Schema{colSchemaC0}},
		}})
}

// writeRows puts n random edges of the three types with rows encoded
// under aVersion for a (NULL weights and names now and then) and half of
// c's expired, with their in-edge mirrors, and publishes a new applied
// index.
func (f *adjFixture) writeRows(n int, aVersion *metapb.Schema) {
	f.t.Helper()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	for range n {
		src, dst := f.srcs[f.rng.IntN(len(f.srcs))], f.srcs[f.rng.IntN(len(f.srcs))]
		et := int32(adjTypeA + f.rng.IntN(3))
		var row []byte
		var err error
		switch et {
		case adjTypeA:
			vals := []any{f.rng.Int64N(1000) - 500, string(rune('a' + f.rng.IntN(26)))}
			if f.rng.IntN(8) == 0 {
				vals[0] = nil
			}
			if f.rng.IntN(8) == 0 {
				vals[1] = nil
			}
			if aVersion.Version == 1 {
				vals = append(vals, f.rng.Int64N(100))
			}
			row, err = partition.EncodeRow(schema.FromProto(aVersion), vals)
		case adjTypeB:
			row, err = partition.EncodeRow(schema.FromProto(colSchemaB0), []any{f.rng.Float64()})
		default:
			ts := time.Now().Unix() + 1000
			if f.rng.IntN(2) == 0 {
				ts -= 2000 // expired
			}
			row, err = partition.EncodeRow(schema.FromProto(colSchemaC0), []any{ts, f.rng.Int64N(10)})
		}
		if err != nil {
			f.t.Fatal(err)
		}
		rank := int64(f.rng.IntN(3))
		wb.Put(partition.EdgeKey(adjSpace, adjPart, src, et, rank, dst), row)
		version := partition.InEdgeVersion{Index: f.applied.Load(), Seq: uint32(f.rng.IntN(100))}
		wb.Put(partition.EdgeKey(adjSpace, adjPart, dst, -et, rank, src), partition.EncodeInEdge(version, row))
	}
	f.commit(wb)
}

// TestAdjacencyEdgeColumns: GetNeighbors with edge properties in packed
// columns answers from columns decoded once per partition and schema
// version exactly as from RocksDB edge by edge: typed and string
// properties with NULLs, a property of another edge type (NULL), a
// property a newer version added (its default for older rows), and the
// shapes that must read edge by edge (a key property, a limit, a filter,
// in-edges). Without budget for the columns the answers stay the same.
func TestAdjacencyEdgeColumns(t *testing.T) {
	ref := func(et int32, name string) *storagepb.PropRef { return &storagepb.PropRef{SchemaId: et, Name: name} }
	reqs := map[string]*storagepb.GetNeighborsReq{
		"a props":   {EdgeTypes: []int32{adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "weight"), ref(adjTypeA, "name"), ref(adjTypeB, "score")}},
		"b props":   {EdgeTypes: []int32{adjTypeB}, EdgeProps: []*storagepb.PropRef{ref(adjTypeB, "score")}},
		"key prop":  {EdgeTypes: []int32{adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "weight"), ref(adjTypeA, "_rank")}},
		"limit":     {EdgeTypes: []int32{adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "name")}, LimitPerVertex: 2},
		"filter":    {EdgeTypes: []int32{adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "weight")}, Filter: "a.weight > 0"},
		"in-edges":  {EdgeTypes: []int32{-adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "weight")}},
		"not there": {EdgeTypes: []int32{adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "level")}},
		"dedup":     {EdgeTypes: []int32{adjTypeA}, EdgeProps: []*storagepb.PropRef{ref(adjTypeA, "weight")}, DedupDst: true},
		"ttl":       {EdgeTypes: []int32{adjTypeC}, EdgeProps: []*storagepb.PropRef{ref(adjTypeC, "w")}},
		"timestamp": {EdgeTypes: []int32{adjTypeC}, EdgeProps: []*storagepb.PropRef{ref(adjTypeC, "ts")}},
	}
	vids := append([][]byte{partition.EncodeInt64Vid(1000)}, nil...)
	compare := func(t *testing.T, f *adjFixture, adj *adjacency, what string) {
		t.Helper()
		for name, r := range reqs {
			r.SpaceId, r.PackedEdges, r.PackedStrings = adjSpace, true, true
			r.Parts = map[int32]*storagepb.VidList{adjPart: {Vids: append(vids, f.srcs...)}}
			want, got := f.scan(r, nil), f.scan(r, adj)
			if len(want) != len(got) {
				t.Fatalf("%s, %s: %d vertices from the adjacency, %d from RocksDB", what, name, len(got), len(want))
			}
			for i := range want {
				if !proto.Equal(want[i], got[i]) {
					t.Fatalf("%s, %s: vertex %x:\nadjacency %v\nRocksDB   %v", what, name, want[i].Vid, got[i], want[i])
				}
			}
		}
	}

	f := newAdjFixture(t, 11)
	f.snap = columnSnapshot(f, 1, colSchemaA0)
	c := newAdjacencyCache(f.appliedIndex, 1<<30, time.Nanosecond, slog.New(slog.DiscardHandler))
	defer c.close()
	f.writeRows(600, colSchemaA0)
	adj := waitBuilt(t, c, f)
	compare(t, f, adj, "version 0")
	// weight, name and score: "not there" is no property of version 0,
	// which reads NULL edge by edge and as a column of NULLs alike.
	if n := c.columns.Load(); n < 3 {
		t.Fatalf("%d columns decoded; the edges were read one at a time", n)
	}
	if e := adj.cols[propColumnKey{id: adjTypeA, name: "level"}]; !e.allNull {
		t.Fatalf("a property no row of the version has: %+v, want a column of NULLs", e)
	}
	for _, k := range []propColumnKey{{id: adjTypeC, name: "w"}, {id: adjTypeC, name: "ts"}} {
		if _, asked := adj.cols[k]; asked {
			t.Fatalf("a column of c.%s was asked for: c has a TTL, its edges are read one at a time", k.name)
		}
	}
	before := c.columns.Load()
	compare(t, f, adj, "version 0 again")
	if n := c.columns.Load(); n != before {
		t.Fatalf("%d columns decoded again for the same schema version", n-before)
	}
	if b, _ := c.stats(); b != adj.bytes || b <= int64(len(adj.rows)) {
		t.Fatalf("the cache holds %d bytes, the adjacency with its columns %d", b, adj.bytes)
	}

	// ALTER EDGE a ADD level DEFAULT 7, then rows of both versions: the
	// columns of a are decoded again under version 1.
	f.snap = columnSnapshot(f, 2, colSchemaA0, colSchemaA1)
	compare(t, f, adj, "version 1, rows of version 0")
	if n := c.columns.Load(); n == before {
		t.Fatal("no column decoded again after the schema changed")
	}
	f.writeRows(200, colSchemaA1)
	adj = waitBuilt(t, c, f)
	compare(t, f, adj, "version 1, rows of both")

	// A budget with no room for the columns: the same answers, edge by
	// edge, and nothing charged beyond the adjacency.
	tight, small := withoutColumnRoom(t, f, adj, compare)
	if b, _ := tight.stats(); b != small.bytes || b > tight.budget {
		t.Fatalf("the cache holds %d bytes over a budget of %d", b, tight.budget)
	}
}

// withoutColumnRoom builds f's partition again in a cache whose budget
// has no room for any column beside the adjacency (adj, with its columns,
// tells the size), runs compare on it and checks that no column was
// decoded or kept; it returns that cache and its adjacency.
func withoutColumnRoom(t *testing.T, f *adjFixture, adj *adjacency,
	compare func(t *testing.T, f *adjFixture, adj *adjacency, what string)) (*adjacencyCache, *adjacency) {
	t.Helper()
	tight := newAdjacencyCache(f.appliedIndex, adj.bytes-columnsOf(adj)+64, time.Nanosecond, slog.New(slog.DiscardHandler))
	t.Cleanup(tight.close)
	small := waitBuilt(t, tight, f)
	compare(t, f, small, "no room for columns")
	if n := tight.columns.Load(); n != 0 {
		t.Fatalf("%d columns kept over the budget", n)
	}
	if tight.columnsSkipped.Load() == 0 {
		t.Fatal("columns the budget cannot hold were decoded (and thrown away)")
	}
	return tight, small
}

// columnsOf is what adj's decoded columns hold.
func columnsOf(adj *adjacency) int64 {
	adj.colMu.Lock()
	defer adj.colMu.Unlock()
	var n int64
	for _, c := range adj.cols {
		n += c.bytes
	}
	return n
}

// Tags of the tag-column fixture: person (name STRING NULL, age INT), then
// a version 1 that adds level INT DEFAULT 7; city (pop INT, since
// TIMESTAMP); visit (ts TIMESTAMP, n INT) with a TTL of 100 s on ts.
const (
	tagPerson = 1
	tagCity   = 2
	tagVisit  = 3
)

var (
	personV0 = &metapb.Schema{Version: 0, Columns: []*metapb.ColumnDef{
		{Name: "name", Type: metapb.PropType_STRING, Nullable: true},
		{Name: "age", Type: metapb.PropType_INT64},
	}}
	personV1 = &metapb.Schema{Version: 1, Columns: append(append([]*metapb.ColumnDef(nil), personV0.Columns...),
		&metapb.ColumnDef{Name: "level", Type: metapb.PropType_INT64, DefaultValue: &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: 7}}})}
	cityV0 = &metapb.Schema{Version: 0, Columns: []*metapb.ColumnDef{
		{Name: "pop", Type: metapb.PropType_INT64}, {Name: "since", Type: metapb.PropType_TIMESTAMP}}}
	visitV0 = &metapb.Schema{Version: 0, TtlCol: "ts", TtlDuration: 100, Columns: []*metapb.ColumnDef{
		{Name: "ts", Type: metapb.PropType_TIMESTAMP}, {Name: "n", Type: metapb.PropType_INT64}}}
)

// tagSnapshot is the tag fixture's catalog with person at the given
// versions.
func tagSnapshot(f *adjFixture, version int64, person ...*metapb.Schema) *catalog.Snapshot {
	return catalog.NewSnapshot(&metapb.Catalog{Version: version, Spaces: []*metapb.SpaceDesc{f.space},
		Tags: []*metapb.TagDesc{
			{SpaceId: adjSpace, TagId: tagPerson, Name: "person", Versions: person},
			{SpaceId: adjSpace, TagId: tagCity, Name: "city", Versions: []*metapb.Schema{cityV0}},
			{SpaceId: adjSpace, TagId: tagVisit, Name: "visit", Versions: []*metapb.Schema{visitV0}},
		}})
}

// writeTags gives each of the fixture's vertices, at random, a person row
// encoded under personVersion (NULL names now and then), a city row and a
// visit row (half of them expired), and publishes a new applied index.
func (f *adjFixture) writeTags(personVersion *metapb.Schema) {
	f.t.Helper()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	put := func(vid []byte, tag int32, s *metapb.Schema, vals []any) {
		row, err := partition.EncodeRow(schema.FromProto(s), vals)
		if err != nil {
			f.t.Fatal(err)
		}
		wb.Put(partition.TagKey(adjSpace, adjPart, vid, tag), row)
	}
	for _, vid := range f.srcs {
		if f.rng.IntN(4) != 0 {
			vals := []any{string(rune('a' + f.rng.IntN(26))), f.rng.Int64N(100)}
			if f.rng.IntN(6) == 0 {
				vals[0] = nil
			}
			if personVersion.Version == 1 {
				vals = append(vals, f.rng.Int64N(10))
			}
			put(vid, tagPerson, personVersion, vals)
		}
		if f.rng.IntN(2) == 0 {
			put(vid, tagCity, cityV0, []any{f.rng.Int64N(1e6), f.rng.Int64N(1e9)})
		}
		if f.rng.IntN(2) == 0 {
			ts := time.Now().Unix() + 1000
			if f.rng.IntN(2) == 0 {
				ts -= 2000 // expired
			}
			put(vid, tagVisit, visitV0, []any{ts, f.rng.Int64N(10)})
		}
	}
	f.commit(wb)
}

// TestAdjacencyTagColumns: GetPropColumns (GO's $$ fetch) answers from tag
// columns decoded once per partition and schema version exactly as from
// RocksDB row by row: strings with NULLs, two tags of which a vertex may
// have one (the other's cells NULL), _tag, a property a newer version
// added (its default for older rows), a vertex with no tags, and a tag
// with a TTL, which is read row by row. Without budget for the columns
// the answers stay the same.
func TestAdjacencyTagColumns(t *testing.T) {
	ref := func(tag int32, name string) *storagepb.PropRef { return &storagepb.PropRef{SchemaId: tag, Name: name} }
	reqs := map[string][]*storagepb.PropRef{
		"person":     {ref(tagPerson, "name"), ref(tagPerson, "age")},
		"two tags":   {ref(tagPerson, "age"), ref(tagCity, "pop"), ref(tagCity, "_tag"), ref(tagPerson, "name")},
		"not there":  {ref(tagPerson, "level")},
		"ttl":        {ref(tagVisit, "n"), ref(tagPerson, "age")},
		"tag of one": {ref(tagCity, "pop")},
		"timestamp":  {ref(tagCity, "since"), ref(tagPerson, "age")},
	}
	get := func(f *adjFixture, adj *adjacency, props []*storagepb.PropRef, packed bool) *storagepb.PropColumns {
		t.Helper()
		vids := append([][]byte{partition.EncodeInt64Vid(1000)}, f.srcs...) // 1000 has no tag
		req := &storagepb.GetPropsReq{SpaceId: adjSpace, Props: props, Columns: true, PackedStrings: packed,
			VertexParts: map[int32]*storagepb.VidList{adjPart: {Vids: vids}}}
		_, block, err := getProps(f.db, adj, rowread.NewReader(f.snap, adjSpace, time.Now().Unix()), f.space, adjPart, req)
		if err != nil {
			t.Fatal(err)
		}
		return block
	}
	// byOrdinal checks that the requests the columns can answer read no
	// row at all: a get that counts its calls sees none.
	byOrdinal := func(t *testing.T, f *adjFixture, adj *adjacency, what string) {
		t.Helper()
		for _, name := range []string{"person", "two tags", "not there", "tag of one"} {
			reads := 0
			read := func([]byte) ([]byte, error) { reads++; return nil, nil }
			vids := append([][]byte{partition.EncodeInt64Vid(1000)}, f.srcs...)
			req := &storagepb.GetPropsReq{SpaceId: adjSpace, Props: reqs[name], Columns: true, PackedStrings: true}
			got, err := rowread.NewReader(f.snap, adjSpace, time.Now().Unix()).GetPropColumns(read, adj, f.space, adjPart, req, vids)
			if err != nil {
				t.Fatal(err)
			}
			if want := get(f, nil, reqs[name], true); reads != 0 || !proto.Equal(want, got) {
				t.Fatalf("%s, %s: %d rows read (want none, the columns answer), answers equal: %v", what, name, reads, proto.Equal(want, got))
			}
		}
	}
	compare := func(t *testing.T, f *adjFixture, adj *adjacency, what string) {
		t.Helper()
		for name, props := range reqs {
			for _, packed := range []bool{true, false} {
				want, got := get(f, nil, props, packed), get(f, adj, props, packed)
				if want == nil || !proto.Equal(want, got) {
					t.Fatalf("%s, %s (packed strings %v):\nadjacency %v\nRocksDB   %v", what, name, packed, got, want)
				}
			}
		}
	}

	f := newAdjFixture(t, 12)
	f.snap = tagSnapshot(f, 1, personV0)
	c := newAdjacencyCache(f.appliedIndex, 1<<30, time.Nanosecond, slog.New(slog.DiscardHandler))
	defer c.close()
	f.writeTags(personV0)
	adj := waitBuilt(t, c, f)
	compare(t, f, adj, "version 0")
	byOrdinal(t, f, adj, "version 0")
	// person.name, person.age, city.pop; "not there" is a column of NULLs.
	if n := c.columns.Load(); n < 3 {
		t.Fatalf("%d columns decoded; the tags were read row by row", n)
	}
	if e := adj.cols[propColumnKey{tag: true, id: tagPerson, name: "level"}]; !e.allNull {
		t.Fatalf("a property no row of the version has: %+v, want a column of NULLs", e)
	}
	if e := adj.cols[propColumnKey{tag: true, id: tagCity, name: "since"}]; !e.untyped {
		t.Fatalf("a timestamp property: %+v, want no column for good (untyped), not a decode per request", e)
	}
	if _, asked := adj.cols[propColumnKey{tag: true, id: tagVisit, name: "n"}]; asked {
		t.Fatal("a column of visit.n was asked for: visit has a TTL, its rows are read one at a time")
	}
	before := c.columns.Load()
	compare(t, f, adj, "version 0 again")
	if n := c.columns.Load(); n != before {
		t.Fatalf("%d columns decoded again for the same schema version", n-before)
	}

	// ALTER TAG person ADD level DEFAULT 7, then rows of both versions.
	f.snap = tagSnapshot(f, 2, personV0, personV1)
	compare(t, f, adj, "version 1, rows of version 0")
	if n := c.columns.Load(); n == before {
		t.Fatal("no column decoded again after the schema changed")
	}
	f.writeTags(personV1)
	adj = waitBuilt(t, c, f)
	compare(t, f, adj, "version 1, rows of both")
	byOrdinal(t, f, adj, "version 1, rows of both")

	// No room for the columns: the same answers, row by row.
	withoutColumnRoom(t, f, adj, compare)
}
