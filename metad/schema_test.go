package metad

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

// schemaString renders a schema version compactly: each column as
// name:TYPE, with (N) for FIXED_STRING, ? when nullable and =default, then
// the TTL if any part of it is set.
func schemaString(s *metapb.Schema) string {
	var parts []string
	for _, c := range s.GetColumns() {
		p := c.Name + ":" + c.Type.String()
		if c.Type == metapb.PropType_FIXED_STRING {
			p += fmt.Sprintf("(%d)", c.FixedLen)
		}
		if c.Nullable {
			p += "?"
		}
		if d := c.DefaultValue; d != nil {
			switch v := d.V.(type) {
			case *commonpb.Value_Null:
				p += "=NULL"
			case *commonpb.Value_IntVal:
				p += fmt.Sprintf("=%d", v.IntVal)
			case *commonpb.Value_FloatVal:
				p += fmt.Sprintf("=%gf", v.FloatVal)
			case *commonpb.Value_StrVal:
				p += fmt.Sprintf("=%q", v.StrVal)
			case *commonpb.Value_TimestampVal:
				p += fmt.Sprintf("=ts%d", v.TimestampVal)
			default:
				p += fmt.Sprintf("=%v", d)
			}
		}
		parts = append(parts, p)
	}
	if s.GetTtlCol() != "" || s.GetTtlDuration() != 0 {
		parts = append(parts, fmt.Sprintf("ttl=%s/%d", s.TtlCol, s.TtlDuration))
	}
	return strings.Join(parts, " ")
}

func findTag(cat *metapb.Catalog, space int32, name string) *metapb.TagDesc {
	for _, x := range cat.Tags {
		if x.SpaceId == space && x.Name == name {
			return x
		}
	}
	return nil
}

func findEdge(cat *metapb.Catalog, space int32, name string) *metapb.EdgeDesc {
	for _, x := range cat.Edges {
		if x.SpaceId == space && x.Name == name {
			return x
		}
	}
	return nil
}

func findIndex(cat *metapb.Catalog, space int32, name string) *metapb.IndexDesc {
	for _, x := range cat.Indexes {
		if x.SpaceId == space && x.Name == name {
			return x
		}
	}
	return nil
}

func intDefault(v int64) *commonpb.Value {
	return &commonpb.Value{V: &commonpb.Value_IntVal{IntVal: v}}
}

func field(name string, prefix int32) *metapb.IndexField {
	return &metapb.IndexField{Name: name, PrefixLen: prefix}
}

// fieldsString renders index fields as name/prefix_len.
func fieldsString(fields []*metapb.IndexField) string {
	var parts []string
	for _, f := range fields {
		parts = append(parts, fmt.Sprintf("%s/%d", f.GetName(), f.GetPrefixLen()))
	}
	return strings.Join(parts, " ")
}

// schemaEnv is a metad with one host and one space "g".
type schemaEnv struct {
	t     *testing.T
	srv   *Server
	rpc   metapb.MetaServiceClient
	space int32
}

