package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
	"github.com/novagraph/novagraph/bench/ldbc/floor"
	"github.com/novagraph/novagraph/client"
	"github.com/novagraph/novagraph/internal/nodetls"
	"github.com/novagraph/novagraph/internal/rocksopts"
)

// dataFlags say where the graph is: an LDBC CsvComposite directory or a
// SNAP edge list, and the names the importer gave its schema.
type dataFlags struct {
	data, snap string
	undirected bool
	maxPersons int
	tag, edge  string
	tagProps   string
	edgeProps  string
}

func (d *dataFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&d.data, "data", "", "LDBC CsvComposite directory (person_0_0.csv, person_knows_person_0_0.csv)")
	f.StringVar(&d.snap, "snap", "", "SNAP edge list (src dst per line; .gz, comments and CRLF accepted)")
	f.BoolVar(&d.undirected, "undirected", false, "SNAP: the list holds each undirected edge once; it was imported in both directions")
	f.IntVar(&d.maxPersons, "max-persons", 0, "LDBC: use only the first N persons and the knows among them (0: all)")
	f.StringVar(&d.tag, "tag", "", "tag name (default Person for --data, node for --snap)")
	f.StringVar(&d.edge, "edge", "", "edge type name (default knows for --data, link for --snap)")
	f.StringVar(&d.tagProps, "tag-props", "", "comma-separated tag properties the *_props scenarios and Q1/Q5 read (default firstName,lastName for --data, none for --snap)")
	f.StringVar(&d.edgeProps, "edge-props", "", "comma-separated edge properties go*_date and Q2 read (default creationDate for --data, none for --snap)")
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// load reads the graph and returns the schema the importer created for it.
// summary reads LDBC files as a summary graph (LoadLDBCSummary: a sample
// of the edges), enough to draw inputs from and a fraction of the memory.
func (d *dataFlags) load(cmd *cobra.Command, summary bool, seed int64) (*driver.Graph, driver.Schema, error) {
	// Reading the files makes garbage (a string per field) beside a graph
	// that is one pointer-free slice the collector need not scan: collecting
	// often keeps the peak near the graph's own size instead of twice it
	// (7.9 GB of edges at SF1000).
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	var g *driver.Graph
	var schema driver.Schema
	var err error
	switch {
	case d.data != "" && d.snap != "":
		return nil, schema, errors.New("give --data DIR (LDBC CsvComposite) or --snap FILE (SNAP edge list), not both")
	case d.data != "":
		if summary {
			g, err = driver.LoadLDBCSummary(d.data, d.maxPersons, seed)
		} else {
			g, err = driver.LoadLDBC(d.data, d.maxPersons)
		}
		schema = driver.LDBCSchema()
	case d.snap != "":
		g, err = driver.LoadSNAP(d.snap, driver.SNAPOptions{Undirected: d.undirected})
		schema = driver.SNAPSchema("", "")
	default:
		return nil, schema, errors.New("no data: give --data DIR (LDBC CsvComposite) or --snap FILE (SNAP edge list)")
	}
	if err != nil {
		return nil, schema, err
	}
	if d.tag != "" {
		schema.Tag = d.tag
	}
	if d.edge != "" {
		schema.Edge = d.edge
	}
	if cmd.Flags().Changed("tag-props") {
		schema.TagProps = splitList(d.tagProps)
	}
	if cmd.Flags().Changed("edge-props") {
		schema.EdgeProps = splitList(d.edgeProps)
	}
	return g, schema, nil
}

// loadFlags shape the load: concurrency sweep, length, sampling, output.
type loadFlags struct {
	concurrency string
	duration    time.Duration
	count       int64
	warmup      time.Duration
	timeout     time.Duration
	sample      string
	seed        int64
	inputs      int
	out         string
	plotFormat  string

	concs []int
	mode  driver.SampleMode
}

