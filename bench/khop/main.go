// Command khop is issue 22's measuring instrument: GO 1/2/3 STEPS (and
// GO N + destination and edge properties) on soc-Slashdot0902 or an LDBC
// knows graph, against novagraph (graphd through the Go client), and in the
// same run against an embedded DuckDB running the same query as SQL, and
// the RocksDB floor (bench/ldbc/floor), every answer checked. It reports
// QPS, rows/s, p50/p99 and the ratios novagraph ÷ DuckDB and ÷ floor as a
// Markdown table and a JSON file. See README.md.
//
// It is its own Go module so that the main module never links DuckDB.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/novagraph/novagraph/bench/ldbc/floor"
	"github.com/novagraph/novagraph/client"
)

type options struct {
	dataset, data                  string
	addr, user, password, space    string
	partitions                     int
	load, importer, work           string
	workloads, conc                string
	starts, starts3                int
	seed                           int64
	queries                        int
	duration, warmup, timeout      time.Duration
	minTime                        time.Duration
	fullCheck                      int
	withFloor, literal, stats      bool
	duckThreads                    int
	duckPath, out, name            string
	importConcurrency, importBatch int
}

func main() {
	var o options
	flag.StringVar(&o.dataset, "dataset", "slashdot", "slashdot (a SNAP edge list, self-loops dropped) or ldbc (an LDBC CsvComposite folder: persons and knows, both directions)")
	flag.StringVar(&o.data, "data", "", "the data: for slashdot the .txt.gz (default <repo>/../shared/data/snap/soc-Slashdot0902/soc-Slashdot0902.txt.gz), for ldbc the folder nova-bench gen wrote")
	flag.StringVar(&o.addr, "addr", "127.0.0.1:9669", "graphd address")
	flag.StringVar(&o.user, "u", "root", "user")
	flag.StringVar(&o.password, "p", "nova", "password")
	flag.StringVar(&o.space, "space", "", "space (default khop_<dataset name>)")
	flag.IntVar(&o.partitions, "partitions", 10, "partition_num of the space the harness creates, and of the floor")
	flag.StringVar(&o.load, "load", "auto", "auto (import when the space is missing), always (drop the space and import), never")
	flag.StringVar(&o.importer, "importer", "", "nova-importer binary (default <repo>/bin/nova-importer)")
	flag.IntVar(&o.importConcurrency, "import-concurrency", 16, "nova-importer --concurrency")
	flag.IntVar(&o.importBatch, "import-batch", 4096, "nova-importer --batch")
	flag.StringVar(&o.work, "work", "", "folder for the CSV files both systems load and the import config (default <tmp>/khop-<dataset name>); never the repository")
	flag.StringVar(&o.workloads, "workloads", DefaultWorkloads, "comma-separated: go1, go2, go3, go1_props, go2_props, go3_props")
	flag.StringVar(&o.conc, "concurrency", "1,8", "comma-separated concurrencies")
	flag.IntVar(&o.starts, "starts", 1000, "seeded start vertices (distinct, out-degree >= 1)")
	flag.IntVar(&o.starts3, "starts3", 200, "the 3-step forms run on the first this many")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the start vertices")
	flag.IntVar(&o.queries, "queries", 0, "queries per measurement (0: every start vertex of the workload once, so that every system runs the same queries)")
	flag.DurationVar(&o.duration, "duration", 0, "bound each measurement in time instead of --queries (systems may then run different mixes of start vertices)")
	flag.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up before each measurement, not counted")
	flag.DurationVar(&o.minTime, "min-time", 3*time.Second, "a measurement of every start vertex once that takes less is run again with as many whole passes as take about this long")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "bound on one query")
	flag.IntVar(&o.fullCheck, "full-check", -1, "start vertices per workload whose answers are compared row by row (sorted multisets) before the timed runs; -1 all, 0 none (timed answers are always checked by fingerprint)")
	flag.BoolVar(&o.withFloor, "floor", true, "also run the plain forms on the RocksDB floor (bench/ldbc/floor)")
	flag.BoolVar(&o.literal, "literal", false, "splice the start vertex into the nGQL text instead of sending it as the parameter $id")
	flag.IntVar(&o.duckThreads, "duckdb-threads", 0, "DuckDB threads (0: DuckDB's default, every core)")
	flag.StringVar(&o.duckPath, "duckdb-path", "", "DuckDB database file (default in memory)")
	flag.StringVar(&o.out, "out", "results", "folder of the report")
	flag.StringVar(&o.name, "name", "", "report file name without extension (default <dataset name>-<UTC date and time>)")
	flag.BoolVar(&o.stats, "stats", false, "only print the data's counts and the reference's rows per query for each workload, and exit (no cluster, no DuckDB)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: khop [flags]\n\nRuns issue 22's k-hop workloads on novagraph, DuckDB and the RocksDB floor; see bench/khop/README.md.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "khop:", err)
		os.Exit(1)
	}
}