func newSchemaEnv(t *testing.T) *schemaEnv {
	srv, rpc := startServer(t, 10*time.Second)
	addHosts(t, rpc, 1)
	sp := createSpace(t, rpc, "g", 2, 1)
	wantCode(t, "create space", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	return &schemaEnv{t: t, srv: srv, rpc: rpc, space: sp.SpaceId}
}

func (e *schemaEnv) createSchema(req *metapb.CreateSchemaReq) *metapb.CreateSchemaResp {
	e.t.Helper()
	if req.SpaceId == 0 {
		req.SpaceId = e.space
	}
	r, err := e.rpc.CreateSchema(ctxT(e.t), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *schemaEnv) alter(req *metapb.AlterSchemaReq) *metapb.AlterSchemaResp {
	e.t.Helper()
	if req.SpaceId == 0 {
		req.SpaceId = e.space
	}
	r, err := e.rpc.AlterSchema(ctxT(e.t), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *schemaEnv) dropSchema(req *metapb.DropSchemaReq) *metapb.DropSchemaResp {
	e.t.Helper()
	if req.SpaceId == 0 {
		req.SpaceId = e.space
	}
	r, err := e.rpc.DropSchema(ctxT(e.t), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *schemaEnv) createIndex(req *metapb.CreateIndexReq) *metapb.CreateIndexResp {
	e.t.Helper()
	if req.SpaceId == 0 {
		req.SpaceId = e.space
	}
	r, err := e.rpc.CreateIndex(ctxT(e.t), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *schemaEnv) dropIndex(req *metapb.DropIndexReq) *metapb.DropIndexResp {
	e.t.Helper()
	if req.SpaceId == 0 {
		req.SpaceId = e.space
	}
	r, err := e.rpc.DropIndex(ctxT(e.t), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func TestSchemaTTL(t *testing.T) {
	e := newSchemaEnv(t)
	cols := []*metapb.ColumnDef{
		col("name", metapb.PropType_STRING),
		col("n", metapb.PropType_INT64),
		{Name: "ts", Type: metapb.PropType_TIMESTAMP, Nullable: true},
		col("d", metapb.PropType_DOUBLE),
	}
	for _, tc := range []struct {
		name   string
		edge   bool
		ttlCol string
		ttlDur int64
		code   commonpb.ErrorCode
		msg    []string
		want   string // the stored schema, on success
	}{
		{name: "timestamp", ttlCol: "ts", ttlDur: 100, want: "name:STRING n:INT64 ts:TIMESTAMP? d:DOUBLE ttl=ts/100"},
		{name: "int64_edge", edge: true, ttlCol: "n", ttlDur: 5, want: "name:STRING n:INT64 ts:TIMESTAMP? d:DOUBLE ttl=n/5"},
		{name: "col_without_duration", ttlCol: "n", want: "name:STRING n:INT64 ts:TIMESTAMP? d:DOUBLE ttl=n/0"},
		{name: "duration_without_col", ttlDur: 60, want: "name:STRING n:INT64 ts:TIMESTAMP? d:DOUBLE ttl=/60"},
		{name: "none", want: "name:STRING n:INT64 ts:TIMESTAMP? d:DOUBLE"},
		{name: "missing_col", ttlCol: "nope", ttlDur: 1, code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`tag "missing_col"`, `ttl_col "nope" is not a column`}},
		{name: "string_col", edge: true, ttlCol: "name", ttlDur: 1, code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`edge "string_col"`, `ttl_col "name" is STRING, not INT64 or TIMESTAMP`}},
		{name: "double_col", ttlCol: "d", ttlDur: 1, code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`ttl_col "d" is DOUBLE`}},
		{name: "negative", ttlCol: "ts", ttlDur: -1, code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`tag "negative"`, "ttl_duration -1 is negative"}},
	} {
		r := e.createSchema(&metapb.CreateSchemaReq{Name: tc.name, IsEdge: tc.edge, Columns: cols, TtlCol: tc.ttlCol, TtlDuration: tc.ttlDur})
		wantCode(t, tc.name, r.Status, tc.code, tc.msg...)
		cat := getCatalog(t, e.rpc)
		var versions []*metapb.Schema
		if tc.edge {
			if d := findEdge(cat, e.space, tc.name); d != nil {
				versions = d.Versions
			}
		} else if d := findTag(cat, e.space, tc.name); d != nil {
			versions = d.Versions
		}
		if tc.code != commonpb.ErrorCode_SUCCEEDED {
			if versions != nil {
				t.Fatalf("%s: failed CreateSchema left a schema behind: %v", tc.name, versions)
			}
			continue
		}
		if len(versions) != 1 || versions[0].Version != 0 || schemaString(versions[0]) != tc.want {
			t.Fatalf("%s: stored %v, want one version 0: %s", tc.name, versions, tc.want)
		}
	}
}

func TestAlterSchema(t *testing.T) {
	e := newSchemaEnv(t)
	const base = "name:STRING age:INT64?=NULL ts:TIMESTAMP code:FIXED_STRING(8) ttl=ts/100"
	baseCols := func() []*metapb.ColumnDef {
		return []*metapb.ColumnDef{
			col("name", metapb.PropType_STRING),
			{Name: "age", Type: metapb.PropType_INT64, Nullable: true, DefaultValue: &commonpb.Value{}},
			col("ts", metapb.PropType_TIMESTAMP),
			{Name: "code", Type: metapb.PropType_FIXED_STRING, FixedLen: 8},
		}
	}
	add := func(cols ...*metapb.ColumnDef) *metapb.AlterSchemaOp {
		return &metapb.AlterSchemaOp{Kind: metapb.AlterSchemaOp_ADD, Columns: cols}
	}
	drop := func(names ...string) *metapb.AlterSchemaOp {
		return &metapb.AlterSchemaOp{Kind: metapb.AlterSchemaOp_DROP, Names: names}
	}
	change := func(cols ...*metapb.ColumnDef) *metapb.AlterSchemaOp {
		return &metapb.AlterSchemaOp{Kind: metapb.AlterSchemaOp_CHANGE, Columns: cols}
	}

	// Each case alters a fresh copy of the same schema, which has the TTL
	// column ts and the index idx<i> on (name(10), code).
	for i, tc := range []struct {
		desc   string
		edge   bool
		ops    []*metapb.AlterSchemaOp
		setTTL bool
		ttlCol string
		ttlDur int64
		code   commonpb.ErrorCode
		msg    []string
		want   string // version 1, on success
	}{
		{desc: "add nullable", ops: []*metapb.AlterSchemaOp{add(&metapb.ColumnDef{Name: "email", Type: metapb.PropType_STRING, Nullable: true})},
			want: base[:strings.Index(base, " ttl")] + " email:STRING? ttl=ts/100"},
		{desc: "add not null with default, normalized", edge: true,
			ops:  []*metapb.AlterSchemaOp{add(&metapb.ColumnDef{Name: "w", Type: metapb.PropType_DOUBLE, DefaultValue: intDefault(2)})},
			want: "name:STRING age:INT64?=NULL ts:TIMESTAMP code:FIXED_STRING(8) w:DOUBLE=2f ttl=ts/100"},
		{desc: "add not null without default", ops: []*metapb.AlterSchemaOp{add(col("w", metapb.PropType_INT64))},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`column "w" is added NOT NULL without a default`}},
		{desc: "add existing", ops: []*metapb.AlterSchemaOp{add(&metapb.ColumnDef{Name: "age", Type: metapb.PropType_INT64, Nullable: true})},
			code: commonpb.ErrorCode_E_EXISTED, msg: []string{`cannot add column "age": it already exists`}},
		{desc: "add twice in one op", ops: []*metapb.AlterSchemaOp{add(&metapb.ColumnDef{Name: "x", Type: metapb.PropType_BOOL, Nullable: true}, &metapb.ColumnDef{Name: "x", Type: metapb.PropType_BOOL, Nullable: true})},
			code: commonpb.ErrorCode_E_EXISTED, msg: []string{`"x"`}},
		{desc: "add with a bad default", ops: []*metapb.AlterSchemaOp{add(&metapb.ColumnDef{Name: "x", Type: metapb.PropType_BOOL, DefaultValue: intDefault(1)})},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`column "x": a integer default does not fit type BOOL`}},
		{desc: "drop", ops: []*metapb.AlterSchemaOp{drop("age")},
			want: "name:STRING ts:TIMESTAMP code:FIXED_STRING(8) ttl=ts/100"},
		{desc: "drop missing", ops: []*metapb.AlterSchemaOp{drop("nope")},
			code: commonpb.ErrorCode_E_PROP_NOT_FOUND, msg: []string{`cannot drop column "nope": no such column`}},
		{desc: "drop indexed", ops: []*metapb.AlterSchemaOp{drop("code")},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`cannot drop column "code": index "idx`, "drop the index first"}},
		{desc: "drop ttl column", edge: true, ops: []*metapb.AlterSchemaOp{drop("ts")},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`edge "s`, `cannot drop column "ts": it is the TTL column`}},
		{desc: "drop ttl column, clearing ttl", ops: []*metapb.AlterSchemaOp{drop("ts")}, setTTL: true,
			want: "name:STRING age:INT64?=NULL code:FIXED_STRING(8)"},
		{desc: "drop ttl column, moving ttl", ops: []*metapb.AlterSchemaOp{drop("ts")}, setTTL: true, ttlCol: "age", ttlDur: 7,
			want: "name:STRING age:INT64?=NULL code:FIXED_STRING(8) ttl=age/7"},
		{desc: "drop ttl column, ttl still on it", ops: []*metapb.AlterSchemaOp{drop("ts")}, setTTL: true, ttlCol: "ts", ttlDur: 7,
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`ttl_col "ts" is not a column`}},
		{desc: "change", ops: []*metapb.AlterSchemaOp{change(&metapb.ColumnDef{Name: "age", Type: metapb.PropType_DOUBLE, DefaultValue: intDefault(1)})},
			want: "name:STRING age:DOUBLE=1f ts:TIMESTAMP code:FIXED_STRING(8) ttl=ts/100"},
		{desc: "change missing", ops: []*metapb.AlterSchemaOp{change(col("nope", metapb.PropType_INT64))},
			code: commonpb.ErrorCode_E_PROP_NOT_FOUND, msg: []string{`cannot change column "nope": no such column`}},
		{desc: "change indexed", ops: []*metapb.AlterSchemaOp{change(&metapb.ColumnDef{Name: "name", Type: metapb.PropType_STRING, Nullable: true})},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`cannot change column "name": index "idx`}},
		{desc: "change ttl column to string", ops: []*metapb.AlterSchemaOp{change(col("ts", metapb.PropType_STRING))},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`ttl_col "ts" is STRING`}},
		{desc: "change ttl column to int64", ops: []*metapb.AlterSchemaOp{change(col("ts", metapb.PropType_INT64))},
			want: "name:STRING age:INT64?=NULL ts:INT64 code:FIXED_STRING(8) ttl=ts/100"},
		{desc: "change to an invalid column", ops: []*metapb.AlterSchemaOp{change(col("age", metapb.PropType_FIXED_STRING))},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`column "age": FIXED_STRING fixed_len 0`}},
		{desc: "ops apply in order", ops: []*metapb.AlterSchemaOp{
			drop("age"),
			add(&metapb.ColumnDef{Name: "age", Type: metapb.PropType_STRING, Nullable: true}, &metapb.ColumnDef{Name: "tmp", Type: metapb.PropType_BOOL, Nullable: true}),
			change(&metapb.ColumnDef{Name: "tmp", Type: metapb.PropType_INT64, Nullable: true}),
			drop("tmp"),
		}, want: "name:STRING ts:TIMESTAMP code:FIXED_STRING(8) age:STRING? ttl=ts/100"},
		{desc: "set ttl only", setTTL: true, ttlCol: "age", ttlDur: 30,
			want: "name:STRING age:INT64?=NULL ts:TIMESTAMP code:FIXED_STRING(8) ttl=age/30"},
		{desc: "clear ttl", setTTL: true,
			want: "name:STRING age:INT64?=NULL ts:TIMESTAMP code:FIXED_STRING(8)"},
		{desc: "ttl on a string column", setTTL: true, ttlCol: "name", ttlDur: 1,
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{`ttl_col "name" is STRING, not INT64 or TIMESTAMP`}},
		{desc: "negative ttl", setTTL: true, ttlCol: "ts", ttlDur: -5,
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{"ttl_duration -5 is negative"}},
		{desc: "nothing", code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{"nothing to alter"}},
		{desc: "op without kind", ops: []*metapb.AlterSchemaOp{{Names: []string{"age"}}},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{"operation 0 has no kind"}},
		{desc: "drop with columns", ops: []*metapb.AlterSchemaOp{{Kind: metapb.AlterSchemaOp_DROP, Columns: baseCols()[:1]}},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{"operation 0 (DROP) needs column names"}},
		{desc: "add without columns", ops: []*metapb.AlterSchemaOp{drop("age"), add()},
			code: commonpb.ErrorCode_E_INVALID_ARGUMENT, msg: []string{"operation 1 (ADD) needs columns"}},
	} {
		name := fmt.Sprintf("s%d", i)
		cr := e.createSchema(&metapb.CreateSchemaReq{Name: name, IsEdge: tc.edge, Columns: baseCols(), TtlCol: "ts", TtlDuration: 100})
		wantCode(t, tc.desc+": create", cr.Status, commonpb.ErrorCode_SUCCEEDED)
		ir := e.createIndex(&metapb.CreateIndexReq{Name: fmt.Sprintf("idx%d", i), IsEdge: tc.edge, SchemaName: name, Fields: []*metapb.IndexField{field("name", 10), field("code", 0)}})
		wantCode(t, tc.desc+": create index", ir.Status, commonpb.ErrorCode_SUCCEEDED)
		before := getCatalog(t, e.rpc)

		r := e.alter(&metapb.AlterSchemaReq{Name: name, IsEdge: tc.edge, Ops: tc.ops, SetTtl: tc.setTTL, TtlCol: tc.ttlCol, TtlDuration: tc.ttlDur})
		wantCode(t, tc.desc, r.Status, tc.code, tc.msg...)

		cat := getCatalog(t, e.rpc)
		versionsOf := func(cat *metapb.Catalog) []*metapb.Schema {
			if tc.edge {
				return findEdge(cat, e.space, name).GetVersions()
			}
			return findTag(cat, e.space, name).GetVersions()
		}
		old, versions := versionsOf(before), versionsOf(cat)
		if len(old) != 1 || schemaString(old[0]) != base {
			t.Fatalf("%s: version 0 is %v, want %s", tc.desc, old, base)
		}
		if tc.code != commonpb.ErrorCode_SUCCEEDED {
			if len(versions) != 1 || cat.Version != before.Version {
				t.Fatalf("%s: failed alter changed the catalog (version %d -> %d): %v", tc.desc, before.Version, cat.Version, versions)
			}
			continue
		}
		if r.Version <= before.Version || cat.Version < r.Version {
			t.Fatalf("%s: alter returned version %d; catalog was at %d, now at %d", tc.desc, r.Version, before.Version, cat.Version)
		}
		// Version 0 is kept unchanged, so rows written with it still
		// decode; version 1 is the result.
		if len(versions) != 2 || !proto.Equal(versions[0], old[0]) || versions[1].Version != 1 || schemaString(versions[1]) != tc.want {
			t.Fatalf("%s: versions after alter:\n%v\nwant version 0 unchanged and version 1: %s", tc.desc, versions, tc.want)
		}
	}

	// Versions keep growing; the latest is what the next alter starts from.
	for v := 2; v <= 3; v++ {
		r := e.alter(&metapb.AlterSchemaReq{Name: "s0", Ops: []*metapb.AlterSchemaOp{add(&metapb.ColumnDef{Name: fmt.Sprintf("c%d", v), Type: metapb.PropType_BOOL, Nullable: true})}})
		wantCode(t, "alter s0 again", r.Status, commonpb.ErrorCode_SUCCEEDED)
	}
	versions := findTag(getCatalog(t, e.rpc), e.space, "s0").GetVersions()
	if len(versions) != 4 || versions[3].Version != 3 || !strings.HasSuffix(schemaString(versions[3]), "email:STRING? c2:BOOL? c3:BOOL? ttl=ts/100") {
		t.Fatalf("s0 after two more alters: %v", versions)
	}

	// Which schema is altered: kind, name and space must all match.
	r := e.alter(&metapb.AlterSchemaReq{Name: "nope", Ops: []*metapb.AlterSchemaOp{drop("age")}})
	wantCode(t, "missing tag", r.Status, commonpb.ErrorCode_E_TAG_NOT_FOUND, `tag "nope" not found in space "g"`)
	r = e.alter(&metapb.AlterSchemaReq{Name: "s0", IsEdge: true, Ops: []*metapb.AlterSchemaOp{drop("age")}})
	wantCode(t, "tag altered as an edge", r.Status, commonpb.ErrorCode_E_EDGE_NOT_FOUND, `edge "s0" not found`, "tag")
	r = e.alter(&metapb.AlterSchemaReq{Name: "s1", Ops: []*metapb.AlterSchemaOp{drop("age")}})
	wantCode(t, "edge altered as a tag", r.Status, commonpb.ErrorCode_E_TAG_NOT_FOUND, `tag "s1" not found`, "edge")
	r = e.alter(&metapb.AlterSchemaReq{SpaceId: 99, Name: "s0", Ops: []*metapb.AlterSchemaOp{drop("age")}})
	wantCode(t, "missing space", r.Status, commonpb.ErrorCode_E_SPACE_NOT_FOUND, "space 99 not found")
	r = e.alter(&metapb.AlterSchemaReq{Name: "", Ops: []*metapb.AlterSchemaOp{drop("age")}})
	wantCode(t, "empty name", r.Status, commonpb.ErrorCode_E_INVALID_ARGUMENT, "tag name is empty")

	// Once its index is gone, an indexed column can be dropped.
	di := e.dropIndex(&metapb.DropIndexReq{Name: "idx0"})
	wantCode(t, "drop idx0", di.Status, commonpb.ErrorCode_SUCCEEDED)
	r = e.alter(&metapb.AlterSchemaReq{Name: "s0", Ops: []*metapb.AlterSchemaOp{drop("code")}})
	wantCode(t, "drop formerly indexed column", r.Status, commonpb.ErrorCode_SUCCEEDED)
}