func (l *loadFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&l.concurrency, "concurrency", "1,2,4,8,16,32,64", "comma-separated concurrencies to sweep (workers, each with its own session)")
	f.DurationVar(&l.duration, "duration", 30*time.Second, "measured time per scenario and concurrency (after the warm-up)")
	f.Int64Var(&l.count, "count", 0, "measured executions per scenario and concurrency, instead of --duration")
	f.DurationVar(&l.warmup, "warmup", 5*time.Second, "warm-up before measuring, excluded from the statistics")
	f.DurationVar(&l.timeout, "timeout", time.Minute, "timeout of one execution")
	f.StringVar(&l.sample, "sample", string(driver.Uniform), "start vertex sampling: uniform or size-biased (probability proportional to out-degree)")
	f.Int64Var(&l.seed, "seed", 1, "seed of the sampling PRNG (the same seed gives the same start vertices)")
	f.IntVar(&l.inputs, "inputs", 100000, "number of sampled inputs, cycled through")
	f.StringVar(&l.out, "out", "nova-bench-out", "directory for report.json, report.md and the plots")
	f.StringVar(&l.plotFormat, "plot-format", "svg", "plot file format: svg or png")
}

// parse checks the flags.
func (l *loadFlags) parse(cmd *cobra.Command) error {
	var err error
	if l.concs, err = parseConcurrency(l.concurrency); err != nil {
		return err
	}
	if l.mode, err = driver.ParseSampleMode(l.sample); err != nil {
		return fmt.Errorf("--sample: %w", err)
	}
	if cmd.Flags().Changed("duration") && cmd.Flags().Changed("count") {
		return errors.New("give --duration or --count, not both")
	}
	if l.count < 0 || l.duration <= 0 && l.count == 0 {
		return errors.New("--count must be > 0, or --duration > 0")
	}
	if l.warmup < 0 || l.timeout < 0 {
		return errors.New("--warmup and --timeout must not be negative")
	}
	if l.inputs <= 0 {
		return errors.New("--inputs must be > 0")
	}
	switch strings.ToLower(l.plotFormat) {
	case "svg", "png":
	default:
		return fmt.Errorf("--plot-format %q: want svg or png", l.plotFormat)
	}
	return nil
}

// config is the run configuration of one sweep.
func (l *loadFlags) config(inputs []driver.Input) driver.RunConfig {
	c := driver.RunConfig{Warmup: l.warmup, Timeout: l.timeout, Inputs: inputs}
	if l.count > 0 {
		c.Count = l.count
	} else {
		c.Duration = l.duration
	}
	return c
}

func (l *loadFlags) describe(m map[string]any) {
	m["concurrency"] = l.concs
	if l.count > 0 {
		m["count"] = l.count
	} else {
		m["duration"] = l.duration.String()
	}
	m["warmup"] = l.warmup.String()
	m["timeout"] = l.timeout.String()
	m["sample"] = string(l.mode)
	m["seed"] = l.seed
	m["inputs"] = l.inputs
}

func parseConcurrency(s string) ([]int, error) {
	var out []int
	for _, x := range splitList(s) {
		n, err := strconv.Atoi(x)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("--concurrency: %q is not a positive integer", x)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("--concurrency: empty list")
	}
	return out, nil
}

// connFlags say how to reach graphd.
type connFlags struct {
	addr, user, password, space string
	conns                       int
	// tls names the CA that signed graphd's certificate and, optionally,
	// a client certificate: TLS is on when a CA is given (as the console's
	// -ca, -cert and -key).
	tls nodetls.Files
}

func (c *connFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.addr, "addr", "127.0.0.1:9669", "graphd address(es), comma-separated host:port")
	f.StringVarP(&c.user, "user", "u", "root", "user")
	f.StringVarP(&c.password, "password", "p", "nova", "password")
	f.StringVar(&c.space, "space", "", "graph space (required)")
	f.IntVar(&c.conns, "conns", 1, "gRPC connections per graphd address (sessions share them)")
	f.StringVar(&c.tls.CA, "ca", "", "connect over TLS, trusting graphd's certificate if this PEM CA bundle signed it (docs/security.md)")
	f.StringVar(&c.tls.Cert, "cert", "", "with --ca: a client certificate (PEM) to present")
	f.StringVar(&c.tls.Key, "key", "", "the private key (PEM) of --cert")
}

