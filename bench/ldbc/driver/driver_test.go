package driver

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/gen"
	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/proto/graphpb"
)

// star: vertex 1 has 9 out-edges, vertices 2..10 one each (back to 1):
// out-degrees 9,1,...,1, total 18.
func star() *Graph {
	var es []Edge
	for v := int64(2); v <= 10; v++ {
		es = append(es, Edge{1, v}, Edge{v, 1})
	}
	return NewGraph("star", []int64{11}, es) // 11 has no edges
}

func TestSampler(t *testing.T) {
	g := star()
	const n = 90000
	count := func(mode SampleMode) map[int64]int {
		s, err := NewSampler(g, mode)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64]int{}
		for _, v := range s.Sample(42, n) {
			got[v]++
		}
		if again := s.Sample(42, n); !reflect.DeepEqual(again[:100], s.Sample(42, 100)) {
			t.Fatalf("%s: the same seed gave different samples", mode)
		}
		return got
	}
	near := func(got int, want float64) bool { return math.Abs(float64(got)-want) < 0.05*want+50 }

	u := count(Uniform) // 11 vertices, each 1/11
	for v := int64(1); v <= 11; v++ {
		if !near(u[v], n/11.0) {
			t.Fatalf("uniform: vertex %d drawn %d times, want about %.0f (%v)", v, u[v], n/11.0, u)
		}
	}
	b := count(SizeBiased) // 1: 9/18, others 1/18, 11 never
	if !near(b[1], n/2.0) || b[11] != 0 {
		t.Fatalf("size-biased: %v, want vertex 1 about %d times and 11 never", b, n/2)
	}
	for v := int64(2); v <= 10; v++ {
		if !near(b[v], n/18.0) {
			t.Fatalf("size-biased: vertex %d drawn %d times, want about %.0f", v, b[v], n/18.0)
		}
	}
	if _, err := ParseSampleMode("zipf"); err == nil || !strings.Contains(err.Error(), "size-biased") {
		t.Fatalf("ParseSampleMode(zipf): %v", err)
	}
	if _, err := NewSampler(NewGraph("lonely", []int64{1}, nil), SizeBiased); err == nil {
		t.Fatal("size-biased sampling of a graph without edges: no error")
	}
}

func TestHistMerge(t *testing.T) {
	a, b := NewHist(), NewHist()
	var all []int64
	for i := int64(1); i <= 1000; i++ {
		a.Record(i) // 1..1000 µs
		all = append(all, i)
	}
	for i := int64(1); i <= 1000; i++ {
		b.Record(1000 + i*9) // 1009..10000 µs
		all = append(all, 1000+i*9)
	}
	b.Record(120_000_000) // 2 minutes: clamped to 60 s
	b.Record(0)           // sub-microsecond: 1 µs
	all = append(all, HistMaxUS, 1)
	slices.Sort(all)
	a.Merge(b)
	s := a.Summary()
	if s.Count != 2002 || s.MaxUS != HistMaxUS || s.Clamped != 1 {
		t.Fatalf("summary %+v", s)
	}
	exact := func(q float64) int64 { return all[int(math.Ceil(q*float64(len(all))))-1] }
	for _, c := range []struct {
		q   float64
		got int64
	}{{0.5, s.P50US}, {0.9, s.P90US}, {0.95, s.P95US}, {0.99, s.P99US}, {0.999, s.P999US}} {
		// 3 significant figures: within 0.1 %, plus a rank's rounding.
		if want := exact(c.q); math.Abs(float64(c.got-want)) > 0.001*float64(want)+10 {
			t.Fatalf("p%v = %d, want %d (%+v)", c.q*100, c.got, want, s)
		}
	}
	if NewHist().Summary() != (Latency{}) {
		t.Fatal("empty histogram: non-zero summary")
	}
}