func TestDropSchema(t *testing.T) {
	e := newSchemaEnv(t)
	person := e.createSchema(&metapb.CreateSchemaReq{Name: "person", Columns: []*metapb.ColumnDef{col("name", metapb.PropType_STRING)}})
	wantCode(t, "tag person", person.Status, commonpb.ErrorCode_SUCCEEDED)
	knows := e.createSchema(&metapb.CreateSchemaReq{Name: "knows", IsEdge: true, Columns: []*metapb.ColumnDef{col("since", metapb.PropType_INT64)}})
	wantCode(t, "edge knows", knows.Status, commonpb.ErrorCode_SUCCEEDED)
	post := e.createSchema(&metapb.CreateSchemaReq{Name: "post"})
	wantCode(t, "tag post", post.Status, commonpb.ErrorCode_SUCCEEDED)
	ix := e.createIndex(&metapb.CreateIndexReq{Name: "person_name", SchemaName: "person", Fields: []*metapb.IndexField{field("name", 16)}})
	wantCode(t, "index person_name", ix.Status, commonpb.ErrorCode_SUCCEEDED)
	ix2 := e.createIndex(&metapb.CreateIndexReq{Name: "person_all", SchemaName: "person"})
	wantCode(t, "index person_all", ix2.Status, commonpb.ErrorCode_SUCCEEDED)
	ex := e.createIndex(&metapb.CreateIndexReq{Name: "knows_since", IsEdge: true, SchemaName: "knows", Fields: []*metapb.IndexField{field("since", 0)}})
	wantCode(t, "index knows_since", ex.Status, commonpb.ErrorCode_SUCCEEDED)

	before := getCatalog(t, e.rpc).Version
	for _, tc := range []struct {
		desc string
		req  *metapb.DropSchemaReq
		code commonpb.ErrorCode
		msg  []string
	}{
		{"indexed tag", &metapb.DropSchemaReq{Name: "person"}, commonpb.ErrorCode_E_INVALID_ARGUMENT,
			[]string{`tag "person" has index "person_name", "person_all": drop the index first`}},
		{"indexed edge", &metapb.DropSchemaReq{Name: "knows", IsEdge: true, IfExists: true}, commonpb.ErrorCode_E_INVALID_ARGUMENT,
			[]string{`edge "knows" has index "knows_since": drop the index first`}},
		{"missing tag", &metapb.DropSchemaReq{Name: "nope"}, commonpb.ErrorCode_E_TAG_NOT_FOUND, []string{`tag "nope" not found in space "g"`}},
		{"missing edge", &metapb.DropSchemaReq{Name: "nope", IsEdge: true}, commonpb.ErrorCode_E_EDGE_NOT_FOUND, []string{`edge "nope" not found`}},
		{"edge dropped as a tag", &metapb.DropSchemaReq{Name: "knows"}, commonpb.ErrorCode_E_TAG_NOT_FOUND, []string{`tag "knows" not found`, "edge 2"}},
		{"missing, if exists", &metapb.DropSchemaReq{Name: "nope", IfExists: true}, commonpb.ErrorCode_SUCCEEDED, nil},
		{"edge dropped as a tag, if exists", &metapb.DropSchemaReq{Name: "knows", IfExists: true}, commonpb.ErrorCode_SUCCEEDED, nil},
		{"missing space", &metapb.DropSchemaReq{SpaceId: 99, Name: "post", IfExists: true}, commonpb.ErrorCode_E_SPACE_NOT_FOUND, []string{"space 99 not found"}},
		{"empty name", &metapb.DropSchemaReq{Name: ""}, commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"tag name is empty"}},
	} {
		r := e.dropSchema(tc.req)
		wantCode(t, tc.desc, r.Status, tc.code, tc.msg...)
		if tc.code == commonpb.ErrorCode_SUCCEEDED && r.Version != before {
			t.Fatalf("%s: a drop that changed nothing returned version %d, want the current %d", tc.desc, r.Version, before)
		}
	}
	if cat := getCatalog(t, e.rpc); cat.Version != before || len(cat.Tags) != 2 || len(cat.Edges) != 1 {
		t.Fatalf("failed or empty drops changed the catalog: version %d -> %d, tags %v, edges %v", before, cat.Version, cat.Tags, cat.Edges)
	}

	r := e.dropSchema(&metapb.DropSchemaReq{Name: "post"})
	wantCode(t, "drop post", r.Status, commonpb.ErrorCode_SUCCEEDED)
	for _, name := range []string{"person_name", "person_all", "knows_since"} {
		d := e.dropIndex(&metapb.DropIndexReq{Name: name, IsEdge: name == "knows_since"})
		wantCode(t, "drop index "+name, d.Status, commonpb.ErrorCode_SUCCEEDED)
	}
	r = e.dropSchema(&metapb.DropSchemaReq{Name: "person"})
	wantCode(t, "drop person", r.Status, commonpb.ErrorCode_SUCCEEDED)
	r = e.dropSchema(&metapb.DropSchemaReq{Name: "knows", IsEdge: true})
	wantCode(t, "drop knows", r.Status, commonpb.ErrorCode_SUCCEEDED)
	cat := getCatalog(t, e.rpc)
	if cat.Version < r.Version || len(cat.Tags) != 0 || len(cat.Edges) != 0 || len(cat.Indexes) != 0 {
		t.Fatalf("after dropping everything (version %d): %v", r.Version, cat)
	}
	r = e.dropSchema(&metapb.DropSchemaReq{Name: "person"})
	wantCode(t, "drop person again", r.Status, commonpb.ErrorCode_E_TAG_NOT_FOUND)

	// The names are free again, even for the other kind, but ids are never
	// reused.
	again := e.createSchema(&metapb.CreateSchemaReq{Name: "person", IsEdge: true})
	wantCode(t, "re-create person as an edge", again.Status, commonpb.ErrorCode_SUCCEEDED)
	if again.Id != 4 {
		t.Fatalf("re-created person has id %d, want 4 (ids 1-3 are not reused)", again.Id)
	}
	if d := findEdge(getCatalog(t, e.rpc), e.space, "person"); d == nil || d.EdgeType != 4 || len(d.Versions) != 1 || len(d.Versions[0].Columns) != 0 {
		t.Fatalf("re-created edge person: %v", d)
	}
}