// open connects and checks the space.
func (c *connFlags) open(ctx context.Context) (*client.Pool, *client.Session, error) {
	if c.space == "" {
		return nil, nil, errors.New("--space is required")
	}
	if !c.tls.Empty() && c.tls.CA == "" {
		return nil, nil, errors.New("--cert and --key need --ca, the CA that signed graphd's certificate")
	}
	tlsConfig, err := nodetls.LoadClient(c.tls)
	if err != nil {
		return nil, nil, err
	}
	pool, err := client.NewPool(client.Config{Addresses: splitList(c.addr), ConnsPerAddress: c.conns, TLS: tlsConfig.ClientTLS()})
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sess, err := pool.Session(sctx, c.user, c.password)
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("signing in to %s as %s: %w", c.addr, c.user, err)
	}
	if _, err := sess.Execute(sctx, "USE "+c.space); err != nil {
		sess.Close()
		pool.Close()
		return nil, nil, fmt.Errorf("USE %s: %w", c.space, err)
	}
	return pool, sess, nil
}

// spacePartitions reads the space's partition count (DESCRIBE SPACE).
func spacePartitions(ctx context.Context, s *client.Session, space string) (int32, error) {
	rs, err := s.Execute(ctx, "DESCRIBE SPACE "+space)
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

func progress(w io.Writer) func(driver.Result) {
	return func(r driver.Result) {
		server := ""
		if r.Server != nil {
			server = fmt.Sprintf(", server p50 %s p99 %s ms", driver.FormatMS(r.Server.P50US), driver.FormatMS(r.Server.P99US))
		}
		errs := ""
		if r.Errors > 0 {
			errs = fmt.Sprintf(", %d errors (%s)", r.Errors, driver.ErrorKindsText(r.ErrorKinds))
		}
		fmt.Fprintf(w, "%-14s conc %3d: %9s qps, %s rows/s, client p50 %s p99 %s ms%s%s\n", r.Scenario, r.Concurrency,
			driver.FormatRate(r.QPS), driver.FormatRate(r.RowsPerSec), driver.FormatMS(r.Client.P50US), driver.FormatMS(r.Client.P99US), server, errs)
	}
}

// signalContext ends on Ctrl-C.
func signalContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt)
}

// novaSweeps runs each scenario's sweep against graphd.
func novaSweeps(ctx context.Context, cmd *cobra.Command, c *connFlags, l *loadFlags, g *driver.Graph, schema driver.Schema,
	scenarios []driver.Scenario, literal bool, setup *client.Session, pool *client.Pool, meter *driver.ResourceMeter, rep *driver.Report) error {
	sampler, err := driver.NewSampler(g, l.mode)
	if err != nil {
		return err
	}
	var prepared []driver.Prepared
	for _, sc := range scenarios {
		p, err := driver.Prepare(sc, schema, literal)
		if err != nil {
			return err
		}
		prepared = append(prepared, p)
		rep.Scenarios[sc.Name] = p.Stmt
	}
	for _, sc := range scenarios {
		if sc.Setup != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: preparing the space\n", sc.Name)
			if err := sc.Setup(ctx, setup, schema); err != nil {
				return fmt.Errorf("%s setup: %w", sc.Name, err)
			}
		}
	}
	ids := driver.NewFreshIDs()
	for _, p := range prepared {
		inputs, err := driver.MakeInputs(p.Scenario.Input, g, sampler, l.seed, l.inputs)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Scenario.Name, err)
		}
		target := &driver.NovaTarget{Pool: pool, User: c.user, Password: c.password, Space: c.space, Prepared: p, IDs: ids}
		cfg := l.config(inputs)
		cfg.Meter = meter
		res, err := driver.Sweep(ctx, p.Scenario.Name, target, l.concs, cfg, progress(cmd.ErrOrStderr()))
		rep.Results = append(rep.Results, res...)
		if err != nil {
			return err
		}
	}
	return nil
}

