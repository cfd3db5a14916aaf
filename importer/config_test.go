package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/internal/schema"
	"github.com/novagraph/novagraph/metad/catalog"
	"github.com/novagraph/novagraph/partition"
	"github.com/novagraph/novagraph/proto/commonpb"
	"github.com/novagraph/novagraph/proto/metapb"
)

const v4Config = `
client:
  version: v3
  address: "127.0.0.1:9669"
  user: root
  password: nova
manager:
  spaceName: ldbc
  batch: 100
  readerConcurrency: 2
  importerConcurrency: 4
  hooks:
    before:
      - statements:
          - CREATE SPACE IF NOT EXISTS ldbc(partition_num=3, vid_type=INT64)
log:
  level: INFO
  console: true
sources:
  - path: ./person.csv
    csv:
      delimiter: "|"
      withHeader: true
    tags:
      - name: Person
        filter:
          expr: Record[3] == "male"
        id:
          type: INT
          index: 0
        props:
          - name: firstName
            type: STRING
            index: 1
          - name: age
            type: INT
            index: 2
            nullable: true
            nullValue: _NULL_
  - path: ./knows.csv
    edges:
      - name: knows
        src:
          id:
            type: INT
            index: 0
        dst:
          id:
            type: INT
            index: 1
        rank:
          index: 2
        props:
          - name: creationDate
            index: 3
`

func TestParseConfigV4(t *testing.T) {
	cfg, err := ParseConfig([]byte(v4Config))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Manager.SpaceName != "ldbc" || cfg.Manager.Batch != 100 || cfg.Manager.ImporterConcurrency != 4 {
		t.Errorf("manager = %+v", cfg.Manager)
	}
	if cfg.Manager.Retry != DefaultRetry || cfg.Manager.Mode != "online" {
		t.Errorf("defaults not applied: %+v", cfg.Manager)
	}
	if len(cfg.Sources) != 2 || cfg.Sources[0].CSV.Delimiter != "|" || *cfg.Sources[1].Edges[0].Dst.ID.Index != 1 {
		t.Errorf("sources = %+v", cfg.Sources)
	}
	if got := cfg.Sources[0].Tags[0].Filter.Expr; got != `Record[3] == "male"` {
		t.Errorf("filter = %q", got)
	}
}

