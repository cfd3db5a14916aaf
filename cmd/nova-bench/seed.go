package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/novagraph/novagraph/bench/ldbc/driver"
)

func newSeedCmd() *cobra.Command {
	var (
		conn    connFlags
		data    dataFlags
		load    loadFlags
		queries string
		literal bool
	)
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Run the Q1–Q9 seed workload (a RocksDB graph-store benchmark's queries in nGQL) on a SNAP graph",
		Long: `seed runs the nine queries of the seed workload against graphd, each with the
run/report machinery of nova-bench run:
` + scenarioList(driver.SeedQueries) + `
On a SNAP space (TAG node(), EDGE link(), no properties) the "2 properties" of
Q1, Q2 and Q5 are properties(vertex), properties(edge) and properties($$);
point --data at an LDBC directory and --space at its space for the variants
with real properties (or give --tag-props/--edge-props). Q7 and Q8 scan a
property-less index (<tag>_bench_all, <edge>_bench_all), which the command
creates and rebuilds first if it is missing.`,
		Example: `  nova-bench seed --addr 127.0.0.1:9669 --space slashdot --snap soc-Slashdot0902.txt.gz \
      --concurrency 1,4,16 --duration 20s --out out/seed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := load.parse(cmd); err != nil {
				return err
			}
			qs, err := driver.FindScenarios(driver.SeedQueries, splitList(queries))
			if err != nil {
				return fmt.Errorf("--queries: %w", err)
			}
			g, schema, err := data.load(cmd, false, 0)
			if err != nil {
				return err
			}
			for _, q := range qs {
				if _, err := driver.Prepare(q, schema, literal); err != nil {
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
			rep := &driver.Report{Tool: "seed", Started: time.Now(), Scenarios: map[string]string{}, Config: map[string]any{
				"addr": conn.addr, "space": conn.space, "data": g.Source, "vertices": len(g.Vertices), "edges": len(g.Edges),
				"tag": schema.Tag, "edge": schema.Edge, "tag_props": schema.TagProps, "edge_props": schema.EdgeProps, "literal": literal,
			}}
			load.describe(rep.Config)
			fmt.Fprintf(cmd.ErrOrStderr(), "data: %s, %d vertices, %d edges\n", g.Source, len(g.Vertices), len(g.Edges))
			runErr := novaSweeps(ctx, cmd, &conn, &load, g, schema, qs, literal, sess, pool, nil, rep)
			return finish(cmd, rep, &load, runErr)
		},
	}
	conn.add(cmd)
	data.add(cmd)
	load.add(cmd)
	cmd.Flags().StringVar(&queries, "queries", strings.Join(driver.ScenarioNames(driver.SeedQueries), ","), "comma-separated queries: "+strings.Join(driver.ScenarioNames(driver.SeedQueries), ", "))
	cmd.Flags().BoolVar(&literal, "literal", false, "splice inputs into the statement text instead of sending query parameters")
	return cmd
}
