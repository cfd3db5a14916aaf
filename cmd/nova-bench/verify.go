package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
)

func newVerifyCmd() *cobra.Command {
	var (
		conn       connFlags
		data, snap string
		undirected bool
		tag, edge  string
		opts       driver.VerifyOptions
		show       int
	)
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check that an imported space answers like the files it was imported from",
		Long: `verify samples vertices of the files (uniformly, distinct, seeded) and compares,
per sampled vertex, what graphd returns with what the files say, the way the
importer's presets store them (LDBC: every knows row a|b|date as a->b and b->a
with its creationDate; SNAP: every line src dst as src->dst):

  out-neighbours  GO FROM ids OVER e YIELD id($^), id($$)[, e.creationDate]:
                  the multiset of (neighbour, property), nothing missing,
                  nothing extra, no duplicates
  in-neighbours   the same GO ... REVERSELY (the mirrored in-edges)
  vertex          FETCH PROP ON tag ids: the vertex exists with the tag; for
                  LDBC, Person.firstName, lastName and birthday as in person_*.csv

With --counts (the default) it also counts, over every vertex of the files,
the vertices with the tag and the out- and in-edges (graphd counts them,
--count-batch ids per statement) and compares the totals.

It prints one summary line; on a difference it lists the first --show
mismatches (vertex, what, expected vs got) and exits with status 1.`,
		Example: `  nova-bench verify --addr 127.0.0.1:9669 -u root -p nova --space ldbc_sf1 --data data/sf1 --sample 500 --seed 1
  nova-bench verify --space slashdot --snap soc-Slashdot0902.txt.gz --sample 500`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var x *driver.Expectation
			var err error
			start := time.Now()
			switch {
			case data != "" && snap != "":
				return errors.New("give --data DIR (LDBC CsvComposite) or --snap FILE (SNAP edge list), not both")
			case data != "":
				if undirected || tag != "" || edge != "" {
					return errors.New("--undirected, --tag and --edge are for --snap")
				}
				// The files' edges are not held, only the sample's
				// (SF1000 holds 490 M); reading them makes a string per
				// field beside a 2 GB slice: collecting often keeps the
				// peak near that slice.
				if opts.Sample <= 0 {
					return fmt.Errorf("--sample %d: want at least one vertex", opts.Sample)
				}
				old := debug.SetGCPercent(10)
				x, err = driver.ExpectLDBCSample(data, opts.Sample, opts.Seed)
				debug.SetGCPercent(old)
			case snap != "":
				x, err = driver.ExpectSNAP(snap, driver.SNAPOptions{Undirected: undirected}, tag, edge)
			default:
				return errors.New("no data: give --data DIR (LDBC CsvComposite) or --snap FILE (SNAP edge list)")
			}
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			fmt.Fprintf(stderr, "files: %s: %d vertices (%d with tag %s), %d directed %s edges, read in %v\n",
				x.Source, len(x.Vertices), x.TagVertices, x.Tag, x.OutEdges(), x.Edge, time.Since(start).Round(time.Millisecond))
			ctx, stop := signalContext(cmd)
			defer stop()
			pool, sess, err := conn.open(ctx)
			if err != nil {
				return err
			}
			defer pool.Close()
			defer sess.Close()
			opts.Progress = func(s string) { fmt.Fprintln(stderr, s) }
			res, err := driver.Verify(ctx, driver.SessionQuerier{Session: sess}, x, opts)
			if res != nil {
				fmt.Fprintln(cmd.OutOrStdout(), res.Summary(conn.space))
			}
			if err != nil {
				return fmt.Errorf("verify stopped: %w", err)
			}
			if !res.OK() {
				for i, m := range res.Mismatches {
					if i == show {
						break
					}
					fmt.Fprintf(cmd.OutOrStdout(), "  space %s: %s\n", conn.space, m)
				}
				if res.MismatchCount > min(show, len(res.Mismatches)) {
					fmt.Fprintf(cmd.OutOrStdout(), "  … %d mismatches in all\n", res.MismatchCount)
				}
				return fmt.Errorf("space %s differs from %s in %d places", conn.space, x.Source, res.MismatchCount)
			}
			return nil
		},
	}
	conn.add(cmd)
	f := cmd.Flags()
	f.StringVar(&data, "data", "", "LDBC CsvComposite directory the space was imported from (nova-importer --ldbc)")
	f.StringVar(&snap, "snap", "", "SNAP edge list the space was imported from (nova-importer --snap)")
	f.BoolVar(&undirected, "undirected", false, "SNAP: each line was imported in both directions")
	f.StringVar(&tag, "tag", "", "SNAP: the tag name (default node)")
	f.StringVar(&edge, "edge", "", "SNAP: the edge type name (default link)")
	f.IntVar(&opts.Sample, "sample", 500, "vertices to sample (distinct, uniform over the files' vertices)")
	f.Int64Var(&opts.Seed, "seed", 1, "sampling seed")
	f.IntVar(&opts.Batch, "batch", 100, "sampled ids per GO / FETCH statement")
	f.BoolVar(&opts.Counts, "counts", true, "also compare the totals of vertices, out-edges and in-edges over every vertex")
	f.IntVar(&opts.CountBatch, "count-batch", 1000, "ids per statement when counting the totals")
	f.DurationVar(&opts.Timeout, "timeout", 2*time.Minute, "timeout of one statement")
	f.IntVar(&opts.Retries, "retries", 2, "retries of a failed statement (a second apart)")
	f.IntVar(&show, "show", 20, "mismatches to list")
	opts.MaxMismatches = 1000
	return cmd
}