// TestParseConfigV4ClientKeys: the client and source keys of v4's own
// example configs load; retry and retryInitialInterval are used.
func TestParseConfigV4ClientKeys(t *testing.T) {
	text := strings.Replace(v4Config, "  password: nova\n", `  password: nova
  concurrencyPerAddress: 10
  reconnectInitialInterval: 1s
  retry: 5
  retryInitialInterval: 2s
  ssl: {enable: false}
`, 1)
	text = strings.Replace(text, "  - path: ./knows.csv\n", "  - path: ./knows.csv\n    batch: 256\n", 1)
	cfg, err := ParseConfig([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Manager.Retry != 5 || cfg.Client.RetryInitialInterval != 2*time.Second || cfg.Sources[1].Batch != 256 {
		t.Errorf("retry %d, retryInitialInterval %v, sources[1].batch %d; want 5, 2s, 256",
			cfg.Manager.Retry, cfg.Client.RetryInitialInterval, cfg.Sources[1].Batch)
	}
}

// TestLoadConfigRelativePaths: as in v4, a relative source path is
// relative to the config file's folder, not to the working directory.
func TestLoadConfigRelativePaths(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "import.yaml")
	text := strings.Replace(v4Config, "path: ./knows.csv", "path: /data/knows.csv", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Sources[0].Path, filepath.Join(dir, "person.csv"); got != want {
		t.Errorf("relative path = %s, want %s", got, want)
	}
	if got := cfg.Sources[1].Path; got != "/data/knows.csv" {
		t.Errorf("absolute path = %s, want it unchanged", got)
	}
}

func TestParseConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct {
		name, edit, want string
	}{
		{"unknown key", "batch: 100", "field batchh not found"},
		{"no space", "spaceName: ldbc", "manager.spaceName: missing"},
		{"bad mode", "level: INFO", "manager.mode: \"fast\" is not online or sst"},
		{"bad sst compression", "", "manager.sstCompression: \"lz5\" is not one compression"},
		{"two sst compressions", "", "manager.sstCompression: \"lz4:zstd\" is not one compression"},
		{"bad id type", "type: INT\n          index: 0", "sources[0].tags[0].id.type: \"UUID\" is not INT or STRING"},
		{"missing dst index", "index: 1\n        rank", "sources[1].edges[0].dst.id.index: missing"},
		{"duplicate prop", "name: age", "sources[0].tags[0].props[1].name: property \"firstName\" is mapped twice"},
		{"bad delimiter", `delimiter: "|"`, "sources[0].csv.delimiter: \"||\" is more than one character"},
		{"ssl", "", "client.ssl.enable: TLS is not supported"},
		{"s3", "", "sources[1].s3: remote sources are not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := v4Config
			switch tc.name {
			case "unknown key":
				text = strings.Replace(text, "batch: 100", "batchh: 100", 1)
			case "no space":
				text = strings.Replace(text, "spaceName: ldbc", "spaceName: \"\"", 1)
			case "bad mode":
				text = strings.Replace(text, "  batch: 100", "  batch: 100\n  mode: fast", 1)
			case "bad sst compression":
				text = strings.Replace(text, "  batch: 100", "  batch: 100\n  sstCompression: lz5", 1)
			case "two sst compressions":
				text = strings.Replace(text, "  batch: 100", "  batch: 100\n  sstCompression: lz4:zstd", 1)
			case "bad id type":
				text = strings.Replace(text, "type: INT\n          index: 0", "type: UUID\n          index: 0", 1)
			case "missing dst index":
				text = strings.Replace(text, "            index: 1\n        rank", "            index: null\n        rank", 1)
			case "duplicate prop":
				text = strings.Replace(text, "name: age", "name: firstName", 1)
			case "bad delimiter":
				text = strings.Replace(text, `delimiter: "|"`, `delimiter: "||"`, 1)
			case "ssl":
				text = strings.Replace(text, "  password: nova\n", "  password: nova\n  ssl: {enable: true, caPath: ca.pem}\n", 1)
			case "s3":
				text = strings.Replace(text, "  - path: ./knows.csv\n", "  - path: ./knows.csv\n    s3: {bucket: b, key: k}\n", 1)
			}
			_, err := ParseConfig([]byte(text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// testSnapshot is a catalog with one INT64 space ("s", 4 partitions), a
// tag Person(firstName string, age int NULL, city string DEFAULT "x") and
// an edge knows(creationDate int).
func testSnapshot() (*catalog.Snapshot, *metapb.SpaceDesc) {
	space := &metapb.SpaceDesc{SpaceId: 1, Name: "s", PartitionNum: 4, ReplicaFactor: 1, VidType: metapb.VidType_VID_INT64, VidLen: 8}
	str := func(s string) *commonpb.Value { return &commonpb.Value{V: &commonpb.Value_StrVal{StrVal: []byte(s)}} }
	cat := &metapb.Catalog{
		Version: 1,
		Spaces:  []*metapb.SpaceDesc{space},
		Tags: []*metapb.TagDesc{{SpaceId: 1, TagId: 2, Name: "Person", Versions: []*metapb.Schema{{Columns: []*metapb.ColumnDef{
			{Name: "firstName", Type: metapb.PropType_STRING},
			{Name: "age", Type: metapb.PropType_INT64, Nullable: true},
			{Name: "city", Type: metapb.PropType_STRING, DefaultValue: str("x")},
		}}}}},
		Edges: []*metapb.EdgeDesc{{SpaceId: 1, EdgeType: 3, Name: "knows", Versions: []*metapb.Schema{{Columns: []*metapb.ColumnDef{
			{Name: "creationDate", Type: metapb.PropType_INT64},
		}}}}},
	}
	return catalog.NewSnapshot(cat), space
}

func TestMapRow(t *testing.T) {
	snap, space := testSnapshot()
	src := &Source{
		Tags: []TagSpec{{Name: "Person", ID: IDSpec{Index: intp(0)}, Filter: &Filter{Expr: `Record[4] != "skip"`},
			Props: []PropSpec{{Name: "firstName", Index: 1}, {Name: "age", Index: 2, Nullable: true, NullValue: "_NULL_"}}}},
		Edges: []EdgeSpec{{Name: "knows", Src: EndSpec{IDSpec{Index: intp(0)}}, Dst: EndSpec{IDSpec{Index: intp(3)}},
			Props: []PropSpec{{Name: "creationDate", Index: 3}}}},
	}
	m, err := newMapper(snap, space, "sources[0]", src)
	if err != nil {
		t.Fatal(err)
	}
	person := snap.Catalog().GetTags()[0]
	read := func(row []byte) []any {
		t.Helper()
		sv := schema.NewVersions(person.GetVersions())
		vals, err := partition.ReadWithSchema(row, sv.Source(), sv.Latest())
		if err != nil {
			t.Fatal(err)
		}
		return vals
	}

	ws, err := m.mapRow([]string{"7", "Ann", "31", "9", "keep"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].vertex == nil || ws[1].edge == nil {
		t.Fatalf("writes = %+v", ws)
	}
	if got := read(ws[0].vertex.Tags[0].Row); got[0] != "Ann" || got[1] != int64(31) || got[2] != "x" {
		t.Errorf("Person row = %v, want [Ann 31 x] (city from the schema default)", got)
	}
	if want := partition.PartOfInt64(7, 4); ws[0].part != want || ws[1].part != want {
		t.Errorf("parts = %d, %d, want %d (the source's)", ws[0].part, ws[1].part, want)
	}
	if id, _ := partition.DecodeInt64Vid(ws[1].edge.Dst); id != 9 {
		t.Errorf("edge dst = %d", id)
	}

	// NULL by nullValue.
	ws, err = m.mapRow([]string{"8", "Bob", "_NULL_", "1", "keep"}, nil, nil)
	if err != nil || len(ws) != 2 {
		t.Fatalf("row with a NULL: %+v, %v", ws, err)
	}
	if got := read(ws[0].vertex.Tags[0].Row); got[1] != nil {
		t.Errorf("age = %v, want NULL", got[1])
	}
	// A Parquet NULL, marked in nulls, is NULL whatever its text.
	ws, err = m.mapRow([]string{"9", "Cy", "", "1", "keep"}, []bool{false, false, true, false, false}, nil)
	if err != nil || len(ws) != 2 {
		t.Fatalf("row with a Parquet NULL: %+v, %v", ws, err)
	}
	if got := read(ws[0].vertex.Tags[0].Row); got[1] != nil {
		t.Errorf("age = %v, want NULL", got[1])
	}
	// A filtered-out tag leaves the edge.
	ws, err = m.mapRow([]string{"8", "Bob", "_NULL_", "1", "skip"}, nil, nil)
	if err != nil || len(ws) != 1 || ws[0].edge == nil {
		t.Fatalf("filtered row: %+v, %v", ws, err)
	}
	// A bad int is an error naming the column, and the row writes nothing.
	ws, err = m.mapRow([]string{"8", "Bob", "3x", "1", "keep"}, nil, ws[:0])
	if err == nil || !strings.Contains(err.Error(), `column 2: "3x" is not an INT64`) || len(ws) != 0 {
		t.Fatalf("bad int: %+v, %v", ws, err)
	}
	_, err = m.mapRow([]string{"x8", "Bob", "3", "1", "keep"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), `vid column 0: "x8" is not an INT64`) {
		t.Fatalf("bad vid: %v", err)
	}
	// The tag's filter reads column 4: it is the first to say so.
	_, err = m.mapRow([]string{"8", "Bob"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "reads Record[4], but the row has 2 columns") {
		t.Fatalf("short row: %v", err)
	}
}

func TestMapperChecksTheSchema(t *testing.T) {
	snap, space := testSnapshot()
	for _, tc := range []struct {
		src  Source
		want string
	}{
		{Source{Tags: []TagSpec{{Name: "Nobody", ID: IDSpec{Index: intp(0)}}}}, `sources[0].tags[0].name: tag "Nobody" not found`},
		{Source{Tags: []TagSpec{{Name: "Person", ID: IDSpec{Index: intp(0)}}}}, `property "firstName" of tag "Person" is NOT NULL and has no default`},
		{Source{Tags: []TagSpec{{Name: "Person", ID: IDSpec{Type: "STRING", Index: intp(0)}}}}, `sources[0].tags[0].id.type: STRING, but space "s" has vid_type INT64`},
		{Source{Tags: []TagSpec{{Name: "Person", ID: IDSpec{Index: intp(0)}, Props: []PropSpec{{Name: "firstName", Type: "INT"}}}}}, `sources[0].tags[0].props[0].type: "INT", but property "firstName"`},
		{Source{Edges: []EdgeSpec{{Name: "knows", Src: EndSpec{IDSpec{Index: intp(0)}}, Dst: EndSpec{IDSpec{Index: intp(1)}},
			Props: []PropSpec{{Name: "creationDate", Index: 2, Nullable: true}}}}}, `sources[0].edges[0].props[0].nullable: property "creationDate" of edge "knows" is NOT NULL`},
	} {
		_, err := newMapper(snap, space, "sources[0]", &tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error = %v, want it to contain %q", err, tc.want)
		}
	}
}

func TestProgressPrefix(t *testing.T) {
	p := newProgress(100)
	if got := p.finish(200, 300); got != 100 {
		t.Fatalf("out of order: %d", got)
	}
	if got := p.finish(100, 200); got != 300 {
		t.Fatalf("gap closed: %d, want 300", got)
	}
}

func TestFailedRowsFileReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f", "source0-x.failed")
	f := newFailedRows(path, '|', []string{"id", "name"}, false)
	if err := f.add(keep("x.csv", 3, []string{"1", "a|b"}), "bad\nthing"); err != nil {
		t.Fatal(err)
	}
	if err := f.add(keep("x.csv", 9, []string{"2", "c"}), "other"); err != nil {
		t.Fatal(err)
	}
	if n, err := f.close(); n != 2 || err != nil {
		t.Fatalf("close = %d, %v", n, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "id|name\n# x.csv:3: bad thing\n1|\"a|b\"\n# x.csv:9: other\n2|c\n"
	if string(b) != want {
		t.Fatalf("file =\n%s\nwant\n%s", b, want)
	}
}

// TestGoMemoryLimit: SST mode bounds the process's heap by the sort's
// budget plus a quarter plus 128 MiB; online mode sets no limit.
func TestGoMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		mode string
		mb   int
		want int64
	}{
		{"sst", 1024, 1408 << 20},
		{"sst", 4096, (4096 + 1024 + 128) << 20},
		{"online", 1024, 0},
	} {
		cfg := &Config{Manager: ManagerConfig{Mode: tc.mode, SSTMemoryMB: tc.mb}}
		if got := GoMemoryLimit(cfg); got != tc.want {
			t.Errorf("%s with %d MB: GoMemoryLimit = %d MiB, want %d MiB", tc.mode, tc.mb, got>>20, tc.want>>20)
		}
	}
}