func TestPrepareAndBind(t *testing.T) {
	ldbc, snap := LDBCSchema(), SNAPSchema("", "")
	want := map[string]string{
		"go1":           "GO 1 STEP FROM $id OVER knows YIELD dst(edge)",
		"go3":           "GO 3 STEPS FROM $id OVER knows YIELD dst(edge)",
		"go2_date":      "GO 2 STEPS FROM $id OVER knows YIELD knows.creationDate",
		"go1_props":     "GO 1 STEP FROM $id OVER knows YIELD $$.Person.firstName, $$.Person.lastName",
		"yield":         "YIELD $id",
		"fetch_vertex":  "FETCH PROP ON Person $id YIELD properties(vertex)",
		"fetch_edge":    "FETCH PROP ON knows $src->$dst YIELD properties(edge)",
		"insert_vertex": `INSERT VERTEX Person(firstName, lastName, gender, birthday, creationDate, locationIP, browserUsed, language, email) VALUES $id:("Bench", "Driver", "female", 628646400000, $ts, "127.0.0.1", "Firefox", "en", "bench@example.com")`,
		"insert_edge":   "INSERT EDGE knows(creationDate) VALUES $src->$dst:($ts)",
	}
	for _, sc := range Scenarios {
		p, err := Prepare(sc, ldbc, false)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := want[sc.Name]; ok && p.Stmt != w {
			t.Errorf("%s: %q, want %q", sc.Name, p.Stmt, w)
		}
	}
	// Parameters, or literals where nGQL needs them.
	p, _ := Prepare(Scenarios[0], ldbc, false)
	stmt, params := p.Bind(Input{ID: 933})
	if stmt != want["go1"] || !reflect.DeepEqual(params, map[string]any{"id": int64(933)}) {
		t.Fatalf("go1: %q %v", stmt, params)
	}
	fe, _ := FindScenarios(Scenarios, []string{"fetch_edge"})
	p, _ = Prepare(fe[0], ldbc, false)
	if stmt, params := p.Bind(Input{Src: 1, Dst: -2}); stmt != "FETCH PROP ON knows 1->-2 YIELD properties(edge)" || params != nil {
		t.Fatalf("fetch_edge: %q %v", stmt, params)
	}
	// Literal mode leaves $$, $^, $- and $var.col alone.
	q6, _ := FindScenarios(SeedQueries, []string{"q6"})
	p, _ = Prepare(q6[0], snap, true)
	if stmt, _ := p.Bind(Input{ID: 7}); stmt != "GO 2 STEPS FROM 7 OVER link YIELD DISTINCT dst(edge) AS d | YIELD $-.d AS d WHERE $-.d != 7" {
		t.Fatalf("q6 literal: %q", stmt)
	}
	p, _ = Prepare(Scenario{Name: "x", Template: "GO FROM $id OVER e YIELD $$.t.a, $^.t.b, $v.c, $ts, $id"}, snap, true)
	if stmt, _ := p.Bind(Input{ID: 5, TS: 9}); stmt != "GO FROM 5 OVER e YIELD $$.t.a, $^.t.b, $v.c, 9, 5" || !reflect.DeepEqual(p.Params, []string{"id", "ts"}) {
		t.Fatalf("literal binding: %q, params %v", stmt, p.Params)
	}
	// SNAP schema: property-less forms, and a clear error where a
	// property is indispensable.
	seed := map[string]string{
		"q1": "FETCH PROP ON node $id YIELD properties(vertex)",
		"q2": "GO FROM $id OVER link YIELD dst(edge), properties(edge)",
		"q5": "GO FROM $id OVER link YIELD dst(edge), properties($$)",
		"q7": "LOOKUP ON node YIELD id(vertex) AS v | YIELD count(*) AS n",
	}
	for _, sc := range SeedQueries {
		p, err := Prepare(sc, snap, false)
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := seed[sc.Name]; ok && p.Stmt != w {
			t.Errorf("%s: %q, want %q", sc.Name, p.Stmt, w)
		}
	}
	gd, _ := FindScenarios(Scenarios, []string{"go1_date"})
	if _, err := Prepare(gd[0], snap, false); err == nil || err.Error() != "scenario go1_date: needs an edge property, and the schema's edge link has none" {
		t.Fatalf("go1_date on SNAP: %v", err)
	}
	if _, err := FindScenarios(Scenarios, []string{"go1", "go4"}); err == nil ||
		!strings.Contains(err.Error(), `unknown scenario "go4" (valid: go1, go2, go3, go1_date`) {
		t.Fatalf("FindScenarios(go4): %v", err)
	}
}