// floorFlags configure the storage floor.
type floorFlags struct {
	partitions   int32
	dir          string
	blockCacheMB int
	noCompact    bool
}

func (f *floorFlags) add(cmd *cobra.Command, partsHelp string) {
	fl := cmd.Flags()
	fl.Int32Var(&f.partitions, "partitions", 0, partsHelp)
	fl.StringVar(&f.dir, "floor-dir", "", "RocksDB directory of the floor (default: a temporary directory, removed afterwards)")
	fl.IntVar(&f.blockCacheMB, "block-cache-mb", 0, "floor RocksDB block cache in MiB (default: storaged's, 1024)")
	fl.BoolVar(&f.noCompact, "no-compact", false, "do not compact the floor after loading")
}

// floorSweeps loads g into a floor and runs the k-hop scenarios on it with
// the same inputs and load as novagraph.
func floorSweeps(ctx context.Context, cmd *cobra.Command, f *floorFlags, l *loadFlags, g *driver.Graph,
	scenarios []driver.Scenario, rep *driver.Report) error {
	var khop []driver.Scenario
	for _, sc := range scenarios {
		if sc.Steps > 0 {
			khop = append(khop, sc)
		}
	}
	if len(khop) == 0 {
		fmt.Fprintln(cmd.ErrOrStderr(), "floor: none of the scenarios is a plain k-hop GO (go1, go2, go3): nothing to compare")
		return nil
	}
	sampler, err := driver.NewSampler(g, l.mode)
	if err != nil {
		return err
	}
	start := time.Now()
	fl, err := floor.Open(floor.Options{Dir: f.dir, Partitions: f.partitions, NoCompact: f.noCompact,
		RocksDB: rocksopts.Options{BlockCacheMB: f.blockCacheMB}})
	if err != nil {
		return err
	}
	defer fl.Close()
	if err := fl.Load(g); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "floor: loaded %d vertices and %d edges (%d keys with the in-edges) into %d partitions in %v\n",
		len(g.Vertices), len(g.Edges), 2*len(g.Edges), fl.Options().Partitions, time.Since(start).Round(time.Millisecond))
	rep.Config["floor_partitions"] = fl.Options().Partitions
	for _, sc := range khop {
		inputs, err := driver.MakeInputs(sc.Input, g, sampler, l.seed, l.inputs)
		if err != nil {
			return err
		}
		res, err := driver.Sweep(ctx, sc.Name, fl.Target(sc.Steps), l.concs, l.config(inputs), progress(cmd.ErrOrStderr()))
		rep.Floor = append(rep.Floor, res...)
		if err != nil {
			return err
		}
	}
	return nil
}

