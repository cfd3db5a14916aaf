package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/bench/ldbc/floor"
	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/importer"
	"github.com/novagraph/novagraph/internal/rocksopts"
	"github.com/novagraph/novagraph/testkit/testcluster"
)

// big is a vertex id beyond 32 bits.
const big = int64(1) << 40

// tinyGraph is hand-made so that the k-hop semantics show: a cycle back
// to the start (1→3→1), two paths to the same vertex (1→2→4, 1→3→4: a
// duplicate row at step 2 and a deduplicated frontier at step 3), a
// self-loop (dropped), a vertex no start reaches (6), one without edges
// (7), and an id beyond 32 bits.
func tinyGraph() *Dataset {
	e := func(s, d int64) driver.Edge { return driver.Edge{Src: s, Dst: d} }
	return NewDataset("tiny", []int64{1, 2, 3, 4, 5, 6, 7, big}, []driver.Edge{
		e(1, 2), e(1, 3), e(2, 3), e(2, 4), e(3, 4), e(3, 1), e(3, 3),
		e(4, 5), e(4, 2), e(6, 1), e(5, big), e(big, 1),
	})
}

func dsts(rows []Row) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Dst
	}
	slices.Sort(out)
	return out
}

// TestReferenceByHand checks the reference against answers worked out by
// hand.
func TestReferenceByHand(t *testing.T) {
	ds := tinyGraph()
	if ds.Loops != 1 || len(ds.Graph.Edges) != 11 || len(ds.Graph.Vertices) != 8 {
		t.Fatalf("%d loops, %d edges, %d vertices; want 1, 11, 8", ds.Loops, len(ds.Graph.Edges), len(ds.Graph.Vertices))
	}
	for _, c := range []struct {
		steps int
		start int64
		want  []int64
	}{
		{1, 1, []int64{2, 3}},
		{2, 1, []int64{1, 3, 4, 4}},            // 2→3, 2→4, 3→4, 3→1
		{3, 1, []int64{1, 2, 2, 3, 4, 5}},      // frontier {3, 4, 1}: 3→4, 3→1, 4→5, 4→2, 1→2, 1→3
		{2, 4, []int64{3, 4, big}},             // frontier {5, 2}: 5→big, 2→3, 2→4
		{3, 5, []int64{2, 3}},                  // {big} → {1} → 1→2, 1→3
		{1, 7, []int64{}},                      // no edges
		{2, 6, []int64{2, 3}},                  // {1} → 1→2, 1→3
		{3, 6, []int64{1, 3, 4, 4}},            // {1} → {2, 3} → as GO 2 FROM 1
		{3, 2, []int64{2, 2, 3, 3, 4, 5, big}}, // {3, 4} → {4, 1, 5, 2}: 4→5, 4→2, 1→2, 1→3, 5→big, 2→3, 2→4
	} {
		got := dsts(ds.csr.Rows(c.steps, c.start, false))
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("GO %d STEPS FROM %d: %v, want %v", c.steps, c.start, got, want)
		}
	}
	rows := ds.csr.Rows(2, 1, true)
	slices.SortFunc(rows, compareRows)
	want := []Row{
		{Dst: 1, Name: "v1", Age: 1, Weight: 94}, // 3→1: (93+1) % 100
		{Dst: 3, Name: "v3", Age: 3, Weight: 65}, // 2→3
		{Dst: 4, Name: "v4", Age: 4, Weight: 66}, // 2→4
		{Dst: 4, Name: "v4", Age: 4, Weight: 97}, // 3→4
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("GO 2 STEPS FROM 1 with props: %v, want %v", rows, want)
	}
}