// repoRoot finds the novagraph repository above the working directory.
func repoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.HasPrefix(string(data), "module github.com/novagraph/novagraph\n") {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func splitInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("empty list")
	}
	return out, nil
}

func run(ctx context.Context, o options) error {
	started := time.Now()
	loadBefore, _ := loadAvg()
	root := repoRoot()
	workloads, err := FindWorkloads(o.workloads)
	if err != nil {
		return err
	}
	conc, err := splitInts(o.conc)
	if err != nil {
		return fmt.Errorf("--concurrency: %w", err)
	}

	// The data.
	var ds *Dataset
	switch o.dataset {
	case "slashdot":
		if o.data == "" {
			o.data = filepath.Join(root, "..", "shared", "data", "snap", "soc-Slashdot0902", "soc-Slashdot0902.txt.gz")
		}
		ds, err = LoadSlashdot(o.data)
	case "ldbc":
		if o.data == "" {
			return errors.New("--dataset ldbc needs --data DIR (bin/nova-bench gen --sf 1 --out DIR)")
		}
		ds, err = LoadLDBC(o.data)
	default:
		return fmt.Errorf("--dataset %q: want slashdot or ldbc", o.dataset)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "data: %s, %d vertices, %d directed edges (%d self-loops dropped)\n", ds.Source, len(ds.Graph.Vertices), len(ds.Graph.Edges), ds.Loops)
	if o.stats {
		starts := ds.Starts(o.starts, o.seed)
		b := &Bench{DS: ds, Starts: starts, Starts3: o.starts3}
		for _, w := range workloads {
			ins := b.inputs(w)
			var rows, most int64
			t0 := time.Now()
			for _, v := range ins {
				f := ds.csr.Fingerprint(w.Steps, v, false)
				rows += f.Rows
				most = max(most, f.Rows)
			}
			fmt.Printf("%-14s %5d start vertices: %12.0f rows per query on average, at most %d (%.1fs)\n", w.Label(), len(ins), float64(rows)/float64(len(ins)), most, time.Since(t0).Seconds())
		}
		return nil
	}
	if o.space == "" {
		o.space = "khop_" + strings.NewReplacer("-", "_", ".", "_").Replace(ds.Name)
	}
	if o.work == "" {
		o.work = filepath.Join(os.TempDir(), "khop-"+ds.Name)
	}
	if abs, err := filepath.Abs(o.work); err == nil && strings.HasPrefix(abs+"/", root+"/") && root != "" {
		return fmt.Errorf("--work %s is inside the repository; the CSV files go elsewhere", o.work)
	}
	vcsv, ecsv, err := ds.WriteCSV(o.work)
	if err != nil {
		return err
	}
	starts := ds.Starts(o.starts, o.seed)
	if len(starts) < o.starts {
		fmt.Fprintf(os.Stderr, "only %d vertices have out-edges: %d start vertices\n", len(starts), len(starts))
	}

	// novagraph: connect, load if asked.
	pool, err := client.NewPool(client.Config{Addresses: []string{o.addr}, MaxRecvMsgBytes: 1 << 30})
	if err != nil {
		return err
	}
	defer pool.Close()
	sess, err := pool.Session(ctx, o.user, o.password)
	if err != nil {
		return fmt.Errorf("graphd at %s: %w (start a cluster: make cluster-up)", o.addr, err)
	}
	defer sess.Close()
	if err := loadSpace(ctx, o, root, sess, vcsv, ecsv, len(ds.Graph.Vertices), len(ds.Graph.Edges)); err != nil {
		return err
	}
	parts, err := spacePartitions(ctx, sess, o.space)
	if err != nil {
		return err
	}

	// DuckDB.
	t0 := time.Now()
	db, duckVersion, err := OpenDuck(ctx, o.duckPath, o.duckThreads, vcsv, ecsv)
	if err != nil {
		return err
	}
	defer db.Close()
	nv, ne, err := DuckCounts(ctx, db)
	if err != nil {
		return err
	}
	if nv != int64(len(ds.Graph.Vertices)) || ne != int64(len(ds.Graph.Edges)) {
		return fmt.Errorf("DuckDB loaded %d vertices and %d edges, want %d and %d", nv, ne, len(ds.Graph.Vertices), len(ds.Graph.Edges))
	}
	fmt.Fprintf(os.Stderr, "DuckDB %s: %d vertices, %d edges loaded in %.1fs\n", duckVersion, nv, ne, time.Since(t0).Seconds())

	systems := []System{&Nova{Pool: pool, User: o.user, Password: o.password, Space: o.space, Literal: o.literal}, &Duck{DB: db}}
	if o.withFloor {
		t0 := time.Now()
		fl, err := floor.Open(floor.Options{Partitions: parts})
		if err != nil {
			return err
		}
		defer fl.Close()
		if err := fl.Load(ds.Graph); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "floor: %d vertices, %d edges in %d partitions, loaded and compacted in %.1fs\n", fl.Vertices, fl.Edges, parts, time.Since(t0).Seconds())
		systems = append(systems, &Floor{F: fl})
	}

	b := &Bench{DS: ds, Systems: systems, Workloads: workloads, Starts: starts, Starts3: o.starts3, Conc: conc,
		Queries: o.queries, Duration: o.duration, Warmup: o.warmup, Timeout: o.timeout, MinTime: o.minTime, FullCheck: o.fullCheck, Log: os.Stderr}
	cells, checks, runErr := b.Run(ctx)

	rep := &Report{
		Started: started, Finished: time.Now(), Command: commandLine(), Dataset: ds.Name, Source: displayPath(ds.Source, root),
		Vertices: len(ds.Graph.Vertices), Edges: len(ds.Graph.Edges), SelfLoops: ds.Loops, Space: o.space, Partitions: int(parts),
		Seed: o.seed, Starts: len(starts), Starts3: min(o.starts3, len(starts)), Checks: checks, Cells: cells,
		LoadBefore: loadBefore,
		Config: map[string]any{
			"addr": o.addr, "workloads": o.workloads, "concurrency": o.conc, "queries": o.queries, "duration": o.duration.String(),
			"warmup": o.warmup.String(), "min_time": o.minTime.String(), "timeout": o.timeout.String(), "full_check": o.fullCheck, "floor": o.withFloor,
			"literal": o.literal, "duckdb_threads": o.duckThreads, "load": o.load,
			"ngql": ngqlList(workloads), "sql": sqlList(workloads),
		},
		Machine: map[string]any{"cpus": fmt.Sprintf("%d CPUs (%s)", runtime.NumCPU(), cpuModel()), "duckdb": duckVersion, "commit": gitCommit(root), "go": runtime.Version()},
	}
	rep.LoadAfter, _ = loadAvg()
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	name := o.name
	if name == "" {
		name = ds.Name + "-" + started.UTC().Format("20060102-150405")
	}
	md, js, err := rep.WriteFiles(filepath.Join(o.out, name))
	if err != nil {
		return err
	}
	fmt.Print(rep.Markdown())
	fmt.Fprintf(os.Stderr, "\nreport: %s, %s\n", md, js)
	if runErr != nil {
		return runErr
	}
	if checks.Errors > 0 {
		return fmt.Errorf("%d executions failed (see %s)", checks.Errors, js)
	}
	return nil
}