func TestLoadSNAP(t *testing.T) {
	cases := []struct {
		name, text string
		undirected bool
		edges      []Edge
	}{
		{"snap", "# comment\r\n1\t2\r\n2\t3\r\n1\t2\r\n3\t3\r\n", false, []Edge{{1, 2}, {2, 3}, {3, 3}}},
		{"csv header", "src,dst\n1,2\n2,1\n", false, []Edge{{1, 2}, {2, 1}}},
		{"size line", "3 2\n1\t2\n2\t3\n", false, []Edge{{1, 2}, {2, 3}}},
		{"weights", "1 2 0.5\n2 3 7\n", true, []Edge{{1, 2}, {2, 1}, {2, 3}, {3, 2}}},
	}
	for _, c := range cases {
		g, err := ReadSNAP(strings.NewReader(c.text), c.name, SNAPOptions{Undirected: c.undirected})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(g.Edges, c.edges) {
			t.Fatalf("%s: edges %v, want %v", c.name, g.Edges, c.edges)
		}
	}
	// gzip is detected from the content.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("5\t6\n"))
	zw.Close()
	g, err := ReadSNAP(&buf, "gz", SNAPOptions{})
	if err != nil || len(g.Edges) != 1 || !reflect.DeepEqual(g.Vertices, []int64{5, 6}) {
		t.Fatalf("gzip: %v %v", g, err)
	}
	if _, err := ReadSNAP(strings.NewReader("1\t2\nx\ty\n"), "bad", SNAPOptions{}); err == nil {
		t.Fatal("a malformed line: no error")
	}
	if out := star().Out(1); len(out) != 9 || out[0] != (Edge{1, 2}) {
		t.Fatalf("Out(1) = %v", out)
	}
}

func TestLoadLDBC(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, LDBCPersonFile), []byte("id|firstName|lastName|gender|birthday|creationDate|locationIP|browserUsed|language|email\n"+
		"1|A|B|male|10|20|1.2.3.4|Firefox|en|a@x\n2|C|D|female|11|21|1.2.3.5|Chrome|en;fr|c@x\n3|E|F|male|12|22|1.2.3.6|Opera|de|e@x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, LDBCKnowsFile), []byte("Person.id|Person.id|creationDate\n1|2|100\n2|3|101\n"), 0o644)
	g, err := LoadLDBC(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Vertices, []int64{1, 2}) || !reflect.DeepEqual(g.Edges, []Edge{{1, 2}, {2, 1}}) {
		t.Fatalf("first 2 persons: %v %v", g.Vertices, g.Edges)
	}
	ps, _ := ReadLDBCPersons(dir, 0)
	if len(ps) != 3 || ps[1] != (Person{ID: 2, FirstName: "C", LastName: "D", Gender: "female", Birthday: 11, CreationDate: 21,
		LocationIP: "1.2.3.5", BrowserUsed: "Chrome", Language: "en;fr", Email: "c@x"}) {
		t.Fatalf("persons %v", ps)
	}
	// A second shard, gzipped (nova-bench gen --shard 1/2 --gzip), and a
	// shard 10 that sorts after 1 numerically.
	gz := func(name, text string) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(text))
		zw.Close()
		os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
	}
	gz("person_1_0.csv.gz", "id|firstName|lastName|gender|birthday|creationDate|locationIP|browserUsed|language|email\n4|G|H|male|1|2|ip|b|en|g@x\n")
	os.WriteFile(filepath.Join(dir, "person_10_0.csv"), []byte("id|firstName|lastName|gender|birthday|creationDate|locationIP|browserUsed|language|email\n5|I|J|male|1|2|ip|b|en|i@x\n"), 0o644)
	gz("person_knows_person_1_0.csv.gz", "Person.id|Person.id|creationDate\n3|4|102\n")
	g, err = LoadLDBC(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Vertices, []int64{1, 2, 3, 4, 5}) || len(g.Edges) != 6 {
		t.Fatalf("shards: %v %v", g.Vertices, g.Edges)
	}
	if _, err := LoadLDBC(t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "person_0_0.csv") {
		t.Fatalf("empty directory: %v", err)
	}
}

// fakeTarget answers after a fixed delay with rows = id, and fails every
// input whose id is negative.
type fakeTarget struct{ opened, closed atomic.Int64 }