// TestChecker checks the multiset fingerprint and the diff.
func TestChecker(t *testing.T) {
	a := []Row{{Dst: 4, Name: "v4", Age: 4, Weight: 66}, {Dst: 4, Name: "v4", Age: 4, Weight: 97}, {Dst: 1, Name: "v1", Age: 1, Weight: 94}, {Dst: 1, Name: "v1", Age: 1, Weight: 94}}
	shuffled := []Row{a[2], a[0], a[3], a[1]}
	if FingerprintOf(a) != FingerprintOf(shuffled) || Diff("a", a, "b", shuffled) != "" {
		t.Fatal("the order of rows matters")
	}
	variants := map[string][]Row{
		"a duplicate lost":     a[1:],
		"a duplicate added":    append(slices.Clone(a), a[0]),
		"a weight changed":     {a[0], {Dst: 4, Name: "v4", Age: 4, Weight: 96}, a[2], a[3]},
		"a name NULL":          {a[0], a[1], a[2], {Dst: 1, NameNull: true, Age: 1, Weight: 94}},
		"an age NULL":          {a[0], a[1], a[2], {Dst: 1, Name: "v1", AgeNull: true, Weight: 94}},
		"an empty name":        {a[0], a[1], a[2], {Dst: 1, Age: 1, Weight: 94}},
		"two rows swap values": {{Dst: 4, Name: "v4", Age: 4, Weight: 97}, {Dst: 4, Name: "v4", Age: 4, Weight: 97}, a[2], a[3]},
	}
	for what, b := range variants {
		if FingerprintOf(a) == FingerprintOf(b) {
			t.Errorf("%s: same fingerprint", what)
		}
		if d := Diff("a", a, "b", b); d == "" {
			t.Errorf("%s: no diff", what)
		} else {
			t.Logf("%s: %s", what, d)
		}
	}
	var f Fingerprint
	f.AddDst(42)
	if f != FingerprintOf([]Row{{Dst: 42}}) {
		t.Fatal("AddDst differs from Add")
	}
	d := Diff("novagraph", a, "DuckDB", a[1:])
	if !strings.Contains(d, "novagraph 4 rows, DuckDB 3 rows; 1 rows only in novagraph, 0 only in DuckDB") || !strings.Contains(d, `(4, "v4", 4, 66)`) {
		t.Fatalf("diff: %s", d)
	}
}