// loadSpace imports the CSV files into the space with nova-importer
// (online mode) as --load says.
func loadSpace(ctx context.Context, o options, root string, sess *client.Session, vcsv, ecsv string, wantV, wantE int) error {
	exists, err := spaceExists(ctx, sess, o.space)
	if err != nil {
		return err
	}
	switch o.load {
	case "never":
		if !exists {
			return fmt.Errorf("space %s does not exist and --load never", o.space)
		}
		return nil
	case "auto":
		if exists {
			fmt.Fprintf(os.Stderr, "space %s exists: not loading (--load always reloads)\n", o.space)
			return nil
		}
	case "always":
		if exists {
			if _, err := sess.Execute(ctx, "DROP SPACE `"+o.space+"`"); err != nil {
				return fmt.Errorf("DROP SPACE %s: %w", o.space, err)
			}
		}
	default:
		return fmt.Errorf("--load %q: want auto, always or never", o.load)
	}
	importer := o.importer
	if importer == "" {
		importer = filepath.Join(root, "bin", "nova-importer")
	}
	cfg := filepath.Join(o.work, "import.yaml")
	if err := os.WriteFile(cfg, []byte(importConfig(o, vcsv, ecsv)), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, importer, "--config", cfg, "--no-progress", "--failed-dir", filepath.Join(o.work, "failed"), "--restart")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(os.Stderr, &out), os.Stderr
	fmt.Fprintf(os.Stderr, "loading: %s\n", strings.Join(cmd.Args, " "))
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", importer, err)
	}
	// The importer's summary: "rows R (…), vertices V, edges E (…), failed rows F, …".
	m := importSummary.FindStringSubmatch(out.String())
	if m == nil {
		return fmt.Errorf("%s: no summary line in its output", importer)
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	e, _ := strconv.ParseInt(m[2], 10, 64)
	f, _ := strconv.ParseInt(m[3], 10, 64)
	if f != 0 || v != int64(wantV) || e != int64(wantE) {
		return fmt.Errorf("%s wrote %d vertices and %d edges with %d failed rows, want %d and %d and none", importer, v, e, f, wantV, wantE)
	}
	fmt.Fprintf(os.Stderr, "loaded in %.1fs\n", time.Since(t0).Seconds())
	return nil
}

