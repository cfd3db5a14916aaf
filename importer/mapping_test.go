package importer

import (
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// TestFixedStringCutIsPerValue: a FIXED_STRING value cut back to a
// character boundary must not shorten the values of the rows after it.
func TestFixedStringCutIsPerValue(t *testing.T) {
	parse := parserFor(&metapb.ColumnDef{Name: "code", Type: metapb.PropType_FIXED_STRING, FixedLen: 4})
	for _, tc := range []struct{ in, want string }{
		{"abcé", "abc"}, // é is two bytes: the cut falls inside it
		{"wxyz", "wxyz"},
		{"wxyz12", "wxyz"},
		{"ab", "ab"},
	} {
		got, err := parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parse(%q) = %v, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestVidConcatItems: as in nebula-importer v4, concatItems make the vid
// whether or not index is given, after the prefix.
func TestVidConcatItems(t *testing.T) {
	space := &metapb.SpaceDesc{Name: "s", VidType: metapb.VidType_VID_FIXED_STRING, VidLen: 16}
	row := []string{"x", "y"}
	for _, tc := range []struct {
		spec IDSpec
		want string
	}{
		{IDSpec{ConcatItems: []any{0, "_", 1}}, "x_y"},
		{IDSpec{Index: intp(0), ConcatItems: []any{0, "_", 1}}, "x_y"},
		{IDSpec{Index: intp(0), ConcatItems: []any{0, "_", 1}, Prefix: "p"}, "px_y"},
		{IDSpec{Index: intp(1), Prefix: "p"}, "py"},
		{IDSpec{Index: intp(1)}, "y"},
	} {
		v, err := newVidMapper(space, "id", tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		b, err := v.vid(row)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := partition.EncodeStringVid(tc.want, 16)
		if string(b) != string(want) {
			t.Errorf("%+v: vid %q, want %q", tc.spec, b, want)
		}
	}
}

// TestDedupedVertexOfAFailedRow: a SNAP row that fails after naming a
// vertex writes nothing, so the next row naming that vertex must write it.
func TestDedupedVertexOfAFailedRow(t *testing.T) {
	space := &metapb.SpaceDesc{SpaceId: 1, Name: "s", PartitionNum: 4, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64, VidLen: 8}
	snap := catalog.NewSnapshot(&metapb.Catalog{
		Version: 1, Spaces: []*metapb.SpaceDesc{space},
		Tags:  []*metapb.TagDesc{{SpaceId: 1, TagId: 2, Name: "node", Versions: []*metapb.Schema{{}}}},
		Edges: []*metapb.EdgeDesc{{SpaceId: 1, EdgeType: 3, Name: "link", Versions: []*metapb.Schema{{}}}},
	})
	src := &Source{
		Tags:  []TagSpec{{Name: "node", ID: IDSpec{Index: intp(0)}}, {Name: "node", ID: IDSpec{Index: intp(1)}}},
		Edges: []EdgeSpec{{Name: "link", Src: EndSpec{IDSpec{Index: intp(0)}}, Dst: EndSpec{IDSpec{Index: intp(1)}}}},
	}
	m, err := newMapper(snap, space, "sources[0]", src)
	if err != nil {
		t.Fatal(err)
	}
	shareSeenSets(m, map[int32]*seenSet{})
	vertices := func(ws []write) (ids []int64) {
		for _, w := range ws {
			if w.vertex != nil {
				id, _ := partition.DecodeInt64Vid(w.vertex.Vid)
				ids = append(ids, id)
			}
		}
		return ids
	}
	if ws, err := m.mapRow([]string{"5", "oops"}, nil, nil); err == nil {
		t.Fatalf("row 5 oops mapped: %+v", ws)
	}
	ws, err := m.mapRow([]string{"5", "6"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := vertices(ws); len(got) != 2 || got[0] != 5 || got[1] != 6 {
		t.Fatalf("row 5 6 wrote vertices %v, want [5 6]", got)
	}
	ws, err = m.mapRow([]string{"6", "6"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := vertices(ws); len(got) != 0 {
		t.Fatalf("row 6 6 wrote vertices %v again", got)
	}
	ws, err = m.mapRow([]string{"7", "7"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := vertices(ws); len(got) != 1 || got[0] != 7 {
		t.Fatalf("self-loop row 7 7 wrote vertices %v, want [7]", got)
	}
}

// TestFailedRowsSpecialRows: a row whose first field begins with the
// comment character reads back as a row, not a comment, and a record that
// did not parse is written back as it was read.
func TestFilterRecordWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`Record[1] == "Record"`, `$Record[1] == "Record"`},
		{`Record[0] != 'a\'Record' and Record[2]=="x"`, `$Record[0] != 'a\'Record' and $Record[2]=="x"`},
		{`MyRecord == Records`, `MyRecord == Records`},
	} {
		if got := paramRecord(tc.in); got != tc.want {
			t.Errorf("paramRecord(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	f, err := newFilter("sources[0].tags[0]", &Filter{Expr: `Record[1] == "Record"`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		row  []string
		keep bool
	}{{[]string{"rr1", "Record"}, true}, {[]string{"rr2", "other"}, false}} {
		if ok, err := f.keep(tc.row); ok != tc.keep || err != nil {
			t.Errorf("keep(%v) = %v, %v; want %v", tc.row, ok, err, tc.keep)
		}
	}
	f, err = newFilter("sources[0].tags[0]", &Filter{Expr: `Record[5] != "x"`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.keep([]string{"z1", "a"}); err == nil || !strings.Contains(err.Error(), "reads Record[5], but the row has 2 columns") {
		t.Errorf("a filter past the row's end: %v", err)
	}
}

// TestNullIsNotTheSchemaDefault: a mapped column that is NULL stores
// NULL, as INSERT ... VALUES (NULL) does; the schema's default is for a
// property no column is mapped to, the config's defaultValue for a NULL.
func TestNullIsNotTheSchemaDefault(t *testing.T) {
	dbl := &commonpb.Value{V: &commonpb.Value_FloatVal{FloatVal: 1.5}}
	versions := []*metapb.Schema{{Columns: []*metapb.ColumnDef{
		{Name: "name", Type: metapb.PropType_STRING, Nullable: true},
		{Name: "score", Type: metapb.PropType_DOUBLE, Nullable: true, DefaultValue: dbl},
	}}}
	score := func(props []PropSpec, fields []string, nulls []bool) any {
		t.Helper()
		return mapAndRead(t, versions, props, fields, nulls)[1]
	}
	two := "2.5"
	mapped := []PropSpec{{Name: "name", Index: 0}, {Name: "score", Index: 1, Nullable: true, NullValue: "NULL"}}
	withDefault := []PropSpec{{Name: "name", Index: 0}, {Name: "score", Index: 1, Nullable: true, NullValue: "NULL", DefaultValue: &two}}
	for _, tc := range []struct {
		what   string
		props  []PropSpec
		fields []string
		nulls  []bool
		want   any
	}{
		{"nullValue", mapped, []string{"a", "NULL"}, nil, nil},
		{"parquet NULL", mapped, []string{"a", ""}, []bool{false, true}, nil},
		{"a value", mapped, []string{"a", "3"}, nil, 3.0},
		{"defaultValue for NULL", withDefault, []string{"a", "NULL"}, nil, 2.5},
		{"not mapped", []PropSpec{{Name: "name", Index: 0}}, []string{"a"}, nil, 1.5},
	} {
		if got := score(tc.props, tc.fields, tc.nulls); got != tc.want {
			t.Errorf("%s: score = %v, want %v", tc.what, got, tc.want)
		}
	}
}

// TestFailedRowsResumeWritesEachRowOnce: a resumed run fails again some
// rows the interrupted one wrote (its checkpoint lagged); the file keeps
// one copy of each.
// TestRowCheckpointHash: a row checkpoint belongs to one shard of one
// space as created, over input files as they were.

// TestClockDefaultPerRow: a property no column is mapped to, whose schema
// default is DEFAULT now(), gets the time of the import, not the value
// the default had when the tag was created.
func TestClockDefaultPerRow(t *testing.T) {
	created := &commonpb.Value{V: &commonpb.Value_TimestampVal{TimestampVal: 1}}
	versions := []*metapb.Schema{{Columns: []*metapb.ColumnDef{
		{Name: "name", Type: metapb.PropType_STRING, Nullable: true},
		{Name: "at", Type: metapb.PropType_TIMESTAMP, Nullable: true, DefaultValue: created, DefaultExpr: "now()"},
	}}}
	before := time.Now().Unix()
	vals := mapAndRead(t, versions, []PropSpec{{Name: "name", Index: 0}}, []string{"a"}, nil)
	if at, ok := vals[1].(int64); !ok || at < before {
		t.Fatalf("at = %v, want the time of the import (>= %d), not the CREATE-time 1", vals[1], before)
	}
}

// mapAndRead maps one row of fields with props onto the schema versions'
// latest and reads the encoded row back.
func mapAndRead(t *testing.T, versions []*metapb.Schema, props []PropSpec, fields []string, nulls []bool) []any {
	t.Helper()
	rm, err := newRowMapper(`tag "p"`, "sources[0].tags[0]", versions, props)
	if err != nil {
		t.Fatal(err)
	}
	row, err := rm.encode(fields, nulls)
	if err != nil {
		t.Fatal(err)
	}
	sv := schema.NewVersions(versions)
	vals, err := partition.ReadWithSchema(row, sv.Source(), sv.Latest())
	if err != nil {
		t.Fatal(err)
	}
	return vals
}