// finish writes the report files and prints the markdown; runErr, the
// error that ended the runs early, if any, is returned after writing what
// was measured.
func finish(cmd *cobra.Command, rep *driver.Report, l *loadFlags, runErr error) error {
	if len(rep.Results) == 0 && len(rep.Floor) == 0 {
		return runErr
	}
	files, err := rep.WriteFiles(l.out, l.plotFormat)
	fmt.Fprint(cmd.OutOrStdout(), rep.Markdown())
	if err != nil {
		return errors.Join(runErr, fmt.Errorf("writing the report: %w", err))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", strings.Join(files, ", "))
	return runErr
}

func newRunCmd() *cobra.Command {
	var (
		conn      connFlags
		data      dataFlags
		load      loadFlags
		fl        floorFlags
		scenarios string
		literal   bool
		withFloor bool
		metrics   string
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run GO/FETCH/INSERT scenarios against graphd, sweeping the concurrency",
		Long: `run drives graphd with the nebula-bench-like scenarios of bench/ldbc/driver:
` + scenarioList(driver.Scenarios) + `
Start vertices come from the same data the space was imported from (--data or
--snap). With --floor, the k-hop scenarios also run on an in-process RocksDB
holding the same keys (see nova-bench floor), and the report shows novagraph's
QPS as a fraction of that floor.`,
		Example: `  nova-bench run --addr 127.0.0.1:9669 -u root -p nova --space ldbc --data data/sf1 \
      --scenarios go1,go2,go3 --concurrency 1,4,16,64 --duration 30s --sample size-biased --floor --out out/sf1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := load.parse(cmd); err != nil {
				return err
			}
			scs, err := driver.FindScenarios(driver.Scenarios, splitList(scenarios))
			if err != nil {
				return fmt.Errorf("--scenarios: %w", err)
			}
			// Without the floor the run only draws inputs: hold a sample
			// of the edges (SF1000: 7.9 GB of edges otherwise).
			g, schema, err := data.load(cmd, !withFloor, load.seed)
			if err != nil {
				return err
			}
			for _, sc := range scs { // bad scenario/schema pairs fail before connecting
				if _, err := driver.Prepare(sc, schema, literal); err != nil {
					return err
				}
			}
			ctx, stop := signalContext(cmd)
			defer stop()
			pool, sess, err := conn.open(ctx)
			if err != nil {
				return err
			}
			defer pool.Close()
			defer sess.Close()
			if withFloor && fl.partitions == 0 {
				if fl.partitions, err = spacePartitions(ctx, sess, conn.space); err != nil {
					return fmt.Errorf("finding the partition count of %s for the floor (or give --partitions): %w", conn.space, err)
				}
			}
			rep := &driver.Report{Tool: "run", Started: time.Now(), Scenarios: map[string]string{}, Config: map[string]any{
				"addr": conn.addr, "space": conn.space, "data": g.Source, "vertices": len(g.Vertices), "edges": g.NumEdges(),
				"tag": schema.Tag, "edge": schema.Edge, "literal": literal,
			}}
			load.describe(rep.Config)
			fmt.Fprintf(cmd.ErrOrStderr(), "data: %s, %d vertices, %d edges\n", g.Source, len(g.Vertices), g.NumEdges())
			var meter *driver.ResourceMeter
			if daemons := splitList(metrics); len(daemons) > 0 {
				if meter, err = driver.NewResourceMeter(daemons, 500*time.Millisecond); err != nil {
					return fmt.Errorf("--metrics: %w", err)
				}
				defer meter.Close()
				rep.Config["metrics"] = daemons
			}
			runErr := novaSweeps(ctx, cmd, &conn, &load, g, schema, scs, literal, sess, pool, meter, rep)
			if runErr == nil && withFloor {
				runErr = floorSweeps(ctx, cmd, &fl, &load, g, scs, rep)
			}
			return finish(cmd, rep, &load, runErr)
		},
	}
	conn.add(cmd)
	data.add(cmd)
	load.add(cmd)
	fl.add(cmd, "--floor: the floor's partition count (default: the space's, from DESCRIBE SPACE)")
	cmd.Flags().StringVar(&scenarios, "scenarios", "go1,go2,go3", "comma-separated scenarios: "+strings.Join(driver.ScenarioNames(driver.Scenarios), ", "))
	cmd.Flags().BoolVar(&literal, "literal", false, "splice inputs into the statement text instead of sending query parameters")
	cmd.Flags().BoolVar(&withFloor, "floor", false, "also run the k-hop scenarios on the storage floor and report the ratio")
	cmd.Flags().StringVar(&metrics, "metrics", "", "comma-separated daemons to meter over each measured period, as name=host:port of their HTTP address (e.g. graphd=127.0.0.1:19669,storaged=127.0.0.1:19779): the report adds each one's CPU and peak RSS")
	return cmd
}

// scenarioList documents a scenario table for --help.
func scenarioList(table []driver.Scenario) string {
	var b strings.Builder
	for _, sc := range table {
		fmt.Fprintf(&b, "  %-14s %s\n", sc.Name, sc.Doc)
	}
	return b.String()
}