var importSummary = regexp.MustCompile(`vertices (\d+), edges (\d+) .*failed rows (\d+)`)

// importConfig is the nova-importer config: the space and the schema of
// issue 22 created by the hooks, then vertices.csv and edges.csv.
func importConfig(o options, vcsv, ecsv string) string {
	q := strconv.Quote
	return fmt.Sprintf(`client:
  address: %s
  user: %s
  password: %s
manager:
  spaceName: %s
  batch: %d
  importerConcurrency: %d
  mode: online
  hooks:
    before:
      - statements:
          - %s
          - %s
          - CREATE TAG IF NOT EXISTS node(name string, age int)
          - CREATE EDGE IF NOT EXISTS follows(weight int)
sources:
  - path: %s
    csv: {delimiter: ",", withHeader: false}
    tags:
      - name: node
        id: {type: INT, index: 0}
        props:
          - {name: name, type: string, index: 1}
          - {name: age, type: int, index: 2}
  - path: %s
    csv: {delimiter: ",", withHeader: false}
    edges:
      - name: follows
        src: {id: {type: INT, index: 0}}
        dst: {id: {type: INT, index: 1}}
        props:
          - {name: weight, type: int, index: 2}
`, q(o.addr), q(o.user), q(o.password), q(o.space), o.importBatch, o.importConcurrency,
		q(fmt.Sprintf("CREATE SPACE IF NOT EXISTS `%s`(partition_num=%d, replica_factor=1, vid_type=INT64)", o.space, o.partitions)),
		q(fmt.Sprintf("USE `%s`", o.space)), q(vcsv), q(ecsv))
}

func spaceExists(ctx context.Context, s *client.Session, space string) (bool, error) {
	rs, err := s.Execute(ctx, "SHOW SPACES")
	if err != nil {
		return false, err
	}
	for i := range rs.Len() {
		if name, err := rs.Row(i).String(0); err == nil && name == space {
			return true, nil
		}
	}
	return false, nil
}

// spacePartitions reads the space's partition count (DESCRIBE SPACE).
func spacePartitions(ctx context.Context, s *client.Session, space string) (int32, error) {
	rs, err := s.Execute(ctx, "DESCRIBE SPACE `"+space+"`")
	if err != nil {
		return 0, err
	}
	col, ok := rs.ColumnIndex("Partition Number")
	if !ok || rs.Len() == 0 {
		return 0, fmt.Errorf("DESCRIBE SPACE %s: no Partition Number in %v", space, rs.Columns())
	}
	n, err := rs.Row(0).Int(col)
	return int32(n), err
}

func ngqlList(ws []Workload) map[string]string {
	m := map[string]string{}
	for _, w := range ws {
		m[w.Name] = w.NGQL()
	}
	return m
}

func sqlList(ws []Workload) map[string]string {
	m := map[string]string{}
	for _, w := range ws {
		m[w.Name] = w.SQL()
	}
	return m
}

func commandLine() string {
	args := make([]string, len(os.Args))
	for i, a := range os.Args {
		if strings.ContainsAny(a, " \t'\"$") {
			a = strconv.Quote(a)
		}
		args[i] = a
	}
	args[0] = filepath.Base(args[0])
	return strings.Join(args, " ")
}

func displayPath(p, root string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "../../") {
		return rel
	}
	return p
}

func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "-dirty"
	}
	return c
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "model name") {
			if i := strings.Index(line, ":"); i >= 0 {
				return strings.TrimSpace(line[i+1:])
			}
		}
	}
	return runtime.GOARCH
}
