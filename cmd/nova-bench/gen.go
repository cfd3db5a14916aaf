package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/bench/ldbc/gen"
)

// newGenCmd is `nova-bench gen`: LDBC-SNB-like Person and knows files.
func newGenCmd() *cobra.Command {
	var (
		sf    float64
		seed  int64
		out   string
		shard string
		gz    bool
	)
	cmd := &cobra.Command{
		Use:   "gen --sf 1 --out DIR [--seed 42] [--shard i/n] [--gzip]",
		Short: "Generate LDBC SNB CsvComposite Person and person_knows_person files",
		Long: `Generate person_0_0.csv and person_knows_person_0_0.csv in LDBC SNB
Interactive CsvComposite format (epoch-millisecond dates) at a scale factor in
[0.1, 1000], deterministically from --seed, in constant memory.

With --shard i/n only the persons with index ≡ i (mod n) and the knows rows they
own are generated, into person_i_0.csv and person_knows_person_i_0.csv; the n
shards together are exactly the unsharded data. See bench/ldbc/gen.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return fmt.Errorf("--out is required")
			}
			i, n, err := parseShard(shard)
			if err != nil {
				return err
			}
			persons, knows, err := gen.Sizes(sf)
			if err != nil {
				return fmt.Errorf("invalid --sf %g: %w", sf, err)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()

			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "generating SF%g (seed %d, shard %d/%d): %d persons, ~%d knows in total, into %s\n",
				sf, seed, i, max(n, 1), persons, knows, out)
			start := time.Now()
			st, err := gen.Generate(ctx, gen.Config{
				ScaleFactor: sf, Seed: seed, OutDir: out, Shard: i, Shards: n, Gzip: gz,
			})
			if err != nil {
				return err
			}
			el := time.Since(start)
			rows := st.Persons + st.Knows
			fmt.Fprintf(w, "persons %d, knows %d, bytes %d (%.1f MB), elapsed %s, %.0f rows/s, %.1f MB/s\n",
				st.Persons, st.Knows, st.Bytes, float64(st.Bytes)/1e6, el.Round(time.Millisecond),
				float64(rows)/el.Seconds(), float64(st.Bytes)/1e6/el.Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&sf, "sf", 1, "scale factor, 0.1 to 1000 (SF1: 9,892 persons, 180,623 knows)")
	f.Int64Var(&seed, "seed", 42, "seed; the same (sf, seed) gives byte-identical files")
	f.StringVar(&out, "out", "", "output directory (created if missing)")
	f.StringVar(&shard, "shard", "", `generate only shard i of n, as "i/n" with 0 <= i < n`)
	f.BoolVar(&gz, "gzip", false, "write .csv.gz files")
	return cmd
}

// parseShard parses --shard "i/n"; "" means everything (0, 0).
func parseShard(v string) (i, n int, err error) {
	if v == "" {
		return 0, 0, nil
	}
	bad := fmt.Errorf("invalid --shard %q: want i/n with integers 0 <= i < n, e.g. 0/4", v)
	a, b, ok := strings.Cut(v, "/")
	if !ok {
		return 0, 0, bad
	}
	if i, err = strconv.Atoi(strings.TrimSpace(a)); err != nil {
		return 0, 0, bad
	}
	if n, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
		return 0, 0, bad
	}
	if n < 1 || i < 0 || i >= n {
		return 0, 0, bad
	}
	return i, n, nil
}