func (f *fakeTarget) Open(context.Context, int) (Op, func(), error) {
	f.opened.Add(1)
	return func(ctx context.Context, in Input) Outcome {
		time.Sleep(200 * time.Microsecond)
		if in.ID < 0 {
			return Outcome{Err: &client.QueryError{Code: graphpb.QueryErrorCode_E_SEMANTIC, Msg: "bad id"}}
		}
		return Outcome{Rows: in.ID, ServerUS: 100, HasServer: true}
	}, func() { f.closed.Add(1) }, nil
}

func TestRunAndSweep(t *testing.T) {
	ft := &fakeTarget{}
	inputs := []Input{{ID: 1}, {ID: 2}, {ID: -1}, {ID: 3}}
	res, err := Sweep(context.Background(), "fake", ft, []int{1, 3}, RunConfig{Count: 400, Warmup: 5 * time.Millisecond, Inputs: inputs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ft.opened.Load() != 4 || ft.closed.Load() != 4 {
		t.Fatalf("opened %d, closed %d workers, want 4", ft.opened.Load(), ft.closed.Load())
	}
	for _, r := range res {
		if r.Count+r.Errors != 400 || r.Errors < 90 || r.Errors > 110 || r.ErrorKinds["E_SEMANTIC"] != r.Errors || len(r.ErrorSample) == 0 {
			t.Fatalf("conc %d: count %d errors %d kinds %v", r.Concurrency, r.Count, r.Errors, r.ErrorKinds)
		}
		if r.Server == nil || r.Server.P50US != 100 || r.Client.P50US < 200 || r.QPS <= 0 || r.Rows < r.Count {
			t.Fatalf("conc %d: %+v", r.Concurrency, r)
		}
	}
	// A duration run.
	r, err := Run(context.Background(), "fake", ft, RunConfig{Concurrency: 2, Duration: 50 * time.Millisecond, Inputs: inputs[:1]})
	if err != nil || r.Count == 0 || r.ElapsedSec < 0.05 || r.Errors != 0 {
		t.Fatalf("duration run: %+v, %v", r, err)
	}
	if _, err := Run(context.Background(), "fake", ft, RunConfig{Concurrency: 1, Inputs: inputs}); err == nil {
		t.Fatal("no duration and no count: no error")
	}
	for err, want := range map[error]string{
		&client.QueryError{Code: graphpb.QueryErrorCode_E_EXECUTION}:  "E_EXECUTION",
		&client.TransportError{Addr: "x", Err: errors.New("refused")}: "transport",
		fmt.Errorf("op: %w", context.DeadlineExceeded):                "timeout",
		errors.New("boom"): "other",
	} {
		if got := ErrorKind(err); got != want {
			t.Errorf("ErrorKind(%v) = %s, want %s", err, got, want)
		}
	}
}

func sampleReport() *Report {
	mk := func(name string, conc int, qps float64, p50, p99 int64, server bool) Result {
		r := Result{Scenario: name, Concurrency: conc, Count: int64(qps * 10), QPS: qps, ElapsedSec: 10,
			Client: Latency{Count: int64(qps * 10), P50US: p50, P99US: p99, MaxUS: p99 * 2}}
		if server {
			r.Server = &Latency{P50US: p50 / 2, P99US: p99 / 2}
		}
		return r
	}
	rep := &Report{Tool: "run", Started: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Config: map[string]any{"space": "ldbc", "concurrency": []int{1, 4}}, Scenarios: map[string]string{"go1": "GO 1 STEP FROM $id OVER knows YIELD dst(edge)"}}
	rep.Results = []Result{mk("go1", 1, 1234.4, 812, 2500, true), mk("go1", 4, 3000, 1300, 12345, true), mk("go2", 1, 55.54, 18000, 150000, true)}
	rep.Results[2].Errors, rep.Results[2].ErrorKinds, rep.Results[2].ErrorSample = 2, map[string]int64{"timeout": 2}, []string{"graphd x: execute: `deadline`"}
	rep.Floor = []Result{mk("go1", 1, 123450, 8, 25, false), mk("go1", 4, 400000, 9, 30, false)}
	return rep
}

func TestReport(t *testing.T) {
	rep := sampleReport()
	md := rep.Markdown()
	for _, want := range []string{
		"| scenario | conc | QPS | client p50 | client p99 | server p50 | server p99 | errors | of floor |",
		"| go1 | 1 | 1234 | 0.812 | 2.50 | 0.406 | 1.25 | 0 | 0.01 |",
		"| go1 | 4 | 3000 | 1.30 | 12.3 | 0.650 | 6.17 | 0 | 0.0075 |",
		"| go2 | 1 | 55.5 | 18.0 | 150 | 9.00 | 75.0 | 2 | - |",
		"| go1 | 4 | 400000 | 0.009 | 0.030 | 0.0 | 0 |",
		"- go2 at 1: 2 errors (timeout:2)\n  - `graphd x: execute: 'deadline'`",
		"- space: `ldbc`",
		"- go1: `GO 1 STEP FROM $id OVER knows YIELD dst(edge)`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Tool    string `json:"tool"`
		Results []struct {
			Scenario string   `json:"scenario"`
			QPS      float64  `json:"qps"`
			Client   Latency  `json:"client"`
			Server   *Latency `json:"server"`
		} `json:"results"`
		Floor []struct {
			Server *Latency `json:"server"`
		} `json:"floor"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Tool != "run" || len(back.Results) != 3 || back.Results[1].QPS != 3000 || back.Results[1].Client.P99US != 12345 ||
		back.Results[1].Server.P99US != 6172 || len(back.Floor) != 2 || back.Floor[0].Server != nil {
		t.Fatalf("JSON round trip: %+v\n%s", back, buf.String())
	}
	if !strings.Contains(buf.String(), `"p999_us"`) || !strings.Contains(buf.String(), `"rows_per_sec"`) {
		t.Fatalf("JSON lacks fields:\n%s", buf.String())
	}
}

func TestWriteFiles(t *testing.T) {
	rep := sampleReport()
	for _, ext := range []string{"", "png"} {
		dir := t.TempDir()
		files, err := rep.WriteFiles(dir, ext)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"report.json", "report.md", "qps_go1", "latency_go1", "qps_go2", "latency_go2"}
		if len(files) != len(want) {
			t.Fatalf("files %v", files)
		}
		for i, f := range files {
			if !strings.HasPrefix(filepath.Base(f), want[i]) {
				t.Fatalf("file %d is %s, want %s*", i, f, want[i])
			}
			st, err := os.Stat(f)
			if err != nil || st.Size() == 0 {
				t.Fatalf("%s: %v, size %d", f, err, st.Size())
			}
			if i >= 2 {
				b, _ := os.ReadFile(f)
				isPNG := bytes.HasPrefix(b, []byte("\x89PNG"))
				isSVG := bytes.Contains(b[:min(len(b), 200)], []byte("<svg")) || bytes.Contains(b[:min(len(b), 200)], []byte("<?xml"))
				if ext == "png" && !isPNG || ext == "" && !isSVG {
					t.Fatalf("%s: not a %q plot: %q", f, ext, b[:min(len(b), 20)])
				}
			}
		}
	}
	// A floor-only report plots the floor.
	fl := &Report{Tool: "floor", Results: nil, Floor: sampleReport().Floor}
	files, err := fl.WritePlots(t.TempDir(), "svg")
	if err != nil || len(files) != 2 {
		t.Fatalf("floor-only plots: %v, %v", files, err)
	}
	if _, err := rep.WritePlots(t.TempDir(), "gif"); err == nil {
		t.Fatal("gif: no error")
	}
}

// TestLoadLDBCStreamsAsLDBCGraph: the streaming loader gives the graph
// that holding every row and building it (LDBCGraph) gives, on generated
// SF0.1 data in two shards, one gzipped, with a duplicated knows row (the
// importer writes it once) and with a person limit.
func TestLoadLDBCStreamsAsLDBCGraph(t *testing.T) {
	dir := t.TempDir()
	for shard := range 2 {
		if _, err := gen.Generate(context.Background(), gen.Config{ScaleFactor: 0.1, Seed: 3, OutDir: dir, Shard: shard, Shards: 2, Gzip: shard == 1}); err != nil {
			t.Fatal(err)
		}
	}
	knows, err := ReadLDBCKnows(dir)
	if err != nil {
		t.Fatal(err)
	}
	dup := fmt.Sprintf("Person.id|Person.id|creationDate\n%d|%d|1\n", knows[0].Src, knows[0].Dst)
	if err := os.WriteFile(filepath.Join(dir, "person_knows_person_9_0.csv"), []byte(dup), 0o644); err != nil {
		t.Fatal(err)
	}
	if rows, err := countLDBCRows(dir, "person_knows_person_"); err != nil || rows < len(knows)+1 {
		t.Fatalf("countLDBCRows = %d, %v; the files hold %d rows", rows, err, len(knows)+1)
	}
	for _, limit := range []int{0, 300} {
		persons, err := ReadLDBCPersons(dir, limit)
		if err != nil {
			t.Fatal(err)
		}
		knows, err := ReadLDBCKnows(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := LDBCGraph(dir, persons, knows)
		got, err := LoadLDBC(dir, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Edges) == 0 || !slices.Equal(got.Vertices, want.Vertices) || !slices.Equal(got.Edges, want.Edges) {
			t.Fatalf("limit %d: LoadLDBC has %d vertices and %d edges, LDBCGraph %d and %d",
				limit, len(got.Vertices), len(got.Edges), len(want.Vertices), len(want.Edges))
		}
	}
}

// TestLoadLDBCSummary: the summary graph has LoadLDBC's vertices, degrees
// and edge count (a self-loop counted once), with and without a person
// limit; its edges are a sample of LoadLDBC's, all of them when they fit,
// else the sample's size, drawn from the whole file rather than its start.
func TestLoadLDBCSummary(t *testing.T) {
	dir := t.TempDir()
	for shard := range 2 {
		if _, err := gen.Generate(context.Background(), gen.Config{ScaleFactor: 0.1, Seed: 7, OutDir: dir, Shard: shard, Shards: 2, Gzip: shard == 1}); err != nil {
			t.Fatal(err)
		}
	}
	persons, err := ReadLDBCPersons(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	loop := fmt.Sprintf("Person.id|Person.id|creationDate\n%d|%d|1\n", persons[0].ID, persons[0].ID)
	if err := os.WriteFile(filepath.Join(dir, "person_knows_person_9_0.csv"), []byte(loop), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(n int) { summaryEdgeSample = n }(summaryEdgeSample)
	for _, c := range []struct {
		limit, sample int
	}{{0, 1 << 20}, {300, 1 << 20}, {0, 1000}} {
		summaryEdgeSample = c.sample
		full, err := LoadLDBC(dir, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		g, err := LoadLDBCSummary(dir, c.limit, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Summary() || full.Summary() || !slices.Equal(g.Vertices, full.Vertices) ||
			!slices.Equal(g.OutDegree(), full.OutDegree()) || g.NumEdges() != full.NumEdges() {
			t.Fatalf("limit %d: summary of %d vertices and %d edges, LoadLDBC %d and %d (or other degrees)",
				c.limit, len(g.Vertices), g.NumEdges(), len(full.Vertices), full.NumEdges())
		}
		for _, e := range g.Edges {
			if _, ok := slices.BinarySearchFunc(full.Edges, e, func(a, b Edge) int {
				if c := cmpInt(a.Src, b.Src); c != 0 {
					return c
				}
				return cmpInt(a.Dst, b.Dst)
			}); !ok {
				t.Fatalf("limit %d: sampled edge %v is not an edge", c.limit, e)
			}
		}
		if len(full.Edges) <= c.sample {
			if !slices.Equal(g.Edges, full.Edges) {
				t.Fatalf("limit %d: %d edges fit the sample, it holds %d", c.limit, len(full.Edges), len(g.Edges))
			}
			continue
		}
		if len(g.Edges) < c.sample*9/10 {
			t.Fatalf("sample of %d holds %d edges", c.sample, len(g.Edges))
		}
		// A sample of the first rows would hold none of the last half's.
		knows, err := ReadLDBCKnows(dir)
		if err != nil {
			t.Fatal(err)
		}
		late := map[Edge]bool{}
		for _, k := range knows[len(knows)/2:] {
			late[Edge{k.Src, k.Dst}], late[Edge{k.Dst, k.Src}] = true, true
		}
		n := 0
		for _, e := range g.Edges {
			if late[e] {
				n++
			}
		}
		if n < len(g.Edges)/4 {
			t.Fatalf("%d of %d sampled edges come from the last half of the rows", n, len(g.Edges))
		}
	}
}