func TestIndexes(t *testing.T) {
	e := newSchemaEnv(t)
	person := e.createSchema(&metapb.CreateSchemaReq{Name: "person", Columns: []*metapb.ColumnDef{
		col("name", metapb.PropType_STRING),
		{Name: "code", Type: metapb.PropType_FIXED_STRING, FixedLen: 8},
		{Name: "age", Type: metapb.PropType_INT64, Nullable: true},
		col("score", metapb.PropType_DOUBLE),
		{Name: "big", Type: metapb.PropType_FIXED_STRING, FixedLen: 300},
		col("born", metapb.PropType_TIMESTAMP),
		col("ok", metapb.PropType_BOOL),
	}})
	wantCode(t, "tag person", person.Status, commonpb.ErrorCode_SUCCEEDED)
	knows := e.createSchema(&metapb.CreateSchemaReq{Name: "knows", IsEdge: true, Columns: []*metapb.ColumnDef{
		col("since", metapb.PropType_TIMESTAMP), col("note", metapb.PropType_STRING),
	}})
	wantCode(t, "edge knows", knows.Status, commonpb.ErrorCode_SUCCEEDED)

	f := func(fs ...*metapb.IndexField) []*metapb.IndexField { return fs }
	type want struct {
		id     int32  // on success
		fields string // on success: the stored fields
	}
	for _, tc := range []struct {
		req  *metapb.CreateIndexReq
		code commonpb.ErrorCode
		msg  []string
		want want
	}{
		// Index ids have their own sequence: person and knows took schema
		// ids 1 and 2, the first index still gets 1.
		{&metapb.CreateIndexReq{Name: "p_name", SchemaName: "person", Fields: f(field("name", 10))},
			commonpb.ErrorCode_SUCCEEDED, nil, want{1, "name/10"}},
		{&metapb.CreateIndexReq{Name: "p_code", SchemaName: "person", Fields: f(field("code", 0), field("age", 0))},
			commonpb.ErrorCode_SUCCEEDED, nil, want{2, "code/8 age/0"}},
		{&metapb.CreateIndexReq{Name: "p_code4", SchemaName: "person", Fields: f(field("code", 4))},
			commonpb.ErrorCode_SUCCEEDED, nil, want{3, "code/4"}},
		{&metapb.CreateIndexReq{Name: "p_all", SchemaName: "person"},
			commonpb.ErrorCode_SUCCEEDED, nil, want{4, ""}},
		{&metapb.CreateIndexReq{Name: "p_misc", SchemaName: "person", Fields: f(field("score", 0), field("born", 0), field("ok", 0), field("big", 256), field("name", 256))},
			commonpb.ErrorCode_SUCCEEDED, nil, want{5, "score/0 born/0 ok/0 big/256 name/256"}},
		// The same names in another order, or a prefix of them, are a
		// different index.
		{&metapb.CreateIndexReq{Name: "p_age_code", SchemaName: "person", Fields: f(field("age", 0), field("code", 0))},
			commonpb.ErrorCode_SUCCEEDED, nil, want{6, "age/0 code/8"}},
		{&metapb.CreateIndexReq{Name: "k_since", IsEdge: true, SchemaName: "knows", Fields: f(field("since", 0))},
			commonpb.ErrorCode_SUCCEEDED, nil, want{7, "since/0"}},
		{&metapb.CreateIndexReq{Name: "k_all", IsEdge: true, SchemaName: "knows"},
			commonpb.ErrorCode_SUCCEEDED, nil, want{8, ""}},

		// Names are unique in the space across tag and edge indexes.
		{&metapb.CreateIndexReq{Name: "p_name", SchemaName: "person", Fields: f(field("age", 0))},
			commonpb.ErrorCode_E_EXISTED, []string{`index "p_name" already exists in space "g"`}, want{}},
		{&metapb.CreateIndexReq{Name: "p_name", SchemaName: "person", Fields: f(field("age", 0)), IfNotExists: true},
			commonpb.ErrorCode_SUCCEEDED, nil, want{1, "name/10"}},
		{&metapb.CreateIndexReq{Name: "p_name", IsEdge: true, SchemaName: "knows", IfNotExists: true},
			commonpb.ErrorCode_E_EXISTED, []string{`cannot create edge index "p_name"`, "tag index 1", "unique across tag and edge indexes"}, want{}},
		{&metapb.CreateIndexReq{Name: "k_since", SchemaName: "person", Fields: f(field("age", 0))},
			commonpb.ErrorCode_E_EXISTED, []string{`tag index "k_since"`, "edge index 7"}, want{}},
		// The same field names as an existing index on the same schema,
		// whatever the prefix lengths.
		{&metapb.CreateIndexReq{Name: "p_code_only", SchemaName: "person", Fields: f(field("code", 0))},
			commonpb.ErrorCode_E_EXISTED, []string{`index "p_code4" on tag "person" already indexes the same fields (code)`}, want{}},
		{&metapb.CreateIndexReq{Name: "p_name2", SchemaName: "person", Fields: f(field("name", 20))},
			commonpb.ErrorCode_E_EXISTED, []string{`index "p_name" on tag "person" already indexes the same fields (name)`}, want{}},
		{&metapb.CreateIndexReq{Name: "p_all2", SchemaName: "person", IfNotExists: true},
			commonpb.ErrorCode_E_EXISTED, []string{`index "p_all" on tag "person"`}, want{}},
		{&metapb.CreateIndexReq{Name: "k_all2", IsEdge: true, SchemaName: "knows"},
			commonpb.ErrorCode_E_EXISTED, []string{`index "k_all" on edge "knows"`}, want{}},

		// Fields.
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("nope", 0))},
			commonpb.ErrorCode_E_PROP_NOT_FOUND, []string{`index "bad": tag "person" has no column "nope"`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", IsEdge: true, SchemaName: "knows", Fields: f(field("name", 8))},
			commonpb.ErrorCode_E_PROP_NOT_FOUND, []string{`edge "knows" has no column "name"`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("age", 0), field("age", 0))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{`field "age" is listed twice`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("name", 0))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{`STRING field "name" needs a prefix_len in [1, 256], got 0`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("name", 257))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"got 257"}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("code", 9))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{`FIXED_STRING(8) field "code": prefix_len 9 is not in [1, 8]`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("code", -1))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"prefix_len -1"}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("big", 0))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{`FIXED_STRING(300) field "big": indexing 300 bytes, more than 256`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("age", 8))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{`field "age" is INT64, which takes no prefix_len (got 8)`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "person", Fields: f(field("age", 0), field("", 0))},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"field 1 has no name"}, want{}},

		// The schema and the space.
		{&metapb.CreateIndexReq{Name: "bad", IsEdge: true, SchemaName: "person"},
			commonpb.ErrorCode_E_EDGE_NOT_FOUND, []string{`edge "person" not found in space "g"`}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: "nope"},
			commonpb.ErrorCode_E_TAG_NOT_FOUND, []string{`tag "nope" not found`}, want{}},
		{&metapb.CreateIndexReq{SpaceId: 99, Name: "bad", SchemaName: "person"},
			commonpb.ErrorCode_E_SPACE_NOT_FOUND, []string{"space 99 not found"}, want{}},
		{&metapb.CreateIndexReq{Name: "", SchemaName: "person"},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"index name is empty"}, want{}},
		{&metapb.CreateIndexReq{Name: "bad", SchemaName: ""},
			commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"tag name is empty"}, want{}},
	} {
		desc := fmt.Sprintf("CreateIndex %s on %s %v", tc.req.Name, tc.req.SchemaName, fieldsString(tc.req.Fields))
		before := getCatalog(t, e.rpc)
		r := e.createIndex(tc.req)
		wantCode(t, desc, r.Status, tc.code, tc.msg...)
		cat := getCatalog(t, e.rpc)
		if tc.code != commonpb.ErrorCode_SUCCEEDED {
			if cat.Version != before.Version {
				t.Fatalf("%s: failed, but moved the catalog from %d to %d", desc, before.Version, cat.Version)
			}
			continue
		}
		if r.IndexId != tc.want.id || r.Version == 0 || cat.Version < r.Version {
			t.Fatalf("%s: index id %d at version %d (catalog %d), want id %d", desc, r.IndexId, r.Version, cat.Version, tc.want.id)
		}
		d := findIndex(cat, e.space, tc.req.Name)
		schemaID := person.Id
		if tc.req.IsEdge {
			schemaID = knows.Id
		}
		if d == nil || d.IndexId != tc.want.id || d.IsEdge != tc.req.IsEdge || d.SchemaId != schemaID || fieldsString(d.Fields) != tc.want.fields {
			t.Fatalf("%s: stored %v, want id %d on %d with fields %q", desc, d, tc.want.id, schemaID, tc.want.fields)
		}
	}

	cat := getCatalog(t, e.rpc)
	var ids []int32
	for _, d := range cat.Indexes {
		ids = append(ids, d.IndexId)
	}
	if fmt.Sprint(ids) != "[1 2 3 4 5 6 7 8]" {
		t.Fatalf("catalog indexes %v, want ids 1..8 in order", ids)
	}

	// DropIndex: the kind must match, even with if_exists.
	for _, tc := range []struct {
		req  *metapb.DropIndexReq
		code commonpb.ErrorCode
		msg  []string
	}{
		{&metapb.DropIndexReq{Name: "p_name", IsEdge: true}, commonpb.ErrorCode_E_NOT_FOUND, []string{`edge index "p_name" not found in space "g" (it is tag index 1)`}},
		{&metapb.DropIndexReq{Name: "k_since", IfExists: true}, commonpb.ErrorCode_E_NOT_FOUND, []string{`tag index "k_since" not found`, "edge index 7"}},
		{&metapb.DropIndexReq{Name: "nope"}, commonpb.ErrorCode_E_NOT_FOUND, []string{`tag index "nope" not found in space "g"`}},
		{&metapb.DropIndexReq{Name: "nope", IfExists: true}, commonpb.ErrorCode_SUCCEEDED, nil},
		{&metapb.DropIndexReq{SpaceId: 99, Name: "p_name"}, commonpb.ErrorCode_E_SPACE_NOT_FOUND, []string{"space 99 not found"}},
		{&metapb.DropIndexReq{Name: ""}, commonpb.ErrorCode_E_INVALID_ARGUMENT, []string{"index name is empty"}},
	} {
		r := e.dropIndex(tc.req)
		wantCode(t, fmt.Sprint("DropIndex ", tc.req), r.Status, tc.code, tc.msg...)
	}
	if c := getCatalog(t, e.rpc); c.Version != cat.Version || len(c.Indexes) != 8 {
		t.Fatalf("failed or empty DropIndex changed the catalog: version %d -> %d, %d indexes", cat.Version, c.Version, len(c.Indexes))
	}
	r := e.dropIndex(&metapb.DropIndexReq{Name: "p_name"})
	wantCode(t, "drop p_name", r.Status, commonpb.ErrorCode_SUCCEEDED)
	r = e.dropIndex(&metapb.DropIndexReq{Name: "k_since", IsEdge: true})
	wantCode(t, "drop k_since", r.Status, commonpb.ErrorCode_SUCCEEDED)
	cat = getCatalog(t, e.rpc)
	if cat.Version < r.Version || len(cat.Indexes) != 6 || findIndex(cat, e.space, "p_name") != nil || findIndex(cat, e.space, "k_since") != nil {
		t.Fatalf("after dropping p_name and k_since: %v", cat.Indexes)
	}
	// The name and the fields are free again; the id is not reused.
	c := e.createIndex(&metapb.CreateIndexReq{Name: "p_name", SchemaName: "person", Fields: f(field("name", 30))})
	wantCode(t, "re-create p_name", c.Status, commonpb.ErrorCode_SUCCEEDED)
	if c.IndexId != 9 {
		t.Fatalf("re-created p_name has id %d, want 9", c.IndexId)
	}
	// An index name may repeat in another space, and may equal a schema
	// name.
	h := createSpace(t, e.rpc, "h", 1, 1)
	wantCode(t, "space h", h.Status, commonpb.ErrorCode_SUCCEEDED)
	hp := e.createSchema(&metapb.CreateSchemaReq{SpaceId: h.SpaceId, Name: "person", Columns: []*metapb.ColumnDef{col("name", metapb.PropType_STRING)}})
	wantCode(t, "h.person", hp.Status, commonpb.ErrorCode_SUCCEEDED)
	hi := e.createIndex(&metapb.CreateIndexReq{SpaceId: h.SpaceId, Name: "p_name", SchemaName: "person", Fields: f(field("name", 5))})
	wantCode(t, "h.p_name", hi.Status, commonpb.ErrorCode_SUCCEEDED)
	hi2 := e.createIndex(&metapb.CreateIndexReq{SpaceId: h.SpaceId, Name: "person", SchemaName: "person"})
	wantCode(t, "h index named person", hi2.Status, commonpb.ErrorCode_SUCCEEDED)
	if hi.IndexId != 1 || hi2.IndexId != 2 {
		t.Fatalf("indexes of space h have ids %d, %d; want 1, 2", hi.IndexId, hi2.IndexId)
	}

	// DropSpace removes the space's indexes, their names and their id
	// counter; the other space keeps its own.
	ds, err := e.rpc.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "g"})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "drop g", ds.Status, commonpb.ErrorCode_SUCCEEDED)
	cat = getCatalog(t, e.rpc)
	if len(cat.Indexes) != 2 || cat.Indexes[0].SpaceId != h.SpaceId || cat.Indexes[1].SpaceId != h.SpaceId {
		t.Fatalf("indexes after dropping g: %v", cat.Indexes)
	}
	for _, prefix := range []string{indexesPrefix(e.space), indexNamesPrefix(e.space), indexIDCounterKey(e.space)} {
		resp, err := e.srv.cli.Get(ctxT(t), prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Count != 0 {
			t.Fatalf("%d keys under %s remain after DropSpace", resp.Count, prefix)
		}
	}
	for _, prefix := range []string{indexesPrefix(h.SpaceId), indexNamesPrefix(h.SpaceId), indexIDCounterKey(h.SpaceId)} {
		resp, err := e.srv.cli.Get(ctxT(t), prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Count == 0 {
			t.Fatalf("no keys under %s, of the space that was not dropped", prefix)
		}
	}
}

// TestWatchDeliversIndexes: the WatchCatalog stream carries indexes like
// the rest of the catalog.
func TestWatchDeliversIndexes(t *testing.T) {
	e := newSchemaEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cur := getCatalog(t, e.rpc)
	stream, err := e.rpc.WatchCatalog(ctx, &metapb.WatchCatalogReq{KnownVersion: cur.Version})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "tag", e.createSchema(&metapb.CreateSchemaReq{Name: "t"}).Status, commonpb.ErrorCode_SUCCEEDED)
	r := e.createIndex(&metapb.CreateIndexReq{Name: "i", SchemaName: "t"})
	wantCode(t, "index", r.Status, commonpb.ErrorCode_SUCCEEDED)
	for {
		cat, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if cat.Version < r.Version {
			continue
		}
		if len(cat.Indexes) != 1 || cat.Indexes[0].Name != "i" || cat.Indexes[0].IndexId != r.IndexId {
			t.Fatalf("watched catalog at %d has indexes %v", cat.Version, cat.Indexes)
		}
		break
	}
}