// TestSQLAndGOAgree loads the tiny graph into an in-process cluster (with
// the harness's own import config, through the importer), into DuckDB and
// into the floor, and checks that every workload from every vertex gives
// the same rows in novagraph and in DuckDB as in the reference, and the
// same row count on the floor. Then it runs the bench itself, and checks
// that a wrong answer fails it.
func TestSQLAndGOAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("in-process cluster test")
	}
	ds := tinyGraph()
	ctx := context.Background()
	work := t.TempDir()
	vcsv, ecsv, err := ds.WriteCSV(work)
	if err != nil {
		t.Fatal(err)
	}

	c := testcluster.Start(t, testcluster.Options{Stores: 1})
	o := options{addr: c.Graph.Addr(), user: "root", password: testcluster.Password, space: "khop_tiny", partitions: 3, importBatch: 4, importConcurrency: 2}
	cfgPath := filepath.Join(work, "import.yaml")
	if err := os.WriteFile(cfgPath, []byte(importConfig(o, vcsv, ecsv)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := importer.LoadConfig(cfgPath)
	if err != nil {
		t.Fatalf("the harness's import config: %v\n%s", err, importConfig(o, vcsv, ecsv))
	}
	cfg.Manager.FailedRowsDir = filepath.Join(work, "failed")
	sum, err := importer.Run(ctx, cfg, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Vertices != 8 || sum.Edges != 11 {
		t.Fatalf("import: %v", sum)
	}
	if m := importSummary.FindStringSubmatch(sum.String()); m == nil || m[1] != "8" || m[2] != "11" || m[3] != "0" {
		t.Fatalf("the summary regexp reads %q from %q", m, sum.String())
	}

	pool, err := client.NewPool(client.Config{Addresses: []string{c.Graph.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db, version, err := OpenDuck(ctx, "", 2, vcsv, ecsv)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t.Logf("DuckDB %s", version)
	if v, e, err := DuckCounts(ctx, db); err != nil || v != 8 || e != 11 {
		t.Fatalf("DuckDB counts %d %d %v", v, e, err)
	}
	fl, err := floor.Open(floor.Options{Partitions: 3, RocksDB: rocksopts.Options{BlockCacheMB: 8, WriteBufferMB: 4}})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	if err := fl.Load(ds.Graph); err != nil {
		t.Fatal(err)
	}
	nova := &Nova{Pool: pool, User: "root", Password: testcluster.Password, Space: "khop_tiny"}
	systems := []System{nova, &Duck{DB: db}, &Floor{F: fl}}

	for _, literal := range []bool{false, true} {
		nova.Literal = literal
		for _, w := range Workloads {
			for _, v := range ds.Graph.Vertices {
				want := ds.csr.Rows(w.Steps, v, w.Props)
				for _, sys := range systems {
					if !sys.Supports(w) {
						continue
					}
					wk, err := sys.Open(ctx, w)
					if err != nil {
						t.Fatalf("%s on %s: %v", w.Name, sys.Name(), err)
					}
					f, _, err := wk.Fingerprint(ctx, v)
					if err != nil {
						t.Fatalf("%s from %d on %s: %v", w.Name, v, sys.Name(), err)
					}
					if isCountOnly(sys) {
						if f.Rows != int64(len(want)) {
							t.Errorf("%s from %d on %s: %d rows, want %d", w.Name, v, sys.Name(), f.Rows, len(want))
						}
						wk.Close()
						continue
					}
					rows, err := wk.Rows(ctx, v)
					wk.Close()
					if err != nil {
						t.Fatal(err)
					}
					if d := Diff(sys.Name(), rows, "reference", want); d != "" {
						t.Errorf("%s from %d (literal %v): %s\nnGQL: %s\nSQL: %s", w.Name, v, literal, d, w.NGQL(), w.SQL())
					}
					if f != FingerprintOf(want) {
						t.Errorf("%s from %d on %s: fingerprint %v, want %v", w.Name, v, sys.Name(), f, FingerprintOf(want))
					}
				}
			}
		}
	}

	// The checker catches a near miss: SQL whose frontiers are not
	// DISTINCT answers GO 3 with too many rows from 1 (4 is reached twice
	// at step 2).
	nodistinct := strings.ReplaceAll(Workload{"go3", 3, false}.SQL(), "DISTINCT ", "")
	rows, err := db.QueryContext(ctx, nodistinct, int64(1))
	if err != nil {
		t.Fatal(err)
	}
	var got []Row
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.Dst); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	rows.Close()
	if d := Diff("no DISTINCT", got, "reference", ds.csr.Rows(3, 1, false)); d == "" {
		t.Fatal("SQL without DISTINCT frontiers gives the same answer: the tiny graph does not test the semantics")
	} else {
		t.Logf("without DISTINCT: %s", d)
	}

	// The bench itself, with every vertex as a start.
	nova.Literal = false
	b := &Bench{DS: ds, Systems: systems, Workloads: Workloads, Starts: ds.Graph.Vertices, Starts3: 5,
		Conc: []int{1, 3}, Warmup: 10 * time.Millisecond, Timeout: time.Minute, FullCheck: -1, MinTime: 50 * time.Millisecond}
	cells, stats, err := b.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2*len(Workloads) || stats.Mismatches != 0 || stats.Errors != 0 || stats.FullCompared == 0 || stats.Fingerprinted == 0 || stats.CountChecked == 0 {
		t.Fatalf("%d cells, stats %+v", len(cells), stats)
	}
	for _, c := range cells {
		want := 2
		if !strings.Contains(c.Workload, "props") {
			want = 3
		}
		if len(c.Systems) != want || c.QPSRatio["DuckDB"] == 0 {
			t.Fatalf("cell %+v", c)
		}
		// Whole passes over the inputs; more than one where one pass
		// took less than MinTime (the floor's take microseconds).
		for _, m := range c.Systems {
			if n := m.Result.Count; n%int64(c.Inputs) != 0 || n < int64(c.Inputs) || m.System == "floor" && n == int64(c.Inputs) {
				t.Fatalf("%s %s c=%d: %d queries over %d inputs", c.Workload, m.System, c.Concurrency, n, c.Inputs)
			}
		}
	}
	rep := &Report{Dataset: "tiny", Cells: cells, Checks: stats, Config: map[string]any{}, Machine: map[string]any{}}
	md := rep.Markdown()
	if !strings.Contains(md, "| GO 3 + props, c=3 |") || !strings.Contains(md, "novagraph ÷ DuckDB") || !strings.Contains(md, "every answer matched") {
		t.Fatalf("markdown:\n%s", md)
	}
	t.Logf("\n%s", md)

	// A system that loses a row fails the bench, in the full check and in
	// the timed runs, naming the start vertex.
	for _, full := range []int{-1, 0} {
		b.Systems = []System{&lossy{Duck: Duck{DB: db}, drop: 4}, &Duck{DB: db}}
		b.Workloads, b.Conc, b.FullCheck = []Workload{{"go2", 2, false}}, []int{2}, full
		_, _, err = b.Run(ctx)
		var me *MismatchError
		if !errors.As(err, &me) || me.System != "lossy" || !strings.Contains(me.Detail, "only in") {
			t.Fatalf("full check %d: a lossy system gives %v", full, err)
		}
		t.Logf("full check %d: %v", full, err)
	}
}

// lossy is DuckDB dropping the rows whose destination is drop.
type lossy struct {
	Duck
	drop int64
}

func (l *lossy) Name() string { return "lossy" }

func (l *lossy) Open(ctx context.Context, w Workload) (Worker, error) {
	wk, err := l.Duck.Open(ctx, w)
	if err != nil {
		return nil, err
	}
	return &lossyWorker{wk.(*duckWorker), l.drop}, nil
}

type lossyWorker struct {
	*duckWorker
	drop int64
}

func (lw *lossyWorker) Rows(ctx context.Context, start int64) ([]Row, error) {
	rows, err := lw.duckWorker.Rows(ctx, start)
	return slices.DeleteFunc(rows, func(r Row) bool { return r.Dst == lw.drop }), err
}

func (lw *lossyWorker) Fingerprint(ctx context.Context, start int64) (Fingerprint, int64, error) {
	rows, err := lw.Rows(ctx, start)
	return FingerprintOf(rows), 0, err
}