// TestConflictingSchemaChanges makes a conflicting change, through a
// second metad on the same etcd, land between another change's reads and its
// commit: the transaction must notice, re-run, and fail on what it now sees.
func TestConflictingSchemaChanges(t *testing.T) {
	a, rpcA := startServer(t, 10*time.Second)
	b := New(Config{
		ListenAddr:    "127.0.0.1:0",
		HTTPAddr:      "127.0.0.1:0",
		EtcdEndpoints: []string{a.etcd.Clients[0].Addr().String()},
	})
	if err := b.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	conn, err := grpc.NewClient(b.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rpcB := metapb.NewMetaServiceClient(conn)
	addHosts(t, rpcA, 1)
	sp := createSpace(t, rpcA, "g", 1, 1)
	wantCode(t, "space", sp.Status, commonpb.ErrorCode_SUCCEEDED)
	space := sp.SpaceId

	check := func(what string, st *metapb.Status, err error, code commonpb.ErrorCode, msg ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		wantCode(t, what, st, code, msg...)
	}
	// interleave runs change on a with other (on b) run exactly once
	// between change's reads and its commit.
	interleave := func(other func()) {
		var once sync.Once
		hook := func() { once.Do(other) }
		a.beforeCommit.Store(&hook)
		t.Cleanup(func() { a.beforeCommit.Store(nil) })
	}
	done := func() { a.beforeCommit.Store(nil) }
	createTag := func(name string) {
		t.Helper()
		r, err := rpcA.CreateSchema(ctxT(t), &metapb.CreateSchemaReq{SpaceId: space, Name: name, Columns: []*metapb.ColumnDef{
			{Name: "c", Type: metapb.PropType_INT64, Nullable: true},
		}})
		check("create "+name, r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	}
	createIndex := func(rpc metapb.MetaServiceClient, name, tag string) (*metapb.CreateIndexResp, error) {
		return rpc.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: name, SchemaName: tag, Fields: []*metapb.IndexField{{Name: "c"}}})
	}
	dropC := func(rpc metapb.MetaServiceClient, tag string) (*metapb.AlterSchemaResp, error) {
		return rpc.AlterSchema(ctxT(t), &metapb.AlterSchemaReq{SpaceId: space, Name: tag,
			Ops: []*metapb.AlterSchemaOp{{Kind: metapb.AlterSchemaOp_DROP, Names: []string{"c"}}}})
	}
	conflicts := func() float64 {
		var m dto.Metric
		if err := a.metrics.txnConflicts.Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue()
	}

	// ALTER DROP c, while an index on c is created: the alter is refused.
	createTag("t0")
	before := conflicts()
	interleave(func() {
		r, err := createIndex(rpcB, "i0", "t0")
		check("CreateIndex i0 on b", r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	})
	r0, err := dropC(rpcA, "t0")
	done()
	check("drop c of t0 while i0 is created", r0.GetStatus(), err, commonpb.ErrorCode_E_INVALID_ARGUMENT, `index "i0" uses it`)
	if conflicts() <= before {
		t.Fatal("the interleaved CreateIndex did not make the alter conflict")
	}

	// DROP TAG, while an index on it is created: the drop is refused.
	createTag("t1")
	interleave(func() {
		r, err := createIndex(rpcB, "i1", "t1")
		check("CreateIndex i1 on b", r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	})
	r1, err := rpcA.DropSchema(ctxT(t), &metapb.DropSchemaReq{SpaceId: space, Name: "t1"})
	done()
	check("drop t1 while i1 is created", r1.GetStatus(), err, commonpb.ErrorCode_E_INVALID_ARGUMENT, `tag "t1" has index "i1"`)

	// CREATE INDEX on c, while c is dropped: the index is refused.
	createTag("t2")
	interleave(func() {
		r, err := dropC(rpcB, "t2")
		check("drop c of t2 on b", r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	})
	r2, err := createIndex(rpcA, "i2", "t2")
	done()
	check("CreateIndex i2 while c is dropped", r2.GetStatus(), err, commonpb.ErrorCode_E_PROP_NOT_FOUND, `has no column "c"`)

	// CREATE INDEX, while its tag is dropped: the index is refused.
	createTag("t3")
	interleave(func() {
		r, err := rpcB.DropSchema(ctxT(t), &metapb.DropSchemaReq{SpaceId: space, Name: "t3"})
		check("drop t3 on b", r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	})
	r3, err := createIndex(rpcA, "i3", "t3")
	done()
	check("CreateIndex i3 while t3 is dropped", r3.GetStatus(), err, commonpb.ErrorCode_E_TAG_NOT_FOUND, `tag "t3" not found`)

	// Two indexes with one name, on different tags: one wins.
	createTag("t4")
	interleave(func() {
		r, err := createIndex(rpcB, "i4", "t4")
		check("CreateIndex i4 on t4 on b", r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	})
	r4, err := rpcA.CreateIndex(ctxT(t), &metapb.CreateIndexReq{SpaceId: space, Name: "i4", SchemaName: "t0"})
	done()
	check("CreateIndex i4 on t0", r4.GetStatus(), err, commonpb.ErrorCode_E_EXISTED, `index "i4" already exists`)

	cat := getCatalog(t, rpcA)
	got := map[string]string{}
	for _, x := range cat.Indexes {
		got[x.Name] = fmt.Sprint(x.SchemaId)
	}
	if fmt.Sprint(got) != "map[i0:1 i1:2 i4:5]" {
		t.Fatalf("indexes %v, want i0 on t0 (1), i1 on t1 (2), i4 on t4 (5)", got)
	}
	for name, versions := range map[string]int{"t0": 1, "t1": 1, "t2": 2, "t4": 1} {
		if d := findTag(cat, space, name); len(d.GetVersions()) != versions {
			t.Fatalf("tag %s: %v, want %d versions", name, d, versions)
		}
	}
	if findTag(cat, space, "t3") != nil {
		t.Fatal("t3 is still there")
	}

	// An ALTER, while the space is dropped: nothing of the space survives.
	interleave(func() {
		r, err := rpcB.DropSpace(ctxT(t), &metapb.DropSpaceReq{Name: "g"})
		check("drop space on b", r.GetStatus(), err, commonpb.ErrorCode_SUCCEEDED)
	})
	r5, err := rpcA.AlterSchema(ctxT(t), &metapb.AlterSchemaReq{SpaceId: space, Name: "t4", SetTtl: true, TtlCol: "c", TtlDuration: 5})
	done()
	check("alter t4 while the space is dropped", r5.GetStatus(), err, commonpb.ErrorCode_E_SPACE_NOT_FOUND)
	resp, err := a.cli.Get(ctxT(t), tagsPrefix(space), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Count != 0 {
		t.Fatalf("%d tag keys of the dropped space were written back", resp.Count)
	}
}
